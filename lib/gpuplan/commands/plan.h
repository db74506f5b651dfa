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
  std::optional<std::string> layout{};  ///< --layout tp=2,pp=4,zero=1: fixes parts of every plan's layout
  std::vector<std::string> gpus{}, providers{}, regions{};
  std::optional<bool> allow_spot{};  ///< given: overrides plan.allow_spot (--allow-spot=false too)
  std::optional<bool> include_buy{};
  std::optional<bool> exclude_restricted{};
  bool explain = false;
  std::optional<std::string> scaling_file{};  ///< a saved `fit scaling` JSON
  std::optional<std::string> trials{};        ///< Monte Carlo trials per spot plan (default 1000)
  std::optional<std::string> seed{};          ///< Monte Carlo seed (default 1)
};

/// The resolved inputs of a plan query: the job file, flags and --set applied.
/// `defaults_used` and `inputs` describe them for the report.
struct ResolvedPlan {
  PlanInputs inputs{};
  ResolvedJob job{};  ///< the job file as read (sensitivity varies its fields)
  std::string source{};
  std::vector<std::string> defaults_used{};
  std::vector<std::string> warnings{};
  Json echo{};
};
/// Throws InputErrors naming the file, line and field, or the flag.
ResolvedPlan resolve_plan(const Context& ctx, const PlanQuery& query);

struct PlanOutcome {
  Report report{};
  bool feasible = false;  ///< false: exit 4
};

PlanOutcome plan_report(const Context& ctx, const PlanQuery& query);

/// One plan a workbook lists (plan_xlsx.cc), with what its cost came from.
struct PlanLine {
  std::string role{}, offer{}, provider{}, region{}, gpu{}, mode{};
  int gpus = 0, instances = 0, zero_stage = 0;
  double price = 0;  ///< per instance-hour (monthly: per month); buying: per card
  double granularity_h = 0, minimum_h = 0, storage_per_gb_month = 0, support_share = 0;
  double server_base = 0;  ///< buying: per server of gpus_per_node cards
  double start_hours = 0, run_hours = 0, finish_hours = 0;
  double billed_hours = 0, compute = 0, storage = 0, support = 0, hardware = 0, power = 0, total = 0;
  std::optional<double> on_time_probability{};
};
struct PlanWorkbook {
  std::string title{};
  Currency currency = kCny;
  std::optional<double> deadline_hours{};
  std::optional<double> budget{};
  double confidence = 0.9;  ///< a spot plan counts as feasible only this likely to be on time
  double dataset_gb = 0;
  std::vector<PlanLine> lines{};
  std::string recommendation{};
};
std::string plan_workbook(const PlanWorkbook& data);

}  // namespace gpuplan
