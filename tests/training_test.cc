#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "gpuplan/catalog.h"
#include "gpuplan/cost/spot.h"
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

// Memory per GPU with `n` data-parallel ranks and no tensor or pipeline parallelism.
MemoryBreakdown memory_per_gpu(const Job& j, const Gpu& g, int n) {
  return TrainingModel(j).memory(g, Layout{1, 1, n, j.zero_stage, j.recompute, j.micro_batch}, 0.9);
}
}  // namespace

TEST_CASE("dense training costs 6·N + 12·L·s·h FLOPs a token, +1/3 with full recompute, 2/3 for LoRA", "[training]") {
  Job j = seven_b();
  const Architecture a = j.arch;  // 32 layers, hidden 4096
  // PaLM's model FLOPs (App. B): 6 × 7e9 + 12 × 32 × 4096 × 4096 = 4.2e10 + 6.44e9 per token.
  const double attention = 12.0 * 32 * 4096 * 4096;
  CHECK(training_flops_per_token(j, a) == Approx(4.2e10 + attention));
  j.recompute = Recompute::kFull;  // another forward pass: 8/6 of it
  CHECK(training_flops_per_token(j, a) == Approx((4.2e10 + attention) * 8 / 6));
  j.recompute = Recompute::kNone;
  j.method = Method::kLora;  // no weight gradients: 4/6 of it
  CHECK(training_flops_per_token(j, a) == Approx((4.2e10 + attention) * 4 / 6));
  // A sequence of one token has next to no attention: 6·N.
  j = seven_b();
  j.sequence_length = 1;
  CHECK(training_flops_per_token(j, a) == Approx(4.2e10).epsilon(1e-4));
}

TEST_CASE("bf16 AdamW holds 18 bytes per parameter (fp32 gradients) — ZeRO shards them over the cards", "[training]") {
  Job j = seven_b();
  const Gpu& a100 = gpu("A100-80G");
  // Megatron-LM's 18 bytes: weights 2·N = 14 GB, fp32 gradients 4·N = 28 GB, optimizer 12·N = 84 GB: 126 GB.
  MemoryBreakdown m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(126 * GB));
  // ZeRO-1 over 8 (Megatron's distributed optimizer, 6 + 12/DP bytes): 14 + 28 + 84/8 = 52.5 GB.
  j.zero_stage = 1;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(52.5 * GB));
  // ZeRO-2: 14 + 28/8 + 84/8 = 28 GB.
  j.zero_stage = 2;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(28 * GB));
  // ZeRO-3: 126/8 = 15.75 GB.
  j.zero_stage = 3;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(15.75 * GB));
  // fp16 with loss scaling keeps fp16 gradients: the ZeRO paper's 16 bytes, 112 GB.
  j.zero_stage = 0;
  j.precision = Precision::kFp16;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(112 * GB));
  // bf16 gradients (grad_reduce_in_fp32 = False): 2 + 2 + 12 = 16 bytes, 112 GB; with the distributed
  // optimizer over 8, 4 + 12/8 = 5.5 bytes, 38.5 GB.
  j.precision = Precision::kBf16;
  j.gradient_precision = Precision::kBf16;
  m = memory_per_gpu(j, a100, 8);
  CHECK(m.gradients.value() == Approx(14 * GB));
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(112 * GB));
  j.zero_stage = 1;
  m = memory_per_gpu(j, a100, 8);
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(38.5 * GB));
  // bf16 moments (DeepSeek-V3 §3.3.3): the fp32 master copy and two 2-byte moments, 8 bytes instead of 12:
  // 2 + 2 + 8 = 12 bytes a parameter, 84 GB at ZeRO 0.
  j.zero_stage = 0;
  j.optimizer_moments = Precision::kBf16;
  m = memory_per_gpu(j, a100, 8);
  CHECK(m.optimizer.value() == Approx(56 * GB));
  CHECK((m.weights + m.gradients + m.optimizer).value() == Approx(84 * GB));
  j.optimizer = Optimizer::kSgd;  // one momentum: 4 + 2
  CHECK(memory_per_gpu(j, a100, 8).optimizer.value() == Approx(42 * GB));
  j.optimizer = Optimizer::kAdamW;
  j.optimizer_moments = Precision::kFp32;
  // fp32 gradients asked of an fp16 job: 4 bytes again.
  j.zero_stage = 0;
  j.precision = Precision::kFp16;
  j.gradient_precision = Precision::kFp32;
  CHECK(memory_per_gpu(j, a100, 8).gradients.value() == Approx(28 * GB));
}

TEST_CASE("bf16 gradients halve the data-parallel traffic: the reduce moves what the buffers hold", "[training]") {
  Job j = seven_b();
  InstanceShape node;
  node.gpus = 8;
  node.intra = BytesPerSecond(300e9);
  node.network = BytesPerSecond(25e9);
  node.fabric = "infiniband";
  const Configuration c{&gpu("A100-80G"), 16, node, 0};  // no overlap: all of it exposed
  const Layout l{1, 1, 16, 1, Recompute::kSelective, 1};
  const double fp32 = TrainingModel(j).step(c, l, 150e12).communication.count();
  j.gradient_precision = Precision::kBf16;
  const double bf16 = TrainingModel(j).step(c, l, 150e12).communication.count();
  CHECK(fp32 > 0);
  CHECK(bf16 == Approx(fp32 / 2));
}

TEST_CASE("activation memory follows Korthikanti et al. 2022", "[training]") {
  Job j = seven_b();
  j.arch = Architecture{1, 4096, 32, true};
  j.sequence_length = 2048;
  j.recompute = Recompute::kNone;
  // s·b·h·(34 + 5·a·s/h) = 2048 · 1 · 4096 · (34 + 5 · 32 · 2048 / 4096) = 8,388,608 × 114 = 956.3 MB,
  // plus the embedding's input and dropout (Megatron-LM): 8·s·b + s·b·h = 16,384 + 8,388,608.
  const double embedding = 16'384.0 + 8'388'608.0;
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(956'301'312.0 + embedding));
  j.recompute = Recompute::kSelective;  // 34·s·b·h = 285.2 MB
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(285'212'672.0 + embedding));
  j.recompute = Recompute::kFull;  // 2·s·b·h = 16.8 MB
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 1).activations.value() == Approx(16'777'216.0 + embedding));
}

TEST_CASE("fp8 keeps the four linear layers' inputs as 1-byte casts: (3 + ffn/h)·sbh less a layer", "[training]") {
  Job j = seven_b();
  j.arch = Architecture{1, 4096, 32, true};  // ffn = 4h: 7·s·b·h less
  j.sequence_length = 2048;
  j.precision = Precision::kFp8;
  const double embedding = 16'384.0 + 8'388'608.0, sbh = 8'388'608.0;
  const Gpu& h100 = gpu("H100");
  j.recompute = Recompute::kNone;  // (114 − 7)·s·b·h
  CHECK(memory_per_gpu(j, h100, 1).activations.value() == Approx(107 * sbh + embedding));
  j.recompute = Recompute::kSelective;  // (34 − 7)·s·b·h
  CHECK(memory_per_gpu(j, h100, 1).activations.value() == Approx(27 * sbh + embedding));
  j.recompute = Recompute::kFull;  // the layer's input, kept in bf16: unchanged
  CHECK(memory_per_gpu(j, h100, 1).activations.value() == Approx(2 * sbh + embedding));
  // A SwiGLU MLP of 11008 (Llama 2 7B): 3 + 11008/4096 = 5.69·s·b·h less than bf16.
  j.arch.ffn = 11008;
  j.recompute = Recompute::kSelective;
  const double fp8 = memory_per_gpu(j, h100, 1).activations.value();
  j.precision = Precision::kBf16;
  CHECK(memory_per_gpu(j, h100, 1).activations.value() - fp8 == Approx((3 + 11008.0 / 4096) * sbh));
}

TEST_CASE("ring all-reduce moves 2(n−1)/n of the buffer", "[training]") {
  // 2 GB over 8 ranks at 100 GB/s: 2 × 7/8 × 2e9 / 1e11 = 0.035 s.
  CHECK(ring_allreduce(Bytes(2e9), 8, BytesPerSecond(100e9)).count() == Approx(0.035));
  CHECK(ring_allreduce(Bytes(2e9), 1, BytesPerSecond(100e9)).count() == 0.0);
}

TEST_CASE("a full 7B fine-tune does not fit one 24 GB card, and fits 8 with sharding — an 80 GB card needs 2",
          "[training]") {
  Job j = seven_b();
  CHECK_FALSE(memory_per_gpu(j, gpu("RTX4090"), 8).fits);   // plain data parallelism: 112 GB of states each
  CHECK_FALSE(memory_per_gpu(j, gpu("A100-80G"), 8).fits);  // 112 GB + activations > 72 GB
  j.zero_stage = 1;
  CHECK(memory_per_gpu(j, gpu("A100-80G"), 8).fits);
  // The layout search shards where plain data parallelism cannot. RTX 4090 (21.6 GB usable):
  // 2 cards hold 63 GB of states each at best, 4 hold 31.5 GB; 8 hold 15.75 GB (TP4 × ZeRO-3 over 2, …).
  const auto rtx = minimum_gpus(seven_b(), gpu("RTX4090"));
  REQUIRE(rtx);
  CHECK(rtx->first == 8);
  // A100-80G (72 GB usable): one card holds 126 GB of states at best 126 − 84 + … no; two hold, with
  // ZeRO-2 over 2 and full recompute, 14 + 28/2 + 84/2 = 70 GB + 1.1 GB of layer inputs.
  const auto a100 = minimum_gpus(seven_b(), gpu("A100-80G"));
  REQUIRE(a100);
  CHECK(a100->first == 2);
  CHECK(TrainingModel(seven_b()).memory(gpu("A100-80G"), a100->second, 0.9).fits);
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
  j.mfu = 0.4;  // the compute this test weighs the network against
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
  j.mfu = 0.3;
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

TEST_CASE("checkpoints: every node writes its shard, up to what the storage takes in all", "[training][checkpoint]") {
  Job j = seven_b();  // 98 GB of checkpoint: 14 GB of bf16 weights + 84 GB of fp32 Adam states
  j.checkpoint_bandwidth = BytesPerSecond(1e9);
  j.checkpoint_every = Seconds(1800);
  Cluster c;
  c.gpu = &gpu("H800");
  c.gpus = 64;  // 8 nodes
  c.network_bandwidth = *network_bandwidth("ib_ndr");
  const Estimate e = estimate(j, c);
  REQUIRE(e.checkpoint_size.value() == Approx(98 * GB));
  // 8 nodes × 1 GB/s: 98 GB / 8 GB/s = 12.25 s, whatever the ZeRO stage.
  CHECK(e.step.checkpoint_write.count() == Approx(12.25));
  // Never interrupted (no failure rate): one write per 30 minutes of work.
  CHECK(e.step.checkpoint.count() == Approx(e.step.work.count() * 12.25 / 1800));
  CHECK(e.step.interruptions.count() < 1e-12);
  CHECK(e.step.step.count() == Approx(e.step.work.count() * (1 + 12.25 / 1800)));
  // An object-storage bucket that takes 1.25 GB/s in all: 98 / 1.25 = 78.4 s.
  j.checkpoint_aggregate = BytesPerSecond(1.25e9);
  CHECK(estimate(j, c).step.checkpoint_write.count() == Approx(78.4));
  // A step count instead of a time: τ = 200 steps of work.
  j.checkpoint_every.reset();
  j.checkpoint_every_steps = 200;
  const Estimate s = estimate(j, c);
  CHECK(s.step.checkpoint_interval_steps == Approx(200));
  CHECK(s.step.checkpoint.count() == Approx(78.4 / 200));
}

TEST_CASE("failures: a job of n GPUs is interrupted n times as often, and its step follows Daly's complete model",
          "[training][interruptions]") {
  Job j = seven_b();
  j.method = Method::kPretrain;
  j.tokens = 1e12;
  j.global_batch = 4096;
  j.zero_stage = 1;
  j.checkpoint_bandwidth = BytesPerSecond(2e9);
  j.checkpoint_every = Seconds(1800);
  j.gpu_mtbf = Seconds(2111.0 * 86400);  // Llama 3: 419 interruptions in 54 days on 16,384 GPUs
  j.restart = Seconds(600);
  Cluster c;
  c.gpu = &gpu("H100");
  c.gpus = 2048;
  c.network_bandwidth = *network_bandwidth("ib_ndr") * 8.0;
  const Estimate e = estimate(j, c);
  // λ = 2048 / 2111 days = 0.970 a day; M = 24.74 h = 89,058 s.
  const double m = 2111.0 * 86400 / 2048;
  CHECK(e.step.interruptions_per_hour == Approx(3600 / m));
  const double cw = e.step.checkpoint_write.count(), tau = 1800;
  const double daly = m * std::exp(600 / m) * std::expm1((tau + cw) / m) / tau;
  CHECK(e.step.step.count() == Approx(e.step.work.count() * daly).epsilon(1e-9));
  CHECK(e.step.interruptions.count() > 0);
  // Property: more GPUs, more of the time lost; a longer restart, more still.
  double previous = 0;
  for (int n : {256, 1024, 4096, 16384}) {
    c.gpus = n;
    j.global_batch = n * 2;
    const Estimate x = estimate(j, c);
    const double lost = x.step.interruptions / x.step.step;
    INFO(n << " GPUs");
    CHECK(lost > previous);
    previous = lost;
  }
  Job longer = j;
  longer.restart = Seconds(3600);
  CHECK(estimate(longer, c).step.interruptions > estimate(j, c).step.interruptions);
  // Without failures nothing is lost.
  j.gpu_mtbf = Seconds(0);
  CHECK(estimate(j, c).step.interruptions.count() == 0);
}

TEST_CASE("checkpoint interval auto is Daly's optimum for the job's failure rate", "[training][interruptions]") {
  Job j = seven_b();
  j.checkpoint_bandwidth = BytesPerSecond(1e9);
  j.gpu_mtbf = Seconds(2111.0 * 86400);
  j.restart = Seconds(600);
  Cluster c;
  c.gpu = &gpu("A100-80G");
  c.gpus = 8;
  const Estimate e = estimate(j, c);
  const double m = 2111.0 * 86400 / 8;  // one node's MTBF: 264 days
  const double tau = daly_interval(e.step.checkpoint_write, Seconds(m)).count();
  CHECK(e.step.checkpoint_interval_steps * e.step.work.count() == Approx(tau));
  // Any other interval loses time: Daly's τ minimises the step.
  for (double k : {0.5, 2.0}) {
    Job fixed = j;
    fixed.checkpoint_every = Seconds(tau * k);
    CHECK(estimate(fixed, c).step.step > e.step.step);
  }
}

TEST_CASE("a checkpoint interval longer than the run saves once: the run is one segment, its time finite",
          "[training][interruptions]") {
  Job j = seven_b();
  j.checkpoint_bandwidth = BytesPerSecond(1e9);
  Cluster c;
  c.gpu = &gpu("H800");
  c.gpus = 64;
  c.network_bandwidth = *network_bandwidth("ib_ndr");
  const Seconds run = estimate(j, c).step.work * estimate(j, c).steps;  // no failures, no checkpoints
  // Interrupted about once per run: M = the run's own length.
  j.gpu_mtbf = run * 64.0;
  j.restart = Seconds(600);
  j.checkpoint_every = run;
  const Estimate once = estimate(j, c);
  // Found by fuzzing: 3e25 minutes overflowed Daly's e^(τ/M) to an infinite wall time.
  for (Seconds longer : {run * 2.0, Seconds(1.8e27)}) {
    j.checkpoint_every = longer;
    const Estimate e = estimate(j, c);
    INFO(longer.count() << " s");
    CHECK(std::isfinite(e.wall.count()));
    CHECK(e.wall.count() == Approx(once.wall.count()).epsilon(1e-12));
    CHECK(e.step.checkpoint_interval_steps == Approx(e.steps));
  }
  j.checkpoint_every.reset();
  j.checkpoint_every_steps = 1e300;
  CHECK(estimate(j, c).wall.count() == Approx(once.wall.count()).epsilon(1e-12));
  // Against a Monte Carlo of the one segment (no write at its end; Daly's
  // model charges one, 98 GB / 8 GB/s): mean time within 2% over 40,000 runs.
  const SpotParams p{3600.0 / run.count(), Seconds(0), j.restart, run};
  const SpotSimulation mc = simulate_spot(run, p, run * 100.0, 40000, 11);
  CHECK(once.wall.count() == Approx(mc.mean.count()).epsilon(0.02));
  CHECK(once.wall > run * 1.7);  // e − 1 = 1.72 runs, and the restarts
}

TEST_CASE("a run that can never finish is refused with its reasons, not given an infinite time",
          "[training][interruptions]") {
  Job j = seven_b();
  j.checkpoint_bandwidth = BytesPerSecond(1e9);
  j.gpu_mtbf = Seconds(0.01);  // 64 GPUs: an interruption every 156 µs, a restart of 10 minutes
  j.restart = Seconds(600);
  Cluster c;
  c.gpu = &gpu("H800");
  c.gpus = 64;
  c.network_bandwidth = *network_bandwidth("ib_ndr");
  try {
    (void)estimate(j, c);
    FAIL("no error");
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("never finishes"));
    CHECK_THAT(what, Catch::Contains("cluster.restart"));
    CHECK_THAT(what, Catch::Contains("cluster.gpu_mtbf"));
  }
}

TEST_CASE("the fewest-cards search asks memory alone: any_layout_fits agrees with the full layout search",
          "[training]") {
  // Jobs that stress the shortcut (each recompute level at the highest ZeRO
  // stage decides): dense, pipelined, ZeRO-3 asked for, a MoE, fp8 with a wide
  // MLP (where no recompute can need less than selective), a per-sample job.
  std::vector<Job> jobs;
  jobs.push_back(seven_b());
  Job big = seven_b();
  big.parameters = 70e9, big.arch = Architecture{80, 8192, 64, true, 28672, 32000, 8};
  jobs.push_back(big);
  Job zero3 = seven_b();
  zero3.zero_stage = 3, zero3.recompute = Recompute::kNone;
  jobs.push_back(zero3);
  Job moe = seven_b();
  moe.parameters = 117e9, moe.active_parameters = 5.1e9, moe.experts = 128, moe.experts_per_token = 4;
  moe.arch = Architecture{36, 2880, 64, true, 2880, 201088, 8};
  jobs.push_back(moe);
  Job fp8 = seven_b();
  fp8.precision = Precision::kFp8, fp8.sequence_length = 256, fp8.arch.ffn = 40 * 4096,
  fp8.recompute = Recompute::kNone;
  jobs.push_back(fp8);
  Job vision;
  vision.parameters = 300e6, vision.samples = 1e6, vision.global_batch = 256, vision.micro_batch = 32;
  vision.forward_flops_per_sample = 60e9, vision.activation_bytes_per_sample = 0.4e9;
  jobs.push_back(vision);
  int checked = 0, fitting = 0;
  for (const Job& j : jobs) {
    const TrainingModel model(j);
    for (const Gpu& g : builtin_catalog().gpus)
      for (const int n : {1, 2, 3, 4, 6, 8, 16, 24, 32, 64, 128}) {
        const Configuration c{&g, n, server_shape(g, 8, BytesPerSecond(100e9), "infiniband"), 0.5};
        const auto full = model.best_layout(c, 1e12, 0.9);
        INFO(g.id << " × " << n << ", job of " << j.parameters << " parameters");
        CHECK(model.any_layout_fits(c, 0.9) == (full && full->memory.fits));
        ++checked, fitting += full && full->memory.fits;
      }
  }
  CHECK(checked > 300);
  CHECK(fitting > 50);
  CHECK(checked - fitting > 50);
}
