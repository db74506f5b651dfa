#include "gpuplan/job_fields.h"
#include "gpuplan/i18n.h"

#include <fmt/format.h>
#include <stdexcept>

#include "gpuplan/context.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/efficiency.h"

namespace gpuplan {
namespace {

using F = Field<ResolvedJob>;
using K = ValueKind;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <auto M>
constexpr Access<ResolvedJob> job = member<&ResolvedJob::job, M>();
template <auto M>
constexpr Access<ResolvedJob> cluster = member<&ResolvedJob::cluster, M>();
template <auto M>
constexpr Access<ResolvedJob> plan = member<&ResolvedJob::plan, M>();

// job.samples is per epoch, as a file gives it; the model counts the whole
// run (Job::samples = samples × epochs). The echo writes both keys, so that
// --set of an echoed value changes nothing (the whole run echoed under
// `samples` and set back was 30 epochs of 30).
constexpr Access<ResolvedJob> kSamplesPerEpoch{
    [](const ResolvedJob& r) { return Value(r.job.samples / r.epochs); },
    [](ResolvedJob& r, const Value& v) { r.job.samples = std::get<double>(v) * r.epochs; }};
constexpr Access<ResolvedJob> kEpochs{[](const ResolvedJob& r) { return Value(r.epochs); },
                                      [](ResolvedJob& r, const Value& v) { r.epochs = std::get<double>(v); }};

bool never(const ResolvedJob&, const FieldContext&) { return false; }
bool language_model(const ResolvedJob& r, const FieldContext&) { return !is_vision_job(r.job); }

// ---- job ----

constexpr Choice kMethods[] = {{"pretrain", static_cast<int>(Method::kPretrain)},
                               {"full_finetune", static_cast<int>(Method::kFullFinetune)},
                               {"lora", static_cast<int>(Method::kLora)}};
constexpr Choice kPrecisions[] = {{"fp32", static_cast<int>(Precision::kFp32)},
                                  {"tf32", static_cast<int>(Precision::kTf32)},
                                  {"bf16", static_cast<int>(Precision::kBf16)},
                                  {"fp16", static_cast<int>(Precision::kFp16)},
                                  {"fp8", static_cast<int>(Precision::kFp8)}};
constexpr Choice kOptimizers[] = {{"adamw", static_cast<int>(Optimizer::kAdamW)},
                                  {"sgd", static_cast<int>(Optimizer::kSgd)}};
constexpr Choice kGradientPrecisions[] = {{"fp32", static_cast<int>(Precision::kFp32)},
                                          {"bf16", static_cast<int>(Precision::kBf16)},
                                          {"fp16", static_cast<int>(Precision::kFp16)}};
constexpr Choice kMomentPrecisions[] = {{"fp32", static_cast<int>(Precision::kFp32)},
                                        {"bf16", static_cast<int>(Precision::kBf16)}};
constexpr Choice kStacks[] = {{"unknown", static_cast<int>(Stack::kUnknown)},
                              {"nvidia_recipe", static_cast<int>(Stack::kNvidiaRecipe)},
                              {"other", static_cast<int>(Stack::kOther)}};
constexpr Choice kRecompute[] = {{"none", static_cast<int>(Recompute::kNone)},
                                 {"selective", static_cast<int>(Recompute::kSelective)},
                                 {"full", static_cast<int>(Recompute::kFull)}};

std::optional<Fallback> gradient_precision(const ResolvedJob& r, const FieldContext&) {
  if (r.job.precision == Precision::kFp16)
    return Fallback{static_cast<int>(Precision::kFp16), "fp16",
                    tr_noop("default for fp16 jobs: fp16 gradients (ZeRO's 16 bytes a parameter)")};
  return Fallback{
      static_cast<int>(Precision::kFp32), "fp32",
      tr_noop("default: gradients accumulated and reduced in fp32 (Megatron-LM's main_grad; 18 bytes a parameter)")};
}

std::optional<Fallback> global_batch(const ResolvedJob& r, const FieldContext&) {
  const double batch = is_vision_job(r.job) ? 256 : 128;
  return Fallback{batch, fmt::format("{:g}", batch), tr_noop("default, sequences (samples) per step")};
}

// The text as written, once parse_layout accepts it.
Value parse_layout_text(const std::string& t, const FieldContext&) {
  parse_layout(t);
  return t;
}

Value activation_bytes(const ResolvedJob& r) { return Bytes(r.job.activation_bytes_per_sample); }
void set_activation_bytes(ResolvedJob& r, const Value& v) {
  r.job.activation_bytes_per_sample = std::get<Bytes>(v).value();
}
bool vision(const ResolvedJob& r) { return is_vision_job(r.job); }
bool fp8(const ResolvedJob& r, const FieldContext&) { return r.job.precision == Precision::kFp8; }
bool not_vision(const ResolvedJob& r) { return !is_vision_job(r.job); }

constexpr F kJob[] = {
    {.key = "parameters",
     .kind = K::kCount,
     .at = job<&Job::parameters>,
     .range = {0, 1e15, true},  // far beyond any real run (~2e12): absurd inputs are refused by name
     .fallback = "7B",
     .why = tr_noop("default"),
     .applies = &language_model,
     .echo = {.nullable = true},  // null for a vision job (per sample: none)
     .vary = true,
     .varies = &not_vision,
     .label = tr_noop("model parameters (a mixture of experts: all of them)")},
    // A mixture of experts: the three together (job.cc), or none (dense).
    {.key = "active_parameters",
     .kind = K::kCount,
     .at = job<&Job::active_parameters>,
     .range = {0, 1e15, true},
     .applies = &language_model,
     .label = tr_noop("MoE: parameters a token passes through (shared parts and its experts)")},
    {.key = "experts",
     .kind = K::kWhole,
     .at = job<&Job::experts>,
     .range = {0, 65536},
     .applies = &language_model,
     .label = tr_noop("MoE: routed experts per MoE layer")},
    {.key = "experts_per_token",
     .kind = K::kWhole,
     .at = job<&Job::experts_per_token>,
     .range = {0, 1024},
     .applies = &language_model,
     .label = tr_noop("MoE: routed experts each token goes to (top-k)")},
    {.key = "expert_overlap",
     .kind = K::kShare,
     .at = job<&Job::expert_overlap>,
     .range = {0, 1},
     .fallback = "0%",
     .why = tr_noop("default: the all-to-alls are waited for, as Megatron-Core's token dispatcher does; DeepSeek-V3's "
                    "DualPipe hides them behind compute (100%)"),
     .applies = &language_model,
     .noted = [](const ResolvedJob& r, const FieldContext&) { return r.job.experts > 0; },
     .label = tr_noop("MoE: share of the compute that hides the expert all-to-alls")},
    // tokens, samples and epochs are resolved by hand (job.cc): tokens, or samples × epochs × sequence length.
    {.key = "tokens",
     .kind = K::kCount,
     .at = job<&Job::tokens>,
     .range = {0, 1e17, true},
     .fallback = "2B",
     .why = tr_noop("default: a fine-tuning corpus"),
     .echo = {.nullable = true},  // null for a vision job (per sample: none)
     .vary = true,
     .varies = &not_vision,
     .by_hand = true,
     .label = tr_noop("tokens processed in the whole run")},
    {.key = "samples",
     .kind = K::kCount,
     .at = kSamplesPerEpoch,
     .range = {0, 1e17, true},
     .vary = true,
     .varies = &vision,
     .by_hand = true,
     .label = tr_noop("samples (instead of tokens), per epoch")},
    {.key = "epochs",
     .kind = K::kNumber,
     .at = kEpochs,
     .range = {0, kInf, true},
     .by_hand = true,
     .label = tr_noop("passes over the samples")},
    {.key = "method",
     .kind = K::kChoice,
     .at = job<&Job::method>,
     .fallback = "full_finetune",
     .why = tr_noop("default"),
     .choices = kMethods,
     .label = tr_noop("pretrain, full fine-tune or LoRA")},
    {.key = "lora_trainable",
     .kind = K::kShare,
     .at = job<&Job::lora_trainable>,
     .range = {1e-6, 1},
     .fallback = "0.5%",
     .why = tr_noop("assumption: rank-16 adapters on a 7B model train about 0.5% of the parameters"),
     .noted = [](const ResolvedJob& r, const FieldContext&) { return r.job.method == Method::kLora; },
     .echo = {.skip = true},
     .label = tr_noop("LoRA: trainable share of the parameters")},
    {.key = "precision",
     .kind = K::kChoice,
     .at = job<&Job::precision>,
     .fallback = "bf16",
     .why = tr_noop("default: mixed precision"),
     .choices = kPrecisions,
     .label = tr_noop("training precision")},
    {.key = "optimizer",
     .kind = K::kChoice,
     .at = job<&Job::optimizer>,
     .fallback = "adamw",
     .noted = &never,
     .choices = kOptimizers,
     .label = tr_noop("optimizer")},
    {.key = "gradient_precision",
     .kind = K::kChoice,
     .at = job<&Job::gradient_precision>,
     .derive = &gradient_precision,
     .noted = &never,
     .choices = kGradientPrecisions,
     .label = tr_noop("gradients kept and reduced in (bf16: Megatron-Core's grad_reduce_in_fp32 = False)")},
    {.key = "optimizer_moments",
     .kind = K::kChoice,
     .at = job<&Job::optimizer_moments>,
     .fallback = "fp32",
     .why = tr_noop("default: AdamW's moments in fp32 (ZeRO's 12 bytes a parameter with the fp32 master copy)"),
     .noted = &never,
     .choices = kMomentPrecisions,
     .label = tr_noop("optimizer moments kept in (bf16: DeepSeek-V3 §3.3.3; the master weights stay fp32)")},
    {.key = "zero_stage",
     .kind = K::kWhole,
     .at = job<&Job::zero_stage>,
     .range = {0, 3},
     .fallback = "0",
     .why = tr_noop("default: the lowest stage; the layout search raises it where memory needs it"),
     // job.layout's zero= decides the stage: the default minimum would only mislead.
     .noted = [](const ResolvedJob& r,
                 const FieldContext&) { return r.layout_text.empty() || !parse_layout(r.layout_text).zero; },
     .label = tr_noop("ZeRO stage (0–3)")},
    {.key = "recompute",
     .kind = K::kChoice,
     .at = job<&Job::recompute>,
     .fallback = "selective",
     .why = tr_noop(
         "default: FlashAttention-style kernels keep no attention matrices (Korthikanti et al. 2022's 34·s·b·h)"),
     .noted = &language_model,
     .choices = kRecompute,
     .label = tr_noop("activation recompute")},
    {.key = "global_batch",
     .kind = K::kCount,
     .at = job<&Job::global_batch>,
     .range = {0, 1e9, true},
     .derive = &global_batch,
     .label = tr_noop("sequences (samples) per optimizer step")},
    {.key = "sequence_length",
     .kind = K::kCount,
     .at = job<&Job::sequence_length>,
     .range = {0, 1e8, true},
     .fallback = "4096",
     .why = tr_noop("default"),
     .applies = &language_model,
     .echo = {.nullable = true},  // null for a vision job (per sample: none)
     .label = tr_noop("tokens per sequence")},
    {.key = "micro_batch",
     .kind = K::kWhole,
     .at = job<&Job::micro_batch>,
     .range = {1, 65536},
     .fallback = "1",
     .noted = &never,
     .label = tr_noop("sequences per GPU per forward pass")},
    {.key = "mfu",
     .kind = K::kShare,
     .at = job<&Job::mfu>,
     .range = {0, 1, true},
     .label = tr_noop("model FLOPs utilisation, of the dense bf16 peak (default: per GPU class and job.stack)")},
    {.key = "stack",
     .kind = K::kChoice,
     .at = job<&Job::stack>,
     .fallback = "unknown",
     .why = tr_noop("default: the median of every published run, NVIDIA's recipes and others alike"),
     .noted = &never,
     .choices = kStacks,
     .label = tr_noop("training software, for the default MFU: nvidia_recipe (NVIDIA's published performance "
                      "configs for NeMo, Megatron-Bridge or DGX Cloud, run as published), other (any other code or "
                      "settings: a team's own, a paper's, llm-foundry's) or unknown")},
    {.key = "fp8_speedup",
     .kind = K::kNumber,
     .at = job<&Job::fp8_speedup>,
     .range = {1, 2},
     .fallback = "1.36",
     .why = kFp8SpeedupSource,
     .applies = &fp8,
     .label = tr_noop("fp8 jobs: achieved rate over bf16 (end-to-end, not the data sheet's 2×)")},
    {.key = "forward_flops_per_sample",
     .kind = K::kCount,
     .at = job<&Job::forward_flops_per_sample>,
     .range = {0, 1e18, true},
     .echo = {.skip = true},
     .label = tr_noop("non-transformer jobs: forward FLOPs per sample")},
    {.key = "activation_memory_per_sample",
     .kind = K::kBytes,
     .at = {&activation_bytes, &set_activation_bytes},
     .range = {0},
     .echo = {.skip = true},
     .label = tr_noop("non-transformer jobs: activation memory per sample")},
    {.key = "architecture", .kind = K::kText, .echo = {.skip = true}, .label = tr_noop("layers, hidden, heads")},
    {.key = "layout",
     .kind = K::kText,
     .at = member<&ResolvedJob::layout_text>(),
     .parse = &parse_layout_text,
     .echo = {.skip = true},
     .label = tr_noop("fixed parts of the parallel layout, e.g. tp=2,pp=4,zero=1 (default: searched)")},
};

// Required together when the architecture is given (estimated from the parameters otherwise).
constexpr F kArchitecture[] = {
    {.key = "layers",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::layers>(),
     .range = {1, 10000},
     .missing = tr_noop("is required"),
     .label = tr_noop("transformer layers")},
    {.key = "hidden",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::hidden>(),
     .range = {1, 1000000},
     .missing = tr_noop("is required"),
     .label = tr_noop("hidden size")},
    {.key = "heads",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::heads>(),
     .range = {1, 10000},
     .missing = tr_noop("is required"),
     .label = tr_noop("attention heads")},
    {.key = "ffn_hidden",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::ffn>(),
     .range = {1, 10000000},
     .label = tr_noop("the MLP's hidden size (default 4 × hidden)")},
    {.key = "vocab",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::vocab>(),
     .range = {1, 10000000},
     .label = tr_noop("vocabulary (embeddings on the first and last pipeline stages)")},
    {.key = "kv_heads",
     .kind = K::kWhole,
     .at = member<&ResolvedJob::job, &Job::arch, &Architecture::kv_heads>(),
     .range = {1, 10000},
     .label = tr_noop("key/value heads (grouped-query attention; default: the heads)")},
};

// ---- data ----

constexpr Choice kTiers[] = {{"local_nvme", 0}, {"network_disk", 1}, {"object_storage", 2}};

bool reads_samples(const ResolvedJob& r, const FieldContext&) { return r.job.bytes_per_sample.value() > 0; }

std::optional<Fallback> read_bandwidth(const ResolvedJob& r, const FieldContext&) {
  const std::string tier(choice_name(kTiers, r.data_storage));
  const BytesPerSecond b = storage_read_bandwidth(tier);
  return Fallback{b, fmt::format("{:g}MB/s", b.value() / 1e6),
                  trf("assumption for {} (local NVMe ≈ 5× a network disk, per the article)", tier)};
}

constexpr F kData[] = {
    {.key = "bytes_per_sample",
     .kind = K::kBytes,
     .at = job<&Job::bytes_per_sample>,
     .range = {0},
     .label = tr_noop("bytes read per sample")},
    {.key = "storage",
     .kind = K::kChoice,
     .at = member<&ResolvedJob::data_storage>(),
     .fallback = "local_nvme",
     .why = tr_noop("default"),
     .noted = &reads_samples,
     .choices = kTiers,
     .label = tr_noop("where the data is read from")},
    {.key = "read_bandwidth",
     .kind = K::kRate,
     .at = job<&Job::read_bandwidth>,
     .range = {0, kInf, true},
     .derive = &read_bandwidth,
     .noted = &reads_samples,
     .vary = true,
     .varies = [](const ResolvedJob& r) { return r.job.bytes_per_sample.value() > 0; },
     .label = tr_noop("read bandwidth per node")},
    {.key = "workers",
     .kind = K::kWhole,
     .at = job<&Job::workers>,
     .range = {1, 1024},
     .fallback = "8",
     .noted = &never,
     .label = tr_noop("data-loader workers per GPU")},
    {.key = "samples_per_second_per_worker",
     .kind = K::kNumber,
     .at = job<&Job::samples_per_second_per_worker>,
     .range = {0, kInf, true},
     .vary = true,
     .varies = [](const ResolvedJob& r) { return r.job.samples_per_second_per_worker > 0; },
     .label = tr_noop("CPU preprocessing rate per worker")},
};

// ---- checkpoint ----

// A plain number is a step count; with a unit, a duration; or auto (Daly's optimum).
Value parse_interval(const std::string& t, const FieldContext&) {
  if (t == "auto") return t;
  try {
    if (t.find_first_not_of("0123456789") == std::string::npos) {
      const double steps = parse_number(t);
      if (!(steps >= 1)) throw std::invalid_argument(std::string(tr("must be at least one step")));
      return steps;
    }
    const Seconds d = parse_duration(t);
    if (!(d > Seconds(0))) throw std::invalid_argument(std::string(tr("must be longer than zero")));
    return d;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(trf("{} (write steps like 200, a duration like 30min, or auto)", e.what()));
  }
}
Value interval(const ResolvedJob& r) {
  if (r.checkpoint_auto) return std::string("auto");
  if (r.job.checkpoint_every) return *r.job.checkpoint_every;
  if (r.job.checkpoint_every_steps) return *r.job.checkpoint_every_steps;
  return {};
}
void set_interval(ResolvedJob& r, const Value& v) {
  r.checkpoint_auto = std::holds_alternative<std::string>(v);
  r.job.checkpoint_every.reset();
  r.job.checkpoint_every_steps.reset();
  if (const auto* d = std::get_if<Seconds>(&v)) r.job.checkpoint_every = *d;
  if (const auto* n = std::get_if<double>(&v)) r.job.checkpoint_every_steps = *n;
}

// Where checkpoints go: each node's write rate, and the total the storage takes.
struct CheckpointTier {
  std::string_view name;
  double per_node;  // bytes/s
  double total;     // bytes/s; 0 = no shared limit (every node writes to its own disk)
  std::string_view why;
};
constexpr CheckpointTier kCheckpointTiers[] = {
    {"local_nvme", 2e9, 0, tr_noop("assumption: a data-centre NVMe SSD writes about 2 GB/s; each node its own")},
    {"network_disk", 400e6, 0, tr_noop("assumption: a cloud block volume, 400 MB/s per node (as data.storage)")},
    {"object_storage", 1e9, 1.25e9,
     tr_noop("assumption: 1 GB/s per node; 10 Gbit/s in all is an Alibaba Cloud OSS bucket's limit in mainland China "
             "regions (Alibaba Cloud docs, 'troubleshoot bandwidth or QPS overrun', 2024; raised on request)")},
    {"parallel_fs", 2e9, 2e12,
     tr_noop("assumption: 2 GB/s per node; 2 TB/s in all is the sustained rate of the file system Llama 3 checkpointed "
             "to on 16K GPUs (Dubey et al. 2024, §3.3.1)")},
};
constexpr Choice kCheckpointStorage[] = {
    {"local_nvme", 0}, {"network_disk", 1}, {"object_storage", 2}, {"parallel_fs", 3}};

// The default tier for a cluster of `nodes` nodes in estimate (plan always writes to object storage).
int default_checkpoint_tier(int nodes) { return nodes > 1 ? 3 : 2; }

// One server writes to object storage, as the article does; a multi-node
// cluster checkpoints to the parallel file system such clusters come with.
std::optional<Fallback> checkpoint_storage(const ResolvedJob& r, const FieldContext& ctx) {
  const int nodes = (r.cluster.gpus + r.cluster.gpus_per_node - 1) / r.cluster.gpus_per_node;
  if (!ctx.for_plan && default_checkpoint_tier(nodes) == 3)
    return Fallback{3, "parallel_fs",
                    tr_noop("several nodes: the shared parallel file system multi-node training clusters have (CPFS, "
                            "Lustre, GPFS, WEKA; Llama 3's Tectonic)")};
  if (ctx.for_plan)  // each plan's count decides (job_on_instances): one here, several in plan.cc
    return Fallback{2, "object_storage",
                    tr_noop("on one instance or server, as the article: \"同时把checkpoint写到对象存储里\"; plans on "
                            "several write to parallel_fs (its bandwidths where none is given), as estimate does")};
  return Fallback{2, "object_storage", tr_noop("the article: \"同时把checkpoint写到对象存储里\"")};
}

const CheckpointTier& checkpoint_tier(const ResolvedJob& r) {
  return kCheckpointTiers[static_cast<std::size_t>(r.checkpoint_storage)];
}
std::optional<Fallback> checkpoint_write(const ResolvedJob& r, const FieldContext&) {
  const CheckpointTier& t = checkpoint_tier(r);
  return Fallback{BytesPerSecond(t.per_node), fmt::format("{:g}MB/s", t.per_node / 1e6), std::string(t.why)};
}
std::optional<Fallback> checkpoint_total(const ResolvedJob& r, const FieldContext&) {
  const CheckpointTier& t = checkpoint_tier(r);
  if (t.total <= 0) return std::nullopt;
  return Fallback{BytesPerSecond(t.total), fmt::format("{:g}GB/s", t.total / 1e9), std::string(t.why)};
}

constexpr F kCheckpoint[] = {
    {.key = "storage",
     .kind = K::kChoice,
     .at = member<&ResolvedJob::checkpoint_storage>(),
     .derive = &checkpoint_storage,
     .choices = kCheckpointStorage,
     .label = tr_noop("where checkpoints are written (local_nvme, network_disk, object_storage, parallel_fs)")},
    {.key = "write_bandwidth",
     .kind = K::kRate,
     .at = job<&Job::checkpoint_bandwidth>,
     .range = {0, kInf, true},
     .derive = &checkpoint_write,
     .vary = true,
     .label = tr_noop("checkpoint write bandwidth per node (every node writes its shard)")},
    {.key = "total_bandwidth",
     .kind = K::kRate,
     .at = job<&Job::checkpoint_aggregate>,
     .range = {0, kInf, true},
     .derive = &checkpoint_total,
     .vary = true,
     .varies = [](const ResolvedJob& r) { return r.job.checkpoint_aggregate.value() > 0; },
     .label = tr_noop("the most the storage takes from all nodes together (0: no limit)")},
    {.key = "interval",
     .kind = K::kText,
     .at = {&interval, &set_interval},
     .derive = [](const ResolvedJob&, const FieldContext&) -> std::optional<Fallback> {
       return Fallback{Seconds(1800), "30min", tr_noop("the article: \"每隔半小时同步一次\" (every half hour)")};
     },
     .parse = &parse_interval,
     .echo = {.skip = true},
     .label = tr_noop("steps (200), a duration (30min) or auto (Daly's optimum)")},
};

// ---- cluster ----

Value parse_gpu(const std::string& t, const FieldContext& ctx) {
  const Gpu* g = ctx.catalog->find_gpu(t);
  if (!g) throw std::invalid_argument(trf("unknown GPU id '{}'", t));
  return g->id;
}
bool estimating(const ResolvedJob&, const FieldContext& ctx) { return !ctx.for_plan; }
std::optional<Fallback> default_gpu(const ResolvedJob&, const FieldContext& ctx) {
  if (const Gpu* g = ctx.catalog->find_gpu("A100-80G")) return Fallback{g->id, g->id, tr_noop("default")};
  return std::nullopt;
}

Value network(const ResolvedJob& r) { return r.cluster.network; }
void set_network(ResolvedJob& r, const Value& v) {
  r.cluster.network = std::get<std::string>(v);
  r.cluster.network_bandwidth = *network_bandwidth(r.cluster.network);
}
Value parse_network(const std::string& t, const FieldContext&) {
  if (!network_bandwidth(t)) {
    std::string names;
    for (const std::string_view n : network_names()) names += (names.empty() ? "" : ", ") + std::string(n);
    if (t.empty()) throw std::invalid_argument(trf("no value: give one of {{{}}}", names));
    throw std::invalid_argument(trf("{} not in {{{}}}", t, names));
  }
  return t;
}
std::optional<Fallback> default_network(const ResolvedJob& r, const FieldContext& ctx) {
  if (r.cluster.network_bandwidth.value() > 0) return std::nullopt;  // given as a bandwidth
  return Fallback{std::string("eth_25g"), "eth_25g",
                  ctx.for_plan ? tr_noop("assumption: 25 GbE between the servers of a purchase")
                               : tr_noop("assumption: 25 GbE between nodes")};
}
bool multi_node(const ResolvedJob& r, const FieldContext& ctx) {
  return ctx.for_plan || r.cluster.gpus > r.cluster.gpus_per_node;
}
Value network_rate(const ResolvedJob& r) { return r.cluster.network_bandwidth; }
void set_network_rate(ResolvedJob& r, const Value& v) { r.cluster.network_bandwidth = std::get<BytesPerSecond>(v); }
bool several_gpus(const ResolvedJob& r, const FieldContext& ctx) { return ctx.for_plan || r.cluster.gpus > 1; }

constexpr F kCluster[] = {
    {.key = "gpu",
     .kind = K::kText,
     .at = member<&ResolvedJob::cluster_gpu>(),
     .derive = &default_gpu,
     .applies = &estimating,
     .parse = &parse_gpu,
     .label = tr_noop("GPU")},
    {.key = "gpus",
     .kind = K::kWhole,
     .at = cluster<&Cluster::gpus>,
     .range = {1, 100000},
     .fallback = "8",
     .why = tr_noop("default"),
     .applies = &estimating,
     .label = tr_noop("GPUs in the job")},
    {.key = "gpus_per_node",
     .kind = K::kWhole,
     .at = cluster<&Cluster::gpus_per_node>,
     .range = {1, 64},
     .fallback = "8",
     .why = tr_noop("default: an 8-GPU server (HGX board, NVLink inside)"),
     .noted = &several_gpus,
     .label = tr_noop("GPUs per node (instance)")},
    {.key = "network",
     .kind = K::kChoice,
     .at = {&network, &set_network},
     .derive = &default_network,
     .noted = &multi_node,
     .parse = &parse_network,
     .label = tr_noop("network between nodes (eth_25g, ib_hdr, …)")},
    // Given instead of `network` (job.cc checks they are not both given).
    {.key = "network_bandwidth",
     .kind = K::kRate,
     .at = {&network_rate, &set_network_rate},
     .range = {0, kInf, true},
     .echo = {.key = "network_gbit_s", .divisor = 1.25e8},
     .vary = true,
     .by_hand = true,
     .label = tr_noop("network bandwidth per node, instead of a named network")},
    {.key = "gpu_mtbf",
     .kind = K::kDuration,
     .at = job<&Job::gpu_mtbf>,
     .range = {0, kInf, true},
     .fallback = "2111d",
     .why = tr_noop(
         "Llama 3 (Dubey et al. 2024, §3.3.4): 419 unexpected interruptions in 54 days on 16,384 H100s, one per "
         "2,111 GPU-days"),
     .echo = {.key = "gpu_mtbf_s"},
     .vary = true,
     .label = tr_noop("mean time between interruptions per GPU (a job of n GPUs: n times as often)")},
    {.key = "restart",
     .kind = K::kDuration,
     .at = job<&Job::restart>,
     .range = {0, kInf},
     .fallback = "10min",
     .why = tr_noop("assumption: reschedule, reload the last checkpoint, warm up"),
     .echo = {.key = "restart_s"},
     .vary = true,
     .label = tr_noop("time lost to each restart after an interruption (also spot)")},
    {.key = "comm_overlap",
     .kind = K::kShare,
     .at = cluster<&Cluster::comm_overlap>,
     .range = {0, 1},
     .fallback = "50%",
     .why = tr_noop("assumption: half the backward pass hides gradient all-reduce"),
     .noted = &several_gpus,
     .vary = true,
     .label = tr_noop("share of the backward pass that hides communication")},
};

// ---- cost ----

constexpr F kCost[] = {
    {.key = "spot_interruptions_per_day",
     .kind = K::kNumber,
     .at = member<&ResolvedJob::spot_interruptions_per_day>(),
     .range = {0, 1000},
     .fallback = "1",
     .why = kSpotRateAssumption,
     .vary = true,
     .varies = [](const ResolvedJob& r) { return r.plan.allow_spot; },
     .label = tr_noop("spot interruptions per instance a day")},
    {.key = "dataset",
     .kind = K::kBytes,
     .at = member<&ResolvedJob::dataset>(),
     .range = {0},
     .vary = true,
     .label = tr_noop("data kept in storage during the run")},
    {.key = "upload_bandwidth",
     .kind = K::kRate,
     .at = member<&ResolvedJob::upload_bandwidth>(),
     .range = {0, kInf, true},
     .fallback = "100MB/s",
     .why = tr_noop("the article's minimum acceptable upload rate (百兆每秒)"),
     .noted = [](const ResolvedJob& r, const FieldContext& ctx) { return ctx.for_plan && r.dataset.value() > 0; },
     .vary = true,
     .label = tr_noop("upload rate to the provider")},
};

// ---- plan (flags of `gpuplan plan` override it) ----

constexpr Choice kObjectives[] = {{"cost", static_cast<int>(Objective::kCost)},
                                  {"time", static_cast<int>(Objective::kTime)}};

Value budget(const ResolvedJob& r) { return r.plan.budget ? Value(*r.plan.budget) : Value(); }
void set_budget(ResolvedJob& r, const Value& v) { r.plan.budget = std::get<Money>(v); }
Value deadline_hours(const ResolvedJob& r) { return r.plan.deadline ? Value(*r.plan.deadline) : Value(); }
void set_deadline(ResolvedJob& r, const Value& v) { r.plan.deadline = std::get<Seconds>(v); }

constexpr F kPlan[] = {
    // Read by hand: a duration or a date counted from now (parse_deadline), and its text kept for titles.
    {.key = "deadline",
     .kind = K::kDuration,
     .at = {&deadline_hours, &set_deadline},
     .range = {1},
     .echo = {.key = "deadline_hours", .divisor = 3600},
     .vary = true,
     .by_hand = true,
     .label = tr_noop("finish within (36h) or by (2026-12-20)")},
    {.key = "budget",
     .kind = K::kMoney,
     .at = {&budget, &set_budget},
     .range = {0.01, kInf, true},
     .vary = true,
     .label = tr_noop("spend at most")},
    {.key = "allow_spot",
     .kind = K::kBool,
     .at = plan<&PlanSettings::allow_spot>,
     .fallback = "false",
     .noted = &never,
     .label = tr_noop("consider spot capacity")},
    {.key = "include_buy",
     .kind = K::kBool,
     .at = plan<&PlanSettings::include_buy>,
     .fallback = "false",
     .noted = &never,
     .label = tr_noop("consider buying the cards")},
    {.key = "exclude_restricted",
     .kind = K::kBool,
     .at = plan<&PlanSettings::exclude_restricted>,
     .fallback = "false",
     .noted = &never,
     .label = tr_noop("leave out offers and cards restricted in the market (export controls)")},
    {.key = "max_gpus",
     .kind = K::kWhole,
     .at = plan<&PlanSettings::max_gpus>,
     .range = {1, 65536},
     .fallback = "1024",
     .why = tr_noop("default"),
     .label = tr_noop("the most cards considered")},
    {.key = "objective",
     .kind = K::kChoice,
     .at = plan<&PlanSettings::objective>,
     .fallback = "cost",
     .noted = &never,
     .choices = kObjectives,
     .label = tr_noop("cost or time")},
    {.key = "confidence",
     .kind = K::kShare,
     .at = plan<&PlanSettings::confidence>,
     .range = {0.01, 1},
     .fallback = "90%",
     .why = tr_noop("default: a plan must meet the deadline 9 times in 10, over MFU uncertainty and spot reclaims"),
     .noted = [](const ResolvedJob& r, const FieldContext&) { return r.plan.deadline.has_value(); },
     .label = tr_noop("how often a plan must meet the deadline")},
    {.key = "gpus",
     .kind = K::kList,
     .at = plan<&PlanSettings::gpus>,
     .label = tr_noop("GPU ids or families considered")},
    {.key = "providers",
     .kind = K::kList,
     .at = plan<&PlanSettings::providers>,
     .label = tr_noop("providers considered")},
    {.key = "regions", .kind = K::kList, .at = plan<&PlanSettings::regions>, .label = tr_noop("regions considered")},
    {.key = "market",
     .kind = K::kText,
     .at = plan<&PlanSettings::market>,
     .fallback = "CN",
     .why = tr_noop("default: purchase prices and operating costs for China"),
     .noted = [](const ResolvedJob& r, const FieldContext&) { return r.plan.include_buy; },
     .parse = &parse_market,
     .label = tr_noop("region of purchase prices and operating costs")},
};

constexpr F kTop[] = {
    {.key = "schema_version", .kind = K::kText, .echo = {.skip = true}, .label = tr_noop("job file version (1)")},
    {.key = "name",
     .kind = K::kText,
     .at = member<&ResolvedJob::job, &Job::name>(),
     .label = tr_noop("title of the job")},
    {.key = "currency",
     .kind = K::kText,
     .echo = {.skip = true},
     .label = tr_noop("currency of bare amounts (plan.budget)")},
};

constexpr Section<ResolvedJob> kSections[] = {
    {"", kTop},
    {"job", kJob},
    {"job.architecture", kArchitecture},
    {"data", kData},
    {"checkpoint", kCheckpoint},
    {"cluster", kCluster},
    {"cost", kCost},
    {"plan", kPlan},
};

}  // namespace

Json job_echo_schema(bool for_plan) {
  Json p = Json::object();
  p["job_file"] = value_schema(K::kText, {}, "the job file, or the built-in defaults", false);
  p["name"] = value_schema(K::kText, {}, "title of the job", false);
  p["job"] = object_schema(echo_properties(job_section("job").rows));
  Json cluster = echo_properties(job_section("cluster").rows);
  if (for_plan) {
    Json kept = Json::object();
    for (const auto& [k, v] : *cluster.as_object())
      if (k != "gpu" && k != "gpus") kept[k] = v;
    cluster = std::move(kept);
  }
  p["cluster"] = object_schema(std::move(cluster));
  p["defaults_used"] = value_schema(K::kList, {}, "every default used, with its reason and source", false);
  if (for_plan) {
    Json plan = echo_properties(job_section("plan").rows);
    plan["trials"] = value_schema(K::kWhole, {}, "Monte Carlo runs per spot plan (--trials)", false);
    plan["seed"] = value_schema(K::kWhole, {}, "Monte Carlo seed (--seed)", false);
    plan["scaling_file"] = value_schema(K::kText, {}, "a saved scaling fit (--scaling)", true);
    p["plan"] = object_schema(std::move(plan));
  }
  return object_schema(std::move(p));
}

Job job_on_instances(const ResolvedJob& r, int instances, std::string_view* changed_tier) {
  const int t = r.checkpoint_given.storage ? r.checkpoint_storage : default_checkpoint_tier(instances);
  Job j = r.job;
  if (t == r.checkpoint_storage) return j;
  // A defaulted bandwidth follows the new tier, scaled as sensitivity scaled it
  // (x1 when not varied); one given stays.
  const CheckpointTier& from = kCheckpointTiers[static_cast<std::size_t>(r.checkpoint_storage)];
  const CheckpointTier& to = kCheckpointTiers[static_cast<std::size_t>(t)];
  const auto follow = [](BytesPerSecond& v, double from_value, double to_value) {
    if (from_value <= 0) return false;
    const BytesPerSecond next(to_value * (v.value() / from_value));
    const bool changed = next.value() != v.value();
    v = next;
    return changed;
  };
  bool changed = false;
  if (!r.checkpoint_given.write) changed |= follow(j.checkpoint_bandwidth, from.per_node, to.per_node);
  if (!r.checkpoint_given.total) changed |= follow(j.checkpoint_aggregate, from.total, to.total);
  if (changed && changed_tier) *changed_tier = to.name;
  return j;
}

bool is_vision_job(const Job& j) { return j.forward_flops_per_sample > 0; }

std::span<const Section<ResolvedJob>> job_sections() { return kSections; }

const Section<ResolvedJob>& job_section(std::string_view name) {
  for (const Section<ResolvedJob>& s : kSections)
    if (s.name == name) return s;
  throw std::logic_error(fmt::format("no job section '{}'", name));
}

}  // namespace gpuplan
