#!/usr/bin/python3
"""Runs action.yml's steps without GitHub: each composite `run` step with its
env, `${{ inputs.X }}` and `${{ steps.ID.outputs.X }}` expanded, GitHub's
files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH) played by temporary
files; `uses:` steps (the SARIF upload) are checked for their inputs only.

Usage: github_action.py PDCHECK REPO_ROOT
On an incompatible example pair: annotations on the side file, SARIF and
JUnit written, the summary in GITHUB_STEP_SUMMARY, exit-code 1 as an output and
the job failing in the last step; on a compatible pair: every step passes.
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

pdcheck, root = sys.argv[1], sys.argv[2]
os.chdir(root)
with open("action.yml") as f:
    action = yaml.safe_load(f)
failures = 0


def expect(cond, what):
    global failures
    if not cond:
        print("FAIL:", what)
        failures += 1


def run_action(with_inputs, work):
    inputs = {k: str(v.get("default", "")) for k, v in action["inputs"].items()}
    inputs.update(with_inputs)
    files = {name: os.path.join(work, name) for name in ("output", "summary", "path")}
    for path in files.values():
        open(path, "w").close()
    outputs = {}
    steps_outputs = {}
    log = ""
    failed_at = None

    def expand(text):
        text = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], text)
        return re.sub(r"\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}",
                      lambda m: steps_outputs.get(m.group(1), {}).get(m.group(2), ""), text)

    def condition(expr):
        expr = expr.replace("always() && ", "")
        m = re.fullmatch(r"inputs\.([\w-]+) == '(.*)'", expr)
        if m:
            return inputs[m.group(1)] == m.group(2)
        m = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+) != '(.*)'", expr)
        if m:
            return steps_outputs.get(m.group(1), {}).get(m.group(2), "") != m.group(3)
        raise SystemExit(f"unhandled condition: {expr}")

    for step in action["runs"]["steps"]:
        if "if" in step and not condition(step["if"]):
            continue
        if "uses" in step:
            expect(expand(step["with"]["sarif_file"]) == inputs["sarif"], "the upload step takes the sarif input")
            expect(os.path.exists(os.path.join(work, inputs["sarif"])), "the SARIF file exists for the upload")
            continue
        env = dict(os.environ, GITHUB_ACTION_PATH=root, GITHUB_OUTPUT=files["output"],
                   GITHUB_STEP_SUMMARY=files["summary"], GITHUB_PATH=files["path"], PDCHECK=pdcheck,
                   PATH=os.path.dirname(pdcheck) + os.pathsep + os.environ["PATH"])
        env.update({k: expand(str(v)) for k, v in step.get("env", {}).items()})
        proc = subprocess.run(["bash", "-c", expand(step["run"])], cwd=work, env=env, capture_output=True, text=True)
        log += proc.stdout + proc.stderr
        with open(files["output"]) as f:
            steps_outputs[step.get("id", "")] = dict(line.split("=", 1) for line in f.read().splitlines() if "=" in line)
        if proc.returncode != 0:
            failed_at = (step["name"], proc.returncode)
            break
    with open(files["summary"]) as f:
        summary = f.read()
    return log, steps_outputs.get("check", {}), summary, failed_at


with tempfile.TemporaryDirectory() as work:
    # The action runs in the user's checkout: the side files at repository paths.
    os.symlink(os.path.join(root, "examples"), os.path.join(work, "examples"))
    seed = "examples/pairs/seed-mooncake-unified-one-side/"
    log, out, summary, failed_at = run_action({"prefill": seed + "prefill.yaml", "decode": seed + "decode.yaml"}, work)
    expect("::error file=examples/pairs/seed-mooncake-unified-one-side/prefill.yaml,line=7" in log,
           "an annotation on the prefill side file's line")
    expect(out.get("exit-code") == "1" and out.get("verdict") == "incompatible", f"outputs: {out}")
    expect(summary.startswith("## pdcheck: ❌ incompatible"), "the step summary is pdcheck's Markdown")
    expect(os.path.getsize(os.path.join(work, "pdcheck.junit.xml")) > 0, "JUnit written")
    expect(failed_at == ("Fail on incompatibility", 1), f"the job fails in the last step: {failed_at}")
    expect("the prefill/decode pair is incompatible" in log, "the last step says why")

    ok = "examples/pairs/unified-both-sides-works/"
    log, out, summary, failed_at = run_action({"prefill": ok + "prefill.yaml", "decode": ok + "decode.yaml",
                                               "sarif": "ok.sarif", "upload-sarif": "false"}, work)
    expect(out.get("exit-code") == "0" and failed_at is None, f"a compatible pair passes: {out} {failed_at}\n{log}")
    expect(os.path.exists(os.path.join(work, "ok.sarif")), "the sarif input names the file")
    expect(summary.startswith("## pdcheck: ✅ compatible"), "the summary says compatible")

if failures:
    sys.exit(1)
print("action.yml runs as GitHub would run it")
