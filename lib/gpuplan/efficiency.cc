#include "gpuplan/efficiency.h"

#include <fmt/format.h>

#include "gpuplan/i18n.h"
#include "gpuplan/training.h"

namespace gpuplan {

Precision mfu_basis(const Gpu& gpu, Precision p) {
  if (p == Precision::kFp32 || p == Precision::kTf32) return p;
  if (gpu.dense_tflops.contains(Precision::kBf16)) return Precision::kBf16;
  return Precision::kFp16;
}

double mfu_peak_tflops(const Gpu& gpu, Precision p) {
  if (!gpu.dense_tflops.contains(p)) return 0.0;  // the card cannot run the job's precision at all
  const auto it = gpu.dense_tflops.find(mfu_basis(gpu, p));
  return it == gpu.dense_tflops.end() ? 0.0 : it->second;
}

namespace {

MfuDefault cuda_mfu(const Gpu& gpu, const Job& job) {
  // Mixtures of experts compute at about half a dense model's rate: small
  // per-expert GEMMs, routing and token permutation. The median of 6
  // published MoE runs on H100/H800 (DeepSeek-V2 and V3; DGX Cloud
  // DeepSeek-V3 BF16; Megatron-Bridge gpt-oss-120B, Qwen3-30B-A3B,
  // Qwen3-235B-A22B), each with its published layout: 30.5%, 16th-84th
  // percentile 22.4-35.0%. The spread is the framework's: DeepSeek's own stack
  // (DualPipe, DeepEP, FP8 DeepGEMM) implies 34%, NeMo on the same model 25%.
  // job.stack does not split it: NVIDIA's recipes' 4 MoE runs imply 26.5%
  // (Qwen3-30B-A3B's 10% among them), the 2 others 33.9%, too few either way.
  const bool said = job.stack != Stack::kUnknown;
  if (job.experts > 0)
    return {0.30, 0.22, 0.35,
            said ? tr_noop("median of 6 published MoE runs on H100/H800 (tests/data/published-runs.yaml); 16th-84th "
                           "percentile 22-35%; job.stack does not change it (too few MoE runs to split)")
                 : tr_noop("median of 6 published MoE runs on H100/H800 (tests/data/published-runs.yaml); 16th-84th "
                           "percentile 22-35%")};
  // From tests/data/published-runs.yaml: the MFU at which gpuplan reproduces
  // each published run (`validate_runs` prints it, and its test keeps each
  // default within 2 points of its runs' median). 40 dense runs on A100, H100
  // and H800 (SXM): LLaMA, Llama 2/3/3.1, BLOOM, DeepSeek 67B, Nemotron-4,
  // Megatron-LM 2021, NVIDIA NeMo, DGX Cloud and Megatron-Bridge benchmarks,
  // MosaicML llm-foundry. It is the utilisation while computing; published
  // end-to-end MFUs (40-55%) are lower because they include communication,
  // bubbles and recompute, which gpuplan adds.
  //
  // The stack moves it most, not the scale or the precision: the 15 runs of
  // NVIDIA's published performance recipes (NeMo 24.07, DGX Cloud
  // benchmarking, Megatron-Bridge 26.02: Transformer Engine, communication
  // overlap, tuned layouts) imply 61.8% (16th-84th percentile 59.0-72.9%),
  // the 25 others (papers' whole runs, Megatron-LM 2021, llm-foundry) 49.2%
  // (37.1-55.3%). Within each, neither the GPU count nor the precision
  // splits it further: DGX Cloud's Llama 3.1 70B implies 61.0% on 64 GPUs
  // and 60.1% on 2,048, and the three recipes run in both precisions imply
  // 1.38-1.43x for fp8, close to the 1.36x the model applies. Left unknown,
  // the default is all 40 runs' median, 54.5% (54%; 44.8-66.4%).
  if (gpu.form_factor == "consumer")
    return {0.40, 0.30, 0.50,
            said ? tr_noop("assumption for consumer GPUs: three quarters of the data-centre default for an unknown "
                           "stack (GDDR memory, no published runs in gpuplan's table; job.stack does not change it); "
                           "calibrate with `gpuplan fit mfu`")
                 : tr_noop("assumption for consumer GPUs: three quarters of the data-centre default (GDDR memory, no "
                           "published runs in gpuplan's table); calibrate with `gpuplan fit mfu`")};
  const bool sxm = gpu.form_factor == "sxm";
  switch (job.stack) {
    case Stack::kNvidiaRecipe:
      return {0.62, 0.59, 0.73,
              sxm ? tr_noop("job.stack nvidia_recipe: median of 15 published runs of NVIDIA's performance recipes on "
                            "H100 (tests/data/published-runs.yaml); 16th-84th percentile 59-73%")
                  : tr_noop("job.stack nvidia_recipe: the SXM cards' median of 15 published runs of NVIDIA's "
                            "performance recipes (tests/data/published-runs.yaml; none on PCIe cards): 16th-84th "
                            "percentile 59-73%"),
              "nvidia_recipe"};
    case Stack::kOther:
      return {0.49, 0.37, 0.55,
              sxm ? tr_noop("job.stack other: median of 25 published runs on A100/H100/H800 that are not NVIDIA's "
                            "performance recipes (tests/data/published-runs.yaml); 16th-84th percentile 37-55%")
                  : tr_noop("job.stack other: the SXM cards' median of 25 published runs that are not NVIDIA's "
                            "performance recipes (tests/data/published-runs.yaml; none on PCIe cards): 16th-84th "
                            "percentile 37-55%"),
              "other"};
    case Stack::kUnknown:
      break;
  }
  return {0.54, 0.45, 0.66,
          sxm ? tr_noop("median of 40 published runs on A100/H100/H800 (tests/data/published-runs.yaml); 16th-84th "
                        "percentile 45-66%")
              : tr_noop("the SXM cards' median of 40 published runs (tests/data/published-runs.yaml; none on PCIe "
                        "cards): 16th-84th percentile 45-66%"),
          "unknown"};
}

}  // namespace

MfuDefault default_mfu(const Gpu& gpu, const Job& job) {
  if (gpu.software == "cuda") return cuda_mfu(gpu, job);
  // Every run the defaults come from ran on CUDA. On another stack (Ascend's
  // CANN) the same figure is only a guess, and its low end is left wide open:
  // half the value, so that a plan's margin covers a stack that does worse.
  // NVIDIA's recipes do not run there: the figure for an unknown job.stack.
  Job unsaid = job;
  unsaid.stack = Stack::kUnknown;
  MfuDefault d = cuda_mfu(gpu, unsaid);
  d.low = d.value / 2;
  d.stack = {};
  d.source =
      job.stack == Stack::kUnknown
          ? trf("assumption: not calibrated on {} (all of gpuplan's published runs are on CUDA); the CUDA default "
                "({}), the band's low end at half the value; measure a trial run and use `gpuplan fit mfu`",
                gpu.software, tr(d.source))
          : trf("assumption: not calibrated on {} (all of gpuplan's published runs are on CUDA); the CUDA default "
                "for an unknown job.stack ({}), the band's low end at half the value; job.stack does not apply off "
                "CUDA; measure a trial run and use `gpuplan fit mfu`",
                gpu.software, tr(d.source));
  return d;
}

}  // namespace gpuplan
