#!/bin/sh
# Without RDMA, `pdcheck devices` exits 3 with one message naming why. On a
# host that has devices it must list them and exit 0.
set -u
pdcheck=$1
err=$(mktemp); trap 'rm -f "$err"' EXIT
"$pdcheck" devices --format json > /dev/null 2> "$err"
rc=$?
if [ $rc -eq 0 ]; then
  echo "RDMA devices present: listed"; exit 0
fi
if [ $rc -ne 3 ]; then
  echo "expected exit 3, got $rc"; cat "$err"; exit 1
fi
if ! grep -Eq "no RDMA device: (this kernel has no RDMA support|the kernel supports RDMA but no device)" "$err"; then
  echo "message does not say which:"; cat "$err"; exit 1
fi
if [ "$(wc -l < "$err")" -ne 1 ]; then
  echo "expected one line:"; cat "$err"; exit 1
fi
cat "$err"
