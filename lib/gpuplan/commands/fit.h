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

/// `fit mfu`: with a job file, the MFU at which `estimate` reproduces a
/// measurement of that job (the exact inverse: `estimate JOB --mfu` gives the
/// measurement back); without one, 6·N end-to-end from a throughput.
struct MfuQuery {
  std::string job_file{};                  ///< "": no job, the flags describe the run
  std::vector<std::string> sets{};         ///< with a job file
  std::optional<std::string> layout{};     ///< --layout, with a job file
  std::optional<std::string> gpu{};        ///< GPU id (with a job: overrides cluster.gpu)
  std::optional<std::string> gpus{};       ///< as given (checked strictly)
  std::optional<std::string> precision{};  ///< default bf16 (with a job: overrides job.precision)
  std::optional<std::string> parameters{};
  std::optional<std::string> tokens_per_second{};  ///< of the whole job
  std::optional<std::string> samples_per_second{};
  std::optional<std::string> flops_per_sample{};  ///< forward, without a job file
  std::optional<std::string> step_time{};         ///< seconds a step, with a job file
  std::optional<std::string> gpu_hours{};         ///< the whole run, with a job file
};
Report fit_mfu_report(const Context& ctx, const MfuQuery& q);

/// "2026-12-02T10:00:00", "2026-12-02 10:00:00.5", optional trailing Z: seconds since the epoch (UTC).
double parse_timestamp(std::string_view text);

}  // namespace gpuplan
