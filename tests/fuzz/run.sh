#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in a separate build directory and runs
# each for SECONDS (default 10) on a copy of its seed corpus. Exits non-zero on
# the first crash; the reproducer is left in the build directory.
#   tests/fuzz/run.sh 30            # CI: a short bounded run
#   PDCHECK_FUZZ_BUILD=/tmp/fz tests/fuzz/run.sh 3600   # see README.md
#   PDCHECK_FUZZ_TARGETS="pcap side_file" tests/fuzz/run.sh 600   # some targets only
set -euo pipefail
seconds=${1:-10}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${PDCHECK_FUZZ_BUILD:-$root/build-fuzz}
cxx=${CXX_FUZZ:-$(command -v clang++-14 || command -v clang++ || true)}
if [[ -z $cxx ]]; then
  echo "fuzz: no clang++ found (apt-get install clang-14 libclang-rt-14-dev)" >&2
  exit 3
fi
mkdir -p "$build"
# Quiet when it works; the tail of the log when it does not (set -e alone would
# end the run without a word).
if ! { cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
       cmake --build "$build" -j "$(nproc)"; } >"$build/build.log" 2>&1; then
  tail -n 40 "$build/build.log" >&2
  echo "fuzz: building the fuzz targets failed; full log in $build/build.log" >&2
  exit 2
fi
status=0
all_targets="int_lists mooncake_registration mori_registration nixl_registration transfer_info capture_json zmtp
             launch_args shell_script http_answers log_scan side_file manifest model_config pcap probe_messages
             fleet_plan"
for target in ${PDCHECK_FUZZ_TARGETS:-$all_targets}; do
  if [[ " $(echo $all_targets) " != *" $target "* ]]; then
    echo "fuzz: no target '$target' (targets: $(echo $all_targets))" >&2
    exit 2
  fi
  corpus="$build/corpus/$target"
  mkdir -p "$corpus"
  # The committed seeds stay untouched; new inputs go to the build directory.
  cp -n "$here/corpus/$target/"* "$corpus/" 2>/dev/null || true
  dict=()
  [[ -f $here/$target.dict ]] && dict=(-dict="$here/$target.dict")
  echo "fuzz: $target for ${seconds}s"
  if ! (cd "$build" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "./fuzz_$target" "$corpus" "${dict[@]}" -max_total_time="$seconds" -max_len=65536 \
        -print_final_stats=0 -artifact_prefix="$build/crash-$target-" 2>"$build/$target.log"); then
    echo "fuzz: $target failed; see $build/$target.log" >&2
    tail -n 40 "$build/$target.log" >&2
    status=1
  else
    grep -E '^#[0-9]+[[:space:]]+DONE' "$build/$target.log" | tail -n 1 || true
  fi
done
exit $status
