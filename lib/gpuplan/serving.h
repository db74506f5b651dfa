// Serving a language model (SPEC "Serving"): what one replica of the model
// holds and how fast it answers, the batch that meets the latency targets,
// and the replicas a load needs. Prefill (reading the prompt) is bound by
// compute, decode (one output token per step for the whole batch) by the bytes
// each step reads: every weight once, and every cached key and value of the
// batch. Formulas and their sources are beside the code in serving.cc.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/units.h"

namespace gpuplan {

/// How weights or the KV cache are stored. int8/int4 weights are read as such
/// and computed in bf16 (weight-only quantisation: W8A16, W4A16).
enum class Storage { kBf16, kFp16, kFp8, kInt8, kInt4 };
std::string_view to_string(Storage s);
/// Bytes one value takes: 2, 2, 1, 1, 0.5.
double bytes_per_value(Storage s);

struct ServedModel {
  double parameters = 0;         ///< every weight (a mixture of experts: all experts): what memory holds
  double active_parameters = 0;  ///< what one token passes through (FLOPs); 0 = dense
  int layers = 0;
  int hidden = 0;     ///< the model width (the residual stream; tensor-parallel all-reduces carry it)
  int heads = 0;      ///< query heads
  int kv_heads = 0;   ///< key/value heads (grouped-query attention); 0 = heads
  int head_size = 0;  ///< per head; 0 = hidden ÷ heads (Qwen3, Gemma, gpt-oss set their own)
  /// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the width of the
  /// one latent vector a layer caches per token (kv_lora_rank + qk_rope_head_dim,
  /// 512 + 64 = 576 for DeepSeek-V3) instead of keys and values per head; 0 = none.
  int latent_cache = 0;
  double context_length = 0;  ///< the most tokens a request may hold; 0 = not stated
  int experts = 0;            ///< MoE: routed experts per layer; 0 = dense, or not stated
  int experts_per_token = 0;  ///< MoE: top-k
  Storage weights = Storage::kBf16;
  Storage kv_cache = Storage::kBf16;

  double active() const { return active_parameters > 0 ? active_parameters : parameters; }
  int kv_head_count() const { return kv_heads > 0 ? kv_heads : heads; }
  double head_dim() const {
    if (head_size > 0) return head_size;
    return heads > 0 ? static_cast<double>(hidden) / heads : 0;
  }
  /// The width attention works in: heads × head size.
  double attention_width() const { return heads * head_dim(); }
};

/// Weights one decode step of `batch` sequences reads. Dense: all of them. A
/// mixture of experts with experts and top-k stated: the shared part, and the
/// routed experts the batch's tokens reach, E·(1 − (1 − k/E)^batch) of them
/// a layer on average (routing taken as uniform); without them, all experts.
Bytes weights_read(const ServedModel& m, int batch);

/// Keys and values one token leaves in the cache: 2 · layers · kv_heads · head_dim · bytes;
/// with latent attention, layers · latent_cache · bytes.
Bytes kv_bytes_per_token(const ServedModel& m);
/// Every weight, as stored.
Bytes weight_bytes(const ServedModel& m);

/// The load: a rate over the day, and request lengths as a mean and a 95th percentile.
struct Traffic {
  double requests_per_second = 0;  ///< averaged over the day
  double prompt_tokens = 0;        ///< per request, the mean
  double output_tokens = 0;        ///< per request, the mean
  double prompt_tokens_p95 = 0;    ///< 95% of prompts are this long or shorter; 0 or the mean: all at the mean
  double output_tokens_p95 = 0;    ///< likewise for replies
  double peak_to_average = 1;      ///< the busiest hour's rate over the day's average, 1-24
  /// Relative request rates of the day's 24 hours, 0:00-23:00 (any scale);
  /// empty: the two-level day peak_to_average implies (hourly_rates).
  std::vector<double> daily_profile{};
  /// Prompt and output tokens a day, where the load is known that way (an
  /// API bill); requests_per_second then follows from it and the mean lengths.
  std::optional<double> tokens_per_day{};
};

inline constexpr int kHoursPerDay = 24;
/// Where a day without a profile starts its busy hours: a working day from 9:00.
inline constexpr int kBusyFrom = 9;

/// Requests a second in each hour of the day, averaging requests_per_second:
/// the daily profile scaled to that mean; without one, the two-level day
/// peak_to_average p implies (the fewest busy hours that can carry it): 24 ÷ p
/// hours at p × the average from 9:00 (the last one partly busy), the rest
/// without requests.
std::array<double, kHoursPerDay> hourly_rates(const Traffic& t);

/// Request lengths, lognormal with a given mean and 95th percentile (Lengths::of);
/// the 95th equal to the mean: every request at the mean.
struct Lengths {
  double mean = 0;
  double sigma = 0;  ///< the spread of ln(length)

  /// The lognormal with this mean and 95th percentile: ln(p95 ÷ mean) =
  /// z·σ − σ²/2 (z = 1.645), the smaller root. p95 ÷ mean may be 1 to
  /// kMaxP95OverMean; outside it, none fits (the reader refuses it).
  static Lengths of(double mean, double p95);
  /// The length at quantile q (0 < q < 1).
  double quantile(double q) const;
  /// E[Xᵏ] = meanᵏ · exp(k(k−1)σ²/2).
  double moment(int k) const;
};
/// The most a lognormal's 95th percentile can exceed its mean: exp(z²/2), at σ = z.
inline constexpr double kMaxP95OverMean = 3.868;
Lengths prompt_lengths(const Traffic& t);
Lengths output_lengths(const Traffic& t);

/// Latency a user is promised, for `percentile` of the requests (50: the median request).
struct ServiceTargets {
  Seconds time_to_first_token{};
  Seconds time_per_output_token{};
  double percentile = 50;
};

/// How much of the hardware an inference engine achieves (defaults with sources in serving_fields.cc).
struct ServingEfficiency {
  double prefill_mfu = 0;       ///< share of the dense peak reached on prompts (compute-bound)
  double decode_bandwidth = 0;  ///< share of the memory bandwidth reached by a decode step
  double memory_share = 0;      ///< share of each card's memory the engine may use (vLLM's gpu_memory_utilization)
  double peak_load = 0;         ///< share of a replica's throughput the peak may use (headroom for bursts)
};

/// One copy of the model on `tp` cards of one instance, joined by `link` (each way, per GPU).
struct ReplicaShape {
  const Gpu* gpu = nullptr;
  int tp = 1;
  BytesPerSecond link{};
  std::string link_name{};
};

/// The fixed cost of one small all-reduce inside an instance: gpt-fast's
/// Llama 2 7B at batch 1 on 8×A100 (README @0f925b5: TP2/4/8 at 168.8, 254.0,
/// 328.4 tokens/s) is 17-29 µs an all-reduce slower than its bandwidth bound
/// at the same MBU as TP1 (104.9 tokens/s); the middle of that range.
inline constexpr Seconds kAllReduceLatency{20e-6};

/// What limits a replica's batch.
enum class BatchLimit { kMemory, kTimePerToken, kTimeToFirstToken, kNone };
std::string_view to_string(BatchLimit l);

/// A replica at the batch it serves.
struct ReplicaRun {
  bool fits = false;           ///< the weights and one request's cache fit in memory
  bool meets_targets = false;  ///< at batch 1 or more
  Bytes weights_per_gpu{};
  Bytes kv_capacity{};  ///< cache room of the replica, all cards
  int max_batch = 0;    ///< requests whose whole context (prompt + output) fits in the cache
  int batch = 0;        ///< the largest batch that meets both targets (1 when none does: shown, not met)
  BatchLimit limit = BatchLimit::kNone;
  Seconds prefill{};      ///< one prompt, alone (the mean over prompt lengths)
  Seconds decode_step{};  ///< one step of the batch
  bool decode_memory_bound = true;
  double percentile = 50;           ///< of requests, the two latencies below are for
  Seconds time_to_first_token{};    ///< at the percentile
  Seconds time_per_output_token{};  ///< a request's mean gap, with the batch's prompts interleaved, at the percentile
  double requests_per_second = 0;
  double output_tokens_per_second = 0;
  double tokens_per_second = 0;  ///< prompt and output tokens
};

/// The replica's numbers at `batch` (fits and max_batch set; batch not searched),
/// latencies at `percentile` of the requests.
ReplicaRun replica_at(const ServedModel& m, const Traffic& t, const ServingEfficiency& e, const ReplicaShape& r,
                      int batch, double percentile = 50);
/// The largest batch, up to what memory holds, that meets both targets.
ReplicaRun size_replica(const ServedModel& m, const Traffic& t, const ServiceTargets& s, const ServingEfficiency& e,
                        const ReplicaShape& r);

/// Decode step time at `batch` with a mean context of `context` tokens a sequence.
Seconds decode_step_time(const ServedModel& m, const ServingEfficiency& e, const ReplicaShape& r, int batch,
                         double context, bool* memory_bound = nullptr);
/// Prefill time of one prompt of `prompt` tokens.
Seconds prefill_time(const ServedModel& m, const ServingEfficiency& e, const ReplicaShape& r, double prompt);

/// More replicas than this for one service is no plan anyone has: left out, said so.
inline constexpr int kMaxReplicas = 1'000'000;

/// Replicas for the busiest hour: peak rate ÷ (a replica's rate × peak_load),
/// rounded up; nullopt beyond kMaxReplicas (or for a replica that serves nothing).
std::optional<int> replicas_for(const Traffic& t, const ServingEfficiency& e, const ReplicaRun& r);

/// Replicas an hour at `rate` requests/s needs, the same way, and at least `floor`
/// (kept up through quiet hours); nullopt beyond kMaxReplicas.
std::optional<int> replicas_at(double rate, const ServingEfficiency& e, const ReplicaRun& r, int floor);

/// The dense peak prefill runs at: fp8 weights on a card with fp8, else bf16 (fp16 where it has no bf16).
double serving_peak_tflops(const Gpu& gpu, Storage weights);

}  // namespace gpuplan
