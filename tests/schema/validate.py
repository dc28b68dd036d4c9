#!/usr/bin/python3
"""Validates pdcheck's real JSON output against the schemas in schemas/.

Usage: validate.py PDCHECK REPO_ROOT [DEVICES_SAMPLE]
Runs every command below and validates its stdout; also checks that every side
file under examples/ validates against side.schema.json, and, with
DEVICES_SAMPLE, the devices report rendered for made-up devices (no machine
here has RDMA). `decode` reads every example capture, every capture `encode`
writes and every seed message of the fuzz corpora (each backend, kind and
generation, dummies included), strictly and as SGLang's parser of each
generation; `bootstrap` runs against a loopback server that answers like each
generation of SGLang's bootstrap server. Exits 1 when a document is invalid,
naming the command and the JSON path.
"""
import glob
import http.server
import json
import os
import struct
import subprocess
import tempfile
import sys
import threading
import urllib.parse

import jsonschema
import yaml

pdcheck, root = sys.argv[1], sys.argv[2]
os.chdir(root)


def load_schema(name):
    with open(os.path.join("schemas", name)) as f:
        return json.load(f)


store = {}
for path in glob.glob("schemas/*.json"):
    schema = load_schema(os.path.basename(path))
    store[schema["$id"]] = schema
    store[os.path.basename(path)] = schema


def validator(name):
    schema = store[name]
    resolver = jsonschema.RefResolver(base_uri=schema["$id"], referrer=schema, store=store)
    return jsonschema.Draft202012Validator(schema, resolver=resolver)


failures = 0


def check(name, document, what):
    global failures
    errors = sorted(validator(name).iter_errors(document), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"{what}: {'/'.join(map(str, e.path))}: {e.message}")
        failures += 1
    if not errors:
        print(f"ok: {what}")


def run(args, allowed=(0, 1)):
    proc = subprocess.run([pdcheck] + args, capture_output=True, text=True)
    if proc.returncode not in allowed:
        print(f"pdcheck {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
        sys.exit(1)
    return json.loads(proc.stdout)


pairs = sorted(glob.glob("examples/pairs/*/"))
# A baseline written by --write-baseline, and a report with every kind of
# suppression (advice hidden, an ignored rule, causes in the baseline).
with tempfile.TemporaryDirectory() as tmp:
    seed = "examples/pairs/seed-mooncake-unified-one-side/"
    baseline = os.path.join(tmp, "baseline.json")
    subprocess.run([pdcheck, "check", seed + "prefill.yaml", seed + "decode.yaml", "--isolated", "--write-baseline",
                    baseline, "-q"], check=True, capture_output=True)
    with open(baseline) as f:
        check("baseline.schema.json", json.load(f), "check --write-baseline")
    scatter = "examples/pairs/hetero-tp-scatter-works/"
    check("report.schema.json", run(["check", scatter + "prefill.yaml", scatter + "decode.yaml", "--isolated",
                                     "--format", "json"]), "check with hidden advice")
    check("report.schema.json", run(["check", seed + "prefill.yaml", seed + "decode.yaml", "--isolated",
                                     "--baseline", baseline, "--format", "json"]), "check --baseline")
for pair in pairs:
    check("report.schema.json", run(["check", pair + "prefill.yaml", pair + "decode.yaml", "--format", "json"]),
          f"check {pair}")
    for side in ("prefill.yaml", "decode.yaml"):
        check("layout.schema.json", run(["layout", pair + side, "--format", "json"]), f"layout {pair}{side}")
        with open(pair + side) as f:
            check("side.schema.json", yaml.safe_load(f), f"side file {pair}{side}")
# Manifests: one pair is a plain report, several are pairs.schema.json.
for manifest in sorted(glob.glob("examples/manifests/*.yaml")):
    # --model: the OME and Helm examples name the model by a path inside the pod.
    doc = run(["check", "--manifest", manifest, "--model", "qwen3-next-80b-a3b", "--isolated", "--format", "json"])
    several = isinstance(doc.get("pairs"), list)
    check("pairs.schema.json" if several else "report.schema.json", doc, f"check --manifest {manifest}")
for plan in sorted(glob.glob("examples/fleet/plan*.yaml")):
    with open(plan) as f:
        check("fleet-plan.schema.json", yaml.safe_load(f), f"fleet plan {plan}")
for extra in sorted(glob.glob("examples/sides/*.yaml") + glob.glob("examples/sides/*.json")):
    with open(extra) as f:
        check("side.schema.json", yaml.safe_load(f), f"side file {extra}")
    check("layout.schema.json", run(["layout", extra, "--format", "json"]), f"layout {extra}")
check("layout.schema.json", run(["layout", "--model", "kimi-linear-48b-a3b", "--tp", "4", "--enable-unified-memory",
                                  "--format", "json"]), "layout kimi unified")
check("layout.schema.json", run(["layout", "--model", "nemotron-h-8b", "--tp", "16", "--format", "json"]),
      "layout nemotron tp16 (not servable)")
for log in sorted(glob.glob("examples/logs/*")):
    check("explain.schema.json", run(["explain", log, "--format", "json"]), f"explain {log}")
check("explain.schema.json", run(["explain", "--format", "json"] + sorted(glob.glob("examples/logs/*"))),
      "explain every example log at once")
rules = run(["rules", "--format", "json"], allowed=(0,))
check("rules.schema.json", rules, "rules")
for rule in rules["rules"]:
    check("rule.schema.json", run(["explain", rule["id"], "--format", "json"], allowed=(0,)), f"explain {rule['id']}")
# Rollouts and matrices: every example rollout, and a grid on each axis.
for example in sorted(glob.glob("examples/rollout/*/")):
    for extra in (["--to", "0.5.20"], ["--decode-to", "0.5.20", "--change", "both:--page-size 16"]):
        check("rollout.schema.json", run(["rollout", example + "prefill.yaml", example + "decode.yaml",
                                          "--format", "json"] + extra), f"rollout {example} {' '.join(extra)}")
check("report.schema.json", run(["check", "examples/pairs/nemotron-hetero-tp-conv-corruption/prefill.yaml",
                                 "examples/pairs/nemotron-hetero-tp-conv-corruption/decode.yaml", "--isolated",
                                 "--suggest", "--format", "json"]), "check --suggest")
check("rollout.schema.json", run(["rollout", "--manifest", "examples/manifests/rolebasedgroup.yaml", "--to", "0.5.12",
                                  "--format", "json"]), "rollout --manifest with two groups")
check("matrix.schema.json", run(["matrix", "--model", "qwen3-next-80b-a3b", "--format", "json"], allowed=(0,)),
      "matrix on the release axis")
# The heat map parses as SVG (and the page as XHTML-compatible markup holding it)
# and has one cell per pair whose outcome is the JSON grid's.
import xml.etree.ElementTree as ET
grid = run(["matrix", "--model", "lfm2-2.6b", "--versions", "0.5.10..0.5.21", "--format", "json"], allowed=(0,))
svg_text = subprocess.run([pdcheck, "matrix", "--model", "lfm2-2.6b", "--versions", "0.5.10..0.5.21", "--format", "svg"],
                          capture_output=True, text=True, check=True).stdout
ns = {"svg": "http://www.w3.org/2000/svg"}
rects = [r for r in ET.fromstring(svg_text).findall("svg:rect", ns) if r.get("class") == "cell"]
expected = {(c["prefill"], c["decode"]): c["outcome"] for c in grid["cells"]}
seen = {(r.get("data-prefill"), r.get("data-decode")): r.get("data-outcome") for r in rects}
if len(rects) != len(grid["labels"]) ** 2 or seen != expected:
    print(f"matrix --format svg: {len(rects)} cells, outcomes {'agree' if seen == expected else 'differ'} with the JSON grid")
    failures += 1
else:
    print(f"ok: matrix --format svg ({len(rects)} cells agree with the JSON grid)")
html_text = subprocess.run([pdcheck, "matrix", "--model", "lfm2-2.6b", "--versions", "0.5.10..0.5.21", "--format", "html"],
                           capture_output=True, text=True, check=True).stdout
if svg_text not in html_text or not html_text.startswith("<!DOCTYPE html>"):
    print("matrix --format html does not hold the SVG heat map")
    failures += 1
check("matrix.schema.json", run(["matrix", "--model", "nemotron-h-8b", "--tp", "1,2,4,8,16", "--backend", "mori",
                                 "--format", "json"], allowed=(0,)), "matrix on the TP axis")
check("models.schema.json", run(["models", "--format", "json"], allowed=(0,)), "models")
check("profiles.schema.json", run(["profiles", "--format", "json"], allowed=(0,)), "profiles")

# Every generation each backend ever sent (wire::generation_supported).
GENERATIONS = {"mooncake": ["pre-dims", "flat", "components", "components-layouts"],
               "mori": ["flat", "components"],
               "nixl": ["pre-dims", "flat", "components"]}


def check_decode(cap, what):
    """Decodes a capture strictly, then as SGLang's parser of every generation of its backend reads it."""
    with open(cap) as f:
        doc = json.load(f)
    check("capture.schema.json", doc, f"{what} (capture file)")
    check("decode.schema.json", run(["decode", cap, "--format", "json"], allowed=(0,)), f"decode {what}")
    check("decode.schema.json", run(["decode", cap, "--mode", "sglang", "--format", "json"]),
          f"decode --mode sglang {what}")
    for generation in GENERATIONS[doc["backend"]]:
        check("decode.schema.json", run(["decode", cap, "--mode", "sglang", "--generation", generation,
                                         "--format", "json"]),
              f"decode --mode sglang --generation {generation} {what}")


for cap in sorted(glob.glob("examples/captures/*.json")):
    check_decode(cap, cap)
import base64
with tempfile.TemporaryDirectory() as out:
    summary = run(["capture", "tests/data/capture/zmq-loopback-push-pull.pcap", "--out", out, "--format", "json"],
                  allowed=(0,))
    check("capture-summary.schema.json", summary, "pdcheck capture summary of zmq-loopback-push-pull.pcap")
    for cap in sorted(glob.glob(out + "/*.json")):
        check_decode(cap, f"pdcheck capture output {os.path.basename(cap)}")
with tempfile.TemporaryDirectory() as out:
    for backend, generations in GENERATIONS.items():
        for generation in generations:
            cap = os.path.join(out, f"encode-{backend}-{generation}.json")
            with open(cap, "w") as f:
                json.dump(run(["encode", "examples/bootstrap/decode.yaml", "--rank", "1", "--backend", backend,
                               "--generation", generation, "--hex"], allowed=(0,)), f)
            check_decode(cap, f"pdcheck encode --backend {backend} --generation {generation} --hex")
    # The fuzz seeds (tests/fuzz/make_corpus.py): each frame a little-endian u16
    # length and its bytes; a transfer_info seed starts with a byte choosing the backend.
    seeds = []
    for backend in GENERATIONS:
        for path in sorted(glob.glob(f"tests/fuzz/corpus/{backend}_registration/*")):
            seeds.append((path, backend, "registration", 0))
    for path in sorted(glob.glob("tests/fuzz/corpus/transfer_info/*")):
        with open(path, "rb") as f:
            seeds.append((path, list(GENERATIONS)[f.read(1)[0] % 3], "transfer_info", 1))
    for path, backend, kind, skip in seeds:
        with open(path, "rb") as f:
            data = f.read()[skip:]
        frames = []
        while data:
            (n,) = struct.unpack_from("<H", data)
            frames.append(data[2:2 + n])
            data = data[2 + n:]
        cap = os.path.join(out, f"seed-{kind}-{backend}-{os.path.basename(path)}.json")
        with open(cap, "w") as f:
            json.dump({"backend": backend, "kind": kind,
                       "frames_base64": [base64.b64encode(frame).decode("ascii") for frame in frames]}, f)
        check_decode(cap, f"fuzz seed {path} ({backend} {kind})")


class BootstrapServer(http.server.ThreadingHTTPServer):
    """Answers GET /health and GET /route on 127.0.0.1 like one generation of
    SGLang's bootstrap server (the rules of tests/unit/io/test_bootstrap_client.cpp),
    from a folder of recorded bodies."""

    def __init__(self, answer):
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                query = {k: v[0] for k, v in urllib.parse.parse_qs(url.query, keep_blank_values=True).items()}
                status, body = answer(url.path, query)
                body = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8" if body[:1] == b"{"
                                 else "text/plain; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        self.daemon_threads = True
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


def body(path):
    with open(path) as f:
        return f.read()


def recorded(path, q):
    """examples/bootstrap/server/, a ready server of the server-info generation."""
    here = "examples/bootstrap/server/"
    if path == "/health":
        return 200, body(here + "health.txt")
    ranks = [q.get(k, "") for k in ("prefill_dp_rank", "prefill_cp_rank", "target_tp_rank", "target_pp_rank")]
    if path != "/route" or "" in ranks:
        return 404, "404: Not Found"
    if ranks == ["-1"] * 4:
        return 200, body(here + "route-info.json")
    name = here + "route-dp{}-cp{}-tp{}-pp{}.json".format(*ranks)
    if os.path.exists(name):
        return 200, body(name)
    return 404, "Bootstrap info not found for dp_rank={} cp_rank={} tp_rank={} pp_rank={}".format(*ranks)


def emulated(generation, folder, missing_tp=()):
    """A server of `generation` serving tests/data/bootstrap/FOLDER."""
    keys = {"tp-dp": ["engine_rank", "target_dp_group"],
            "attn-tp-pp": ["engine_rank", "target_dp_group", "target_pp_rank"],
            "server-info": ["prefill_dp_rank", "prefill_cp_rank", "target_tp_rank", "target_pp_rank"]}[generation]
    here = f"tests/data/bootstrap/{folder}/"

    def answer(path, q):
        if path == "/health":
            return (404, "404: Not Found") if generation == "tp-dp" else (200, "OK")
        if path != "/route":
            return 404, "404: Not Found"
        if any(not q.get(k) for k in keys):
            return 400, "Missing inputs for bootstrap server."
        if all(q[k] == "-1" for k in keys):
            return 200, body(here + "info.json")
        tp = int(q["target_tp_rank" if generation == "server-info" else "engine_rank"])
        if tp in missing_tp or tp > 1:
            if generation == "server-info":
                return 404, "Bootstrap info not found for dp_rank={} cp_rank={} tp_rank={} pp_rank={}".format(
                    q["prefill_dp_rank"], q["prefill_cp_rank"], tp, q["target_pp_rank"])
            return 500, body("tests/data/bootstrap/tp-dp/rank-missing-500.txt")
        return 200, body(here + f"rank-tp{tp}.json")

    return answer


for answer, decode, extra, what in [
        (recorded, "examples/bootstrap/decode.yaml", [], "recorded server (compatible)"),
        (recorded, "examples/bootstrap/decode-page-size-1.yaml", [], "recorded server (page size mismatch)"),
        (emulated("tp-dp", "tp-dp"), "examples/bootstrap/decode.yaml", [], "tp-dp server, no /health"),
        (emulated("attn-tp-pp", "attn-tp-pp"), "examples/bootstrap/decode.yaml", [], "attn-tp-pp server"),
        (emulated("server-info", "server-info-7"), "examples/bootstrap/decode.yaml", [], "server-info-7 server"),
        (emulated("server-info", "future"), "examples/bootstrap/decode.yaml", [], "server with unknown keys"),
        (emulated("server-info", "server-info-15", missing_tp=(1,)), "examples/bootstrap/decode.yaml",
         ["--timeout", "1", "--fail-on", "warning"], "server whose tp 1 never registers")]:
    server = BootstrapServer(answer)
    check("bootstrap.schema.json", run(["bootstrap", server.url(), decode, "--format", "json"] + extra),
          f"bootstrap {what}")
    server.shutdown()
    server.server_close()
# A router and its workers: fleet's report, and check --prefill-url/--decode-url's.
def server_info(name):
    return lambda path, q: ((200, body(f"tests/data/server_info/{name}")) if path == "/server_info"
                            else (404, "Not Found"))


workers = [BootstrapServer(server_info(n)) for n in ("prefill-0.5.20.json", "decode-0.5.20.json",
                                                     "decode-0.5.5.post3.json")]
listing = json.dumps({"workers": [{"url": workers[0].url(), "worker_type": "prefill", "bootstrap_port": 8998},
                                  {"url": workers[1].url(), "worker_type": "decode"},
                                  {"url": workers[2].url(), "worker_type": "decode"},
                                  {"url": "http://127.0.0.1:9", "worker_type": "decode"}]})
router = BootstrapServer(lambda path, q: (200, listing) if path == "/workers" else (404, "Not Found"))
check("fleet.schema.json", run(["fleet", "--router", router.url(), "--timeout", "2", "--format", "json"]),
      "fleet with a worker down and a rollout half-way")
check("report.schema.json", run(["check", "--prefill-url", workers[0].url(), "--decode-url", workers[2].url(),
                                 "--isolated", "--format", "json"]), "check --prefill-url --decode-url")
for s in workers + [router]:
    s.shutdown()
    s.server_close()
if len(sys.argv) > 3:
    sample = subprocess.run([sys.argv[3]], capture_output=True, text=True, check=True)
    check("devices.schema.json", json.loads(sample.stdout), "devices report of made-up devices")
# This machine's own devices: none here (exit 3, the reason in the document), a list where there is RDMA.
check("devices.schema.json", run(["devices", "--format", "json"], allowed=(0, 3)), "devices on this machine")
sys.exit(1 if failures else 0)
