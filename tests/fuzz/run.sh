#!/usr/bin/env bash
# Builds the fuzz targets (the fuzz preset: clang, libFuzzer, ASan + UBSan) and
# runs each for SECONDS (default 60), one after another; prints libFuzzer's
# final statistics (executions, coverage) for each. Crashing inputs are written
# to build/fuzz/tests/fuzz/crash_TARGET_*: copy each into tests/fuzz/corpus/TARGET/
# (then replay_TARGET runs it in every build) and fix the bug.
#   bash tests/fuzz/run.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(catalog scenario job csv units import)
# See tests/fuzz/CMakeLists.txt for why these sanitizer options.
export ASAN_OPTIONS=quarantine_size_mb=16:allocator_release_to_os_interval_ms=500:detect_leaks=0:malloc_context_size=4
cmake --preset fuzz -DGPUPLAN_FUZZ_SECONDS="$seconds" >/dev/null
cmake --build --preset fuzz
for t in "${targets[@]}"; do
  echo "== fuzz_$t for ${seconds}s"
  mkdir -p "build/fuzz/tests/fuzz/corpus_$t"
  build/fuzz/tests/fuzz/fuzz_$t -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="build/fuzz/tests/fuzz/crash_${t}_" "build/fuzz/tests/fuzz/corpus_$t" "tests/fuzz/corpus/$t" 2>&1 |
    grep -E "^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)|^#[0-9]+ +DONE|ERROR|SUMMARY|crash-|Test unit written"
done
