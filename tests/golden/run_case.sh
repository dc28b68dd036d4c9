#!/usr/bin/env bash
# Runs one golden CLI case: PDCHECK REPO_ROOT CASE_DIR. The command line is the
# `cmd` file (shell words, run from the repository root with `pdcheck` as the
# binary); the exit code must equal `exit_code`, stdout must equal the `stdout`
# file when present, and stderr the `stderr` file, or be empty without one.
# To refresh a case after an intended change: PDCHECK_GOLDEN_UPDATE=1 ctest -R golden.
set -uo pipefail
bin=$1 root=$2 case_dir=$3
cd "$root" || exit 2
actual_out=$(mktemp) actual_err=$(mktemp)
trap 'rm -f "$actual_out" "$actual_err"' EXIT
pdcheck() { "$bin" "$@"; }
NO_COLOR=1 eval "pdcheck $(cat "$case_dir/cmd")" >"$actual_out" 2>"$actual_err"
code=$?
if [[ -n ${PDCHECK_GOLDEN_UPDATE:-} ]]; then
  echo "$code" >"$case_dir/exit_code"
  cp "$actual_out" "$case_dir/stdout"
  [[ -s $actual_err ]] && cp "$actual_err" "$case_dir/stderr" || rm -f "$case_dir/stderr"
  exit 0
fi
status=0
expected_code=$(cat "$case_dir/exit_code")
if [[ $code != "$expected_code" ]]; then
  echo "exit code $code, expected $expected_code"; status=1
fi
for stream in stdout stderr; do
  actual=$actual_out; [[ $stream == stderr ]] && actual=$actual_err
  if [[ -f $case_dir/$stream ]]; then
    diff -u "$case_dir/$stream" "$actual" || status=1
  elif [[ $stream == stderr && -s $actual ]]; then
    echo "stderr should be empty (no stderr file in the case)"; status=1
  fi
done
[[ $status == 0 ]] || { echo "--- stderr:"; cat "$actual_err"; }
exit $status
