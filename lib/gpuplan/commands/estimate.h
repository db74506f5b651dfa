// `gpuplan estimate [JOB]`: training FLOPs, memory per GPU and whether it
// fits (with the minimum card count on every catalog GPU), the step time split
// into compute / data loading / communication / checkpointing with the
// bottleneck named, wall time, GPU-hours, and the cost on every matching
// catalog offer and billing mode, cheapest first.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"
#include "gpuplan/training.h"

namespace gpuplan {

struct EstimateQuery {
  std::string job_file{};
  std::vector<std::string> sets{};
  std::optional<std::string> mfu{};     ///< --mfu, a share
  std::optional<std::string> gpu{};     ///< --gpu, overrides cluster.gpu
  std::optional<std::string> gpus{};    ///< --gpus, overrides cluster.gpus
  std::optional<std::string> layout{};  ///< --layout tp=2,pp=4,zero=1: overrides job.layout
  bool explain = false;                 ///< --explain: the runner-up layout and why it lost
};

struct EstimateOutcome {
  Report report{};
  bool feasible = true;  ///< false: the job fits on no configuration (exit 4)
};
EstimateOutcome estimate_report(const Context& ctx, const EstimateQuery& query);

/// What the estimate workbook needs (estimate_xlsx.cc): the job, the model's
/// per-step parts, and each cost row with the prices it was computed from.
struct EstimateCostLine {
  std::string offer{}, provider{}, region{}, mode{};
  int gpus_per_instance = 1, instances = 1;
  double price = 0;  ///< per instance-hour (monthly: per instance-month), display currency
  double granularity_h = 0, minimum_h = 0;
  double run_factor = 1;  ///< wall time × this: spot interruptions
  double storage_per_gb_month = 0, support_share = 0;
  double billed_hours = 0, compute = 0, storage = 0, support = 0, total = 0;  ///< gpuplan's results
};
struct EstimateWorkbook {
  std::string title{};
  Job job{};
  int gpus = 1;
  std::string gpu{};
  double peak_tflops = 0;  ///< of the MFU basis (efficiency.h)
  Precision mfu_basis = Precision::kBf16;
  double precision_speedup = 1.0;  ///< fp8 over the basis
  Estimate estimate{};
  double comm_overlap = 0.5;
  double dataset_gb = 0;
  Currency currency = kCny;
  std::vector<EstimateCostLine> lines{};
};
std::string estimate_workbook(const EstimateWorkbook& data);

}  // namespace gpuplan
