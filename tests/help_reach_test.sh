#!/usr/bin/env bash
# gpuplan defines only the subcommands an invocation can reach (start-up
# time, issue 18). What a user sees must not change: a group's help lists its
# commands, the top level's help lists every group, help asked before the
# command's name is the command's help, and a usage error names the command.
set -euo pipefail
gpuplan=$1
export NO_COLOR=1
unset COLUMNS
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$("$gpuplan" --help --lang en)
for c in compare estimate plan sensitivity serve prices gpus catalog fit; do
  grep -qE "^  $c( |$)" <<<"$out" || fail "top-level help does not list $c"
done
out=$("$gpuplan" catalog --help --lang en)
for c in validate check import; do grep -qE "^  $c( |$)" <<<"$out" || fail "catalog --help does not list $c"; done
out=$("$gpuplan" fit --help --lang en)
for c in scaling progress mfu; do grep -qE "^  $c( |$)" <<<"$out" || fail "fit --help does not list $c"; done
# Help before the name: the command's help, with its own options.
[ "$("$gpuplan" --help compare --lang en)" = "$("$gpuplan" compare --help --lang en)" ] ||
  fail "gpuplan --help compare differs from gpuplan compare --help"
"$gpuplan" --help compare --lang en | grep -q -- "--monthly" || fail "gpuplan --help compare lacks --monthly"
# A group without its command, and an option of another command: usage errors (exit 2).
rc=0; "$gpuplan" catalog --lang en >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "gpuplan catalog exits $rc, not 2"
rc=0; err=$("$gpuplan" gpus --monthly --lang en 2>&1 >/dev/null) || rc=$?
[ "$rc" = 2 ] || fail "gpuplan gpus --monthly exits $rc, not 2"
grep -q -- "--monthly" <<<"$err" || fail "the error does not name --monthly: $err"
echo "help and usage errors unchanged with only the reachable subcommands defined"
