#!/usr/bin/env bash
# The committed completions/ are what `pdcheck completion` generates from the CLI
# definition, and the bash script loads and completes. To refresh after a CLI change:
#   pdcheck completion bash > completions/pdcheck.bash; pdcheck completion zsh > completions/_pdcheck
#   pdcheck completion fish > completions/pdcheck.fish
set -uo pipefail
bin=$1 root=$2
status=0
diff -u "$root/completions/pdcheck.bash" <("$bin" completion bash) || { echo "completions/pdcheck.bash is stale"; status=1; }
diff -u "$root/completions/_pdcheck" <("$bin" completion zsh) || { echo "completions/_pdcheck is stale"; status=1; }
diff -u "$root/completions/pdcheck.fish" <("$bin" completion fish) || { echo "completions/pdcheck.fish is stale"; status=1; }
# The bash script completes subcommands and --format choices.
got=$(bash -c '
  source "$1"
  COMP_WORDS=(pdcheck ch); COMP_CWORD=1; _pdcheck; echo "${COMPREPLY[*]}"
  COMP_WORDS=(pdcheck check --format s); COMP_CWORD=3; _pdcheck; echo "${COMPREPLY[*]}"
  COMP_WORDS=(pdcheck explain bootstrap-p); COMP_CWORD=2; _pdcheck; echo "${COMPREPLY[*]}"
  COMP_WORDS=(pdcheck check --ignore mooncake-layout-n); COMP_CWORD=3; _pdcheck; echo "${COMPREPLY[*]}"
  COMP_WORDS=(pdcheck check --model nemotron-nano-9b); COMP_CWORD=3; _pdcheck; echo "${COMPREPLY[*]}"
  COMP_WORDS=(pdcheck check --decode-sglang pre-d); COMP_CWORD=3; _pdcheck; echo "${COMPREPLY[*]}"
' _ "$root/completions/pdcheck.bash")
expected=$'check\nsarif\nbootstrap-page-size bootstrap-pp-size\nmooncake-layout-no-dims\nnemotron-nano-9b-v2\npre-dims'
[[ $got == "$expected" ]] || { echo "bash completion gave:"; echo "$got"; echo "expected:"; echo "$expected"; status=1; }
if command -v zsh >/dev/null; then
  zsh -n "$root/completions/_pdcheck" || { echo "completions/_pdcheck has a syntax error"; status=1; }
fi
[[ $status == 0 ]] && echo "completions up to date"
exit $status
