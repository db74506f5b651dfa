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

namespace gpuplan {

struct EstimateQuery {
  std::string job_file{};
  std::vector<std::string> sets{};
  std::optional<std::string> mfu{};  ///< --mfu, a share
  std::optional<std::string> gpu{};  ///< --gpu, overrides cluster.gpu
  std::optional<std::string> gpus{};  ///< --gpus, overrides cluster.gpus
};

Report estimate_report(const Context& ctx, const EstimateQuery& query);

}  // namespace gpuplan
