#!/usr/bin/env bash
# Runs examples/ci/pre-rollout.sh against bundled example pairs: a compatible
# pair passes (exit 0) and leaves SARIF, JUnit and JSON reports; an incompatible
# one blocks the rollout (exit 1) with the rule ids named.
set -uo pipefail
bin=$1 root=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
cd "$root" || exit 2
export PDCHECK="$bin"

PDCHECK_REPORT_DIR="$work/ok" examples/ci/pre-rollout.sh \
  examples/pairs/unified-both-sides-works/prefill.yaml examples/pairs/unified-both-sides-works/decode.yaml >"$work/ok.out" 2>&1
code=$?
[[ $code == 0 ]] || { echo "compatible pair: exit $code"; cat "$work/ok.out"; status=1; }
for f in pdcheck.sarif pdcheck.junit.xml pdcheck.json; do
  [[ -s $work/ok/$f ]] || { echo "compatible pair: $f not written"; status=1; }
done

PDCHECK_REPORT_DIR="$work/bad" examples/ci/pre-rollout.sh \
  examples/pairs/seed-mooncake-unified-one-side/prefill.yaml examples/pairs/seed-mooncake-unified-one-side/decode.yaml \
  >"$work/bad.out" 2>&1
code=$?
[[ $code == 1 ]] || { echo "incompatible pair: exit $code, expected 1"; cat "$work/bad.out"; status=1; }
grep -q 'mooncake-layout-no-dims' "$work/bad.out" || { echo "incompatible pair: rule not named"; cat "$work/bad.out"; status=1; }
grep -q 'rollout blocked' "$work/bad.out" || { echo "incompatible pair: no 'rollout blocked' line"; status=1; }

# The workflow files parse as YAML and run pdcheck with SARIF output.
for f in examples/ci/pdcheck-settings.yaml action.yml; do
  /usr/bin/python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$f" || { echo "$f is not valid YAML"; status=1; }
done
for f in examples/ci/github-actions.yml examples/ci/gitlab-ci.yml; do
  /usr/bin/python3 -c 'import sys, yaml; yaml.safe_load(open(sys.argv[1]))' "$f" || { echo "$f is not valid YAML"; status=1; }
  grep -q 'sarif=' "$f" || { echo "$f does not write SARIF"; status=1; }
done

# examples/ci/pdcheck-settings.yaml as a repository's .pdcheck.yaml: a fleet
# adopts pdcheck with a baseline, then only new causes fail.
mkdir -p "$work/repo/deploy" && cp examples/ci/pdcheck-settings.yaml "$work/repo/.pdcheck.yaml"
seed="$root/examples/pairs/seed-mooncake-unified-one-side"
(cd "$work/repo/deploy" && "$bin" check "$seed/prefill.yaml" "$seed/decode.yaml" --write-baseline ../pdcheck-baseline.json -q) \
  >"$work/adopt.out" 2>&1
code=$?
[[ $code == 0 && -s $work/repo/pdcheck-baseline.json ]] || { echo "settings example: --write-baseline exit $code"; cat "$work/adopt.out"; status=1; }
(cd "$work/repo/deploy" && "$bin" check "$seed/prefill.yaml" "$seed/decode.yaml" -q) >"$work/later.out" 2>&1
code=$?
grep -q '1 suppressed: 1 in the baseline' "$work/later.out" && [[ $code == 0 ]] ||
  { echo "settings example: the baseline it names is not applied (exit $code)"; cat "$work/later.out"; status=1; }
grep -q -- '--output gitlab=' examples/ci/gitlab-ci.yml || { echo "gitlab-ci.yml writes no Code Quality report"; status=1; }

# Usage errors are not findings.
examples/ci/pre-rollout.sh >/dev/null 2>&1
code=$?
[[ $code == 2 ]] || { echo "no arguments: exit $code, expected 2"; status=1; }
[[ $status == 0 ]] && echo "pre-rollout example behaves"
exit $status
