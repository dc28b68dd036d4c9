#!/usr/bin/env bash
# The manual renders without warnings and documents every subcommand and every
# long option the CLI accepts (taken from each subcommand's --help).
set -uo pipefail
bin=$1 root=$2
page="$root/man/pdcheck.1"
status=0
warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
if [[ -n $warnings ]]; then
  echo "man page warnings:"; echo "$warnings"; status=1
fi
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
commands=$("$bin" --help | awk '/^Subcommands:/{on=1; next} on && NF {print $1}')
[[ -n $commands ]] || { echo "no subcommands found in --help"; exit 1; }
for cmd in $commands; do
  grep -q "pdcheck $cmd\|^ *$cmd\b" <<<"$text" || { echo "subcommand '$cmd' is not documented"; status=1; }
  for opt in $("$bin" "$cmd" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    [[ $opt == --help ]] && continue
    grep -q -- "$opt" <<<"$text" || { echo "option '$opt' of '$cmd' is not documented"; status=1; }
  done
done
[[ $status == 0 ]] && echo "man page documents $(wc -w <<<"$commands") subcommands"
exit $status
