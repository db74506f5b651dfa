#include "gpuplan/serving.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>
#include <cmath>
#include <numbers>

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
      return tr_noop("memory");
    case BatchLimit::kTimePerToken:
      return tr_noop("time per output token");
    case BatchLimit::kTimeToFirstToken:
      return tr_noop("time to first token");
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

// ---- request lengths ----

namespace {

constexpr double kZ95 = 1.6448536269514722;  // Φ⁻¹(0.95)

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_pdf(double x) { return std::exp(-x * x / 2) / std::sqrt(2 * std::numbers::pi); }

// Φ⁻¹: Acklam's rational approximation (relative error below 1.2e-9), then
// two Halley steps on Φ(x) − p, which leave it exact to double precision.
double normal_quantile(double p) {
  constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                          1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                          -1.328068155288572e+01};
  constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                          -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double low = 0.02425;
  double x = 0;
  if (p < low || p > 1 - low) {
    const double q = std::sqrt(-2 * std::log(p < low ? p : 1 - p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    if (p > 1 - low) x = -x;
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  for (int i = 0; i < 2; ++i) {
    const double u = (normal_cdf(x) - p) / normal_pdf(x);
    x -= u / (1 + x * u / 2);
  }
  return x;
}

}  // namespace

// Prompt and reply lengths of chat and RAG traffic are right-skewed (the
// Azure LLM inference traces of Patel et al. 2024, "Splitwise", Fig. 3;
// ShareGPT, which vLLM's benchmarks replay). gpuplan takes them as lognormal,
// the usual two-parameter fit for such lengths (an assumption, said in the
// output): a mean and one percentile fix it.
Lengths Lengths::of(double mean, double p95) {
  Lengths l{mean, 0};
  const double r = p95 > mean && mean > 0 ? std::log(p95 / mean) : 0;
  l.sigma = kZ95 - std::sqrt(std::max(0.0, kZ95 * kZ95 - 2 * r));
  return l;
}

double Lengths::quantile(double q) const {
  return sigma > 0 ? mean * std::exp(sigma * normal_quantile(q) - sigma * sigma / 2) : mean;
}

double Lengths::moment(int k) const { return std::pow(mean, k) * std::exp(k * (k - 1) * sigma * sigma / 2); }

Lengths prompt_lengths(const Traffic& t) { return Lengths::of(t.prompt_tokens, t.prompt_tokens_p95); }
Lengths output_lengths(const Traffic& t) { return Lengths::of(t.output_tokens, t.output_tokens_p95); }

namespace {

// Prefill time is a quadratic in the prompt, f(P) = a + b·P + c·P² (the TP
// start-ups, the weights and the linear all-reduce bytes, attention); its
// coefficients read off three prompts, exactly.
struct Quadratic {
  double a = 0, b = 0, c = 0;
  double at(double x) const { return a + x * (b + x * c); }
  double mean(const Lengths& l) const { return a + b * l.moment(1) + c * l.moment(2); }
  // Var f(P) over 256 equally likely prompt lengths: the lognormal's own E[P⁴] grows as exp(6σ²), all of it
  // from prompts far beyond any context, which no request brings; the nodes reach its 99.8th percentile.
  double variance(const Lengths& l) const {
    constexpr std::size_t kNodes = 256;
    static const std::array<double, kNodes> z = [] {
      std::array<double, kNodes> out{};
      for (std::size_t i = 0; i < kNodes; ++i) out[i] = normal_quantile((static_cast<double>(i) + 0.5) / kNodes);
      return out;
    }();
    if (!(l.sigma > 0)) return 0;
    double sum = 0, sum2 = 0;
    for (const double zi : z) {
      const double v = at(l.mean * std::exp(l.sigma * zi - l.sigma * l.sigma / 2));
      sum += v;
      sum2 += v * v;
    }
    const double m = sum / kNodes;
    return std::max(0.0, sum2 / kNodes - m * m);
  }
};

Quadratic prefill_cost(const ServedModel& m, const ServingEfficiency& e, const ReplicaShape& r) {
  constexpr double k = 1024;
  const double f0 = prefill_time(m, e, r, 0).count(), f1 = prefill_time(m, e, r, k).count(),
               f2 = prefill_time(m, e, r, 2 * k).count();
  const double c = (f2 - 2 * f1 + f0) / (2 * k * k);
  return {f0, (f1 - f0) / k - c * k, c};
}

// The per-request time between tokens, at quantile q over requests. During
// its O steps a request shares the replica with the prompts of the newcomers
// that take the other B − 1 slots as they free: a renewal process of mean
// E[O] a slot, so N ≈ (B − 1)·O ÷ E[O] of them, with variance N·cv²(O)
// (Cox 1962, renewal theory's central limit theorem); their prompt times sum
// to S with mean N·E[f] and variance N·Var f + Var N·E[f]². A request's gap is
// step + S ÷ O, normal given O (many newcomers); O itself lognormal, so the
// quantile is the mixture's, over 32 equally likely reply lengths. Lengths
// that do not vary: exactly step + (B − 1)·f(P) ÷ O.
Seconds gap_at(const Quadratic& f, const Lengths& prompts, const Lengths& outputs, Seconds step, int batch, double q) {
  const double ef = f.mean(prompts), var_f = f.variance(prompts);
  const double cv2 = std::exp(outputs.sigma * outputs.sigma) - 1;
  const double per_step = (batch - 1) / outputs.mean;  // newcomers a step
  const double centre = step.count() + per_step * ef;
  const double spread = per_step * (var_f + cv2 * ef * ef);  // × 1/O: the variance of S ÷ O
  if (!(spread > 0)) return Seconds(centre);
  // 32 equally likely reply lengths: their normal deviates once, then each length is exp(...) of one.
  constexpr std::size_t kNodes = 32;
  static const std::array<double, kNodes> z = [] {
    std::array<double, kNodes> out{};
    for (std::size_t i = 0; i < kNodes; ++i) out[i] = normal_quantile((static_cast<double>(i) + 0.5) / kNodes);
    return out;
  }();
  std::array<double, kNodes> sd{};
  const double s2 = outputs.sigma * outputs.sigma;
  for (std::size_t i = 0; i < kNodes; ++i)
    sd[i] = std::sqrt(spread / (outputs.mean * std::exp(outputs.sigma * z[i] - s2 / 2)));
  // The mixture's CDF and density; Newton's method on CDF = q, kept inside a bracket that halves when it strays.
  const auto cdf = [&](double t, double* density) {
    double p = 0, dens = 0;
    for (double s : sd) {
      p += normal_cdf((t - centre) / s);
      dens += normal_pdf((t - centre) / s) / s;
    }
    *density = dens / kNodes;
    return p / kNodes;
  };
  double lo = centre - 10 * sd.front(), hi = centre + 10 * sd.front();  // sd.front(): the shortest reply's, the widest
  double t = centre + normal_quantile(q) * sd[kNodes / 2];
  for (int i = 0; i < 100; ++i) {
    double density = 0;
    const double miss = cdf(t, &density) - q;
    (miss < 0 ? lo : hi) = t;
    double next = density > 0 ? t - miss / density : (lo + hi) / 2;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (std::abs(next - t) <= 1e-7 * centre) break;
    t = next;
  }
  return Seconds(std::max(step.count(), t));
}

}  // namespace

// Continuous batching (Yu et al. 2022, Orca; vLLM): a sequence leaves when
// done and a new one joins, so over the O steps one request takes, the
// replica also runs the prompts of `batch` newcomers. A cycle of E[O] steps
// and B prompts serves B requests. A sequence in the batch is length-biased
// (a long reply stays longer): the batch holds E[P] + E[O²] ÷ E[O] tokens a
// sequence at most, E[P] + E[O²] ÷ 2E[O] on average. A new request waits for
// the step in flight, then its own prompt (its length at the percentile);
// time queued for a free slot is left to the headroom (peak_load), not modelled.
ReplicaRun replica_at(const ServedModel& m, const Traffic& t, const ServingEfficiency& e, const ReplicaShape& r,
                      int batch, double percentile) {
  ReplicaRun run;
  const Lengths prompts = prompt_lengths(t), outputs = output_lengths(t);
  const Bytes weights = weight_bytes(m);
  run.weights_per_gpu = weights / r.tp;
  const Bytes usable = r.gpu->memory * (r.tp * e.memory_share);
  run.kv_capacity = usable > weights ? usable - weights : Bytes(0);
  const double held = prompts.mean + outputs.moment(2) / outputs.mean;
  run.max_batch = static_cast<int>(std::min(1e6, std::floor(run.kv_capacity / (kv_bytes_per_token(m) * held))));
  run.fits = run.max_batch >= 1;
  run.batch = batch;
  run.percentile = percentile;
  const double context = prompts.mean + outputs.moment(2) / (2 * outputs.mean);
  run.decode_step = decode_step_time(m, e, r, batch, context, &run.decode_memory_bound);
  const Quadratic f = prefill_cost(m, e, r);
  run.prefill = Seconds(f.mean(prompts));
  const Seconds cycle = run.decode_step * outputs.mean + run.prefill * batch;
  const double q = percentile / 100;
  run.time_to_first_token = Seconds(f.at(prompts.quantile(q))) + run.decode_step;
  run.time_per_output_token = gap_at(f, prompts, outputs, run.decode_step, batch, q);
  run.requests_per_second = batch / cycle.count();
  run.output_tokens_per_second = run.requests_per_second * outputs.mean;
  run.tokens_per_second = run.requests_per_second * (prompts.mean + outputs.mean);
  return run;
}

namespace {

// A reply of one token has no time between tokens: only its first counts (when every reply is one token).
BatchLimit missed(const ReplicaRun& r, const ServiceTargets& s, const Traffic& t) {
  if (std::max(t.output_tokens, t.output_tokens_p95) > 1 && r.time_per_output_token > s.time_per_output_token)
    return BatchLimit::kTimePerToken;
  if (r.time_to_first_token > s.time_to_first_token) return BatchLimit::kTimeToFirstToken;
  return BatchLimit::kNone;
}

}  // namespace

// Both latencies grow with the batch, so the largest batch that meets them is
// found by bisection between 1 and what memory holds.
namespace {

// Every number size_replica reads, to know a sizing done before: one `serve`
// sizes the same replica shape many times (each offer of a card, each
// break-even's tensor parallel, owning), and with lengths that vary a sizing
// costs a few hundred normal distributions.
std::vector<double> sizing_key(const ServedModel& m, const Traffic& t, const ServiceTargets& s,
                               const ServingEfficiency& e, const ReplicaShape& r) {
  std::vector<double> k = {m.parameters,
                           m.active_parameters,
                           static_cast<double>(m.layers),
                           static_cast<double>(m.hidden),
                           static_cast<double>(m.heads),
                           static_cast<double>(m.kv_heads),
                           static_cast<double>(m.head_size),
                           static_cast<double>(m.latent_cache),
                           m.context_length,
                           static_cast<double>(m.experts),
                           static_cast<double>(m.experts_per_token),
                           static_cast<double>(m.weights),
                           static_cast<double>(m.kv_cache),
                           t.prompt_tokens,
                           t.prompt_tokens_p95,
                           t.output_tokens,
                           t.output_tokens_p95,
                           s.time_to_first_token.count(),
                           s.time_per_output_token.count(),
                           s.percentile,
                           e.prefill_mfu,
                           e.decode_bandwidth,
                           e.memory_share,
                           e.peak_load,
                           static_cast<double>(r.tp),
                           r.link.value(),
                           r.gpu->memory.value(),
                           r.gpu->memory_bandwidth ? r.gpu->memory_bandwidth->value() : -1.0};
  for (const auto& [precision, tflops] : r.gpu->dense_tflops) {
    k.push_back(static_cast<double>(precision));
    k.push_back(tflops);
  }
  return k;
}

ReplicaRun size_replica_uncached(const ServedModel& m, const Traffic& t, const ServiceTargets& s,
                                 const ServingEfficiency& e, const ReplicaShape& r) {
  const auto at = [&](int batch) { return replica_at(m, t, e, r, batch, s.percentile); };
  ReplicaRun one = at(1);
  if (!one.fits) return one;
  if (const BatchLimit l = missed(one, s, t); l != BatchLimit::kNone) {
    one.limit = l;
    return one;
  }
  int lo = 1, hi = one.max_batch;  // lo meets the targets
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (missed(at(mid), s, t) == BatchLimit::kNone) lo = mid;
    else hi = mid - 1;
  }
  ReplicaRun best = at(lo);
  best.meets_targets = true;
  best.limit = lo == best.max_batch ? BatchLimit::kMemory : missed(at(lo + 1), s, t);
  return best;
}

}  // namespace

// A pure function, so the last 64 sizings are kept (per thread), keyed by
// every number they read (never by the GPU's address: a card read anew may
// reuse it).
ReplicaRun size_replica(const ServedModel& m, const Traffic& t, const ServiceTargets& s, const ServingEfficiency& e,
                        const ReplicaShape& r) {
  thread_local std::vector<std::pair<std::vector<double>, ReplicaRun>> memo;
  std::vector<double> key = sizing_key(m, t, s, e, r);
  for (const auto& [k, run] : memo)
    if (k == key) return run;
  ReplicaRun run = size_replica_uncached(m, t, s, e, r);
  if (memo.size() >= 64) memo.erase(memo.begin());
  memo.emplace_back(std::move(key), run);
  return run;
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
