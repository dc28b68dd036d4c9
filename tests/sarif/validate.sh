#!/usr/bin/env bash
# Validates real `pdcheck check --format sarif` output for every example pair:
#   1. against the SARIF 2.1.0 JSON Schema (vendored from @microsoft/sarif-multitool
#      as sarif-2.1.0.schema.json) with Debian's python3-jsonschema;
#   2. with `sarif-multitool validate` (npm @microsoft/sarif-multitool), failing on
#      any error-level result it reports.
# Usage: validate.sh PDCHECK REPO_ROOT TOOLS_DIR. Exit 77 (skip) when npm is absent.
set -uo pipefail
bin=$1 root=$2 tools=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0

cd "$root" || exit 2
pairs=()
for dir in examples/pairs/*/; do
  name=$(basename "$dir")
  NO_COLOR=1 "$bin" check "$dir/prefill.yaml" "$dir/decode.yaml" --format sarif >"$work/$name.sarif"
  code=$?
  if [[ $code != 0 && $code != 1 ]]; then
    echo "FAIL $name: pdcheck exited $code"; status=1; continue
  fi
  pairs+=("$work/$name.sarif")
done
# Several pairs (two RoleBasedGroups in one manifest): one run per pair.
NO_COLOR=1 "$bin" check --isolated --manifest examples/manifests/rolebasedgroup.yaml --format sarif >"$work/manifest.sarif"
pairs+=("$work/manifest.sarif")
# --output writes the same document as --format.
NO_COLOR=1 "$bin" check examples/pairs/page-size-mismatch/prefill.yaml examples/pairs/page-size-mismatch/decode.yaml \
  --output "sarif=$work/via-output.sarif" >/dev/null
cmp -s "$work/via-output.sarif" "$work/page-size-mismatch.sarif" || { echo "FAIL --output sarif differs from --format sarif"; status=1; }

/usr/bin/python3 - "$here/sarif-2.1.0.schema.json" "${pairs[@]}" <<'PY' || status=1
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    doc = json.load(open(path))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print(f"FAIL {path}: {'/'.join(map(str, e.path))}: {e.message}")
    bad += bool(errors)
print(f"schema: {len(sys.argv) - 2 - bad}/{len(sys.argv) - 2} SARIF logs valid")
sys.exit(1 if bad else 0)
PY

if ! command -v npm >/dev/null; then
  echo "SKIP sarif-multitool: npm is not installed (schema validation above still ran)"
  [[ $status == 0 ]] && exit 77 || exit $status
fi
# The platform package's binary directly: the npm wrapper (bin.js) passes its
# arguments through a shell, which splits --rule-kind "Sarif;Gh" at the ';'.
multitool="$tools/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [[ ! -e $multitool ]]; then
  mkdir -p "$tools"
  if ! (cd "$tools" && npm install --no-audit --no-fund --silent @microsoft/sarif-multitool@5 >"$work/npm.log" 2>&1); then
    # A registry npm cannot reach (no route, or a TLS proxy whose CA npm does not
    # trust) is a skip, said as such; an install that fails while the registry
    # answers is a failure.
    if ! (cd "$tools" && timeout 60 npm ping >>"$work/npm.log" 2>&1); then
      echo "SKIP sarif-multitool: npm cannot reach its registry (schema validation above still ran):"
      tail -n 5 "$work/npm.log"
      [[ $status == 0 ]] && exit 77 || exit $status
    fi
    echo "FAIL could not install @microsoft/sarif-multitool from the npm registry:"
    tail -n 20 "$work/npm.log"
    exit 1
  fi
fi
# The Linux package's postinstall (chmod) may be skipped by npm's script policy.
chmod u+x "$multitool" 2>/dev/null
for f in "${pairs[@]}"; do
  out="$f.validation.sarif"
  # The .NET tool wants a writable HOME and no telemetry.
  DOTNET_CLI_TELEMETRY_OPTOUT=1 HOME="$work" "$multitool" validate --output "$out" --log ForceOverwrite --rule-kind "Sarif;Gh" "$f" >"$f.log" 2>&1
  code=$?
  if [[ $code != 0 ]]; then
    echo "FAIL $(basename "$f"): sarif-multitool validate exited $code"; cat "$f.log"; status=1; continue
  fi
  # Its own output is SARIF: any error-level result is a validation failure.
  errors=$(/usr/bin/python3 -c '
import json, sys
doc = json.load(open(sys.argv[1]))
for run in doc.get("runs", []):
    for r in run.get("results", []):
        if r.get("level", "warning") == "error":
            print(r.get("ruleId"), r["message"].get("text", r["message"]))
' "$out")
  if [[ -n $errors ]]; then
    echo "FAIL $(basename "$f"):"; echo "$errors"; status=1
  fi
done
[[ $status == 0 ]] && echo "sarif-multitool: ${#pairs[@]} SARIF logs valid"
exit $status
