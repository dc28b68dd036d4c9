#!/usr/bin/env bash
# Records a real ZMQ PUSH/PULL exchange of the example captures on loopback and
# checks that `pdcheck capture` recovers each message's frames exactly, then
# that `pdcheck check --decode-capture` reads what it wrote.
#   live_loopback.sh RECORDER PDCHECK REPO_ROOT
set -uo pipefail
recorder=$1 pdcheck=$2 root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$root" || exit 1
inputs=(examples/captures/qwen3-next-tp2-rank1-mooncake-components.json
        examples/captures/mori-transfer-info-two-state-indices.json)
port=$((20000 + RANDOM % 20000))
"$recorder" "$work/live.pcap" "$port" "${inputs[@]}"
rc=$?
[[ $rc == 77 ]] && exit 77
[[ $rc == 0 ]] || { echo "recording failed ($rc)"; exit 1; }
"$pdcheck" capture "$work/live.pcap" --port "$port" --out "$work/out" --format json >"$work/summary.json" ||
  { echo "pdcheck capture failed"; cat "$work/summary.json"; exit 1; }
/usr/bin/python3 - "$work/summary.json" "${inputs[@]}" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
if summary["packets"] == 0:
    print("skipped: live capture on lo was allowed but saw no packets (a sandboxed network?)")
    sys.exit(77)
inputs = [json.load(open(p)) for p in sys.argv[2:]]
files = [m["file"] for m in summary["messages"] if m["file"]]
if len(files) != len(inputs):
    sys.exit(f"expected {len(inputs)} capture files, got {len(files)}: {json.dumps(summary['messages'], indent=1)}")
for want, path in zip(inputs, files):
    got = json.load(open(path))
    if got["frames_base64"] != want["frames_base64"] or got["kind"] != want["kind"] or got["backend"] != want["backend"]:
        sys.exit(f"{path}: frames differ from the message that was sent")
flow = [f for f in summary["flows"] if f["verdict"] == "zmtp" and f["messages"]]
if len(flow) != 1 or not flow[0]["complete"] or flow[0]["socket_type"] != "PUSH":
    sys.exit(f"expected one complete PUSH flow: {json.dumps(summary['flows'], indent=1)}")
print(f"recovered {len(files)} message(s) from a live ZMQ exchange")
PY
rc=$?
[[ $rc == 77 ]] && exit 77
[[ $rc == 0 ]] || exit 1
"$pdcheck" check examples/pairs/hetero-tp-scatter-works/prefill.yaml --decode-capture "$work/out" >"$work/check.txt"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { echo "check --decode-capture exited $rc"; cat "$work/check.txt"; exit 1; }
echo "check --decode-capture read the directory (exit $rc)"
