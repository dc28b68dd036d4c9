#!/usr/bin/env bash
# Pre-rollout gate for an SGLang PD deployment of a hybrid Mamba model: run it
# before rolling out a new prefill or decode configuration (new SGLang version,
# TP size, dtype, flags). It blocks the rollout when pdcheck finds a
# configuration SGLang would refuse, fail on, or silently corrupt state with.
#
#   pre-rollout.sh PREFILL_SIDE.yaml DECODE_SIDE.yaml [extra pdcheck check options]
#
# Environment: PDCHECK (binary, default: pdcheck on PATH), PDCHECK_REPORT_DIR
# (where SARIF, JUnit and JSON reports go, default: ./pdcheck-reports),
# PDCHECK_FAIL_ON (error | warning | info, default: error).
# Exit: 0 rollout may proceed, 1 blocked by findings, 2 usage or invalid input,
# 3 pdcheck could not check.
set -uo pipefail

pdcheck=${PDCHECK:-pdcheck}
reports=${PDCHECK_REPORT_DIR:-pdcheck-reports}
fail_on=${PDCHECK_FAIL_ON:-error}

if [[ $# -lt 2 ]]; then
  echo "usage: $0 PREFILL_SIDE.yaml DECODE_SIDE.yaml [pdcheck check options]" >&2
  exit 2
fi
prefill=$1 decode=$2
shift 2
mkdir -p "$reports" || exit 2

echo "pdcheck: $("$pdcheck" --version | head -n1)"
# One run: the human report on stdout, machine reports for the CI system.
"$pdcheck" check "$prefill" "$decode" --fail-on "$fail_on" --color never \
  --output "sarif=$reports/pdcheck.sarif" \
  --output "junit=$reports/pdcheck.junit.xml" \
  --output "json=$reports/pdcheck.json" "$@"
code=$?

case $code in
  0) echo "pdcheck: rollout may proceed (reports in $reports/)" ;;
  1)
    echo "pdcheck: rollout blocked: incompatible prefill/decode configuration (reports in $reports/)"
    echo "pdcheck: 'pdcheck explain RULE' explains each rule; 'pdcheck explain SERVER.log' explains a failure seen in logs"
    ;;
  2) echo "pdcheck: invalid input; fix the side files or options" >&2 ;;
  *) echo "pdcheck: could not check (exit $code)" >&2 ;;
esac
exit $code
