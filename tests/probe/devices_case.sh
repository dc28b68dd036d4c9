#!/bin/sh
# Without RDMA, `pdcheck devices` exits 3 with one message naming why, and
# with --format json still prints a JSON document with that reason (scripts
# parse stdout). On a host that has devices it must list them and exit 0.
set -u
pdcheck=$1
err=$(mktemp) out=$(mktemp); trap 'rm -f "$err" "$out"' EXIT
"$pdcheck" devices --format json > "$out" 2> "$err"
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
if ! /usr/bin/python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
line = open(sys.argv[2]).read().strip()
assert doc["devices"] == [] and line == "pdcheck: cannot run: " + doc["error"], (doc, line)
' "$out" "$err"; then
  echo "stdout is not the JSON document with the same reason:"; cat "$out"; exit 1
fi
cat "$err"

# Without libibverbs itself (it is loaded on first use, not linked): the same
# outcome, naming the library.
PDCHECK_IBVERBS_LIBRARY=/nonexistent/libibverbs.so.1 "$pdcheck" devices > "$out" 2> "$err"
rc=$?
expected="pdcheck: cannot run: open-device: no RDMA device: libibverbs cannot be loaded (/nonexistent/libibverbs.so.1: cannot open shared object file: No such file or directory); check: that rdma-core's libibverbs1 is installed, or use --transport tcp"
if [ $rc -ne 3 ] || [ "$(cat "$err")" != "$expected" ]; then
  echo "without libibverbs: exit $rc, expected 3 and:"; echo "$expected"; echo "got:"; cat "$err"; exit 1
fi
cat "$err"
