#!/bin/sh
# A budget table for finance: for each GPU tier and planning horizon, what
# eight cards cost over the horizon when bought, rented by the hour, by the
# month or on spot (whatever the catalog offers for the tier), which is
# cheapest, and against each option the months in which owning breaks even
# (counting what the hardware is still worth) and pays back (cash alone).
#
#   examples/budget.sh [OUTPUT.csv]            (default: budget.csv)
#   GPUPLAN=build/release/apps/gpuplan examples/budget.sh /tmp/budget.csv
#
# POSIX sh, gpuplan and standard tools only: the cash flow comes as CSV (one
# header row, a "total" row, plain numbers, no commas inside cells), so cut,
# grep and tr take it apart; single values come from --field. The output is
# written whole (to a temporary file, then renamed) or not at all.
set -eu

GPUPLAN=${GPUPLAN:-gpuplan}
out=${1:-budget.csv}
# Cards a Chinese team can rent in China (rent.regions defaults to CN).
tiers=${TIERS:-"A800-80G H800 H20 RTX4090"}
horizons=${HORIZONS:-"12 24 36"}

tmp=$(mktemp "${out}.XXXXXX")
trap 'rm -f "$tmp"' EXIT INT TERM

echo "gpu,horizon_months,option,total_cny,cheapest,break_even_month,payback_month" > "$tmp"
for gpu in $tiers; do
  for months in $horizons; do
    # The same scenario for every call: eight cards of this tier over this horizon.
    set -- compare --set "buy.gpu=$gpu" --set "horizon=${months}mo" --set workload.gpus=8 --currency CNY
    cheapest=$("$GPUPLAN" "$@" --field cheapest)
    csv=$("$GPUPLAN" "$@" --monthly --format csv | tr -d '\r')
    # Header "month,buy_cny,rent_hourly_cny,..." and the "total,..." row, column by column.
    header=$(printf '%s\n' "$csv" | head -n 1)
    totals=$(printf '%s\n' "$csv" | grep '^total,')
    columns=$(printf '%s\n' "$header" | tr ',' '\n' | wc -l)
    i=2
    while [ "$i" -le "$columns" ]; do
      option=$(printf '%s\n' "$header" | cut -d, -f"$i" | sed 's/_cny$//')
      total=$(printf '%s\n' "$totals" | cut -d, -f"$i")
      # Buy against this option (empty for buy itself, and when owning is still behind at the horizon).
      n=$((i - 2))
      break_even=$("$GPUPLAN" "$@" --field "options.$n.break_even_month")
      payback=$("$GPUPLAN" "$@" --field "options.$n.payback_month")
      [ "$break_even" = null ] && break_even=""
      [ "$payback" = null ] && payback=""
      echo "$gpu,$months,$option,$total,$([ "$option" = "$cheapest" ] && echo yes || echo no),$break_even,$payback" >> "$tmp"
      i=$((i + 1))
    done
  done
done
mv "$tmp" "$out"
trap - EXIT INT TERM
echo "budget.sh: wrote $(($(wc -l < "$out") - 1)) rows to $out" >&2
