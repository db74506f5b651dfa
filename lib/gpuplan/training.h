// How long a training run takes on a given cluster, and whether it fits:
// FLOPs, memory per GPU, and the step time split into compute, data loading,
// exposed communication and checkpointing, with the bottleneck named. Pure
// functions of resolved inputs (job.h reads them from YAML); every formula and
// its source is written beside the code in training.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/units.h"

namespace gpuplan {

enum class Method { kPretrain, kFullFinetune, kLora };
enum class Recompute { kNone, kSelective, kFull };
enum class Optimizer { kAdamW, kSgd };
/// The training software as the MFU default sees it (efficiency.cc): one of
/// NVIDIA's published performance recipes run as published, anything else,
/// or not said (the median of all the runs).
enum class Stack { kUnknown, kNvidiaRecipe, kOther };

struct Architecture {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  bool given = false;  ///< false: layers/hidden estimated from the parameter count
  int ffn = 0;         ///< the MLP's hidden size; 0 = 4 × hidden
  int vocab = 0;       ///< vocabulary; 0 = embeddings counted with the layers (unknown)
  int kv_heads = 0;    ///< key/value heads (grouped-query attention); 0 = heads
};

struct Job {
  std::string name{};
  double parameters = 0;  ///< N (a mixture of experts: all of them, what memory holds)
  // Mixture of experts (all three, or none: dense)
  double active_parameters = 0;  ///< what one token passes through: shared parts + its experts (FLOPs)
  int experts = 0;               ///< routed experts per MoE layer
  int experts_per_token = 0;     ///< top-k
  double expert_overlap = 0;     ///< share of the compute that can hide the all-to-alls (DeepSeek-V3's DualPipe: 1)
  double tokens = 0;             ///< D, tokens processed in the whole run (0 for per-sample jobs)
  double samples = 0;            ///< samples processed in the whole run (samples × epochs)
  Method method = Method::kFullFinetune;
  double lora_trainable = 0.005;  ///< LoRA: trainable share of the parameters
  Precision precision = Precision::kBf16;
  Optimizer optimizer = Optimizer::kAdamW;
  /// What gradients are kept and reduced in; nullopt: fp16 for fp16 jobs, else
  /// fp32 (Megatron-LM's main_grad). bf16: NVIDIA's performance recipes.
  std::optional<Precision> gradient_precision{};
  /// AdamW's moments (SGD's momentum): fp32, or bf16 (DeepSeek-V3 §3.3.3;
  /// Megatron-Core's precision-aware optimizer). Master weights stay fp32.
  Precision optimizer_moments = Precision::kFp32;
  int zero_stage = 0;  ///< 0–3
  Recompute recompute = Recompute::kSelective;
  double global_batch = 0;     ///< sequences (or samples) per optimizer step
  double sequence_length = 0;  ///< tokens per sequence (0 for per-sample jobs)
  int micro_batch = 1;         ///< sequences per GPU per forward pass
  Architecture arch{};
  double forward_flops_per_sample = 0;     ///< non-transformer jobs: forward FLOPs per sample
  double activation_bytes_per_sample = 0;  ///< non-transformer jobs: activation memory per sample
  // Data loading
  Bytes bytes_per_sample{};
  BytesPerSecond read_bandwidth{};           ///< per node
  int workers = 8;                           ///< data-loader workers per GPU
  double samples_per_second_per_worker = 0;  ///< CPU preprocessing rate; 0 = not limiting
  // Checkpointing: every node writes its shard (training.cc)
  BytesPerSecond checkpoint_bandwidth{};  ///< write bandwidth per node
  BytesPerSecond checkpoint_aggregate{};  ///< the storage's total write bandwidth; 0 = no cap
  std::optional<double> checkpoint_every_steps{};
  std::optional<Seconds> checkpoint_every{};  ///< neither: Daly's optimum for the interruption rate
  // Interruptions: hardware failures (and, for spot capacity, reclaims)
  Seconds gpu_mtbf{};             ///< mean time between interruptions per GPU; 0 = never interrupted
  Seconds restart{};              ///< after an interruption: reschedule, reload the last checkpoint, warm up
  std::optional<double> mfu{};    ///< model FLOPs utilisation override (0–1), on efficiency.h's basis
  Stack stack = Stack::kUnknown;  ///< which published runs the default MFU comes from
  double fp8_speedup = 1.36;      ///< fp8 jobs: achieved rate over bf16 (efficiency.h, kFp8Speedup)
};

struct Cluster {
  const Gpu* gpu = nullptr;
  int gpus = 8;
  int gpus_per_node = 8;
  std::string network{};               ///< "ib_hdr", "eth_1g", ... (for display)
  BytesPerSecond network_bandwidth{};  ///< per node, between nodes
  double comm_overlap = 0.5;           ///< share of the backward pass that can hide gradient communication
  double usable_memory = 0.9;          ///< share of VRAM usable after CUDA context and fragmentation
};

struct MemoryBreakdown {
  Bytes weights{}, gradients{}, optimizer{}, activations{};
  Bytes total{}, usable{};
  bool fits = false;
};

struct StepBreakdown {
  Seconds compute{}, data{};
  Seconds checkpoint{};             ///< checkpoint writes, amortised over the steps between them
  Seconds interruptions{};          ///< work redone and restarts after interruptions, amortised (Daly's model)
  Seconds bubble{};                 ///< pipeline idle time (1F1B)
  Seconds communication{};          ///< data-parallel traffic (gradients; ZeRO-3 weights)
  Seconds tensor_parallel{};        ///< tensor-parallel all-reduces, waited for
  Seconds pipeline{};               ///< activations between pipeline stages, waited for
  Seconds expert_parallel{};        ///< MoE: tokens to their experts and back (all-to-all), waited for
  Seconds context_parallel{};       ///< keys and values passed round the cp ranks (exposed part counted)
  Seconds exposed_communication{};  ///< what communication adds to the step
  Seconds work{};                   ///< the step without checkpoints and interruptions
  Seconds step{};                   ///< the wall time per step: work, checkpoints and interruptions
  /// "compute", "data loading", "communication", "checkpointing": static text, so
  /// that a search evaluating millions of shapes allocates nothing.
  std::string_view bottleneck{};
  double gpu_utilisation = 0;            ///< compute ÷ step
  Seconds checkpoint_write{};            ///< one checkpoint, all writers together (0: not checkpointed)
  double checkpoint_interval_steps = 0;  ///< 0: not checkpointed
  double interruptions_per_hour = 0;     ///< what the step was computed with: failures (+ spot reclaims)
};

/// Measured scaling from `gpuplan fit scaling` (USL; Amdahl when κ = 0). With it,
/// the step on n GPUs is the single-GPU step × (1 + σ(n−1) + κn(n−1)) / n: the
/// measured loss replaces the analytic communication model.
struct MeasuredScaling {
  double sigma = 0;
  double kappa = 0;
  double max_measured_gpus = 0;       ///< beyond this, the law is extrapolated
  std::string source{};               ///< the file and model, for notes
  std::optional<double> r_squared{};  ///< the chosen model's, when the file says
};

/// How the GPUs of one instance (a node, a server) are linked, and what joins
/// instances into one job (SPEC "Training time, per configuration").
struct InstanceShape {
  int gpus = 1;                 ///< GPUs per instance
  BytesPerSecond intra{};       ///< per GPU, each way, inside the instance (NVLink or PCIe)
  std::string intra_name{};     ///< "NVLink", "PCIe 4.0"
  BytesPerSecond network{};     ///< per instance, between instances
  std::string fabric{};         ///< "infiniband", "roce", "ethernet", "none" (cannot be joined)
  int max_instances = 1 << 20;  ///< the most instances one job may use
};

/// A GPU model, an instance shape and a GPU count: what a layout is searched on.
struct Configuration {
  const Gpu* gpu = nullptr;
  int gpus = 1;
  InstanceShape instance{};
  double comm_overlap = 0.5;  ///< share of the backward pass that can hide data-parallel communication
  int instances() const { return (gpus + instance.gpus - 1) / instance.gpus; }
};

/// How a job is split over a configuration's GPUs: tensor parallel inside an
/// instance, pipeline stages (1F1B), data parallel with ZeRO, recompute and
/// the micro-batch. tp × pp × dp = the configuration's GPUs.
struct Layout {
  int tp = 1, pp = 1, dp = 1;
  int zero = 0;
  Recompute recompute = Recompute::kSelective;
  int micro_batch = 1;
  int vp = 1;  ///< virtual stages per pipeline rank (interleaved 1F1B); 1 = plain 1F1B
  int ep = 1;  ///< expert parallel: the routed experts split over ep of a stage's tp × dp ranks (MoE only)
  int cp = 1;  ///< context parallel: each sequence split over cp ranks (tp × cp × pp × dp = the GPUs)
};
/// "TP2·PP4·DP1, ZeRO-1, selective recompute"; "TP8·CP2·PP16·VP4·DP128·EP8, …" with
/// context parallel, interleaving and expert parallel.
std::string to_string(const Layout& l);
/// The parallel part alone: "TP8·CP2·PP16·VP4·DP128·EP8".
std::string parallel_text(const Layout& l);

/// Parts of a layout the user fixed (`--layout tp=2,pp=4,zero=1`, job.layout).
struct LayoutPin {
  std::optional<int> tp{}, pp{}, vp{}, ep{}, cp{}, zero{};
  std::optional<Recompute> recompute{};
  bool empty() const { return !tp && !pp && !vp && !ep && !cp && !zero && !recompute; }
};
/// "tp=2,pp=4,vp=5,ep=8,zero=1,recompute=full" (any subset). Throws std::invalid_argument.
LayoutPin parse_layout(std::string_view text);

struct Estimate {
  Layout layout{};  ///< the layout the time is for
  std::optional<Layout> runner_up{};
  Seconds runner_up_step{};
  double flops_per_token = 0;  ///< 0 for per-sample jobs
  Flops total_flops{};
  double mfu = 0;
  std::string mfu_source{};
  FlopsPerSecond per_gpu{};  ///< achieved: peak × MFU
  MemoryBreakdown memory{};
  double steps = 0;
  StepBreakdown step{};
  Seconds wall{};
  double gpu_hours = 0;
  double speedup_vs_one_node = 0;  ///< throughput on the cluster ÷ on one node (1 when one node)
  double scaling_efficiency = 0;   ///< speed-up ÷ (GPUs ÷ a node's GPUs)
  std::optional<double> checkpoint_interval_steps{};
  Bytes checkpoint_size{};
  Seconds checkpoint_write{};  ///< one checkpoint, all writers together
  std::vector<std::string> notes{};
};

/// The job's side of the model, computed once: FLOPs per step, the number of
/// steps, the memory of each component and the checkpoint size. A capacity
/// search (`plan`) evaluates thousands of shapes against one model; estimate()
/// uses the same functions, so both give the same numbers.
class TrainingModel {
 public:
  /// Throws std::invalid_argument for a job the model cannot use.
  explicit TrainingModel(const Job& job);
  const Job& job() const { return job_; }
  double flops_per_token() const { return flops_per_token_; }  ///< 0 for per-sample jobs
  double step_flops() const { return step_flops_; }
  double steps() const { return steps_; }
  Flops total_flops() const { return total_flops_; }
  Bytes checkpoint_size() const { return checkpoint_size_; }
  /// Model-state and activation bytes per GPU under `layout` (Megatron-LM's
  /// theoretical memory: states sharded by TP × PP, then by ZeRO over DP;
  /// activations per Korthikanti et al. 2022).
  double memory_bytes(const Layout& layout) const;
  MemoryBreakdown memory(const Gpu& gpu, const Layout& layout, double usable_share) const;
  /// Achieved model FLOP/s per GPU: the MFU peak × MFU (the job's, else the
  /// default) × the FP8 speed-up (efficiency.h). 0 when the GPU lacks the precision.
  double achieved_flops(const Gpu& gpu) const;
  /// The step time of `layout` on `c` at `per_gpu` achieved FLOP/s, with
  /// checkpoints and hardware interruptions amortised.
  StepBreakdown step(const Configuration& c, const Layout& layout, double per_gpu,
                     const MeasuredScaling* measured = nullptr) const;
  /// Hardware interruptions a job on `gpus` cards sees an hour: gpus ÷ the MTBF per GPU.
  double failures_per_hour(int gpus) const;
  /// The interruption model's inputs for a step at `per_hour` interruptions
  /// (failures, plus spot reclaims): the checkpoint write, the restart, the
  /// interval in seconds of work (nullopt: Daly's optimum).
  SpotParams interruptions(const StepBreakdown& s, double per_hour) const;
  /// `s` with its checkpoints and interruptions recomputed at `per_hour`.
  StepBreakdown interrupted(StepBreakdown s, double per_hour) const;
  /// The fastest layout on `c` that fits in memory (within `pin`), and the
  /// runner-up with why it lost; nullopt when none fits. See layout search in training.cc.
  std::optional<struct LayoutChoice> best_layout(const Configuration& c, double per_gpu, double usable_share,
                                                 const LayoutPin& pin = {},
                                                 const MeasuredScaling* measured = nullptr) const;
  /// Whether any layout best_layout() searches fits in memory on `c` (no step
  /// times: what a search for the fewest cards asks at every count it tries).
  bool any_layout_fits(const Configuration& c, double usable_share) const;
  /// The transformer's shape: as given, or estimated from the parameter count.
  const Architecture& architecture() const { return arch_; }
  /// The most data-parallel ranks the global batch keeps busy (one micro-batch each).
  double max_data_parallel() const { return job_.global_batch / job_.micro_batch; }

 private:
  /// Calls `visit` with every TP × PP × CP × VP × EP shape of the search on
  /// `c` (within `pin`), with the job's ZeRO stage and recompute, until it returns true.
  template <typename Visit>
  void for_each_shape(const Configuration& c, const LayoutPin& pin, bool transformer, Visit&& visit) const;
  /// The recompute levels and ZeRO stages the search tries for a shape, from the job's upwards.
  template <typename Visit>
  void for_each_stage(Layout l, const LayoutPin& pin, Visit&& visit) const;
  double activation_bytes(const Layout& layout) const;
  /// Parameters on the most loaded TP × PP shard (a MoE's routed experts apart).
  double shard_parameters(const Layout& layout) const;
  /// A MoE's routed-expert parameters on one rank.
  double expert_shard(const Layout& layout) const;
  struct States {
    double weights, grads, optimizer;  ///< bytes on the most loaded rank, after ZeRO
  };
  States states(const Layout& layout) const;
  Job job_;
  Architecture arch_{};
  double flops_per_token_ = 0, step_flops_ = 0, steps_ = 0;
  Flops total_flops_{};
  double weights_ = 0, grads_ = 0, optimizer_ = 0;  ///< bytes, unsharded
  Bytes checkpoint_size_{};
};

/// A searched layout: the fastest that fits, its step, and the runner-up.
struct LayoutChoice {
  Layout layout{};
  StepBreakdown step{};
  MemoryBreakdown memory{};
  std::optional<Layout> runner_up{};
  StepBreakdown runner_up_step{};
  int evaluated = 0;  ///< layouts looked at
};

/// The multiple of the forward FLOPs a training step costs: 6 per parameter
/// and token for dense training, 4 for LoRA, +2 with full recompute; for
/// per-sample jobs 3 × the forward FLOPs (4 with full recompute).
double training_flops_multiplier(const Job& job);
/// The step's time over an evenly divided batch's: ⌈B/dp⌉·dp/B, 1 when dp divides the global batch.
double batch_padding(const Job& job, const Layout& l);
/// The share of a step's compute that is the backward pass (where gradient
/// communication can hide): 4 of 6 N-FLOPs per token, 2 of 4 with LoRA.
double backward_share(const Job& job);

/// The parameters one token passes through: a MoE's active ones, else all.
double active_parameters(const Job& job);
/// A MoE's routed-expert parameters, all E experts of every MoE layer (0 when dense).
double expert_parameters(const Job& job);
/// Training FLOPs per token of a transformer of shape `a` (efficiency.h's basis,
/// with full recompute's extra forward pass).
double training_flops_per_token(const Job& job, const Architecture& a);
/// The shape of instances of `gpus_per_instance` cards of `gpu` joined by `network` per instance
/// ("none": not joined): NVLink inside SXM boards, else PCIe.
InstanceShape server_shape(const Gpu& gpu, int gpus_per_instance, BytesPerSecond network, std::string fabric);
/// The fabric a cluster's named network implies ("ib_hdr" → InfiniBand, "roce_*" → RoCE, else Ethernet).
std::string fabric_of(const std::string& network);

/// The shape an offer rents, and what of it is assumed rather than stated.
struct OfferShape {
  InstanceShape shape{};
  std::string assumed{};  ///< "" when the catalog states it all; else what was assumed and why
};
/// GPUs per instance; the link inside (the offer's `interconnect`, else NVLink
/// on SXM boards, PCIe otherwise); what joins instances (the offer's or its
/// provider's fabric and network; when the catalog states none: a
/// marketplace listing or a single-GPU rental is a machine of its own, fabric
/// none; a multi-GPU cloud instance is joined at kAssumedOfferNetwork, named
/// as an assumption); the most instances one job may use.
OfferShape offer_shape(const Offer& offer, const Gpu& gpu, const Catalog& catalog);

/// Between instances of an offer that states no network: 25 Gb/s per instance,
/// a common cloud VM network (assumption: conservative against the 100-3,200
/// Gb/s of the clusters the catalog states).
inline constexpr BytesPerSecond kAssumedOfferNetwork{25e9 / 8};

/// The smallest card count (up to `limit`, in servers of `gpus_per_node`) on
/// which some layout fits in memory, and that layout; nullopt when none does.
std::optional<std::pair<int, Layout>> minimum_gpus(const Job& job, const Gpu& gpu, int gpus_per_node = 8,
                                                   int limit = 4096, double usable_share = 0.9);
/// Ring all-reduce time: 2(n−1)/n × bytes ÷ bandwidth (NCCL's ring algorithm bound).
Seconds ring_allreduce(Bytes bytes, int n, BytesPerSecond bandwidth);

/// The job on the cluster its file describes, with the best layout (or the
/// one pinned). Throws std::invalid_argument for inputs the model cannot use.
Estimate estimate(const Job& job, const Cluster& cluster, const LayoutPin& pin = {});

/// What a measurement gives: the steady-state time of one step (a benchmark,
/// tokens/s), or the wall time of the whole run (GPU-hours).
enum class Measured { kStepWork, kWallTime };
/// The MFU at which estimate() reproduces a measured `time` (the inverse of
/// estimate: `fit mfu` with a job file, and calibration); nullopt when even
/// 100% is too slow or 0.01% too fast. Throws as estimate() does.
std::optional<double> implied_mfu(const Job& job, const Cluster& cluster, const LayoutPin& pin, Measured what,
                                  Seconds time);

std::string_view to_string(Method m);
std::string_view to_string(Recompute r);

}  // namespace gpuplan
