#include "gpuplan/cost/rent.h"

#include <algorithm>
#include <cmath>

namespace gpuplan {

double billed_run_hours(double run_hours, Seconds granularity, Seconds minimum) {
  if (run_hours <= 0) return 0.0;
  const double g = granularity.count() / 3600.0;
  // The epsilon keeps 2.0000000001 h from billing a third hour at 1 h steps.
  const double billed = g > 0 ? std::ceil(run_hours / g - 1e-9) * g : run_hours;
  return std::max(billed, minimum.count() / 3600.0);
}

int instances_for(int gpus, int per_instance) { return (gpus + per_instance - 1) / per_instance; }

}  // namespace gpuplan
