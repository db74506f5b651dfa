// `gpuplan gpus`: the hardware table (memory, bandwidth, dense TFLOPS per
// precision, TDP, interconnect) with each row's source and date.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace gpuplan {

/// `gpu_filters` as in `prices --gpu`; an unmatched filter is an InputError.
Report gpus_report(const Context& ctx, const std::vector<std::string>& gpu_filters);

}  // namespace gpuplan
