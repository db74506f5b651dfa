// `gpuplan sensitivity [SCENARIO|JOB]`: which inputs move the decision. Each
// numeric input is varied by ±range (default 20%), the inputs are ranked by
// how far they swing the decision metric, drawn as a tornado chart, and the
// inputs that flip the decision within the range are marked with the value
// where it flips. A scenario (compare) or a job (plan) is told apart by its
// sections; with no file, the built-in scenario.
#pragma once

#include <optional>
#include <string>

#include "gpuplan/commands/plan.h"
#include "gpuplan/context.h"
#include "gpuplan/report.h"
#include "gpuplan/sensitivity.h"

namespace gpuplan {

struct SensitivityQuery {
  std::string file{};                  ///< scenario or job YAML; empty: the built-in scenario
  std::optional<std::string> range{};  ///< "20%"
  PlanQuery plan{};                    ///< --set and, for a job, the plan flags
};

struct SensitivityReport {
  Report report{};
  bool feasible = true;  ///< false: nothing is feasible at the base (exit 4): there is no metric to vary
};

SensitivityReport sensitivity_report(const Context& ctx, const SensitivityQuery& query);

/// The tornado chart: one bar per input, the metric's change at −range ('-')
/// and +range ('+') around the base, at most `width` columns.
std::string tornado_chart(const Sensitivity& s, const std::string& metric_label, int width = 80, std::size_t rows = 15);
/// The same, as a chart for HTML and SVG: the `rows` largest swings, each input's change at −range and +range.
Chart tornado(const Sensitivity& s, const std::string& metric_label, std::size_t rows = 15);

}  // namespace gpuplan
