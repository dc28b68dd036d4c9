#!/bin/sh
# The two-host form as two processes on this host: `probe serve` (decode end)
# and `probe send` (prefill end) over TCP on 127.0.0.1. The decode end keeps its
# pools in (fake) GPU memory and the prefill in host memory, as on a mixed
# pair of hosts. Both reports must verify and match the schema; a send to a
# port nobody listens on must be "could not run" (exit 3) naming the phase.
set -u
pdcheck=$1; root=$2; fake_cuda=$3
pair=$root/examples/pairs/hetero-tp-scatter-works
schema=$root/schemas/probe.schema.json
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
# In the ASan build, LeakSanitizer still looks for leaks in the decode end but
# does not scan thread-local storage there: GCC 12's LSan reads a garbage entry
# of glibc 2.36's dynamic TLS vector in this process (which dlopens the fake
# libcuda, a module with a thread_local) and dies in its own tracer ("Tracer
# caught signal 11", "DTLS 6 at 0x000000000cfa-0x000800001dfc") after the probe
# has verified. It began when a run stopped building every command's options:
# fewer allocations before the probe, nothing else allocated differently.
LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}use_tls=0 \
PDCHECK_CUDA_LIBRARY=$fake_cuda "$pdcheck" probe serve "$pair/decode.yaml" --listen "127.0.0.1:$port" \
  --transport tcp --memory cuda:0 --slots 3 --requests 2 --timeout 60 --format json > "$dir/decode.json" \
  2> "$dir/decode.err" &
serve_pid=$!
# The listener may take a moment to bind: retry the connect while it is not there yet.
tries=0
while :; do
  "$pdcheck" probe send "$pair/prefill.yaml" --connect "127.0.0.1:$port" --transport tcp --slots 3 \
    --requests 2 --timeout 60 --format json > "$dir/prefill.json" 2> "$dir/prefill.err"
  send_rc=$?
  if [ $send_rc -ne 3 ] || ! grep -q 'cannot connect' "$dir/prefill.json" || [ $tries -ge 50 ]; then
    break
  fi
  tries=$((tries + 1)); sleep 0.2
done
wait $serve_pid
serve_rc=$?
python3 - "$dir" "$serve_rc" "$send_rc" "$schema" <<'PY'
import json, sys
d, serve_rc, send_rc, schema_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
import jsonschema
schema = json.load(open(schema_path))
reports = {}
for end in ("decode", "prefill"):
    r = json.load(open(f"{d}/{end}.json"))
    jsonschema.validate(r, schema)
    reports[end] = r
dec, pre = reports["decode"], reports["prefill"]
problems = []
if serve_rc != 0 or send_rc != 0:
    problems.append(f"exit codes: serve {serve_rc}, send {send_rc}")
for end, r, memory, path in (("decode", dec, "cuda:0", "staged"), ("prefill", pre, "host", "host")):
    if r["role"] != end or not r["verified"] or r["failure"] is not None:
        problems.append(f"{end}: role {r['role']}, verified {r['verified']}, failure {r['failure']}")
    if r["memory"] != memory or r["memory_path"] != path:
        problems.append(f"{end}: memory {r['memory']} / {r['memory_path']}, expected {memory} / {path}")
if dec["verification"]["bytes_checked"] == 0 or dec["verification"]["bytes_checked"] != pre["transfer"]["bytes"]:
    problems.append(f"decode checked {dec['verification']['bytes_checked']} bytes, prefill wrote {pre['transfer']['bytes']}")
if len(dec["requests"]) != 2 or len(pre["requests"]) != 2:
    problems.append("expected 2 requests on each end")
if problems:
    print("\n".join(problems))
    for end in ("decode", "prefill"):
        print(f"--- {end}\n" + open(f"{d}/{end}.err").read())
    sys.exit(1)
print(f"serve/send: verified on both ends, {dec['verification']['bytes_checked']} bytes")
PY
[ $? -eq 0 ] || exit 1
if grep -q "fake libcuda:" "$dir/decode.err"; then
  cat "$dir/decode.err"; exit 1
fi

# Nobody listens: exit 3 in the handshake phase, one report, no hang.
port=$(free_port)
"$pdcheck" probe send "$pair/prefill.yaml" --connect "127.0.0.1:$port" --transport tcp --timeout 5 \
  --format json > "$dir/refused.json" 2> "$dir/refused.err"
rc=$?
python3 - "$dir/refused.json" "$rc" <<'PY'
import json, sys
r, rc = json.load(open(sys.argv[1])), int(sys.argv[2])
f = r["failure"]
if rc != 3 or r["exit_code"] != 3 or not f or f["phase"] != "handshake" or "refused" not in f["message"]:
    print(f"unreachable peer: exit {rc}, failure {f}"); sys.exit(1)
print("unreachable peer: " + f["message"])
PY
