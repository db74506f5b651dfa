// `gpuplan serve [SERVING]`: what serving a model costs. Per GPU the replica
// (tensor parallel within one instance), the largest batch that meets the
// latency targets, tokens/s and the replicas the busiest hour needs; per
// rental offer and billing mode the instances, the monthly cost and the cost
// per million tokens.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"

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

}  // namespace gpuplan
