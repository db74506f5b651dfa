#!/usr/bin/env bash
# examples/budget.sh runs under a plain POSIX shell (dash) and writes the table
# it promises. Usage: budget_test.sh GPUPLAN SRC WORK
set -euo pipefail
gpuplan=$1 src=$2 work=$3
mkdir -p "$work"
export GPUPLAN_TODAY=2026-12-02 GPUPLAN=$gpuplan NO_COLOR=1
out="$work/budget.csv"
rm -f "$out"
cd "$src"
dash examples/budget.sh "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ "$(head -n 1 "$out")" = "gpu,horizon_months,option,total,currency,cheapest,break_even_month,payback_month" ] || fail "header: $(head -n 1 "$out")"
rows=$(($(wc -l < "$out") - 1))
# Four tiers × three horizons, each with buy and at least one way to rent.
[ "$rows" -ge 24 ] || fail "only $rows rows"
# Plain numbers; exactly one cheapest option per tier and horizon.
bad=$(tail -n +2 "$out" | cut -d, -f4 | grep -Ev '^[0-9]+\.[0-9]{2}$' || true)
[ -z "$bad" ] || fail "totals that are not plain numbers: $bad"
[ -z "$(tail -n +2 "$out" | cut -d, -f5 | grep -vx CNY || true)" ] || fail "a currency other than CNY"
per=$(tail -n +2 "$out" | awk -F, '$6 == "yes" { n[$1 "," $2]++ } END { for (k in n) if (n[k] != 1) print k }')
[ -z "$per" ] || fail "not exactly one cheapest option for: $per"
[ "$(tail -n +2 "$out" | awk -F, '$6 == "yes"' | wc -l)" -eq 12 ] || fail "not twelve cheapest options"
# A total is what gpuplan says for the same scenario.
want=$("$gpuplan" compare --set buy.gpu=H800 --set horizon=24mo --set workload.gpus=8 --currency CNY --field options.0.total)
got=$(grep '^H800,24,buy,' "$out" | cut -d, -f4)
[ "$got" = "$want" ] || fail "H800 over 24 months, buy: $got, gpuplan says $want"
# Break-even and payback are per option: buy's own row has neither; the H800 rows against
# renting by the hour are what gpuplan says, and break-even is never after payback.
want=$("$gpuplan" compare --set buy.gpu=H800 --set horizon=24mo --set workload.gpus=8 --currency CNY --field options.1.payback_month)
[ "$want" = null ] && want=""
got=$(grep '^H800,24,rent_hourly,' "$out" | cut -d, -f8)
[ "$got" = "$want" ] || fail "H800 over 24 months, payback against renting by the hour: $got, gpuplan says $want"
[ -z "$(grep ',buy,' "$out" | cut -d, -f7,8 | tr -d ',')" ] || fail "buy rows with a break-even against themselves"
late=$(tail -n +2 "$out" | awk -F, '$7 != "" && $8 != "" && $7 + 0 > $8 + 0')
[ -z "$late" ] || fail "break-even after payback: $late"
# The mode a new file gets under the umask, not mktemp's private 0600.
[ "$(umask 022 && stat -c %a "$out")" = 644 ] || fail "mode $(stat -c %a "$out"), not 644 under umask 022"
# One tier that cannot be priced is reported and skipped; the rest is written; exit 2.
rm -f "$out"
set +e
TIERS="H800 B200" HORIZONS=12 dash examples/budget.sh "$out" 2>"$work/skip.err"
rc=$?
set -e
[ "$rc" -eq 2 ] || fail "a run with one bad tier exited $rc, not 2"
grep -q "B200 over 12 months skipped: gpuplan: --set buy.gpu=B200" "$work/skip.err" || fail "the bad tier is not named: $(cat "$work/skip.err")"
grep -q '^H800,12,buy,' "$out" || fail "the good tier was not written"
grep -q '^B200,' "$out" && fail "the bad tier has rows"
# Killed mid-run: it exits non-zero, the old output is intact, no temporary file is left.
printf 'old budget\n' >"$out"
T="A800-80G H800 H20 RTX4090"; TIERS="$T $T $T $T" dash examples/budget.sh "$out" 2>/dev/null &
pid=$!
sleep 0.3
kill -TERM "$pid"
set +e
wait "$pid"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a killed run exited 0"
[ "$(cat "$out")" = "old budget" ] || fail "a killed run replaced the output: $(head -c 80 "$out")"
ls "$work" | grep -q 'budget.csv\.' && fail "a killed run left a temporary file"
# A failing gpuplan leaves no partial output behind.
rm -f "$out"
if GPUPLAN=false dash examples/budget.sh "$out" 2>/dev/null; then fail "budget.sh succeeded without gpuplan"; fi
[ ! -e "$out" ] || fail "a failed run left $out"
ls "$work" | grep -q 'budget.csv\.' && fail "a failed run left a temporary file"
echo "budget.sh: $rows rows, plain numbers, one cheapest per tier and horizon, totals equal gpuplan's; a bad tier skipped (exit 2); killed: old output kept"
