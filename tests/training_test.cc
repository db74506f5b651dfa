#include <catch2/catch.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/job.h"
#include "gpuplan/training.h"

using namespace gpuplan;

namespace {
const Gpu& gpu(const char* id) {
  const Gpu* g = builtin_catalog().find_gpu(id);
  REQUIRE(g != nullptr);
  return *g;
}

Job seven_b() {
  Job j;
  j.parameters = 7e9;
  j.tokens = 2e9;
  j.method = Method::kFullFinetune;
  j.precision = Precision::kBf16;
  j.sequence_length = 4096;
  j.global_batch = 128;
  j.micro_batch = 1;
  j.recompute = Recompute::kSelective;
  j.arch = Architecture{32, 4096, 32, true};
  return j;
}

constexpr double GB = 1e9;
}  // namespace

TEST_CASE("dense training costs 6·N·D FLOPs, 8·N·D with full recompute, 4·N·D for LoRA", "[training]") {
  Job j = seven_b();
  j.arch.given = false;  // no attention term
  // 6 × 7e9 = 4.2e10 FLOPs per token; × 2e9 tokens = 8.4e19.
  CHECK(training_flops_per_token(j) == Approx(4.2e10));
  j.recompute = Recompute::kFull;
  CHECK(training_flops_per_token(j) == Approx(5.6e10));  // 8 × 7e9
  j.recompute = Recompute::kNone;
  j.method = Method::kLora;
  CHECK(training_flops_per_token(j) == Approx(2.8e10));  // 4 × 7e9
  // With the architecture: + 6·L·s·d = 6 × 32 × 4096 × 4096 = 3.22e9 per token.
  Job a = seven_b();
  CHECK(training_flops_per_token(a) == Approx(4.2e10 + 6.0 * 32 * 4096 * 4096));
}

TEST_CASE("mixed-precision AdamW holds 16 bytes per parameter; ZeRO shards them over the cards", "[training]") {
  Job j = seven_b();
  const Gpu& a100 = gpu("A100-80G");
  // Without ZeRO: weights 2·N = 14 GB, gradients 2·N = 14 GB, optimizer 12·N = 84 GB: 112 GB.
  MemoryBreakdown m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(112 * GB));
  // ZeRO-1 over 8: 14 + 14 + 84/8 = 38.5 GB.
  j.zero_stage = 1;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(38.5 * GB));
  // ZeRO-2: 14 + 14/8 + 84/8 = 26.25 GB.
  j.zero_stage = 2;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(26.25 * GB));
  // ZeRO-3: 112/8 = 14 GB.
  j.zero_stage = 3;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(14 * GB));
}

TEST_CASE("activation memory follows Korthikanti et al. 2022", "[training]") {
  Job j = seven_b();
  j.arch = Architecture{1, 4096, 32, true};
  j.sequence_length = 2048;
  j.recompute = Recompute::kNone;
  // s·b·h·(34 + 5·a·s/h) = 2048 · 1 · 4096 · (34 + 5 · 32 · 2048 / 4096) = 8,388,608 × 114 = 956.3 MB.
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(956'301'312.0));
  j.recompute = Recompute::kSelective;  // 34·s·b·h = 285.2 MB
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(285'212'672.0));
  j.recompute = Recompute::kFull;  // 2·s·b·h = 16.8 MB
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(16'777'216.0));
}

TEST_CASE("ring all-reduce moves 2(n−1)/n of the buffer", "[training]") {
  // 2 GB over 8 ranks at 100 GB/s: 2 × 7/8 × 2e9 / 1e11 = 0.035 s.
  CHECK(ring_allreduce(Bytes(2e9), 8, BytesPerSecond(100e9)).count() == Approx(0.035));
  CHECK(ring_allreduce(Bytes(2e9), 1, BytesPerSecond(100e9)).count() == 0.0);
}

TEST_CASE("a full 7B fine-tune does not fit 24 GB cards unsharded and fits 80 GB cards with ZeRO over 8",
          "[training]") {
  Job j = seven_b();
  CHECK_FALSE(memory_per_gpu(j, gpu("RTX4090"), 8).fits);
  CHECK_FALSE(minimum_gpus(j, gpu("RTX4090")).has_value());  // no sharding: more cards do not help
  CHECK_FALSE(memory_per_gpu(j, gpu("A100-80G"), 8).fits);   // 112 GB + activations > 72 GB
  j.zero_stage = 1;
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 8).fits);
  // ZeRO-1 on A100-80G: 28 GB + 84/n + 18.3 GB activations ≤ 72 GB from n = 4 (84/3 = 28 is too much).
  CHECK(minimum_gpus(j, gpu("A100-80G")) == 4);
}

TEST_CASE("a 1B job on 8 nodes over 1 GbE speeds up less than 1.5x, and over InfiniBand it scales", "[training]") {
  Job j;
  j.parameters = 1e9;
  j.tokens = 20e9;
  j.method = Method::kPretrain;
  j.sequence_length = 2048;
  j.global_batch = 512;
  j.zero_stage = 1;
  j.arch = Architecture{24, 2048, 16, true};
  Cluster c;
  c.gpu = &gpu("H800");
  c.gpus = 64;
  c.gpus_per_node = 8;
  c.network_bandwidth = *network_bandwidth("eth_1g");
  // 1 GbE: the 2 GB of bf16 gradients take 2 × 7/8 × 2e9 B / 125 MB/s = 28 s a step,
  // against 0.27 s of compute: far slower than one node alone.
  const Estimate slow = estimate(j, c);
  CHECK(slow.speedup_vs_one_node < 1.5);
  CHECK(slow.step.bottleneck == "communication");
  c.network_bandwidth = *network_bandwidth("ib_ndr");
  const Estimate fast = estimate(j, c);
  CHECK(fast.speedup_vs_one_node > 6.0);
  CHECK(fast.scaling_efficiency > 0.75);
}

TEST_CASE("a data-bound job climbs from under 35% to over 80% utilisation with 16 workers on local NVMe",
          "[training]") {
  Job j;
  j.forward_flops_per_sample = 8.2e9;
  j.samples = 36e6;
  j.precision = Precision::kFp16;
  j.optimizer = Optimizer::kSgd;
  j.global_batch = 512;
  j.micro_batch = 128;
  j.bytes_per_sample = Bytes(150e3);
  j.read_bandwidth = storage_read_bandwidth("network_disk");
  j.workers = 2;
  j.samples_per_second_per_worker = 130;
  Cluster c;
  c.gpu = &gpu("RTX4090");
  c.gpus = 4;
  c.gpus_per_node = 4;
  // Compute: 3 × 8.2e9 × 512 / (4 × 165.15e12 × 0.3) = 63.6 ms a step. Data with 2 workers:
  // 128 images per GPU / (2 × 130/s) = 492 ms → 13%; on the network disk alone
  // 512 × 150 KB / 400 MB/s = 192 ms → 33%.
  CHECK(estimate(j, c).step.gpu_utilisation <= 0.35);
  j.workers = 16;
  CHECK(estimate(j, c).step.gpu_utilisation <= 0.35);  // still the network disk
  j.read_bandwidth = storage_read_bandwidth("local_nvme");
  const Estimate e = estimate(j, c);
  CHECK(e.step.gpu_utilisation >= 0.80);
  CHECK(e.step.compute.count() == Approx(3 * 8.2e9 * 512 / (4 * 165.15e12 * 0.3)));
}

TEST_CASE("the estimate matches Llama 2's published GPU-hours within 10%", "[training]") {
  // Touvron et al. 2023 (Llama 2), Table 2: 7B 184,320, 13B 368,640, 70B 1,720,320
  // A100-80GB GPU-hours for 2T tokens. 6·N·D at 312 TFLOP/s × 40% MFU:
  // 7B: 8.4e22 / 1.248e14 / 3600 = 186,966 h (+1.4%).
  struct Run {
    double n;
    double hours;
  };
  for (const Run r : {Run{7e9, 184320}, Run{13e9, 368640}, Run{70e9, 1720320}}) {
    Job j;
    j.parameters = r.n;
    j.tokens = 2e12;
    j.method = Method::kPretrain;
    j.sequence_length = 4096;
    j.global_batch = 1024;
    j.zero_stage = 3;
    Cluster c;
    c.gpu = &gpu("A100-80G");
    c.gpus = 1024;  // one 4K-token sequence per GPU in a 4M-token batch
    c.network_bandwidth = *network_bandwidth("ib_hdr");
    c.comm_overlap = 1.0;
    const double compute_hours = 6 * r.n * 2e12 / (312e12 * 0.4) / 3600;
    INFO("N = " << r.n);
    CHECK(compute_hours == Approx(r.hours).epsilon(0.10));
    CHECK(estimate(j, c).gpu_hours >= compute_hours * 0.999);
  }
}
