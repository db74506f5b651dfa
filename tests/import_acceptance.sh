#!/bin/bash
# The acceptance path of `catalog import`, as a user runs it: import committed
# excerpts of SkyPilot's lambda and runpod catalogs into a file, check that
# `catalog validate` accepts it, that `prices` lists the offers with their
# shapes (GPUs per instance) and dates, and that an unknown accelerator is
# reported by name.   import_acceptance.sh GPUPLAN SRC WORK
set -euo pipefail
gpuplan=$1 src=$2 work=$3
mkdir -p "$work"
cd "$src"
export GPUPLAN_TODAY=2026-12-02 LC_ALL=C NO_COLOR=1
out=$work/skypilot.yaml
rm -f "$out"
"$gpuplan" catalog import skypilot tests/data/import/skypilot/lambda/vms.csv tests/data/import/skypilot/runpod/vms.csv \
  --as-of 2026-11-30 -o "$out" 2> "$work/import.err"
fail() { echo "FAIL: $*"; exit 1; }
grep -q "left out: lambda 'A6000' (1 row" "$work/import.err" || fail "A6000 not reported by name: $(cat "$work/import.err")"
grep -q "left out: runpod 'L4' (1 row" "$work/import.err" || fail "L4 not reported by name"
"$gpuplan" catalog validate "$out" > "$work/validate.out" || fail "catalog validate refused $out: $(cat "$work/validate.out")"
"$gpuplan" prices --catalog "$out" --provider lambda,runpod --mode hourly --format csv > "$work/prices.csv"
python3 - "$work/prices.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
def find(offer):
    for r in rows:
        if r["offer"] == offer:
            return r
    sys.exit("FAIL: prices does not list %s" % offer)
h100 = find("lambda-us-east-1-gpu_8x_h100_sxm5")
assert h100["gpus"] == "8" and h100["gpu"] == "H100", h100
assert h100["as_of"] == "2026-11-30", h100
assert h100["list_price"] == "23.92" and h100["list_currency"] == "USD", h100
# Per GPU-hour = instance price / 8, converted: 23.92 / 8 * 7.1 = 21.229 CNY.
assert abs(float(h100["gpu_hour"]) - 23.92 / 8 * 7.1) < 0.001, h100
rp = find("runpod-US-8x_A100-80GB_SECURE")
assert rp["gpus"] == "8" and rp["gpu"] == "A100-80G-PCIe" and rp["as_of"] == "2026-11-30", rp
print("import -> validate -> prices: %d imported rows listed with shapes and dates" %
      sum(1 for r in rows if r["as_of"] == "2026-11-30"))
PY
