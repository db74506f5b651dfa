#include "gpuplan/training.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "gpuplan/cost/spot.h"

namespace gpuplan {
namespace {

double bytes_per_weight(Precision p) {
  // Weights are kept in the training precision; fp8 training (Transformer
  // Engine) keeps bf16 weights and casts per GEMM, so it counts as 2 bytes.
  return (p == Precision::kFp32 || p == Precision::kTf32) ? 4.0 : 2.0;
}

bool mixed(Precision p) { return p != Precision::kFp32 && p != Precision::kTf32; }

// Optimizer state bytes per trainable parameter (Rajbhandari et al. 2020,
// ZeRO, §3: mixed-precision Adam keeps an fp32 master copy, momentum and
// variance, K = 12; with fp32 weights only momentum and variance, 8).
double optimizer_bytes(const Job& job) {
  if (job.optimizer == Optimizer::kAdamW) return mixed(job.precision) ? 12.0 : 8.0;
  return mixed(job.precision) ? 8.0 : 4.0;  // SGD with momentum (+ fp32 master when mixed)
}

double trainable(const Job& job) {
  return job.method == Method::kLora ? job.parameters * job.lora_trainable : job.parameters;
}

// Layers and hidden size when the architecture is not given: a GPT-3-shaped
// model (Brown et al. 2020, Table 2.1: d_model ≈ 128 × n_layers) with
// N ≈ 12·L·d² gives L = (N / 196,608)^(1/3). For 7B: L ≈ 33, d ≈ 4,200
// (Llama-2-7B has 32 and 4,096).
Architecture shape(const Job& job) {
  if (job.arch.given) return job.arch;
  Architecture a;
  const double l = std::cbrt(job.parameters / 196608.0);
  a.layers = std::max(1, static_cast<int>(std::lround(l)));
  a.hidden = 128 * a.layers;
  a.heads = std::max(1, a.hidden / 128);
  return a;
}

bool per_sample(const Job& job) { return job.forward_flops_per_sample > 0; }

// Per-direction bandwidth between the GPUs of one node: NVLink on SXM boards
// (the catalog gives the bidirectional total, so half of it each way), else
// PCIe x16: 16 / 32 / 64 GB/s each way for gen 3 / 4 / 5 (reference data §2).
BytesPerSecond intra_node_bandwidth(const Gpu& gpu) {
  if (gpu.nvlink && gpu.form_factor != "consumer") return *gpu.nvlink / 2.0;
  const int gen = gpu.pcie_gen > 0 ? gpu.pcie_gen : 4;
  return BytesPerSecond(gen >= 5 ? 64e9 : gen == 4 ? 32e9 : 16e9);
}

}  // namespace

std::string_view to_string(Method m) {
  switch (m) {
    case Method::kPretrain:
      return "pretrain";
    case Method::kFullFinetune:
      return "full_finetune";
    case Method::kLora:
      return "lora";
  }
  return "?";
}

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::kNone:
      return "none";
    case Recompute::kSelective:
      return "selective";
    case Recompute::kFull:
      return "full";
  }
  return "?";
}

double training_flops_multiplier(const Job& job) {
  // Per-sample jobs: forward + backward ≈ 3 × forward (the backward pass costs
  // about twice the forward); full recompute runs the forward again.
  if (per_sample(job)) return job.recompute == Recompute::kFull ? 4.0 : 3.0;
  // Dense training: forward 2N, backward 4N per token → 6N (Kaplan et al. 2020,
  // §2.1); full activation recompute runs the forward pass twice → 8N. LoRA
  // still back-propagates activations through the frozen weights (2N) but
  // computes no weight gradients for them → 4N (6N with full recompute).
  double k = job.method == Method::kLora ? 4.0 : 6.0;
  if (job.recompute == Recompute::kFull) k += 2.0;
  return k;
}

double backward_share(const Job& job) { return job.method == Method::kLora ? 0.5 : 2.0 / 3.0; }

double training_flops_per_token(const Job& job) {
  const double k = training_flops_multiplier(job);
  double flops = k * job.parameters;
  // Attention: forward 2·n_layer·n_ctx·d_model per token (Kaplan et al. 2020,
  // Table 1), with the same forward/backward multiple.
  if (job.arch.given && job.sequence_length > 0) flops += k * job.arch.layers * job.sequence_length * job.arch.hidden;
  return flops;
}

TrainingModel::TrainingModel(const Job& job) : job_(job) {
  if (job.micro_batch < 1) throw std::invalid_argument("job.micro_batch must be at least 1");
  if (!(job.global_batch > 0)) throw std::invalid_argument("job.global_batch must be greater than zero");
  const double t = trainable(job);
  weights_ = job.parameters * bytes_per_weight(job.precision);
  grads_ = t * bytes_per_weight(job.precision);
  optimizer_ = t * optimizer_bytes(job);
  grad_bytes_ = grads_;
  if (per_sample(job)) {
    activations_ = job.activation_bytes_per_sample * job.micro_batch;
    const double k = training_flops_multiplier(job);
    step_flops_ = k * job.forward_flops_per_sample * job.global_batch;
    steps_ = std::ceil(job.samples / job.global_batch - 1e-9);  // a partial last step still runs
    total_flops_ = Flops(k * job.forward_flops_per_sample * job.samples);
  } else {
    // Korthikanti et al. 2022, eq. 2 (no tensor or sequence parallelism), bytes
    // per layer: s·b·h·(34 + 5·a·s/h); selective recompute keeps 34·s·b·h,
    // full recompute only each layer's input, 2·s·b·h.
    const Architecture a = shape(job);
    const double s = job.sequence_length, b = job.micro_batch, h = a.hidden;
    double per_layer = s * b * h * (34.0 + 5.0 * a.heads * s / h);
    if (job.recompute == Recompute::kSelective) per_layer = 34.0 * s * b * h;
    if (job.recompute == Recompute::kFull) per_layer = 2.0 * s * b * h;
    activations_ = per_layer * a.layers;
    flops_per_token_ = training_flops_per_token(job);
    step_flops_ = flops_per_token_ * job.global_batch * job.sequence_length;
    steps_ = std::ceil(job.tokens / (job.global_batch * job.sequence_length) - 1e-9);
    total_flops_ = Flops(flops_per_token_ * job.tokens);
  }
  // Checkpoints: weights and optimizer states (the fp32 master, momentum and
  // variance; LoRA: the adapters only, nothing of the frozen base).
  checkpoint_size_ = Bytes(job.method == Method::kLora ? t * (bytes_per_weight(job.precision) + optimizer_bytes(job))
                                                       : weights_ + optimizer_);
}

double TrainingModel::memory_bytes(int gpus, int zero_stage) const {
  // ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer states over the
  // n data-parallel ranks, stage 2 also gradients, stage 3 also the weights.
  const double n = std::max(1, gpus);
  return (zero_stage >= 3 ? weights_ / n : weights_) + (zero_stage >= 2 ? grads_ / n : grads_) +
         (zero_stage >= 1 ? optimizer_ / n : optimizer_) + activations_;
}

MemoryBreakdown TrainingModel::memory(const Gpu& gpu, int gpus, int zero_stage, double usable_share) const {
  MemoryBreakdown m;
  const double n = std::max(1, gpus);
  m.weights = Bytes(zero_stage >= 3 ? weights_ / n : weights_);
  m.gradients = Bytes(zero_stage >= 2 ? grads_ / n : grads_);
  m.optimizer = Bytes(zero_stage >= 1 ? optimizer_ / n : optimizer_);
  m.activations = Bytes(activations_);
  m.total = m.weights + m.gradients + m.optimizer + m.activations;
  m.usable = gpu.memory * usable_share;
  m.fits = m.total <= m.usable;
  return m;
}

int TrainingModel::fitting_zero_stage(const Gpu& gpu, int gpus, double usable_share) const {
  const double usable = gpu.memory.value() * usable_share;
  for (int z = job_.zero_stage; z <= 3; ++z)
    if (memory_bytes(gpus, z) <= usable) return z;
  return -1;
}

double TrainingModel::achieved_flops(const Gpu& gpu) const {
  const auto peak = gpu.dense_tflops.find(job_.precision);
  if (peak == gpu.dense_tflops.end()) return 0.0;
  return peak->second * 1e12 * (job_.mfu ? *job_.mfu : default_mfu(gpu).first);
}

StepBreakdown TrainingModel::step(const Shape& c, double per_gpu, const MeasuredScaling* measured) const {
  StepBreakdown s;
  const int gpus = c.gpus;
  const int per_node = std::min(gpus, c.gpus_per_node);
  const int nodes = (gpus + c.gpus_per_node - 1) / c.gpus_per_node;
  const double samples = job_.global_batch;
  // Data loading (prefetched, so it overlaps compute): each node reads its
  // share of the batch from storage; each GPU's workers preprocess its share.
  const auto data_time = [&](int g, int nd) {
    double data = 0;
    if (job_.bytes_per_sample.value() > 0 && job_.read_bandwidth.value() > 0)
      data = (samples / nd) * job_.bytes_per_sample.value() / job_.read_bandwidth.value();
    if (job_.samples_per_second_per_worker > 0)
      data = std::max(data, (samples / g) / (job_.workers * job_.samples_per_second_per_worker));
    return data;
  };
  if (measured) {
    // Measured scaling: one GPU's step (compute or data, no communication)
    // stretched by the USL's loss, T(n) = T(1)·(1 + σ(n−1) + κn(n−1))/n
    // (Gunther 2007); the loss against perfect scaling shows as communication.
    const double compute1 = step_flops_ / per_gpu;
    const double data1 = data_time(1, 1);
    const double one = std::max(compute1, data1);
    const double n = gpus;
    const double t = one * (1.0 + measured->sigma * (n - 1) + measured->kappa * n * (n - 1)) / n;
    s.compute = Seconds(compute1 / n);
    s.data = Seconds(data1 / n);
    s.communication = Seconds(std::max(0.0, t - one / n));
    s.exposed_communication = s.communication;
  } else {
    s.compute = Seconds(step_flops_ / (per_gpu * gpus));
    s.data = Seconds(data_time(gpus, nodes));
    // Gradient all-reduce, hierarchical: a ring inside the node over NVLink or
    // PCIe, then 2(m−1)/m × bytes over each node's network between m nodes.
    // ZeRO-3 also gathers the weights: 1.5× the traffic (ZeRO paper, §7).
    const Bytes grads(grad_bytes_);
    Seconds comm = ring_allreduce(grads, per_node, intra_node_bandwidth(*c.gpu));
    if (nodes > 1) comm += Seconds(2.0 * (nodes - 1) / nodes * grads.value() / c.network.value());
    if (c.zero_stage >= 3) comm = comm * 1.5;
    s.communication = comm;
    // Overlap: buckets are reduced while the backward pass continues (PyTorch
    // DDP); `comm_overlap` of the backward time can hide communication.
    const Seconds hidden = s.compute * backward_share(job_) * c.comm_overlap;
    s.exposed_communication = comm > hidden ? comm - hidden : Seconds(0);
  }
  const Seconds base_step = std::max(s.compute, s.data) + s.exposed_communication;
  if (job_.checkpoint_bandwidth.value() > 0) {
    // With ZeRO the states are sharded and every node writes its shard in
    // parallel (DeepSpeed's checkpoints); without it, rank 0 writes alone.
    const int writers = c.zero_stage >= 1 ? nodes : 1;
    const Seconds write = checkpoint_size_ / (job_.checkpoint_bandwidth * static_cast<double>(writers));
    double interval_steps = 200;  // the article: "每200步存一次checkpoint"
    if (job_.checkpoint_every_steps) interval_steps = *job_.checkpoint_every_steps;
    else if (job_.checkpoint_every) interval_steps = *job_.checkpoint_every / base_step;
    else if (job_.mtbf) interval_steps = young_daly_interval(write, *job_.mtbf) / base_step;
    interval_steps = std::max(1.0, interval_steps);
    s.checkpoint_write = write;
    s.checkpoint_interval_steps = interval_steps;
    s.checkpoint = write / interval_steps;
  }
  // Step = max(compute, data) + exposed communication + amortised checkpoints (SPEC).
  s.step = base_step + s.checkpoint;
  s.bottleneck = "compute";
  Seconds most = s.compute;
  if (s.data > most) most = s.data, s.bottleneck = "data loading";
  if (s.exposed_communication > most) most = s.exposed_communication, s.bottleneck = "communication";
  if (s.checkpoint > most) s.bottleneck = "checkpointing";
  s.gpu_utilisation = s.step.count() > 0 ? s.compute / s.step : 0.0;
  return s;
}

MemoryBreakdown memory_per_gpu(const Job& job, const Gpu& gpu, int gpus, double usable_share) {
  return TrainingModel(job).memory(gpu, gpus, job.zero_stage, usable_share);
}

std::optional<int> minimum_gpus(const Job& job, const Gpu& gpu, int limit, double usable_share) {
  const TrainingModel model(job);
  const double usable = gpu.memory.value() * usable_share;
  const auto fits = [&](int n) { return model.memory_bytes(n, job.zero_stage) <= usable; };
  if (fits(1)) return 1;
  if (job.zero_stage == 0) return std::nullopt;  // nothing is sharded: more cards do not help
  // Memory falls monotonically with n; binary search the first n that fits.
  if (!fits(limit)) return std::nullopt;
  int lo = 1, hi = limit;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

Seconds ring_allreduce(Bytes bytes, int n, BytesPerSecond bandwidth) {
  if (n <= 1) return Seconds(0);
  // Each rank sends and receives 2(n−1)/n of the buffer (reduce-scatter then
  // all-gather), so time = 2(n−1)/n × bytes ÷ bandwidth (NCCL's bus bandwidth).
  return Seconds(2.0 * (n - 1) / n * bytes.value() / bandwidth.value());
}

std::pair<double, std::string> default_mfu(const Gpu& gpu) {
  // Published large-scale training reaches 21–46% MFU (Chowdhery et al. 2022,
  // PaLM, Table 3: GPT-3 21.3%, Gopher 32.5%, MT-NLG 30.2%, PaLM 46.2%);
  // Llama 2's reported A100 hours imply about 40% (Touvron et al. 2023,
  // Table 2). Consumer cards lack NVLink and run from GDDR: 30% (assumption).
  if (gpu.form_factor == "consumer")
    return {0.30, "default for consumer GPUs (assumption: no NVLink, GDDR memory); calibrate with `gpuplan fit mfu`"};
  return {0.40,
          "default for data-centre GPUs: published runs reach 21-46% (Chowdhery et al. 2022, Table 3); "
          "Llama 2's A100 hours imply about 40%"};
}

Estimate estimate(const Job& job, const Cluster& c) {
  if (!c.gpu) throw std::invalid_argument("no GPU");
  if (c.gpus < 1) throw std::invalid_argument("gpus must be at least 1");
  const Gpu& gpu = *c.gpu;
  if (!gpu.dense_tflops.contains(job.precision))
    throw std::invalid_argument(fmt::format("{} has no {} rate in the catalog", gpu.id, to_string(job.precision)));
  // Data parallelism: every GPU processes at least one micro-batch per step.
  if (job.global_batch < static_cast<double>(c.gpus) * job.micro_batch)
    throw std::invalid_argument(
        fmt::format("job.global_batch: {:g} per step cannot keep {} GPUs busy at micro_batch {} (needs at least {})",
                    job.global_batch, c.gpus, job.micro_batch, static_cast<double>(c.gpus) * job.micro_batch));
  const TrainingModel model(job);
  Estimate e;
  if (job.mfu) {
    e.mfu = *job.mfu;
    e.mfu_source = "given";
  } else {
    std::tie(e.mfu, e.mfu_source) = default_mfu(gpu);
  }
  e.per_gpu = FlopsPerSecond(model.achieved_flops(gpu));
  e.flops_per_token = model.flops_per_token();
  e.steps = model.steps();
  e.total_flops = model.total_flops();
  e.memory = model.memory(gpu, c.gpus, job.zero_stage, c.usable_memory);
  const Shape cs{&gpu, c.gpus, c.gpus_per_node, c.network_bandwidth, c.comm_overlap, job.zero_stage};
  const StepBreakdown s = model.step(cs, e.per_gpu.value());
  e.checkpoint_size = model.checkpoint_size();
  if (s.checkpoint_interval_steps > 0) {
    e.checkpoint_write = s.checkpoint_write;
    e.checkpoint_interval_steps = s.checkpoint_interval_steps;
  }
  e.step = s;
  e.wall = s.step * e.steps;
  e.gpu_hours = e.wall.count() / 3600.0 * c.gpus;

  const int nodes = (c.gpus + c.gpus_per_node - 1) / c.gpus_per_node;
  if (nodes > 1) {
    Shape one = cs;
    one.gpus = c.gpus_per_node;
    const StepBreakdown o = model.step(one, e.per_gpu.value());
    const Seconds one_step = std::max(o.compute, o.data) + o.exposed_communication + s.checkpoint;
    e.speedup_vs_one_node = one_step / s.step;
    e.scaling_efficiency = e.speedup_vs_one_node / nodes;
  } else {
    e.speedup_vs_one_node = 1.0;
    e.scaling_efficiency = 1.0;
  }
  if (!job.arch.given && !per_sample(job))
    e.notes.push_back(
        fmt::format("architecture not given: activations estimated for a GPT-3-shaped model "
                    "({} layers, hidden {}); give job.architecture for the attention FLOPs",
                    shape(job).layers, shape(job).hidden));
  return e;
}

}  // namespace gpuplan
