#include "gpuplan/training.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <bit>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "gpuplan/cost/spot.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/fields.h"

namespace gpuplan {
namespace {

double bytes_per_weight(Precision p) {
  // Weights are kept in the training precision; fp8 training (Transformer
  // Engine) keeps bf16 weights and casts per GEMM, so it counts as 2 bytes.
  return (p == Precision::kFp32 || p == Precision::kTf32) ? 4.0 : 2.0;
}

double bytes_per_gradient(const Job& job) {
  // bf16 (and fp8) training accumulates and reduces gradients in fp32
  // (Megatron-LM's main_grad, DeepSpeed's bf16 optimizer): 4 bytes, which is
  // Megatron's 18 bytes per parameter (2 + 4 + 12). fp16 with loss scaling
  // keeps fp16 gradients (the ZeRO paper's 16 bytes). Given: 16-bit
  // gradients are 2 bytes (Megatron-Core's grad_reduce_in_fp32 = False, which
  // NVIDIA's NeMo and Megatron-Bridge performance recipes set).
  const Precision p =
      job.gradient_precision.value_or(job.precision == Precision::kFp16 ? Precision::kFp16 : Precision::kFp32);
  return (p == Precision::kFp32 || p == Precision::kTf32) ? 4.0 : 2.0;
}

bool mixed(Precision p) { return p != Precision::kFp32 && p != Precision::kTf32; }

// Optimizer state bytes per trainable parameter (Rajbhandari et al. 2020,
// ZeRO, §3: mixed-precision Adam keeps an fp32 master copy, momentum and
// variance, K = 12; with fp32 weights only momentum and variance, 8). SGD
// keeps one momentum. Moments in bf16 (DeepSeek-V3 §3.3.3) take 2 bytes each;
// the master copy stays fp32.
double optimizer_bytes(const Job& job) {
  const double master = mixed(job.precision) ? 4.0 : 0.0;
  const double moment = job.optimizer_moments == Precision::kBf16 ? 2.0 : 4.0;
  return master + (job.optimizer == Optimizer::kAdamW ? 2.0 : 1.0) * moment;
}

double trainable(const Job& job) {
  return job.method == Method::kLora ? job.parameters * job.lora_trainable : job.parameters;
}

}  // namespace

double active_parameters(const Job& job) { return job.experts > 0 ? job.active_parameters : job.parameters; }

// N = shared + E·p and N_active = shared + k·p, p one routed expert's
// parameters (over all MoE layers): the routed experts hold E·p = (N − N_a)·E/(E − k).
double expert_parameters(const Job& job) {
  if (job.experts <= 0 || job.experts <= job.experts_per_token) return 0;
  return (job.parameters - job.active_parameters) * job.experts / (job.experts - job.experts_per_token);
}

namespace {

// Layers and hidden size when the architecture is not given: a GPT-3-shaped
// model (Brown et al. 2020, Table 2.1: d_model ≈ 128 × n_layers, heads of
// 128) with N ≈ 12·L·d² gives L = (N / 196,608)^(1/3). The head count is then
// rounded to a multiple of 8 (a power of two below 8), as published shapes
// have, so tensor parallelism over a server's 8 GPUs can divide it (33 heads
// for 7B would rule out every TP above 1), and the layers refit N with that
// hidden size. For 7B: 32 heads, d = 4,096, L = 35 (Llama-2-7B: 32, 4,096, 32
// with a wider MLP); 70B: 72 heads, d = 9,216, L = 69 (Llama-2-70B: 64, 8,192, 80).
Architecture shape(const Job& job) {
  if (job.arch.given) return job.arch;
  const double n = active_parameters(job);  // a MoE's shape follows what a token meets
  const int raw = std::max(1, static_cast<int>(std::lround(std::cbrt(n / 196608.0))));
  Architecture a;
  a.heads = raw >= 8 ? 8 * static_cast<int>(std::lround(raw / 8.0))
                     : static_cast<int>(std::bit_floor(static_cast<unsigned>(raw + raw / 2)));
  a.hidden = 128 * a.heads;
  a.layers = std::max(1, static_cast<int>(std::lround(n / (12.0 * a.hidden * a.hidden))));
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

double training_flops_per_token(const Job& job, const Architecture& a) {
  const double k = training_flops_multiplier(job);
  // Attention scores and their use, QKᵀ and AV: forward 4·s·h per layer and
  // token, the same multiple for the backward pass: 12·L·s·h in training
  // (Chowdhery et al. 2022, PaLM, App. B; Narayanan et al. 2021, §5.1).
  // A mixture of experts: the parameters a token passes through (its k experts and the shared parts).
  return k * active_parameters(job) + 2.0 * k * a.layers * job.sequence_length * a.hidden;
}

TrainingModel::TrainingModel(const Job& job) : job_(job) {
  if (job.micro_batch < 1) throw std::invalid_argument(std::string(tr("job.micro_batch must be at least 1")));
  if (!(job.global_batch > 0))
    throw std::invalid_argument(std::string(tr("job.global_batch must be greater than zero")));
  const double t = trainable(job);
  weights_ = job.parameters * bytes_per_weight(job.precision);
  grads_ = t * bytes_per_gradient(job);
  optimizer_ = t * optimizer_bytes(job);
  if (per_sample(job)) {
    const double k = training_flops_multiplier(job);
    step_flops_ = k * job.forward_flops_per_sample * job.global_batch;
    steps_ = std::ceil(job.samples / job.global_batch - 1e-9);  // a partial last step still runs
    total_flops_ = Flops(k * job.forward_flops_per_sample * job.samples);
  } else {
    arch_ = shape(job);
    flops_per_token_ = training_flops_per_token(job, arch_);
    step_flops_ = flops_per_token_ * job.global_batch * job.sequence_length;
    steps_ = std::ceil(job.tokens / (job.global_batch * job.sequence_length) - 1e-9);
    total_flops_ = Flops(flops_per_token_ * job.tokens);
  }
  // Checkpoints: weights and optimizer states (the fp32 master, momentum and
  // variance; LoRA: the adapters only, nothing of the frozen base).
  checkpoint_size_ = Bytes(job.method == Method::kLora ? t * (bytes_per_weight(job.precision) + optimizer_bytes(job))
                                                       : weights_ + optimizer_);
}

namespace {
// Sequences (samples) the busiest data-parallel rank takes a step: ⌈B/dp⌉.
// A batch that does not divide leaves some ranks a sequence short, and the
// step waits for the fullest (PyTorch's DistributedSampler pads to it;
// Megatron-LM refuses such a batch).
double rank_batch(const Job& job, const Layout& l) { return std::ceil(job.global_batch / l.dp - 1e-9); }

// Micro-batches per pipeline per step: the busiest rank's share over the micro-batch.
double micro_batches(const Job& job, const Layout& l) { return rank_batch(job, l) / l.micro_batch; }

// Layers on the most loaded pipeline stage: ⌈L/pp⌉. A depth need not divide
// the layers (Megatron-Core's uneven first and last stages; Llama 3 405B ran
// 126 layers on 16 stages); the fullest stage sets the pipeline's pace.
double stage_layers(const Architecture& a, const Layout& l) { return std::ceil(static_cast<double>(a.layers) / l.pp); }
}  // namespace

double batch_padding(const Job& job, const Layout& l) { return rank_batch(job, l) * l.dp / job.global_batch; }

double TrainingModel::activation_bytes(const Layout& l) const {
  if (per_sample(job_)) return job_.activation_bytes_per_sample * l.micro_batch;
  // Korthikanti et al. 2022, Table 2, bytes per layer with tensor parallel t
  // and sequence parallel (Megatron-LM's default with TP): no recompute
  // sbh(34/t + 5as/(ht)); selective keeps sbh(18 + 4·ffn/h)/t (34sbh/t for
  // ffn = 4h, as Megatron-LM's theoretical_memory_usage.py writes it); full
  // recompute keeps each layer's input only, 2sbh/t.
  // Context parallel splits each sequence over cp ranks: s/cp tokens a rank.
  const double s = job_.sequence_length / l.cp, b = l.micro_batch, h = arch_.hidden, t = l.tp;
  const double ffn = arch_.ffn > 0 ? arch_.ffn : 4.0 * h;
  double per_layer = s * b * h * (34.0 / t + 5.0 * arch_.heads * s / (h * t));
  if (l.recompute == Recompute::kSelective) per_layer = s * b * h * (18.0 + 4.0 * ffn / h) / t;
  // fp8 (Transformer Engine) keeps the inputs of the four linear layers for
  // the weight gradients as their 1-byte fp8 casts (module/linear.py,
  // _Linear.forward: saved_inputmat is the fp8 inputmat), half of their
  // 2sbh + 2sbh + 2sbh + 2sb·ffn: (3 + ffn/h)·sbh less.
  if (job_.precision == Precision::kFp8 && l.recompute != Recompute::kFull)
    per_layer -= s * b * h * (3.0 + ffn / h) / t;
  if (l.recompute == Recompute::kFull) per_layer = 2.0 * s * b * h / t;
  // The first pipeline stage is the most loaded: its ⌈L/pp⌉ layers with pp
  // micro-batches in flight under 1F1B, about L layer-micro-batches, and
  // the embedding's input (8sb) and dropout (sbh) for each; fewer when the
  // step has fewer micro-batches than stages. Without pipelining the output
  // layer and the loss add 4sbh(1 + v/h) (Megatron-LM, same file).
  double bytes = per_layer * stage_layers(arch_, l) * l.pp + (8.0 * s * b + s * b * h) * l.pp / t;
  if (l.pp > 1) bytes *= std::min(1.0, micro_batches(job_, l) / l.pp);
  else if (arch_.vocab > 0) bytes += 4.0 * s * b * h * (1.0 + arch_.vocab / h) / t;
  // Interleaving keeps more micro-batches in flight on the first stage:
  // × (1 + (p − 1)/(p·v)) (Megatron-LM, theoretical_memory_usage.py).
  if (l.vp > 1) bytes *= 1.0 + (l.pp - 1.0) / (l.pp * l.vp);
  return bytes;
}

double TrainingModel::shard_parameters(const Layout& l) const {
  // Megatron-LM's most loaded shard: (transformer layers / pp + the input
  // embedding) / tp, plus the output layer when there is one stage (untied
  // embeddings, as Llama's). Without a vocabulary the embeddings are spread
  // with the layers. A MoE's routed experts are left out here (expert_shard).
  const double dense = job_.parameters - expert_parameters(job_);
  if (arch_.vocab <= 0) return dense * stage_layers(arch_, l) / std::max(1, arch_.layers) / l.tp;
  const double embedding = static_cast<double>(arch_.vocab) * arch_.hidden;
  const double layers = dense - 2.0 * embedding;
  const double stage = stage_layers(arch_, l) / std::max(1, arch_.layers);
  return (layers * stage + embedding + (l.pp == 1 ? embedding : 0.0)) / l.tp;
}

// A MoE's routed experts on one rank: a stage's share, split over the ep
// ranks. Experts are not tensor-parallel (expert TP 1, as DeepSeek-V3 and
// NeMo's MoE recipes run): the ep ranks come from the stage's tp × dp ranks.
double TrainingModel::expert_shard(const Layout& l) const {
  return expert_parameters(job_) * stage_layers(arch_, l) / std::max(1, arch_.layers) / l.ep;
}

TrainingModel::States TrainingModel::states(const Layout& l) const {
  // Model states per rank: the parameters of the most loaded TP × PP shard,
  // then ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer states over
  // the dp ranks, 2 also gradients, 3 also the weights. Routed experts are
  // sharded over the dp/ep ranks that hold the same experts.
  const double n = job_.parameters > 0 ? job_.parameters : 1.0;
  const double dense = job_.parameters > 0 ? shard_parameters(l) / n : 1.0 / (l.tp * l.pp);
  const double expert = job_.parameters > 0 ? expert_shard(l) / n : 0.0;
  // The distributed optimizer shards over dp × cp (the cp ranks hold the same weights).
  const double dp = std::max(1, l.dp * l.cp), edp = std::max(1.0, static_cast<double>(l.tp * l.dp * l.cp) / l.ep);
  const auto part = [&](double bytes, int stage) {
    return bytes * (dense / (l.zero >= stage ? dp : 1.0) + expert / (l.zero >= stage ? edp : 1.0));
  };
  return {part(weights_, 3), part(grads_, 2), part(optimizer_, 1)};
}

double TrainingModel::memory_bytes(const Layout& l) const {
  const States st = states(l);
  return st.weights + st.grads + st.optimizer + activation_bytes(l);
}

MemoryBreakdown TrainingModel::memory(const Gpu& gpu, const Layout& l, double usable_share) const {
  MemoryBreakdown m;
  const States st = states(l);
  m.weights = Bytes(st.weights);
  m.gradients = Bytes(st.grads);
  m.optimizer = Bytes(st.optimizer);
  m.activations = Bytes(activation_bytes(l));
  m.total = m.weights + m.gradients + m.optimizer + m.activations;
  m.usable = gpu.memory * usable_share;
  m.fits = m.total <= m.usable;
  return m;
}

double TrainingModel::achieved_flops(const Gpu& gpu) const {
  const double mfu = job_.mfu ? *job_.mfu : default_mfu(gpu, job_).value;
  return mfu_peak_tflops(gpu, job_.precision) * 1e12 * mfu *
         (job_.precision == Precision::kFp8 ? job_.fp8_speedup : 1.0);
}

namespace {

// Bytes of one activation tensor of a micro-batch (b·s·h in 16 bits).
double activation_tensor(const Job& job, const Architecture& a, const Layout& l) {
  return 2.0 * l.micro_batch * job.sequence_length / l.cp * a.hidden;  // a rank's s/cp tokens
}

// Context parallel (Megatron-Core's ring attention, after Liu et al. 2023):
// in every layer each rank receives the other cp − 1 ranks' keys and values,
// 2 · b·s/cp · h_kv · 2 bytes each (sharded by TP), and the backward pass
// passes them round again with their gradients: 3 × that. Inside an instance
// on its link, else on the network shared by its GPUs. The transfers overlap
// the attention blocks they feed, so only what exceeds the attention's share
// of the compute is exposed (step()).
Seconds context_parallel_time(const Job& job, const Architecture& a, const Layout& l, const InstanceShape& inst) {
  if (l.cp <= 1) return Seconds(0);
  const double kv = a.kv_heads > 0 ? static_cast<double>(a.hidden) * a.kv_heads / a.heads : a.hidden;
  const double bytes = 3.0 * (l.cp - 1) * 2.0 * l.micro_batch * job.sequence_length / l.cp * kv * 2.0 / l.tp;
  const bool inside = l.tp * l.cp <= inst.gpus;
  const double bw = inside ? inst.intra.value() : inst.network.value() / inst.gpus;
  return Seconds(bytes / bw * stage_layers(a, l) * micro_batches(job, l));
}

// Tensor parallel (Narayanan et al. 2021, §2.3): two all-reduces of b·s·h per
// layer forward and two backward (one after attention, one after the MLP),
// two more when full recompute reruns the forward; with sequence parallel they
// are all-gathers and reduce-scatters of the same volume. Inside an instance,
// on its NVLink or PCIe; Megatron-LM waits for them (not overlapped).
Seconds tensor_parallel_time(const Job& job, const Architecture& a, const Layout& l, const InstanceShape& inst) {
  if (l.tp <= 1) return Seconds(0);
  const double per_layer = l.recompute == Recompute::kFull ? 6 : 4;
  const double layers = stage_layers(a, l);
  return ring_allreduce(Bytes(activation_tensor(job, a, l)), l.tp, inst.intra) *
         (per_layer * layers * micro_batches(job, l));
}

// Pipeline (Narayanan et al. 2021, §2.2): each micro-batch's activations go
// forward to the next stage and their gradients come back, b·s·h/t each way
// (sequence parallel shards them). Between stages inside one instance on its
// link; else on the instance's network, shared by its GPUs.
Seconds pipeline_time(const Job& job, const Architecture& a, const Layout& l, const InstanceShape& inst) {
  if (l.pp <= 1) return Seconds(0);
  const bool inside = l.tp * l.pp <= inst.gpus;
  const double bw = inside ? inst.intra.value() : inst.network.value() / inst.gpus;
  // Interleaving crosses v times as many stage boundaries (Narayanan et al. 2021, §2.2.2).
  return Seconds(2.0 * l.vp * micro_batches(job, l) * activation_tensor(job, a, l) / l.tp / bw);
}

// Data parallel, hierarchical (NCCL): a ring over the rank's replicas inside
// its instance, then 2(m−1)/m of the rest between the m instances the data-
// parallel group spans, every GPU of an instance sharing its network. ZeRO-1
// and 2 move the same volume as an all-reduce (a reduce-scatter of gradients,
// an all-gather of parameters); ZeRO-3 adds an all-gather of every weight in
// the forward and again in the backward pass (Rajbhandari et al. 2020, §7):
// (d−1)/d × (gradients + 2 × weights), frozen weights included (LoRA).
// Data-parallel ranks of one group inside an instance (the ranks of a TP × PP
// replica are placed together; a replica wider than an instance leaves one).
int local_ranks(const Layout& l, const InstanceShape& inst) {
  const int replica = l.tp * l.cp * l.pp;
  return replica <= inst.gpus ? std::min(l.dp, inst.gpus / replica) : 1;
}

// `group` ranks, `local` of them in each instance, each reducing `x`
// all-reduce-equivalent bytes: a ring inside, then between the instances.
Seconds hierarchical_allreduce(double x, int group, int local, const InstanceShape& inst) {
  if (group <= 1) return Seconds(0);
  local = std::max(1, std::min(local, group));
  Seconds t = ring_allreduce(Bytes(x), local, inst.intra);
  const int span = (group + local - 1) / local;
  if (span > 1) t += Seconds(inst.gpus * 2.0 * (span - 1) / span * (x / local) / inst.network.value());
  return t;
}

Seconds data_parallel_time(double grads, double weights, double expert_share, const Layout& l,
                           const InstanceShape& inst) {
  if (l.dp * l.cp <= 1) return Seconds(0);
  // All-reduce-equivalent bytes: 2(d−1)/d × x is the volume each rank moves.
  const auto volume = [&](double share) { return l.zero >= 3 ? (grads + 2.0 * weights) * share / 2.0 : grads * share; };
  const double dense = (1.0 - expert_share) / (l.tp * l.pp), expert = expert_share / (l.pp * l.ep);
  // The cp ranks of a replica hold the same weights: gradients are reduced over dp × cp.
  const int local = local_ranks(l, inst) * l.cp;
  Seconds t = hierarchical_allreduce(volume(dense), l.dp * l.cp, local, inst);
  // A MoE's routed experts: reduced among the tp·dp/ep ranks holding the same
  // experts, the ep ranks of one group placed together (fewer per instance).
  if (expert > 0)
    t +=
        hierarchical_allreduce(volume(expert), std::max(1, l.tp * l.dp / l.ep), std::max(1, l.tp * local / l.ep), inst);
  return t;
}

// Expert parallel (GShard, Lepikhin et al. 2020; Megatron-Core's token
// dispatchers): in every MoE layer each token's hidden state goes to its k
// experts and comes back, in the forward and in the backward pass (again
// with full recompute): 4 (6) all-to-alls a micro-batch. Of a rank's b·s/t
// tokens, the copies for experts on the same instance cross its link; those
// for other instances are sent once per instance and forwarded inside over
// NVLink (DeepEP, DeepSeek-V3 §3.2.2): with the ep ranks over n instances and
// k uniform picks, n(1 − (1 − 1/n)^k) instances a token, less its own. FP8
// jobs dispatch in FP8 and combine in BF16 (DeepSeek-V3 §3.3.2); else 2 bytes.
// Waited for (Megatron-Core's default; job.expert_overlap hides it behind compute).
Seconds expert_parallel_time(const Job& job, const Architecture& a, const Layout& l, const InstanceShape& inst) {
  if (l.ep <= 1 || job.experts_per_token <= 0) return Seconds(0);
  const double tokens = l.micro_batch * job.sequence_length / (l.tp * l.cp), k = job.experts_per_token;
  const double bytes = job.precision == Precision::kFp8 ? 1.5 : 2.0;  // mean of dispatch and combine
  const int local = std::min(l.ep, l.tp * local_ranks(l, inst));      // a stage's ranks in one instance
  const double n = std::ceil(static_cast<double>(l.ep) / local);      // instances the ep group spans
  const double inside = tokens * k * (local - 1) / l.ep * a.hidden * bytes;
  const double remote = n > 1 ? n * (1 - std::pow(1 - 1 / n, k)) * (n - 1) / n : 0;
  const double across = tokens * remote * a.hidden * bytes;
  const double one = std::max(inside / inst.intra.value(), across * inst.gpus / inst.network.value());
  const double transfers = l.recompute == Recompute::kFull ? 6 : 4;
  return Seconds(one * transfers * stage_layers(a, l) * micro_batches(job, l));
}

}  // namespace

StepBreakdown TrainingModel::step(const Configuration& c, const Layout& l, double per_gpu,
                                  const MeasuredScaling* measured) const {
  StepBreakdown s;
  const int gpus = c.gpus;
  const int nodes = c.instances();
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
  // A layout may recompute more than the job asked for: its FLOPs follow.
  Job with = job_;
  with.recompute = l.recompute;
  const double flops = step_flops_ * training_flops_multiplier(with) / training_flops_multiplier(job_);
  if (measured) {
    // Measured scaling: one GPU's step (compute or data, no communication)
    // stretched by the USL's loss, T(n) = T(1)·(1 + σ(n−1) + κn(n−1))/n
    // (Gunther 2007); the loss against perfect scaling shows as communication.
    const double compute1 = flops / per_gpu;
    const double data1 = data_time(1, 1);
    const double one = std::max(compute1, data1);
    const double n = gpus;
    const double t = one * (1.0 + measured->sigma * (n - 1) + measured->kappa * n * (n - 1)) / n;
    s.compute = Seconds(compute1 / n);
    s.data = Seconds(data1 / n);
    s.communication = Seconds(std::max(0.0, t - one / n));
    s.exposed_communication = s.communication;
  } else {
    // Uneven stages: every stage waits for the fullest, ⌈L/pp⌉·pp/L of the even share;
    // an uneven batch likewise, ⌈B/dp⌉·dp/B (batch_padding).
    const double uneven = per_sample(job_) ? 1.0 : stage_layers(arch_, l) * l.pp / std::max(1, arch_.layers);
    s.compute = Seconds(flops / (per_gpu * gpus) * uneven * batch_padding(job_, l));
    // 1F1B pipeline bubble: (p − 1)/m of the compute; interleaved with v
    // virtual stages (p − 1)/(m·v) (Narayanan et al. 2021, §2.2.1-2.2.2).
    if (l.pp > 1) s.bubble = s.compute * ((l.pp - 1) / (micro_batches(job_, l) * l.vp));
    s.data = Seconds(data_time(gpus, nodes));
    s.tensor_parallel = tensor_parallel_time(job_, arch_, l, c.instance);
    s.pipeline = pipeline_time(job_, arch_, l, c.instance);
    s.expert_parallel = expert_parallel_time(job_, arch_, l, c.instance);
    s.context_parallel = context_parallel_time(job_, arch_, l, c.instance);
    const double expert_share = job_.parameters > 0 ? expert_parameters(job_) / job_.parameters : 0.0;
    s.communication = data_parallel_time(grads_, weights_, expert_share, l, c.instance);
    // Overlap: gradient buckets are reduced while the backward pass continues
    // (PyTorch DDP, Megatron-LM); `comm_overlap` of the backward time can hide
    // data-parallel traffic. Tensor-, pipeline- and expert-parallel traffic is waited for.
    const Seconds hidden = s.compute * backward_share(job_) * c.comm_overlap;
    const Seconds dp_exposed = s.communication > hidden ? s.communication - hidden : Seconds(0);
    // A MoE's all-to-alls are waited for, unless the schedule overlaps them
    // with another micro-batch's compute (DeepSeek-V3's DualPipe, §3.2.1).
    const Seconds ep_hidden = s.compute * job_.expert_overlap;
    const Seconds ep_exposed = s.expert_parallel > ep_hidden ? s.expert_parallel - ep_hidden : Seconds(0);
    // Ring attention hides its transfers behind the attention blocks (12·L·s·h of the FLOPs).
    const double attention = flops_per_token_ > 0 ? 2.0 * training_flops_multiplier(job_) * arch_.layers *
                                                        job_.sequence_length * arch_.hidden / flops_per_token_
                                                  : 0.0;
    const Seconds cp_hidden = s.compute * attention;
    const Seconds cp_exposed = s.context_parallel > cp_hidden ? s.context_parallel - cp_hidden : Seconds(0);
    s.exposed_communication = dp_exposed + s.tensor_parallel + s.pipeline + ep_exposed + cp_exposed;
  }
  s.work = std::max(s.compute + s.bubble, s.data) + s.exposed_communication;
  if (job_.checkpoint_bandwidth.value() > 0) {
    // Every node writes its shard at once (Megatron-Core's distributed
    // checkpoints, PyTorch DCP: the states are saved in parallel across the
    // data-parallel ranks, with or without ZeRO), up to the storage's total.
    BytesPerSecond rate = job_.checkpoint_bandwidth * static_cast<double>(nodes);
    if (job_.checkpoint_aggregate.value() > 0 && job_.checkpoint_aggregate < rate) rate = job_.checkpoint_aggregate;
    s.checkpoint_write = checkpoint_size_ / rate;
  }
  // Step = (max(compute + bubble, data) + exposed communication) stretched by
  // checkpoints and interruptions (SPEC; Daly's complete model).
  s = interrupted(s, failures_per_hour(gpus));
  s.bottleneck = tr_noop("compute");
  Seconds most = s.compute;
  if (s.data > most) most = s.data, s.bottleneck = tr_noop("data loading");
  if (s.bubble > most) most = s.bubble, s.bottleneck = tr_noop("pipeline bubble");
  if (s.exposed_communication > most) most = s.exposed_communication, s.bottleneck = tr_noop("communication");
  if (s.checkpoint > most) most = s.checkpoint, s.bottleneck = tr_noop("checkpointing");
  if (s.interruptions > most) s.bottleneck = tr_noop("interruptions");
  s.gpu_utilisation = s.step.count() > 0 ? s.compute / s.step : 0.0;
  return s;
}

double TrainingModel::failures_per_hour(int gpus) const {
  return job_.gpu_mtbf.count() > 0 ? gpus * 3600.0 / job_.gpu_mtbf.count() : 0.0;
}

SpotParams TrainingModel::interruptions(const StepBreakdown& s, double per_hour) const {
  SpotParams p{per_hour, s.checkpoint_write, job_.restart, std::nullopt};
  // A checkpoint at most once a step; a time interval counts wall-clock time
  // between saves, which is work (Daly's τ) less the writes themselves.
  const double work = s.work.count();
  if (job_.checkpoint_every_steps) p.interval = Seconds(std::max(1.0, *job_.checkpoint_every_steps) * work);
  else if (job_.checkpoint_every) p.interval = Seconds(std::max(work, job_.checkpoint_every->count()));
  else if (per_hour > 0)
    p.interval = Seconds(std::max(work, daly_interval(s.checkpoint_write, Seconds(3600.0 / per_hour)).count()));
  // An interval longer than the run saves once, at the end: the run is one
  // segment. Daly's per-work rate at a longer τ would charge e^(τ/M) for work
  // that is never done (and overflow: 3e25 min gave an infinite wall time).
  const double run = work * std::max(1.0, steps_);
  if (p.interval && p.interval->count() > run) p.interval = Seconds(run);
  return p;
}

StepBreakdown TrainingModel::interrupted(StepBreakdown s, double per_hour) const {
  s.interruptions_per_hour = per_hour;
  s.checkpoint = s.interruptions = Seconds(0);
  s.step = s.work;
  if (!(s.work.count() > 0) || s.checkpoint_write.count() <= 0) {
    s.checkpoint_interval_steps = 0;
    return s;
  }
  const SpotParams p = interruptions(s, per_hour);
  if (!p.interval) {  // auto, never interrupted: no checkpoint is ever needed
    s.checkpoint_interval_steps = 0;
    return s;
  }
  const SpotOverhead ov = spot_overhead(p);
  s.checkpoint_interval_steps = p.interval->count() / s.work.count();
  s.checkpoint = s.work * (s.checkpoint_write / *p.interval);
  s.step = s.work * ov.wall_per_work;
  s.interruptions = std::max(Seconds(0), s.step - s.work - s.checkpoint);
  return s;
}

namespace {

// Sizes to try along one layout dimension: a handful, held inline (the
// search runs them hundreds of thousands of times; no allocation).
struct Sizes {
  std::array<int, 16> v{};
  int n = 0;
  Sizes() = default;
  Sizes(std::initializer_list<int> init) {
    for (const int x : init) push_back(x);
  }
  void push_back(int x) {
    if (n < static_cast<int>(v.size())) v[static_cast<std::size_t>(n++)] = x;
  }
  const int* begin() const { return v.data(); }
  const int* end() const { return v.data() + n; }
};

// Tensor-parallel sizes to try: powers of two up to the instance's GPUs
// (TP crosses no network) and 8, dividing the heads and the hidden size.
std::vector<int> tp_sizes(const Architecture& a, const Configuration& c, bool transformer) {
  std::vector<int> out = {1};
  if (!transformer) return out;
  for (int t = 2; t <= std::min({c.instance.gpus, 8, c.gpus}); t *= 2)
    if (a.heads % t == 0 && a.hidden % t == 0) out.push_back(t);
  return out;
}

// Pipeline depths to try: divisors of the layers, and powers of two with
// uneven stages (stage_layers), at most 64 stages; a pinned depth as given.
std::vector<int> pp_sizes(const Architecture& a, int gpus_left, bool transformer, std::optional<int> pin) {
  if (pin) return *pin == 1 || (transformer && *pin <= a.layers) ? std::vector<int>{*pin} : std::vector<int>{};
  std::vector<int> out = {1};
  if (!transformer) return out;
  for (int p = 2; p <= std::min({a.layers, gpus_left, 64}); ++p)
    if (a.layers % p == 0 || (p & (p - 1)) == 0) out.push_back(p);
  return out;
}

// Virtual stages to try: 1, and with interleaving (which needs the micro-
// batches to be a multiple of the stages) the divisors of a stage's layers up to 8.
Sizes vp_sizes(const Architecture& a, const Layout& l, double micro_batches, std::optional<int> pin) {
  const double layers = std::ceil(static_cast<double>(a.layers) / l.pp);
  const bool interleaves = l.pp > 1 && std::fmod(micro_batches, l.pp) == 0;
  if (pin) return *pin == 1 || (interleaves && *pin <= layers) ? Sizes{*pin} : Sizes{};
  Sizes out = {1};
  if (!interleaves) return out;
  for (int v = 2; v <= std::min(8.0, layers); ++v)
    if (std::fmod(layers, v) == 0) out.push_back(v);
  return out;
}

// Expert-parallel sizes to try (MoE only): powers of two dividing both a
// stage's tp × dp ranks and the experts; a pinned size as given.
Sizes ep_sizes(const Job& job, const Layout& l, std::optional<int> pin) {
  const int ranks = l.tp * l.dp;
  const auto fits = [&](int e) { return e == 1 || (job.experts > 0 && job.experts % e == 0 && ranks % e == 0); };
  if (pin) return fits(*pin) ? Sizes{*pin} : Sizes{};
  Sizes out = {1};
  if (job.experts <= 1) return out;
  for (int e = 2; e <= std::min(job.experts, ranks); e *= 2)
    if (fits(e)) out.push_back(e);
  return out;
}

// Context-parallel sizes to try: 1, and for long sequences (8K tokens and
// more, where activations crowd out the rest) powers of two up to 16 that
// split each sequence into 2·cp equal chunks (Megatron-Core's load-balanced
// causal split) and divide the ranks left after TP and PP; a pin as given.
Sizes cp_sizes(const Job& job, int gpus_left, int pp, bool transformer, std::optional<int> pin) {
  const auto fits = [&](int c) {
    return c == 1 || (transformer && std::fmod(job.sequence_length, 2.0 * c) == 0 && (gpus_left / pp) % c == 0);
  };
  if (pin) return fits(*pin) ? Sizes{*pin} : Sizes{};
  Sizes out = {1};
  if (!transformer || job.sequence_length < 8192) return out;
  for (int c = 2; c <= 16; c *= 2)
    if (fits(c)) out.push_back(c);
  return out;
}

int rank(Recompute r) { return r == Recompute::kNone ? 0 : r == Recompute::kSelective ? 1 : 2; }
const Sizes kJustOne = {1};  // a dimension not searched
constexpr Recompute kRecomputes[] = {Recompute::kNone, Recompute::kSelective, Recompute::kFull};

}  // namespace

// Layout search (Calculon-style, pruned): TP within an instance and a divisor
// of the heads, PP a divisor of the layers, DP the rest, the global batch
// giving every DP rank at least one micro-batch; ZeRO ≤ 1 with pipelining
// (Megatron-LM's distributed optimizer; DeepSpeed refuses ZeRO-2/3 with PP).
// For each TP × PP, every recompute level from the job's upwards with the
// lowest ZeRO stage from the job's upwards that fits; the fastest step wins.
// With nothing fitting, the layout with the least memory comes back with
// fits = false, so a report can say by how much.
template <typename Visit>
void TrainingModel::for_each_shape(const Configuration& c, const LayoutPin& pin, bool transformer,
                                   Visit&& visit) const {
  // Context parallel is searched for every long sequence (cp_sizes), beside
  // the layouts without it: gating it on whether those fit let a 128K-token
  // job that fits only at PP64 take that 11× slower layout over CP16. The
  // set searched does not depend on the MFU, so the fastest layout's time
  // moves smoothly with it (fit mfu inverts estimate by bisection).
  for (const bool with_cp : {false, true}) {
    // Only long sequences have CP sizes to try; a pinned size was searched in the first pass.
    if (with_cp && (pin.cp || !transformer || job_.sequence_length < 8192)) break;
    for (const int tp : tp_sizes(arch_, c, transformer)) {
      if (pin.tp && *pin.tp != tp) continue;
      for (const int pp : pp_sizes(arch_, c.gpus / tp, transformer, pin.pp))
        for (const int cp : with_cp || pin.cp ? cp_sizes(job_, c.gpus / tp, pp, transformer, pin.cp) : kJustOne) {
          if (cp > 1 && !with_cp && !pin.cp) continue;
          if (cp == 1 && with_cp) continue;
          if (c.gpus % (tp * pp * cp) != 0) continue;
          Layout l{tp, pp, c.gpus / (tp * pp * cp), job_.zero_stage, job_.recompute, job_.micro_batch};
          l.cp = cp;
          if (job_.global_batch < static_cast<double>(l.dp) * l.micro_batch) continue;  // idle ranks
          for (const int v : vp_sizes(arch_, l, micro_batches(job_, l), pin.vp))
            for (const int ep : job_.experts > 0 || pin.ep ? ep_sizes(job_, l, pin.ep) : kJustOne) {
              l.vp = v;
              l.ep = ep;
              if (visit(l)) return;
            }
        }
    }
  }
}

// The job's ZeRO stage and recompute are where the search starts; a pin fixes them.
// `visit` returns true when the stage fits: a higher ZeRO stage only adds traffic.
template <typename Visit>
void TrainingModel::for_each_stage(Layout l, const LayoutPin& pin, Visit&& visit) const {
  for (const Recompute r : kRecomputes) {
    if (pin.recompute ? *pin.recompute != r : rank(r) < rank(job_.recompute)) continue;
    l.recompute = r;
    for (int z = pin.zero.value_or(job_.zero_stage); z <= (l.pp > 1 ? 1 : 3); ++z) {
      if (pin.zero && *pin.zero != z) continue;
      l.zero = z;
      if (visit(l)) break;
    }
  }
}

std::optional<LayoutChoice> TrainingModel::best_layout(const Configuration& c, double per_gpu, double usable_share,
                                                       const LayoutPin& pin, const MeasuredScaling* measured) const {
  const bool transformer = !per_sample(job_) && !measured;
  const double usable = c.gpu->memory.value() * usable_share;
  std::optional<LayoutChoice> best, least;
  double least_bytes = 0;
  int evaluated = 0;
  const auto consider = [&](const Layout& l) {
    const StepBreakdown st = step(c, l, per_gpu, measured);
    if (!best || st.step < best->step.step) {
      std::optional<Layout> runner;
      StepBreakdown runner_step{};
      if (best) runner = best->layout, runner_step = best->step;
      best = LayoutChoice{l, st, memory(*c.gpu, l, usable_share), runner, runner_step};
    } else if (!best->runner_up || st.step < best->runner_up_step.step) {
      best->runner_up = l, best->runner_up_step = st;
    }
  };
  for_each_shape(c, pin, transformer, [&](const Layout& shape) {
    for_each_stage(shape, pin, [&](const Layout& l) {
      ++evaluated;
      const double bytes = memory_bytes(l);
      if (!least || bytes < least_bytes) least = LayoutChoice{l}, least_bytes = bytes;
      if (bytes > usable) return false;
      consider(l);
      return true;
    });
    return false;
  });
  if (best) {
    best->evaluated = evaluated;
    return best;
  }
  if (!least) return std::nullopt;
  least->memory = memory(*c.gpu, least->layout, usable_share);
  least->step = step(c, least->layout, per_gpu, measured);
  least->evaluated = evaluated;
  return least;
}

bool TrainingModel::any_layout_fits(const Configuration& c, double usable_share) const {
  const double usable = c.gpu->memory.value() * usable_share;
  bool fits = false;
  // A higher ZeRO stage never needs more (states() divides by dp ≥ 1), so
  // each recompute level at the highest stage the search tries decides.
  for_each_shape(c, {}, !per_sample(job_), [&](Layout l) {
    l.zero = l.pp > 1 ? 1 : 3;
    if (l.zero < job_.zero_stage) return false;
    for (const Recompute r : kRecomputes) {
      if (rank(r) < rank(job_.recompute)) continue;
      l.recompute = r;
      if (memory_bytes(l) <= usable) return fits = true;
    }
    return false;
  });
  return fits;
}

InstanceShape server_shape(const Gpu& gpu, int gpus_per_instance, BytesPerSecond network, std::string fabric) {
  InstanceShape s;
  s.gpus = gpus_per_instance;
  s.intra = intra_node_bandwidth(gpu);
  s.intra_name = gpu.nvlink && gpu.form_factor != "consumer"
                     ? std::string("NVLink")
                     : fmt::format("PCIe {}.0", gpu.pcie_gen > 0 ? gpu.pcie_gen : 4);
  s.network = network;
  s.fabric = std::move(fabric);
  if (s.fabric == "none") s.max_instances = 1;
  return s;
}

OfferShape offer_shape(const Offer& o, const Gpu& gpu, const Catalog& cat) {
  OfferShape out;
  const Provider* p = cat.find_provider(o.provider);
  std::string fabric = o.fabric;
  if (fabric.empty() && !o.network && p && p->kind == "marketplace") {
    fabric = "none";
    out.assumed = fmt::format(
        "{} is a marketplace: its listings are single machines that one job cannot join "
        "(assumption; the catalog's fabric says otherwise where it can)",
        o.provider);
  } else if (fabric.empty() && !o.network && o.gpus == 1) {
    fabric = "none";
    out.assumed = fmt::format(
        "{} rents single GPUs and states no network between them: one job is not assumed to "
        "span them (assumption; the catalog's fabric says otherwise where it can)",
        o.id);
  }
  BytesPerSecond network = o.network.value_or(BytesPerSecond{});
  if (fabric != "none" && !o.network) {
    network = kAssumedOfferNetwork;
    out.assumed = fmt::format("{} states no network between instances: {:g} Gb/s per instance assumed", o.id,
                              network.value() * 8 / 1e9);
  }
  if (fabric.empty()) fabric = o.network ? "stated" : "ethernet";
  out.shape = server_shape(gpu, o.gpus, network, fabric);
  if (o.interconnect == "pcie" || (o.interconnect.empty() && o.gpus == 1)) {
    const InstanceShape pcie = server_shape(Gpu{.pcie_gen = gpu.pcie_gen}, o.gpus, network, fabric);
    out.shape.intra = pcie.intra, out.shape.intra_name = pcie.intra_name;
  }
  if (o.max_instances) out.shape.max_instances = *o.max_instances;
  return out;
}

std::optional<std::pair<int, Layout>> minimum_gpus(const Job& job, const Gpu& gpu, int gpus_per_node, int limit,
                                                   double usable_share) {
  const TrainingModel model(job);
  // Any network: memory does not depend on it. 100 GB/s keeps the search finite.
  const InstanceShape shape = server_shape(gpu, gpus_per_node, BytesPerSecond(100e9), "infiniband");
  // Memory alone decides each count tried; the fastest layout is timed only at the answer.
  const auto fits = [&](int n) { return model.any_layout_fits(Configuration{&gpu, n, shape, 0.5}, usable_share); };
  const auto answer = [&](int n) {
    return std::pair{n, model.best_layout(Configuration{&gpu, n, shape, 0.5}, 1e12, usable_share)->layout};
  };
  // 1, 2, 4, … up to a server, then whole servers, doubling, then bisected.
  for (int n = 1; n < gpus_per_node && n <= limit; n *= 2)
    if (fits(n)) return answer(n);
  int lo = 0, hi = 1;  // in servers
  while (hi * gpus_per_node <= limit && !fits(hi * gpus_per_node)) lo = hi, hi *= 2;
  if (hi * gpus_per_node > limit) return std::nullopt;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (fits(mid * gpus_per_node)) hi = mid;
    else lo = mid;
  }
  return answer(hi * gpus_per_node);
}

Seconds ring_allreduce(Bytes bytes, int n, BytesPerSecond bandwidth) {
  if (n <= 1) return Seconds(0);
  // Each rank sends and receives 2(n−1)/n of the buffer (reduce-scatter then
  // all-gather), so time = 2(n−1)/n × bytes ÷ bandwidth (NCCL's bus bandwidth).
  return Seconds(2.0 * (n - 1) / n * bytes.value() / bandwidth.value());
}

// The fabric a cluster's named network implies ("ib_hdr" → InfiniBand).
std::string fabric_of(const std::string& network) {
  if (network.starts_with("ib_")) return "infiniband";
  if (network.starts_with("roce")) return "roce";
  return "ethernet";
}

Estimate estimate(const Job& job, const Cluster& c, const LayoutPin& pin) {
  if (!c.gpu) throw std::invalid_argument("no GPU");
  if (c.gpus < 1) throw std::invalid_argument(std::string(tr("gpus must be at least 1")));
  const Gpu& gpu = *c.gpu;
  if (!gpu.dense_tflops.contains(job.precision))
    throw std::invalid_argument(trf("{} has no {} rate in the catalog", gpu.id, to_string(job.precision)));
  const TrainingModel model(job);
  Estimate e;
  if (job.mfu) {
    e.mfu = *job.mfu;
    e.mfu_source = "given";
  } else {
    const MfuDefault d = default_mfu(gpu, job);
    e.mfu = d.value;
    e.mfu_source = d.source;
  }
  e.per_gpu = FlopsPerSecond(model.achieved_flops(gpu));
  e.flops_per_token = model.flops_per_token();
  e.steps = model.steps();
  e.total_flops = model.total_flops();
  const Configuration cfg{&gpu, c.gpus, server_shape(gpu, c.gpus_per_node, c.network_bandwidth, fabric_of(c.network)),
                          c.comm_overlap};
  const std::optional<LayoutChoice> choice = model.best_layout(cfg, e.per_gpu.value(), c.usable_memory, pin);
  // Every data-parallel rank processes at least one micro-batch per step.
  if (!choice && !pin.empty()) {
    // The numbers the rules test, so the user can see which one the pin breaks.
    const Architecture& a = model.architecture();
    throw std::invalid_argument(
        trf("job.layout: no layout of {} GPUs ({} per node) matches it: TP × PP must divide the GPUs, TP the heads "
            "and the GPUs per node, PP at most the layers; EP (a mixture of experts only) the experts and TP × DP; "
            "ZeRO-2/3 go without pipelining; every data-parallel rank needs a micro-batch of the global batch ({:g})",
            c.gpus, c.gpus_per_node, job.global_batch) +
        trf("; the model has {} attention heads and {} layers ({})", a.heads, a.layers,
            a.given ? std::string_view("job.architecture") : tr("estimated from job.parameters")));
  }
  if (!choice)
    throw std::invalid_argument(trf(
        "job.global_batch: {:g} per step cannot keep {} GPUs busy at micro_batch {} with any layout (needs at least {} "
        "without tensor or pipeline parallelism)",
        job.global_batch, c.gpus, job.micro_batch, static_cast<double>(c.gpus) * job.micro_batch));
  e.layout = choice->layout;
  e.runner_up = choice->runner_up;
  e.runner_up_step = choice->runner_up_step.step;
  e.memory = choice->memory;
  const StepBreakdown& s = choice->step;
  e.checkpoint_size = model.checkpoint_size();
  if (s.checkpoint_interval_steps > 0) {
    e.checkpoint_write = s.checkpoint_write;
    e.checkpoint_interval_steps = s.checkpoint_interval_steps;
  }
  e.step = s;
  e.wall = s.step * e.steps;
  // Daly's expected time grows as e^((R + τ + C)/M): past ~709 mean times
  // between interruptions it is beyond any double, and any calendar.
  if (!std::isfinite(e.wall.count()))
    throw std::invalid_argument(
        trf("the run never finishes: {} GPUs are interrupted every {} on average (cluster.gpu_mtbf), but each restart "
            "takes {} (cluster.restart) and each stretch between checkpoints {} of work plus a {} write; restart or "
            "checkpoint faster (checkpoint.write_bandwidth), or check cluster.gpu_mtbf",
            c.gpus, format_duration(Seconds(3600.0 / s.interruptions_per_hour)), format_duration(job.restart),
            format_duration(s.work * std::max(1.0, s.checkpoint_interval_steps)), format_duration(s.checkpoint_write)));
  e.gpu_hours = e.wall.count() / 3600.0 * c.gpus;
  e.speedup_vs_one_node = 1.0;
  e.scaling_efficiency = 1.0;
  const int nodes = cfg.instances();
  if (nodes > 1) {
    // One node's throughput with the same layout inside a node, as far as it goes.
    Configuration one = cfg;
    one.gpus = c.gpus_per_node;
    const auto o = model.best_layout(one, e.per_gpu.value(), 1e9);  // memory aside: a throughput reference
    if (o) {
      const Seconds one_step =
          std::max(o->step.compute + o->step.bubble, o->step.data) + o->step.exposed_communication + s.checkpoint;
      e.speedup_vs_one_node = one_step / s.step;
      // Against the ideal of GPUs ÷ a node's GPUs, so a part node counts as its part (12 GPUs: 1.5).
      e.scaling_efficiency = e.speedup_vs_one_node * c.gpus_per_node / c.gpus;
    }
  }
  if (const double pad = batch_padding(job, e.layout); pad > 1 + 1e-9)
    e.notes.push_back(trf("job.global_batch {:g} does not divide over {} data-parallel ranks: the fullest takes {:g} "
                          "{} a step where an even split gives {:.2f}, and every step waits for it (+{:.0f}% time); "
                          "a batch that is a multiple of the ranks avoids it",
                          job.global_batch, e.layout.dp, pad * job.global_batch / e.layout.dp,
                          per_sample(job) ? tr("samples") : tr("sequences"), job.global_batch / e.layout.dp,
                          (pad - 1) * 100));
  if (!job.arch.given && !per_sample(job))
    e.notes.push_back(
        trf("architecture not given: activations estimated for a GPT-3-shaped model "
            "({} layers, hidden {}, {} heads); give job.architecture for the attention FLOPs",
            shape(job).layers, shape(job).hidden, shape(job).heads));
  return e;
}

std::optional<double> implied_mfu(const Job& job, const Cluster& c, const LayoutPin& pin, Measured what, Seconds time) {
  const auto measure = [&](double mfu) {
    Job j = job;
    j.mfu = mfu;
    const Estimate e = estimate(j, c, pin);
    return what == Measured::kWallTime ? e.wall.count() : e.step.work.count();
  };
  // The time falls as the MFU rises (every layout's compute does, and the
  // fastest is kept): bisect in log space between 0.01% and 100%.
  double lo = 1e-4, hi = 1.0;
  if (measure(hi) > time.count() || measure(lo) < time.count()) return std::nullopt;
  for (int i = 0; i < 60 && hi / lo > 1 + 1e-9; ++i) {
    const double mid = std::sqrt(lo * hi);
    (measure(mid) > time.count() ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

std::string parallel_text(const Layout& l) {
  const std::string cp = l.cp > 1 ? fmt::format("·CP{}", l.cp) : "";
  const std::string vp = l.vp > 1 ? fmt::format("·VP{}", l.vp) : "";
  const std::string ep = l.ep > 1 ? fmt::format("·EP{}", l.ep) : "";  // the experts split within DP
  return fmt::format("TP{}{}·PP{}{}·DP{}{}", l.tp, cp, l.pp, vp, l.dp, ep);
}

std::string to_string(const Layout& l) {
  switch (l.recompute) {
    case Recompute::kNone:
      return trf("{}, ZeRO-{}, none recompute", parallel_text(l), l.zero);
    case Recompute::kSelective:
      return trf("{}, ZeRO-{}, selective recompute", parallel_text(l), l.zero);
    case Recompute::kFull:
      return trf("{}, ZeRO-{}, full recompute", parallel_text(l), l.zero);
  }
  return fmt::format("{}, ZeRO-{}, ? recompute", parallel_text(l), l.zero);
}

LayoutPin parse_layout(std::string_view text) {
  LayoutPin pin;
  for (const std::string& part : split_ids(text)) {
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument(
          trf("'{}' is not key=value (tp=2,cp=2,pp=4,vp=5,ep=8,zero=1,recompute=selective)", part));
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    if (key == "recompute") {
      if (value == "none") pin.recompute = Recompute::kNone;
      else if (value == "selective") pin.recompute = Recompute::kSelective;
      else if (value == "full") pin.recompute = Recompute::kFull;
      else throw std::invalid_argument(trf("recompute={} not in {{none, selective, full}}", value));
      continue;
    }
    const double v = parse_count(value);
    const int hi = key == "zero" ? 3 : 1024, lo = key == "zero" ? 0 : 1;
    if (v != std::floor(v) || v < lo || v > hi)
      throw std::invalid_argument(trf("{}={} is not a whole number in {}..{}", key, value, lo, hi));
    if (key == "tp") pin.tp = static_cast<int>(v);
    else if (key == "pp") pin.pp = static_cast<int>(v);
    else if (key == "vp") pin.vp = static_cast<int>(v);
    else if (key == "ep") pin.ep = static_cast<int>(v);
    else if (key == "cp") pin.cp = static_cast<int>(v);
    else if (key == "zero") pin.zero = static_cast<int>(v);
    else throw std::invalid_argument(trf("'{}' is not a layout key (tp, cp, pp, vp, ep, zero, recompute)", key));
  }
  return pin;
}

}  // namespace gpuplan
