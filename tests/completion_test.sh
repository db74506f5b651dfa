#!/usr/bin/env bash
# The generated completions work: bash completes subcommands, options and
# option values; zsh parses its file. Usage: completion_test.sh BASH_FILE ZSH_FILE
set -euo pipefail
source "$1"
complete_line() {  # words...: the completions offered for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _gpuplan
  echo "${COMPREPLY[*]}"
}
check() {  # expected-word words...
  local want=$1
  shift
  local got
  got=$(complete_line "$@")
  [[ " $got " == *" $want "* ]] || { echo "FAIL: '$*' completes to '$got', not '$want'"; exit 1; }
}
check prices gpuplan pr
check --deadline gpuplan plan --dead
check --explain gpuplan --format json plan --ex
check xlsx gpuplan --format x
check scaling gpuplan fit sc
check --predict gpuplan fit scaling --pre
check validate gpuplan catalog va
check check gpuplan catalog ch
check --range gpuplan sensitivity --ra
zsh -n "$2"
echo "bash completes subcommands, options and values; zsh parses $2"
