// Times `plan`'s search over the whole built-in catalog × 1–1024 cards × every
// billing mode (spot and buying included) and reports configurations per
// second. Targets (capacity-planning issue): the whole search in at most
// 20 ms, at least 10 million configurations per second on one core.
//
//   build/release/tests/bench/bench_plan [runs]
//
// The job is a 1B-parameter model whose global batch (2048 sequences) keeps
// 1,024 cards busy, so no count is cut short by the batch: every
// configuration is fully evaluated (memory, ZeRO stage, step time, cost).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fmt/format.h>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/context.h"
#include "gpuplan/plan.h"

int main(int argc, char** argv) {
  using namespace gpuplan;
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

  std::vector<double> total_ms, search_ms;
  std::int64_t configs = 0;
  std::size_t feasible = 0, frontier = 0;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const PlanResult r = plan(in, cat, fx);
    const auto t1 = std::chrono::steady_clock::now();
    total_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    configs = r.evaluated;
    feasible = r.feasible.size();
    frontier = r.frontier.size();
  }
  // The search alone: the same plan with nothing to describe afterwards
  // (no deadline or budget to simulate spot against, no explanations).
  PlanInputs bare = in;
  bare.deadline.reset();
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const PlanResult r = plan(bare, cat, fx);
    const auto t1 = std::chrono::steady_clock::now();
    search_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    (void)r;
  }
  std::sort(total_ms.begin(), total_ms.end());
  std::sort(search_ms.begin(), search_ms.end());
  const double med = total_ms[total_ms.size() / 2];
  const double med_search = search_ms[search_ms.size() / 2];
  fmt::print(
      "built-in catalog: {} offers and {} GPUs to buy, 1-1024 cards, every billing mode: {} configurations "
      "({} feasible, {} on the frontier)\n",
      cat.offers.size(), cat.gpus.size(), configs, feasible, frontier);
  fmt::print(
      "whole plan (search, frontier, recommendation with spot Monte Carlo, explanations): median {:.2f} ms "
      "of {} runs = {:.1f} M configurations/s (target: <= 20 ms)\n",
      med, runs, static_cast<double>(configs) / med / 1e3);
  fmt::print(
      "search without a deadline (no Monte Carlo):                                 median {:.2f} ms = "
      "{:.1f} M configurations/s (target: >= 10 M/s on one core)\n",
      med_search, static_cast<double>(configs) / med_search / 1e3);
  return 0;
}
