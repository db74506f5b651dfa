// `gpuplan plan [JOB]`: the capacity search of plan.h as a report: the
// recommended, cheapest and fastest plans, the Pareto frontier of time against
// cost, the nearest misses when nothing is feasible (exit 4), and with
// --explain why notable configurations were rejected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/plan.h"
#include "gpuplan/report.h"

namespace gpuplan {

struct PlanQuery {
  std::string job_file{};
  std::vector<std::string> sets{};
  // Flags that stand for `plan:` fields of the job file (and --mfu for job.mfu).
  std::optional<std::string> deadline{}, budget{}, max_gpus{}, objective{}, confidence{}, mfu{};
  std::vector<std::string> gpus{}, providers{}, regions{};
  bool allow_spot = false;
  bool include_buy = false;
  bool explain = false;
  std::optional<std::string> scaling_file{};  ///< a saved `fit scaling` JSON
  std::optional<std::string> trials{};        ///< Monte Carlo trials per spot plan (default 1000)
  std::optional<std::string> seed{};          ///< Monte Carlo seed (default 1)
};

/// The resolved inputs of a plan query: the job file, flags and --set applied.
/// `defaults_used` and `inputs` describe them for the report.
struct ResolvedPlan {
  PlanInputs inputs{};
  std::string source{};
  std::vector<std::string> defaults_used{};
  Json echo{};
};
/// Throws InputErrors naming the file, line and field, or the flag.
ResolvedPlan resolve_plan(const Context& ctx, const PlanQuery& query);

struct PlanOutcome {
  Report report{};
  bool feasible = false;  ///< false: exit 4
};

PlanOutcome plan_report(const Context& ctx, const PlanQuery& query);

}  // namespace gpuplan
