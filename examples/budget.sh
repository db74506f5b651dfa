#!/bin/sh
# A budget table for finance: for each GPU tier and planning horizon, what
# eight cards cost over the horizon when bought, rented by the hour, by the
# month or on spot (whatever the catalog offers for the tier), which is
# cheapest, and against each option the months in which owning breaks even
# (counting what the hardware is still worth) and pays back (cash alone).
#
#   examples/budget.sh [OUTPUT.csv]            (default: budget.csv)
#   GPUPLAN=build/release/apps/gpuplan TIERS="A800-80G H800" examples/budget.sh /tmp/budget.csv
#
# Exit status: 0 every tier written; 2 written without the tiers named on
# standard error (each failed tier is reported and skipped, not fatal);
# 1 nothing written (no tier worked, or an error), the old OUTPUT left as it was.
#
# A model for scripts that call gpuplan: POSIX sh; every value comes from
# --field (`options.*.total` is every option's total, one a line), never from
# cutting CSV apart (a label may hold a comma); every gpuplan status is
# checked; the output is written whole (a temporary file beside it, renamed
# into place) or not at all, and an interrupted run exits without publishing.
set -eu

GPUPLAN=${GPUPLAN:-gpuplan}
out=${1:-budget.csv}
# Cards a Chinese team can rent in China (rent.regions defaults to CN).
tiers=${TIERS:-"A800-80G H800 H20 RTX4090"}
horizons=${HORIZONS:-"12 24 36"}

tmp=$(mktemp "${out}.XXXXXX")
err=$(mktemp "${out}.err.XXXXXX")
cleanup() { rm -f "$tmp" "$err"; }
trap cleanup EXIT
# A signal removes the temporary files and ends the run (130/143, as the shell would).
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

# The Nth line (1-based) of a text.
line() { printf '%s\n' "$1" | sed -n "${2}p"; }

echo "gpu,horizon_months,option,total,currency,cheapest,break_even_month,payback_month" >"$tmp"
written=0 skipped=""
for gpu in $tiers; do
  for months in $horizons; do
    # The same scenario for every call: eight cards of this tier over this horizon.
    set -- compare --set "buy.gpu=$gpu" --set "horizon=${months}mo" --set workload.gpus=8 --currency CNY
    if ! values=$("$GPUPLAN" "$@" --field currency --field cheapest --field 'options.*.option' \
      --field 'options.*.total' --field 'options.*.break_even_month' --field 'options.*.payback_month' 2>"$err"); then
      echo "budget.sh: $gpu over $months months skipped: $(cat "$err")" >&2
      skipped="$skipped $gpu/${months}mo"
      continue
    fi
    # Two lines (currency, cheapest), then four blocks of one line per option.
    currency=$(line "$values" 1)
    cheapest=$(line "$values" 2)
    n=$((($(printf '%s\n' "$values" | wc -l) - 2) / 4))
    i=1
    while [ "$i" -le "$n" ]; do
      option=$(line "$values" $((2 + i)))
      total=$(line "$values" $((2 + n + i)))
      # Buy against this option (empty for buy itself, and when owning is still behind at the horizon).
      break_even=$(line "$values" $((2 + 2 * n + i)))
      payback=$(line "$values" $((2 + 3 * n + i)))
      [ "$break_even" = null ] && break_even=""
      [ "$payback" = null ] && payback=""
      mark=no
      [ "$option" = "$cheapest" ] && mark=yes
      echo "$gpu,$months,$option,$total,$currency,$mark,$break_even,$payback" >>"$tmp"
      i=$((i + 1))
    done
    written=$((written + 1))
  done
done
if [ "$written" -eq 0 ]; then
  echo "budget.sh: no tier could be priced; $out left as it was" >&2
  exit 1
fi
# mktemp makes the file private (0600); a budget is shared: the mode a new file gets.
chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$tmp"
mv "$tmp" "$out"
echo "budget.sh: wrote $(($(wc -l <"$out") - 1)) rows to $out" >&2
if [ -n "$skipped" ]; then
  echo "budget.sh: skipped:$skipped" >&2
  exit 2
fi
