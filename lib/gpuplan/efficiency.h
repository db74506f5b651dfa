// How much of a GPU's peak a training job achieves, on one basis everywhere
// (defaults, `fit mfu`, `estimate --mfu`, the validation table):
//
//   MFU = model FLOPs ÷ (compute time × dense peak of the MFU precision)
//
// model FLOPs per token = 6·N + 12·L·s·h (Chowdhery et al. 2022, PaLM, App. B;
// N the parameters a token passes through: the active ones of a MoE; LoRA
// 4·N + 8·L·s·h; full recompute adds a forward pass, which MFU does not count
// as useful work but compute time spends). The peak is the dense BF16 one
// for bf16, fp16 and fp8 jobs (fp16 runs at the bf16 rate on every card since
// Ampere); FP8 then multiplies the achieved rate by a measured speed-up (not the
// 2× of the data sheet). Compute time excludes what the model adds on its own:
// exposed communication, pipeline bubbles, data stalls, checkpoints and
// interruptions, so an MFU measured on one cluster carries to another.
#pragma once

#include <string>
#include <string_view>

#include "gpuplan/catalog.h"
#include "gpuplan/i18n.h"

namespace gpuplan {

struct Job;

/// FP8 (Transformer Engine) over BF16, end-to-end step time on H100: 1.34×
/// Llama 3.1 70B pre-training on 64 GPUs, 1.49× Llama 3 70B SFT on 32, 1.40×
/// LoRA on 8 (NVIDIA dgxc-benchmarking READMEs), 1.28× Llama 3.1 8B and 1.36×
/// Llama 3 70B (torchtitan performance tables), 1.4–1.5× (Databricks Mosaic
/// FP8 blog, 2024). The median, 1.36×; small models gain less (1.16× at 8B
/// with tensor parallel, torchtitan).
inline constexpr double kFp8Speedup = 1.36;
inline constexpr std::string_view kFp8SpeedupSource = tr_noop(
    "median of published FP8/BF16 step-time ratios on H100, 1.16-1.62x (NVIDIA dgxc-benchmarking Llama 3 "
    "70B pre-train/SFT/LoRA; torchtitan; Databricks 2024)");

/// The dense peak (TFLOP/s) MFU is counted against: bf16 for bf16/fp16/fp8
/// jobs (fp16's own when a card has no bf16), else the precision's own; 0 when
/// the card lacks it.
double mfu_peak_tflops(const Gpu& gpu, Precision p);
/// The precision MFU is counted against (for labels: "bf16").
Precision mfu_basis(const Gpu& gpu, Precision p);

/// A default MFU with its uncertainty: the band published runs like the job
/// span (about ±1 standard deviation of the calibration residuals).
struct MfuDefault {
  double value = 0;
  double low = 0, high = 0;
  std::string source{};
  /// The job.stack whose runs it is the median of ("unknown": all of them);
  /// empty where the default does not depend on it (MoE, consumer, off CUDA).
  std::string_view stack{};
};

/// The default for a job on `gpu` (efficiency.cc: from which runs). The GPU
/// count is not an input: what scale costs is modelled on its own
/// (communication, bubbles, checkpoints, failures).
MfuDefault default_mfu(const Gpu& gpu, const Job& job);

}  // namespace gpuplan
