#include "gpuplan/efficiency.h"

#include <fmt/format.h>

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

MfuDefault default_mfu(const Gpu& gpu, const Job&) {
  // Published large-scale training reaches 21–46% MFU (Chowdhery et al. 2022,
  // PaLM, Table 3: GPT-3 21.3%, Gopher 32.5%, MT-NLG 30.2%, PaLM 46.2%);
  // Llama 2's reported A100 hours imply about 40% (Touvron et al. 2023,
  // Table 2). Consumer cards lack NVLink and run from GDDR: 30% (assumption).
  if (gpu.form_factor == "consumer")
    return {0.30, 0.20, 0.40,
            "default for consumer GPUs (assumption: no NVLink, GDDR memory); calibrate with `gpuplan fit mfu`"};
  return {0.40, 0.30, 0.50,
          "default for data-centre GPUs: published runs reach 21-46% (Chowdhery et al. 2022, Table 3); "
          "Llama 2's A100 hours imply about 40%"};
}

}  // namespace gpuplan
