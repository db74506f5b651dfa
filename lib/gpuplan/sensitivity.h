// One-at-a-time sensitivity: each numeric input is moved to (1 − r) and
// (1 + r) times its value (default r = 20%) with every other input at its
// base, the decision metric is recomputed, and the inputs are ranked by how far
// the metric swings (a tornado chart). An input "flips" the decision when the
// decision at either end differs from the base decision; the value where it
// flips is found by bisection. Inputs whose base is zero cannot be varied
// relatively and are listed as such.
//
// Two subjects: a buy-vs-rent scenario (compare: the metric is owning's NPV
// minus the cheapest rental's, the decision the cheapest option) and a job
// (plan: the metric is the recommended plan's cost, or its time with
// --objective time, the decision the recommended GPU, provider and mode).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/compare.h"
#include "gpuplan/fields.h"
#include "gpuplan/plan.h"

namespace gpuplan {

/// One input that can be varied, in its base unit (money in currency units,
/// durations in seconds, shares as 0–1).
struct SensitivityInput {
  std::string name{};  ///< "workload.utilisation": the scenario or job field it is
  ValueKind kind = ValueKind::kNumber;
  double base = 0;
  double min = -1e300, max = 1e300;  ///< clamped to (shares ≤ 100%, PUE ≥ 1)
  bool whole = false;                ///< rounded to a whole number (months, runs, cards)
  double spread = 0;                 ///< above zero: moved by ± this much instead of ± range × base
};

/// The decision metric and the decision for one set of inputs.
struct SensitivityOutcome {
  std::optional<double> metric{};  ///< none: nothing to measure (no feasible plan)
  std::string decision{};          ///< "buy", "rent_hourly"; "L40S on gongjiyun (spot)"; "nothing feasible"
};

/// Evaluates the subject with input `index` set to `value` (index npos: the base case).
using SensitivityEvaluate = std::function<SensitivityOutcome(std::size_t index, double value)>;

struct Swing {
  std::size_t input = 0;                 ///< index into Sensitivity::inputs
  double low_value = 0, high_value = 0;  ///< after clamping and rounding
  SensitivityOutcome low{}, high{};
  double swing = 0;  ///< |metric(high) − metric(low)|; a missing metric counts as the largest swing
  bool flips = false;
  std::optional<double> flip_value{};  ///< where the decision changes, nearest the base
};

struct Sensitivity {
  double range = 0.2;
  std::vector<SensitivityInput> inputs{};
  SensitivityOutcome base{};
  std::vector<Swing> ranked{};            ///< largest swing first
  std::vector<std::string> not_varied{};  ///< inputs at zero
};

/// Runs the analysis. Throws std::invalid_argument for a range outside (0, 1).
Sensitivity analyse(std::vector<SensitivityInput> inputs, const SensitivityEvaluate& evaluate, double range);

/// A scenario's inputs and an evaluator over compare(): metric = NPV of buying
/// minus the NPV of the cheapest rental option (negative: buying is cheaper),
/// decision = the cheapest option's key. The inputs are the rows of the
/// scenario's field tables marked `vary` (with their ranges), plus the rental
/// prices and add-ons, which move every option that bills them.
struct ScenarioSubject {
  std::vector<SensitivityInput> inputs{};
  SensitivityEvaluate evaluate{};
  std::string winner{};  ///< the base case's cheapest option: the metric is its NPV minus the next cheapest's
};
ScenarioSubject scenario_subject(const Scenario& base);

/// A job's inputs and an evaluator over plan(): metric = the recommended
/// plan's cost in currency units (its finish time in hours with the time
/// objective), decision = its GPU, provider and billing mode.
/// The inputs are the rows of the job's field tables marked `vary` that
/// matter for this job, plus every GPU's MFU and every catalog price as factors.
/// `base` carries what the job file does not (trials, seed, a measured scaling).
ScenarioSubject job_subject(const ResolvedJob& job, const PlanInputs& base, const Catalog& catalog,
                            const CurrencyConverter& fx);

/// "60%", "70,000", "2mo", "400W", "500GB", "100MB/s", "7B", "1.49", "×0.8".
std::string format_value(ValueKind kind, double value);
/// The unit of an input's plain value in CSV and JSON: "share", "s", "W", "B", "B/s", "count", "factor", "number",
/// or the currency code for money.
std::string value_unit(ValueKind kind, Currency currency);

}  // namespace gpuplan
