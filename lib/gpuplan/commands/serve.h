// `gpuplan serve [SERVING]`: what serving a model costs. Per GPU the replica
// (tensor parallel within one instance), the largest batch that meets the
// latency targets, tokens/s and the replicas the busiest hour needs; per
// rental offer and billing mode the instances, the monthly cost and the cost
// per million tokens.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"
#include "gpuplan/serving.h"

namespace gpuplan {

struct ServeQuery {
  std::string serving_file{};
  std::vector<std::string> sets{};
};

struct ServeOutcome {
  Report report{};
  bool feasible = true;  ///< false: no GPU of the search meets the targets (exit 4)
};
ServeOutcome serve_report(const Context& ctx, const ServeQuery& query);

/// What the serve workbook needs (serve_xlsx.cc): the load, and each cost row
/// with what its formulas start from (display currency units).
struct ServeWorkbookRow {
  std::string option{}, gpu{}, mode{}, note{};
  int gpus_per_instance = 1, tp = 1, batch = 0, replicas = 0, instances = 0;
  std::optional<double> price{};  ///< per instance-hour or -month; owned: none
  double replica_rps = 0, replica_output_tps = 0;
  std::optional<double> monthly{};  ///< none: not priced
  double per_million = 0, per_million_output = 0;
  std::vector<int> by_hour{};  ///< rentals: instances each hour of the day
  int base = 0;                ///< monthly + hourly: instances by the month
  double rise_price = 0;       ///< monthly + hourly: an instance-hour above the base
};
struct ServeWorkbook {
  std::string title{};
  Currency currency = kCny;
  Traffic traffic{};
  double peak_load = 0;
  int min_replicas = 1;
  std::vector<ServeWorkbookRow> rows{};
};
std::string serve_workbook(const ServeWorkbook& data);

}  // namespace gpuplan
