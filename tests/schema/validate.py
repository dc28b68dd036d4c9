#!/usr/bin/python3
"""Validates pdcheck's real JSON output against the schemas in schemas/.

Usage: validate.py PDCHECK REPO_ROOT [DEVICES_SAMPLE]
Runs every command below and validates its stdout; also checks that every side
file under examples/ validates against side.schema.json, and, with
DEVICES_SAMPLE, the devices report rendered for made-up devices (no machine
here has RDMA). Exits 1 on the first
invalid document, naming the command and the JSON path.
"""
import glob
import json
import os
import subprocess
import sys

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
for pair in pairs:
    check("report.schema.json", run(["check", pair + "prefill.yaml", pair + "decode.yaml", "--format", "json"]),
          f"check {pair}")
    for side in ("prefill.yaml", "decode.yaml"):
        check("layout.schema.json", run(["layout", pair + side, "--format", "json"]), f"layout {pair}{side}")
        with open(pair + side) as f:
            check("side.schema.json", yaml.safe_load(f), f"side file {pair}{side}")
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
for cap in sorted(glob.glob("examples/captures/*.json")):
    with open(cap) as f:
        check("capture.schema.json", json.load(f), f"capture file {cap}")
import tempfile
with tempfile.TemporaryDirectory() as out:
    run(["capture", "tests/data/capture/zmq-loopback-push-pull.pcap", "--out", out, "--format", "json"], allowed=(0,))
    for cap in sorted(glob.glob(out + "/*.json")):
        with open(cap) as f:
            check("capture.schema.json", json.load(f), f"pdcheck capture output {os.path.basename(cap)}")
if len(sys.argv) > 3:
    sample = subprocess.run([sys.argv[3]], capture_output=True, text=True, check=True)
    check("devices.schema.json", json.loads(sample.stdout), "devices report of made-up devices")
sys.exit(1 if failures else 0)
