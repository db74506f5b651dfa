#include "gpuplan/serving.h"

#include <algorithm>
#include <cmath>

#include "gpuplan/efficiency.h"
#include "gpuplan/training.h"

namespace gpuplan {

std::string_view to_string(Storage s) {
  switch (s) {
    case Storage::kBf16:
      return "bf16";
    case Storage::kFp16:
      return "fp16";
    case Storage::kFp8:
      return "fp8";
    case Storage::kInt8:
      return "int8";
    case Storage::kInt4:
      return "int4";
  }
  return "?";
}

double bytes_per_value(Storage s) {
  switch (s) {
    case Storage::kBf16:
    case Storage::kFp16:
      return 2;
    case Storage::kFp8:
    case Storage::kInt8:
      return 1;
    case Storage::kInt4:
      return 0.5;
  }
  return 2;
}

std::string_view to_string(BatchLimit l) {
  switch (l) {
    case BatchLimit::kMemory:
      return "memory";
    case BatchLimit::kTimePerToken:
      return "time per output token";
    case BatchLimit::kTimeToFirstToken:
      return "time to first token";
    case BatchLimit::kNone:
      return "none";
  }
  return "?";
}

// Each layer caches one key and one value vector per KV head (Pope et al.
// 2022, "Efficiently Scaling Transformer Inference", §2; with grouped-query
// attention only the kv_heads are cached, Ainslie et al. 2023).
Bytes kv_bytes_per_token(const ServedModel& m) {
  // MLA caches one compressed latent a layer (DeepSeek-V2, Liu et al. 2024, §2.1.2: d_c + d_h^R per token and layer).
  if (m.latent_cache > 0) return Bytes(1.0 * m.layers * m.latent_cache * bytes_per_value(m.kv_cache));
  return Bytes(2.0 * m.layers * m.kv_head_count() * m.head_dim() * bytes_per_value(m.kv_cache));
}

Bytes weight_bytes(const ServedModel& m) { return Bytes(m.parameters * bytes_per_value(m.weights)); }

// total = shared + E·p and active = shared + k·p give one expert's p =
// (total − active) ÷ (E − k) and shared = active − k·p.
Bytes weights_read(const ServedModel& m, int batch) {
  const int e = m.experts, k = m.experts_per_token;
  if (m.active_parameters <= 0 || e <= 0 || k <= 0 || k >= e) return weight_bytes(m);
  const double per_expert = (m.parameters - m.active_parameters) / (e - k);
  const double shared = m.active_parameters - k * per_expert;
  const double reached = e * (1.0 - std::pow(1.0 - static_cast<double>(k) / e, batch));
  return Bytes((shared + reached * per_expert) * bytes_per_value(m.weights));
}

double serving_peak_tflops(const Gpu& gpu, Storage weights) {
  // 16-bit activations: bf16, or fp16 on a card the catalog gives no bf16 rate.
  double bf16 = mfu_peak_tflops(gpu, Precision::kBf16);
  if (bf16 <= 0) bf16 = mfu_peak_tflops(gpu, Precision::kFp16);
  // FP8 weights and activations (W8A8) speed up the matmuls by what training
  // measures end to end, not the data sheet's 2× (efficiency.h).
  const bool fp8 = weights == Storage::kFp8 && gpu.dense_tflops.contains(Precision::kFp8);
  return fp8 ? bf16 * kFp8Speedup : bf16;
}

namespace {

FlopsPerSecond achieved_rate(const ServingEfficiency& e, const ReplicaShape& r, const ServedModel& m) {
  return FlopsPerSecond(serving_peak_tflops(*r.gpu, m.weights) * 1e12 * r.tp * e.prefill_mfu);
}

// Tensor parallel (Shoeybi et al. 2019, Megatron-LM §3): two all-reduces a
// layer (after attention, after the MLP) of the tokens' activations, bf16,
// each with a fixed start-up cost that dominates at small batches.
Seconds tensor_parallel_time(const ServedModel& m, const ReplicaShape& r, double tokens) {
  if (r.tp <= 1) return Seconds(0);
  return (ring_allreduce(Bytes(tokens * m.hidden * 2.0), r.tp, r.link) + kAllReduceLatency) * (2.0 * m.layers);
}

}  // namespace

// One decode step reads every weight once and the whole cached context of
// every sequence in the batch (Pope et al. 2022 §2; the "memory-bound" decode
// of Databricks' "LLM Inference Performance Engineering", 2023); at large
// batches the FLOPs take over: 2 per active parameter a token, plus attention
// over the context, 4 · layers · context · hidden (QKᵀ and AV, Hoffmann et al.
// 2022, App. F). A mixture of experts reads every expert: at any batch worth
// serving, the tokens of a step reach them all.
Seconds decode_step_time(const ServedModel& m, const ServingEfficiency& e, const ReplicaShape& r, int batch,
                         double context, bool* memory_bound) {
  const Bytes read = weights_read(m, batch) + kv_bytes_per_token(m) * (batch * context);
  const BytesPerSecond bandwidth = *r.gpu->memory_bandwidth * (r.tp * e.decode_bandwidth);
  const Seconds memory = read / bandwidth;
  const Flops work(batch * (2.0 * m.active() + 4.0 * m.layers * context * m.attention_width()));
  const Seconds compute = work / achieved_rate(e, r, m);
  if (memory_bound) *memory_bound = memory >= compute;
  return std::max(memory, compute) + tensor_parallel_time(m, r, batch);
}

// A causal prompt of P tokens: 2·N_active·P for the weights and, token i
// attending to i before it, Σ 4·L·i·h ≈ 2·L·P²·h for attention.
Seconds prefill_time(const ServedModel& m, const ServingEfficiency& e, const ReplicaShape& r, double prompt) {
  const Flops work(prompt * 2.0 * m.active() + 2.0 * m.layers * prompt * prompt * m.attention_width());
  return work / achieved_rate(e, r, m) + tensor_parallel_time(m, r, prompt);
}

// Continuous batching (Yu et al. 2022, Orca; vLLM): a sequence leaves when
// done and a new one joins, so over the O steps one request takes, the
// replica also runs the prompts of `batch` newcomers. A cycle of O steps and
// B prompts serves B requests. A new
// request waits for the step in flight, then its own prompt; time queued for
// a free slot is left to the headroom (peak_load), not modelled.
ReplicaRun replica_at(const ServedModel& m, const Traffic& t, const ServingEfficiency& e, const ReplicaShape& r,
                      int batch) {
  ReplicaRun run;
  const Bytes weights = weight_bytes(m);
  run.weights_per_gpu = weights / r.tp;
  const Bytes usable = r.gpu->memory * (r.tp * e.memory_share);
  run.kv_capacity = usable > weights ? usable - weights : Bytes(0);
  const double per_request = t.prompt_tokens + t.output_tokens;
  run.max_batch = static_cast<int>(std::min(1e6, std::floor(run.kv_capacity / (kv_bytes_per_token(m) * per_request))));
  run.fits = run.max_batch >= 1;
  run.batch = batch;
  const double context = t.prompt_tokens + t.output_tokens / 2;  // the mean a sequence holds while decoding
  run.decode_step = decode_step_time(m, e, r, batch, context, &run.decode_memory_bound);
  run.prefill = prefill_time(m, e, r, t.prompt_tokens);
  const Seconds cycle = run.decode_step * t.output_tokens + run.prefill * batch;
  // Between two of its tokens a request waits a step and its share of the
  // other B − 1 newcomers' prompts (its own came before its first token).
  run.time_per_output_token = run.decode_step + run.prefill * ((batch - 1) / t.output_tokens);
  run.time_to_first_token = run.prefill + run.decode_step;
  run.requests_per_second = batch / cycle.count();
  run.output_tokens_per_second = run.requests_per_second * t.output_tokens;
  run.tokens_per_second = run.requests_per_second * per_request;
  return run;
}

namespace {

// A reply of one token has no time between tokens: only its first counts.
BatchLimit missed(const ReplicaRun& r, const ServiceTargets& s, const Traffic& t) {
  if (t.output_tokens > 1 && r.time_per_output_token > s.time_per_output_token) return BatchLimit::kTimePerToken;
  if (r.time_to_first_token > s.time_to_first_token) return BatchLimit::kTimeToFirstToken;
  return BatchLimit::kNone;
}

}  // namespace

// Both latencies grow with the batch, so the largest batch that meets them is
// found by bisection between 1 and what memory holds.
ReplicaRun size_replica(const ServedModel& m, const Traffic& t, const ServiceTargets& s, const ServingEfficiency& e,
                        const ReplicaShape& r) {
  ReplicaRun one = replica_at(m, t, e, r, 1);
  if (!one.fits) return one;
  if (const BatchLimit l = missed(one, s, t); l != BatchLimit::kNone) {
    one.limit = l;
    return one;
  }
  int lo = 1, hi = one.max_batch;  // lo meets the targets
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (missed(replica_at(m, t, e, r, mid), s, t) == BatchLimit::kNone) lo = mid;
    else hi = mid - 1;
  }
  ReplicaRun best = replica_at(m, t, e, r, lo);
  best.meets_targets = true;
  best.limit = lo == best.max_batch ? BatchLimit::kMemory : missed(replica_at(m, t, e, r, lo + 1), s, t);
  return best;
}

std::optional<int> replicas_at(double rate, const ServingEfficiency& e, const ReplicaRun& r, int floor) {
  if (!(r.requests_per_second > 0)) return std::nullopt;
  // Less a hair, so a load that fills whole replicas exactly needs no more.
  const double n = std::ceil(rate / (r.requests_per_second * e.peak_load) - 1e-9);
  if (!(n <= kMaxReplicas)) return std::nullopt;
  return std::max(floor, static_cast<int>(n));
}

std::optional<int> replicas_for(const Traffic& t, const ServingEfficiency& e, const ReplicaRun& r) {
  return replicas_at(t.requests_per_second * t.peak_to_average, e, r, 1);
}

std::array<double, kHoursPerDay> hourly_rates(const Traffic& t) {
  std::array<double, kHoursPerDay> out{};
  const std::vector<double>& p = t.daily_profile;
  if (!p.empty()) {
    const std::size_t hours = std::min(out.size(), p.size());  // 24 once read
    double sum = 0;
    for (std::size_t h = 0; h < hours; ++h) sum += p[h];
    for (std::size_t h = 0; h < hours && sum > 0; ++h) out[h] = t.requests_per_second * kHoursPerDay * p[h] / sum;
    return out;
  }
  // 24/p hours at p × the average carry the day's requests exactly.
  const double peak = t.requests_per_second * t.peak_to_average;
  double busy = kHoursPerDay / std::max(1.0, t.peak_to_average);
  for (std::size_t i = 0; i < out.size() && busy > 0; ++i, busy -= 1)
    out[(kBusyFrom + i) % out.size()] = peak * std::min(1.0, busy);
  return out;
}

}  // namespace gpuplan
