// Times `plan`'s search over the whole built-in catalog × 1–1024 cards × every
// billing mode (spot and buying included) × every parallel layout, and
// reports configurations per second and the pruning that makes it fast.
// Target (layouts issue): the whole plan in at most 50 ms on one core.
//
//   build/release/tests/bench/bench_plan [runs]
//
// Two jobs: a 1B-parameter model whose global batch (2048 sequences) keeps
// 1,024 cards busy as pure data parallelism, and Llama 2 70B (80 layers: many
// pipeline depths to try), which needs tensor and pipeline parallelism.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/context.h"
#include "gpuplan/plan.h"

namespace {

using namespace gpuplan;

struct Timing {
  double whole_ms = 0, search_ms = 0;
  PlanResult last{};
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Timing time_plan(const PlanInputs& in, const Catalog& cat, const CurrencyConverter& fx, int runs) {
  Timing t;
  std::vector<double> whole, bare_ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    t.last = plan(in, cat, fx);
    whole.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  // The search alone: the same plan with nothing to describe afterwards
  // (no deadline to simulate spot against).
  PlanInputs bare = in;
  bare.deadline.reset();
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const PlanResult r = plan(bare, cat, fx);
    bare_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    (void)r;
  }
  t.whole_ms = median(whole);
  t.search_ms = median(bare_ms);
  return t;
}

void report(const char* name, const Timing& t, const Catalog& cat, int runs) {
  const PlanResult& r = t.last;
  fmt::print(
      "{}: {} offers and {} GPUs to buy, 1-1024 cards, every billing mode: {} configurations ({} feasible, "
      "{} on the frontier)\n",
      name, cat.offers.size(), cat.gpus.size(), r.evaluated, r.feasible.size(), r.frontier.size());
  fmt::print(
      "  pruning: {} layouts evaluated; {} GPU × shape × count searches answered from the cache; "
      "{} configurations needing more instances than their offer joins, skipped without a search\n",
      r.layouts_evaluated, r.layout_cache_hits, r.rejected[static_cast<std::size_t>(Rejection::kJoin)]);
  fmt::print(
      "  whole plan (search, layouts, frontier, recommendation with spot Monte Carlo, explanations): median "
      "{:.2f} ms of {} runs = {:.1f} M configurations/s (target: <= 50 ms)\n",
      t.whole_ms, runs, static_cast<double>(r.evaluated) / t.whole_ms / 1e3);
  fmt::print("  search without a deadline (no Monte Carlo): median {:.2f} ms = {:.1f} M configurations/s\n",
             t.search_ms, static_cast<double>(r.evaluated) / t.search_ms / 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 51;
  const Catalog& cat = builtin_catalog();
  const CurrencyConverter fx(cat, kCny);
  PlanInputs in;
  in.job.parameters = 1e9;
  in.job.tokens = 20e9;
  in.job.method = Method::kPretrain;
  in.job.sequence_length = 2048;
  in.job.global_batch = 2048;
  in.job.zero_stage = 1;
  in.job.arch = Architecture{24, 2048, 16, true};
  in.job.checkpoint_bandwidth = BytesPerSecond(5e9);
  in.cluster.network_bandwidth = BytesPerSecond(25e9 / 8);
  in.dataset = Bytes(100e9);
  in.deadline = Days(7);
  in.budget = Money::parse("100000", kCny);
  in.allow_spot = true;
  in.include_buy = true;
  in.max_gpus = 1024;
  in.trials = 1000;
  report("1B pre-training", time_plan(in, cat, fx, runs), cat, runs);

  PlanInputs big = in;
  big.job.parameters = 70e9;
  big.job.tokens = 2e12;
  big.job.sequence_length = 4096;
  big.job.global_batch = 1024;
  big.job.arch = Architecture{80, 8192, 64, true, 28672, 32000};
  big.deadline = Days(120);
  big.budget = Money::parse("50000000", kCny);
  report("Llama 2 70B pre-training", time_plan(big, cat, fx, std::max(1, runs / 5)), cat, std::max(1, runs / 5));
  return 0;
}
