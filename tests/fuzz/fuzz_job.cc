// Fuzzes the job loader, the training model and the capacity search:
// YAML text -> Job -> estimate() and plan() (up to 16 cards, to stay fast).
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_common.h"
#include "gpuplan/context.h"
#include "gpuplan/job.h"
#include "gpuplan/plan.h"
#include "gpuplan/training.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const gpuplan::Context ctx = [] {
    gpuplan::GlobalOptions o;
    o.today = "2026-12-02";
    return gpuplan::make_context(o);
  }();
  static const gpuplan::CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const std::string text(reinterpret_cast<const char*>(data), size);
  gpuplan_fuzz::expect_handled([&] {
    const gpuplan::ResolvedJob rj = gpuplan::load_job("fuzz.yaml", {}, ctx, gpuplan::JobUse::kEstimate, &text);
    try {
      const gpuplan::Estimate e = gpuplan::estimate(rj.job, rj.cluster);
      gpuplan_fuzz::expect_finite(e.wall.count(), "wall time");
      gpuplan_fuzz::expect_finite(e.gpu_hours, "GPU-hours");
    } catch (const std::invalid_argument&) {
      // estimate() documents it for inputs the model cannot use (reported as bad input).
    }
    gpuplan::PlanInputs in;
    in.job = rj.job;
    in.cluster = rj.cluster;
    in.dataset = rj.dataset;
    in.deadline = rj.plan.deadline;
    in.budget = rj.plan.budget;
    in.allow_spot = rj.plan.allow_spot;
    in.max_gpus = 16;
    in.trials = 20;
    try {
      const gpuplan::PlanResult r = gpuplan::plan(in, ctx.catalog(), fx);
      for (const gpuplan::PlanConfig& c : r.frontier) gpuplan_fuzz::expect_finite(c.finish_hours, "finish time");
    } catch (const std::invalid_argument&) {
    }
  });
  return 0;
}
