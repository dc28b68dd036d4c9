#!/bin/sh
# One loopback probe over TCP for one example pair. The expectation comes from
# `pdcheck check` on the same pair:
#   verdict passes                -> the probe verifies (exit 0, verified true)
#   only silent-corruption errors -> the bytes fail verification (exit 1, bad bytes > 0);
#                                    bytes written past a slot may instead leave
#                                    the registered pool when the slot is the
#                                    last one (a 'remote access error', as RDMA
#                                    gives), which is not verified either
#   any other error               -> SGLang refuses or raises before/while sending (exit 1)
# With a fourth argument (the fake CUDA driver library) the state pools live
# in GPU memory (--memory cuda:0, staged through host memory over TCP) and the
# fake driver must report no leaked allocation or context on stderr.
set -u
pdcheck=$1; pair=$2; schema=$3; fake_cuda=${4:-}
out=$(mktemp); err=$(mktemp); trap 'rm -f "$out" "$err"' EXIT
memory=host
if [ -n "$fake_cuda" ]; then
  memory=cuda:0
  PDCHECK_CUDA_LIBRARY=$fake_cuda; export PDCHECK_CUDA_LIBRARY
fi
"$pdcheck" check "$pair/prefill.yaml" "$pair/decode.yaml" --format json > "$out"
expect=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
errors = [f for f in j["findings"] if f["severity"] == "error"]
if not errors:
    print("pass")
elif all(f["rule"] == "silent-outside-slot" for f in errors):
    print("outside")
elif all(f["kind"] == "silent_corruption" for f in errors):
    print("corrupt")
else:
    print("refuse")
' "$out")
"$pdcheck" probe loopback "$pair/prefill.yaml" "$pair/decode.yaml" --transport tcp --slots 2 --requests 1 \
  --timeout 120 --memory "$memory" --format json > "$out" 2> "$err"
rc=$?
if grep -q "fake libcuda:" "$err"; then
  cat "$err"; exit 1
fi
python3 - "$out" "$rc" "$expect" "$schema" "$memory" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
rc, expect, schema_path, memory = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
try:
    import jsonschema
    jsonschema.validate(report, json.load(open(schema_path)))
except ImportError:
    pass
v = report["verification"]
if report["memory"] != memory:
    print(f"memory {report['memory']}, asked for {memory}"); sys.exit(1)
if memory != "host" and report["failure"] is None and report["memory_path"] != "staged":
    print(f"memory_path {report['memory_path']}: TCP must stage GPU memory through host memory"); sys.exit(1)
bad = v["wrong_bytes"] + v["unwritten_bytes"] + v["stray_bytes"]
def fail(msg):
    print(f"expected {expect}: {msg}\n" + json.dumps(report, indent=1)[:4000])
    sys.exit(1)
if report["failure"] is not None:
    fail("the probe could not run: " + report["failure"]["message"])
if expect == "pass":
    if rc != 0 or not report["verified"] or bad:
        fail(f"exit {rc}, verified {report['verified']}, {bad} bad bytes")
elif expect == "corrupt":
    if rc != 1 or report["verified"] or bad == 0:
        fail(f"exit {rc}, verified {report['verified']}, {bad} bad bytes")
elif expect == "outside":
    past_pool = any("remote access error" in (q["transport_error"] or "") for q in report["requests"])
    if rc != 1 or report["verified"] or (bad == 0 and not past_pool):
        fail(f"exit {rc}, verified {report['verified']}, {bad} bad bytes, no write past the pool")
else:
    if rc != 1 or report["verified"]:
        fail(f"exit {rc}, verified {report['verified']}")
    if not report["refusals"] and not any(q["sglang_error"] for q in report["requests"]):
        fail("neither a refusal nor an SGLang error was reported")
print(f"{expect}: exit {rc}, {v['bytes_checked']} bytes checked, {bad} bad")
PY
