#!/bin/sh
# The progress line: drawn on stderr when it is a terminal (script(1) gives the
# probe a pseudo-terminal), never when stderr is a pipe or a file.
set -u
pdcheck=$1; root=$2
pair=$root/examples/pairs/hetero-tp-scatter-works
out=$(mktemp); err=$(mktemp); trap 'rm -f "$out" "$err"' EXIT
args="probe loopback $pair/prefill.yaml $pair/decode.yaml --transport tcp --slots 3 --requests 3"
if ! command -v script >/dev/null; then
  echo "script(1) not found (bsdutils)"; exit 77
fi
script -qec "$pdcheck $args --format json >$out" /dev/null >"$err" 2>&1
rc=$?
if [ $rc -ne 0 ] || ! grep -q "pdcheck probe: request 3/3 · [0-9.]* MB verified" "$err"; then
  echo "terminal: exit $rc, no final progress line:"; cat "$err"; exit 1
fi
"$pdcheck" $args --format json >"$out" 2>"$err"
if [ -s "$err" ]; then
  echo "a progress line was drawn into a file:"; cat "$err"; exit 1
fi
echo ok
