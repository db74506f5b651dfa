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
#include "gpuplan/units.h"

namespace gpuplan {

enum class Method { kPretrain, kFullFinetune, kLora };
enum class Recompute { kNone, kSelective, kFull };
enum class Optimizer { kAdamW, kSgd };

struct Architecture {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  bool given = false;  ///< false: layers/hidden estimated from the parameter count
};

struct Job {
  std::string name{};
  double parameters = 0;  ///< N
  double tokens = 0;      ///< D, tokens processed in the whole run (0 for per-sample jobs)
  double samples = 0;     ///< samples processed in the whole run (samples × epochs)
  Method method = Method::kFullFinetune;
  double lora_trainable = 0.005;  ///< LoRA: trainable share of the parameters
  Precision precision = Precision::kBf16;
  Optimizer optimizer = Optimizer::kAdamW;
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
  // Checkpointing
  BytesPerSecond checkpoint_bandwidth{};  ///< write bandwidth per node (all nodes write when ZeRO shards the states)
  std::optional<double> checkpoint_every_steps{};
  std::optional<Seconds> checkpoint_every{};
  std::optional<Seconds> mtbf{};  ///< for checkpoint interval "auto" (Young/Daly)
  std::optional<double> mfu{};    ///< model FLOPs utilisation override (0–1)
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
  Seconds compute{}, data{}, communication{}, exposed_communication{}, checkpoint{};
  Seconds step{};
  /// "compute", "data loading", "communication", "checkpointing": static text, so
  /// that a search evaluating millions of shapes allocates nothing.
  std::string_view bottleneck{};
  double gpu_utilisation = 0;            ///< compute ÷ step
  Seconds checkpoint_write{};            ///< one checkpoint, all writers together (0: not checkpointed)
  double checkpoint_interval_steps = 0;  ///< 0: not checkpointed
};

/// Measured scaling from `gpuplan fit scaling` (USL; Amdahl when κ = 0). With it,
/// the step on n GPUs is the single-GPU step × (1 + σ(n−1) + κn(n−1)) / n: the
/// measured loss replaces the analytic communication model.
struct MeasuredScaling {
  double sigma = 0;
  double kappa = 0;
  double max_measured_gpus = 0;  ///< beyond this, the law is extrapolated
  std::string source{};          ///< the file and model, for notes
};

/// One cluster shape: what a capacity search varies. Everything else is the job's.
struct Shape {
  const Gpu* gpu = nullptr;
  int gpus = 1;
  int gpus_per_node = 8;
  BytesPerSecond network{};  ///< per node, between nodes
  double comm_overlap = 0.5;
  int zero_stage = 0;
};

struct Estimate {
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
  double scaling_efficiency = 0;   ///< speed-up ÷ nodes
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
  /// Model-state and activation bytes per GPU with `gpus` data-parallel ranks at ZeRO `stage`.
  double memory_bytes(int gpus, int zero_stage) const;
  MemoryBreakdown memory(const Gpu& gpu, int gpus, int zero_stage, double usable_share) const;
  /// The lowest ZeRO stage from the job's own upwards whose memory fits, or -1.
  int fitting_zero_stage(const Gpu& gpu, int gpus, double usable_share) const;
  /// Achieved FLOP/s per GPU: the dense peak for the job's precision × MFU
  /// (the job's, else the GPU class default). 0 when the GPU lacks the precision.
  double achieved_flops(const Gpu& gpu) const;
  /// The step time on `shape` at `per_gpu` achieved FLOP/s, checkpoints amortised.
  StepBreakdown step(const Shape& shape, double per_gpu, const MeasuredScaling* measured = nullptr) const;
  /// The largest card count the global batch keeps busy (one micro-batch each).
  double max_gpus() const { return job_.global_batch / job_.micro_batch; }

 private:
  Job job_;
  double flops_per_token_ = 0, step_flops_ = 0, steps_ = 0;
  Flops total_flops_{};
  double weights_ = 0, grads_ = 0, optimizer_ = 0, activations_ = 0;  ///< bytes, unsharded
  double grad_bytes_ = 0;                                             ///< gradient buffer all-reduced each step
  Bytes checkpoint_size_{};
};

/// The multiple of the forward FLOPs a training step costs: 6 per parameter
/// and token for dense training, 4 for LoRA, +2 with full recompute; for
/// per-sample jobs 3 × the forward FLOPs (4 with full recompute).
double training_flops_multiplier(const Job& job);
/// The share of a step's compute that is the backward pass (where gradient
/// communication can hide): 4 of 6 N-FLOPs per token, 2 of 4 with LoRA.
double backward_share(const Job& job);

/// Training FLOPs per token (transformers) per SPEC "Models / Training time".
double training_flops_per_token(const Job& job);
/// Model-state and activation memory per GPU with `gpus` data-parallel ranks.
MemoryBreakdown memory_per_gpu(const Job& job, const Gpu& gpu, int gpus, double usable_share = 0.9);
/// The smallest card count (up to `limit`) whose memory fits, or nullopt.
std::optional<int> minimum_gpus(const Job& job, const Gpu& gpu, int limit = 4096, double usable_share = 0.9);
/// Ring all-reduce time: 2(n−1)/n × bytes ÷ bandwidth (NCCL's ring algorithm bound).
Seconds ring_allreduce(Bytes bytes, int n, BytesPerSecond bandwidth);
/// The default MFU for a GPU class, and where it comes from.
std::pair<double, std::string> default_mfu(const Gpu& gpu);

/// Throws std::invalid_argument for inputs the model cannot use.
Estimate estimate(const Job& job, const Cluster& cluster);

std::string_view to_string(Method m);
std::string_view to_string(Recompute r);

}  // namespace gpuplan
