#!/usr/bin/env bash
# plan's CSV holds one row per role (issue 16): whenever a plan is feasible,
# `awk -F, '$1=="recommended"'` finds exactly one row (so do cheapest and
# fastest), and an infeasible plan's --field exits 4. Usage: plan_roles_test.sh GPUPLAN SRC
set -uo pipefail
gpuplan=$1 src=$2
export GPUPLAN_TODAY=2026-12-02 NO_COLOR=1
cd "$src"
fail() { echo "FAIL: $*"; exit 1; }
feasible=0
for args in "examples/plan-deadline.yaml" "examples/plan-deadline.yaml --deadline 100h" \
  "examples/plan-deadline.yaml --allow-spot=false" "examples/finetune-7b-a100.yaml --deadline 7d" \
  "examples/vision-4090.yaml --deadline 3d" "examples/pretrain-1b-h800.yaml --deadline 30d" \
  "examples/finetune-7b-a100.yaml --deadline 7d --budget 1000000 --include-buy"; do
  # shellcheck disable=SC2086
  csv=$("$gpuplan" plan $args --format csv 2>/dev/null)
  rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] || fail "plan $args exited $rc"
  [ "$rc" -eq 0 ] || continue
  feasible=$((feasible + 1))
  for role in recommended cheapest fastest; do
    n=$(printf '%s\n' "$csv" | tr -d '\r' | awk -F, -v r="$role" '$1 == r' | wc -l)
    [ "$n" -eq 1 ] || fail "plan $args: $n rows with role $role"
  done
done
[ "$feasible" -ge 4 ] || fail "only $feasible feasible plans to check"
"$gpuplan" plan examples/plan-deadline.yaml --deadline 1h --field plans.0.cost >/dev/null 2>&1
rc=$?
[ "$rc" -eq 4 ] || fail "an infeasible plan's --field exited $rc, not 4"
echo "plan CSV: one row per role in $feasible feasible plans; an infeasible --field exits 4"
