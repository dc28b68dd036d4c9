#!/usr/bin/env bash
# Installs the Debian 12 packages pdcheck needs (only those missing) and builds
# one configuration. Usage: scripts/setup.sh BUILD_DIR [extra cmake args...]
# Sourced knowledge: ../shared/reference/debian-packages.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${1:?usage: scripts/setup.sh BUILD_DIR [cmake args...]}
shift

packages=(g++ cmake ninja-build pkg-config libcli11-dev nlohmann-json3-dev libfmt-dev
          libyaml-cpp-dev catch2 libibverbs-dev libcpp-httplib-dev libpcap-dev python3 python3-jsonschema python3-yaml man-db groff-base
          dpkg-dev file)
# Test-only packages come from the caller (run-tests): PDCHECK_EXTRA_PACKAGES.
read -r -a extra <<<"${PDCHECK_EXTRA_PACKAGES:-}"
packages+=("${extra[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "pdcheck: installing ${missing[*]}" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

mkdir -p "$here/$build_dir"
log="$here/$build_dir/setup.log"
if ! { cmake -S "$here" -B "$here/$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" &&
       cmake --build "$here/$build_dir" -j "$(nproc)"; } >"$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "pdcheck: build failed; full log in $log" >&2
  exit 2
fi
