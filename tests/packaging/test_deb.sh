#!/usr/bin/env bash
# Builds the .deb with CPack from an existing build tree, unpacks it into a
# temporary root with `dpkg -x`, and checks what an installed system sees:
# `pdcheck --version` runs, `man -w pdcheck` finds the page, the completions are
# where bash-completion and zsh look for them. As root (CI) it then installs the
# package for real with dpkg -i, runs the installed `pdcheck --version` and
# `man -w pdcheck`, and removes it again; a pdcheck package that was installed
# before the test is left alone (the install step is skipped).
#   tests/packaging/test_deb.sh BUILD_DIR
set -uo pipefail
build=${1:?usage: test_deb.sh BUILD_DIR}
build=$(cd "$build" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
status=0

cmake --build "$build" --target pdcheck >/dev/null || { echo "build failed"; exit 1; }
(cd "$build" && cpack -G DEB -B "$root/out" >"$root/cpack.log" 2>&1) || { echo "cpack failed"; cat "$root/cpack.log"; exit 1; }
deb=$(ls "$root"/out/pdcheck_*.deb 2>/dev/null | head -n1)
[[ -n $deb ]] || { echo "no .deb produced"; cat "$root/cpack.log"; exit 1; }
echo "built $(basename "$deb")"
dpkg-deb --info "$deb" | grep -E 'Package|Version|Depends' || true

dpkg -x "$deb" "$root/sys"
for f in usr/bin/pdcheck usr/lib/pdcheck/pdcheck-http.so usr/share/man/man1/pdcheck.1 \
         usr/share/bash-completion/completions/pdcheck \
         usr/share/zsh/vendor-completions/_pdcheck usr/share/fish/vendor_completions.d/pdcheck.fish; do
  [[ -e $root/sys/$f ]] || { echo "missing /$f in the package"; status=1; }
done

version=$("$root/sys/usr/bin/pdcheck" --version) || { echo "pdcheck --version failed"; status=1; }
echo "$version"
grep -q '^pdcheck [0-9]' <<<"$version" || { echo "--version: no version line"; status=1; }
grep -q '^profiles: ' <<<"$version" || { echo "--version: no profiles line"; status=1; }
grep -q '^catalog revision: ' <<<"$version" || { echo "--version: no catalog revision line"; status=1; }

# The HTTP client is a module the installed binary finds in ../lib/pdcheck:
# a request to a plain web server gets that server's 404 back.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$root" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) & server=$!
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" 2>/dev/null && break; sleep 0.1; done
answer=$("$root/sys/usr/bin/pdcheck" fleet --router "http://127.0.0.1:$port" 2>&1)
kill $server 2>/dev/null
grep -q "GET /list_workers answered 404" <<<"$answer" || { echo "the packaged HTTP module did not answer: $answer"; status=1; }
echo "HTTP through the packaged module: ${answer:0:80}"

page=$(MANPATH="$root/sys/usr/share/man" man -w pdcheck 2>&1) || { echo "man -w pdcheck failed: $page"; status=1; }
[[ $page == "$root/sys/usr/share/man/man1/pdcheck.1"* ]] || { echo "man -w found '$page'"; status=1; }
echo "man -w pdcheck: $page"

bash -c 'source "$1" && complete -p pdcheck' _ "$root/sys/usr/share/bash-completion/completions/pdcheck" >/dev/null ||
  { echo "bash completion does not register"; status=1; }
if [[ $(id -u) != 0 ]]; then
  echo "not root: skipped installing the package with dpkg -i"
elif dpkg-query -W -f='${Status}' pdcheck 2>/dev/null | grep -q "install ok installed"; then
  echo "a pdcheck package is already installed: skipped dpkg -i"
else
  if dpkg -i "$deb" >"$root/dpkg.log" 2>&1; then
    installed=$(command -v pdcheck)
    [[ $installed == /usr/bin/pdcheck ]] || { echo "installed pdcheck resolves to '$installed'"; status=1; }
    /usr/bin/pdcheck --version | head -n1 | grep -q '^pdcheck [0-9]' || { echo "installed pdcheck --version failed"; status=1; }
    page=$(man -w pdcheck 2>&1)
    [[ $page == /usr/share/man/man1/pdcheck.1* ]] || { echo "installed: man -w pdcheck found '$page'"; status=1; }
    echo "installed with dpkg -i: $(/usr/bin/pdcheck --version | head -n1), man page $page"
  else
    echo "dpkg -i failed:"; cat "$root/dpkg.log"; status=1
  fi
  dpkg -r pdcheck >/dev/null 2>&1 || { echo "dpkg -r pdcheck failed"; status=1; }
fi

[[ $status == 0 ]] && echo "package OK"
exit $status
