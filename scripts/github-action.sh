#!/usr/bin/env bash
# The steps of action.yml, as a script that runs the same on a GitHub runner and
# in tests/sarif/check_github_action.sh (which plays GitHub's part with files).
#   github-action.sh install          pdcheck on PATH, else built from this repository
#   github-action.sh check            annotations on stdout; SARIF, JUnit, step summary;
#                                     exit-code and verdict in $GITHUB_OUTPUT; exits 0
#   github-action.sh verdict CODE     fails with CODE, saying what it means
# Environment: PDCHECK (binary; default pdcheck on PATH), PDCHECK_PREFILL,
# PDCHECK_DECODE, PDCHECK_FAIL_ON, PDCHECK_EXTRA_ARGS, PDCHECK_SARIF,
# PDCHECK_JUNIT, and GitHub's GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
step=${1:-}

case $step in
install)
  if command -v pdcheck >/dev/null; then
    pdcheck --version | head -n1
    exit 0
  fi
  "$here/scripts/setup.sh" build-action || exit $?
  echo "$here/build-action/src" >>"${GITHUB_PATH:?GITHUB_PATH is set by GitHub}"
  "$here/build-action/src/pdcheck" --version | head -n1
  ;;
check)
  pdcheck=${PDCHECK:-pdcheck}
  : "${PDCHECK_PREFILL:?the prefill input is required}" "${PDCHECK_DECODE:?the decode input is required}"
  summary=$(mktemp)
  trap 'rm -f "$summary"' EXIT
  options=(--format github --output "sarif=${PDCHECK_SARIF:-pdcheck.sarif}"
           --output "junit=${PDCHECK_JUNIT:-pdcheck.junit.xml}" --output "markdown=$summary")
  [[ -n ${PDCHECK_FAIL_ON:-} ]] && options+=(--fail-on "$PDCHECK_FAIL_ON")
  read -r -a extra <<<"${PDCHECK_EXTRA_ARGS:-}"
  "$pdcheck" check "$PDCHECK_PREFILL" "$PDCHECK_DECODE" "${options[@]}" "${extra[@]}"
  code=$?
  case $code in
  0) verdict=compatible ;;
  1) verdict=incompatible ;;
  *) verdict=error ;;
  esac
  [[ -s $summary ]] && cat "$summary" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
  { echo "exit-code=$code"; echo "verdict=$verdict"; } >>"${GITHUB_OUTPUT:-/dev/null}"
  # The uploads come after this step: the job fails in the last one.
  exit 0
  ;;
verdict)
  code=${2:?usage: github-action.sh verdict CODE}
  case $code in
  1) echo "pdcheck: the prefill/decode pair is incompatible (see the annotations and the step summary)" ;;
  2) echo "pdcheck: invalid input or usage (exit 2)" ;;
  3) echo "pdcheck: could not check (exit 3)" ;;
  *) echo "pdcheck: exit $code" ;;
  esac
  exit "$code"
  ;;
*)
  echo "usage: $0 install|check|verdict CODE" >&2
  exit 2
  ;;
esac
