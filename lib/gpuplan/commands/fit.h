// `gpuplan fit scaling | progress | mfu`: what measured runs predict. Scaling
// fits Amdahl and the USL to throughput against GPU count, with intervals,
// AICc and the peak; progress turns a training log into a rate and an ETA;
// mfu turns a measured throughput into the MFU that `estimate --mfu` takes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace gpuplan {

struct ScalingQuery {
  std::string file{};
  std::string x = "gpus";
  std::string y = "throughput";
  std::vector<std::string> predict{};  ///< GPU counts, as given (checked strictly)
  std::string model = "both";          ///< usl, amdahl, both
  bool chart = true;
};
Report fit_scaling_report(const Context& ctx, const ScalingQuery& q);

struct ProgressQuery {
  std::string file{};
  std::string step = "step";
  std::string time{};                        ///< default: elapsed_s, elapsed, or timestamp, whichever the file has
  std::optional<std::string> total_steps{};  ///< numbers as given on the command line (checked strictly)
  std::optional<std::string> total_tokens{};
  std::optional<std::string> tokens_per_step{};
};
Report fit_progress_report(const Context& ctx, const ProgressQuery& q);

struct MfuQuery {
  std::string gpu{};
  std::string gpus = "1";  ///< as given (checked strictly)
  std::string precision = "bf16";
  std::optional<std::string> parameters{};  ///< with tokens_per_second
  std::optional<std::string> tokens_per_second{};
  std::optional<std::string> samples_per_second{};  ///< with flops_per_sample (forward)
  std::optional<std::string> flops_per_sample{};
};
Report fit_mfu_report(const Context& ctx, const MfuQuery& q);

/// "2026-12-02T10:00:00", "2026-12-02 10:00:00.5", optional trailing Z: seconds since the epoch (UTC).
double parse_timestamp(std::string_view text);

}  // namespace gpuplan
