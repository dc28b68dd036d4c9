#!/bin/sh
# The --memory cuda:0 path against the real CUDA driver, when this host has
# one: a loopback probe over TCP (staged through host memory) of a pair whose
# TP differs, so re-sliced copies cross the GPU too. Without a driver or a GPU
# the probe exits 3 in the allocate phase, and this test is skipped (77) with
# the probe's own reason: nothing here pretends a GPU was used.
set -u
pdcheck=$1; root=$2
pair=$root/examples/pairs/hetero-tp-scatter-works
out=$(mktemp); trap 'rm -f "$out"' EXIT
unset PDCHECK_CUDA_LIBRARY
"$pdcheck" probe loopback "$pair/prefill.yaml" "$pair/decode.yaml" --transport tcp --memory cuda:0 --slots 3 \
  --requests 3 --timeout 120 --format json > "$out"
rc=$?
python3 - "$out" "$rc" <<'PY'
import json, sys
report, rc = json.load(open(sys.argv[1])), int(sys.argv[2])
failure = report["failure"]
if rc == 3 and failure and failure["phase"] == "allocate" and (
        "cannot load the CUDA driver" in failure["message"] or "finds no GPU" in failure["message"]
        or "the CUDA driver sees no GPU" in failure["message"]):
    print("no CUDA GPU here: " + failure["message"])
    sys.exit(77)
gpu = report["gpu"]
print(f"exit {rc} on {gpu['name'] if gpu else '?'}: verified {report['verified']}, memory_path {report['memory_path']}")
if rc != 0 or not report["verified"] or report["memory_path"] != "staged" or not gpu:
    print(json.dumps(report, indent=1)[:4000])
    sys.exit(1)
PY
