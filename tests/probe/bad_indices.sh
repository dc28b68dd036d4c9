#!/bin/sh
# --bad-state-indices with Mori: 2 reproduces SGLang's message verbatim; 0
# makes Mori skip the component, so verification must say the state never arrived.
set -u
pdcheck=$1; root=$2
pair=$root/examples/pairs/mori-hetero-tp-gdn-corruption
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$pdcheck" probe loopback "$pair/prefill.yaml" "$pair/decode.yaml" --transport tcp --slots 2 --requests 1 \
  --bad-state-indices 2 > "$out"
rc=$?
if [ $rc -ne 1 ] || ! grep -qF "PD state transfer failed: mamba requires single state index, got src=1, dst=2" "$out"; then
  echo "bad-state-indices 2: exit $rc"; cat "$out"; exit 1
fi
"$pdcheck" probe loopback "$pair/prefill.yaml" "$pair/decode.yaml" --transport tcp --slots 2 --requests 1 \
  --bad-state-indices 0 > "$out"
rc=$?
if [ $rc -ne 1 ] || ! grep -qF "never arrived" "$out"; then
  echo "bad-state-indices 0: exit $rc"; cat "$out"; exit 1
fi
echo ok
