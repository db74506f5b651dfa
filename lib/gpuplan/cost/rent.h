// On-demand billing: what a provider charges for a run of a given length.
#pragma once

#include "gpuplan/units.h"

namespace gpuplan {

/// Billed hours of one run: rounded up to the billing granularity, and at
/// least the minimum billed duration per start. 0 for a run of no length.
double billed_run_hours(double run_hours, Seconds granularity, Seconds minimum);

/// Instances needed for `gpus` cards at `per_instance` cards each (rounded up).
int instances_for(int gpus, int per_instance);

}  // namespace gpuplan
