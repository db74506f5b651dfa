#include "gpuplan/serving_input.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "gpuplan/suggest.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {
namespace {

using F = Field<ResolvedServing>;
using K = ValueKind;

template <auto M>
constexpr Access<ResolvedServing> model = member<&ResolvedServing::serving, &Serving::model, M>();
template <auto M>
constexpr Access<ResolvedServing> traffic = member<&ResolvedServing::serving, &Serving::traffic, M>();
template <auto M>
constexpr Access<ResolvedServing> targets = member<&ResolvedServing::serving, &Serving::targets, M>();
template <auto M>
constexpr Access<ResolvedServing> efficiency = member<&ResolvedServing::serving, &Serving::efficiency, M>();
template <auto M>
constexpr Access<ResolvedServing> serve = member<&ResolvedServing::serving, M>();

constexpr Choice kWeights[] = {{"bf16", static_cast<int>(Storage::kBf16)},
                               {"fp16", static_cast<int>(Storage::kFp16)},
                               {"fp8", static_cast<int>(Storage::kFp8)},
                               {"int8", static_cast<int>(Storage::kInt8)},
                               {"int4", static_cast<int>(Storage::kInt4)}};
constexpr Choice kCache[] = {{"bf16", static_cast<int>(Storage::kBf16)},
                             {"fp16", static_cast<int>(Storage::kFp16)},
                             {"fp8", static_cast<int>(Storage::kFp8)},
                             {"int8", static_cast<int>(Storage::kInt8)}};

// With no model section, the model is Llama 2 7B (Touvron et al. 2023,
// Table 1; its config.json: 32 layers, 4,096 wide, 32 heads, no GQA): one
// model section's defaults, all or none, so a 70B file never gets 7B's shape.
constexpr std::string_view kBuiltInModel =
    tr_noop("default: Llama 2 7B (Touvron et al. 2023; Hugging Face config.json)");
template <std::string_view const& Text>
std::optional<Fallback> built_in(const ResolvedServing& r, const FieldContext&) {
  if (r.model_given) return std::nullopt;
  const double v = parse_count(Text);
  return Fallback{v, std::string(Text), std::string(kBuiltInModel)};
}
constexpr std::string_view kLlamaParameters = "6.74B", kLlamaLayers = "32", kLlamaHidden = "4096", kLlamaHeads = "32",
                           kLlamaContext = "4096";
template <std::string_view const& Text>
std::optional<Fallback> built_in_whole(const ResolvedServing& r, const FieldContext& c) {
  auto f = built_in<Text>(r, c);
  if (f) f->value = static_cast<int>(std::get<double>(f->value));
  return f;
}

// Weight-only quantised kernels read fewer bytes but dequantise on the way,
// so they reach less of the bandwidth (batch 1, one GPU).
std::optional<Fallback> decode_bandwidth(const ResolvedServing& r, const FieldContext&) {
  switch (r.serving.model.weights) {
    case Storage::kBf16:
    case Storage::kFp16:
      return Fallback{
          0.68, "68%",
          tr_noop("gpt-fast: Llama 2 7B bf16 on A100-80GB at batch 1, 104.9 tokens/s = 1,397 GB/s of 2,039 "
                  "(pytorch-labs/gpt-fast README @d2c5d82); torchao 70% (A100), 57% (H100); llama.cpp 82% (RTX "
                  "4090); TensorRT-LLM 55-60% with tensor parallel (Databricks 2023)")};
    case Storage::kFp8:
    case Storage::kInt8:
      return Fallback{
          0.55, "55%",
          tr_noop("8-bit weight-only at batch 1: gpt-fast int8 52%, torchao int8wo 55-56% on A100 (45% H100, "
                  "float8wo 40%) (pytorch/ao quantization README @fd6e4b1)")};
    case Storage::kInt4:
      return Fallback{
          0.40, "40%",
          tr_noop("4-bit weight-only at batch 1: gpt-fast int4 42%, torchao int4wo-64 37% on A100 (pytorch/ao "
                  "quantization README @fd6e4b1)")};
  }
  return std::nullopt;
}

// With a daily profile, the peak is the profile's: its busiest hour over its mean.
double profile_peak(const std::vector<double>& p) {
  double sum = 0, most = 0;
  for (double x : p) {
    sum += x;
    most = std::max(most, x);
  }
  return sum > 0 ? most * static_cast<double>(p.size()) / sum : 0;
}
std::optional<Fallback> peak_of_profile(const ResolvedServing& r, const FieldContext&) {
  const double p = profile_peak(r.serving.traffic.daily_profile);
  if (!(p >= 1)) return std::nullopt;
  return Fallback{p, fmt::format("{:.4g}", p), tr_noop("from traffic.daily_profile: its busiest hour over its mean")};
}
// Without a 95th percentile every request is as long as the mean: stated, since percentile targets then see no tail.
template <auto Mean>
std::optional<Fallback> no_spread(const ResolvedServing& r, const FieldContext&) {
  const double mean = r.serving.traffic.*Mean;
  return Fallback{
      mean, fmt::format("{:g}", mean),
      tr_noop("default: the mean, every request as long (give the 95th percentile of your requests' lengths: a "
              "percentile target then sees the long ones)")};
}

// A day's tokens are that many requests of the mean lengths, spread over 86,400 seconds.
double rate_of(const Traffic& t, double tokens_per_day) {
  return tokens_per_day / (t.prompt_tokens + t.output_tokens) / 86400;
}
std::optional<Fallback> rate_of_tokens(const ResolvedServing& r, const FieldContext&) {
  const Traffic& t = r.serving.traffic;
  if (!t.tokens_per_day) return std::nullopt;
  const double rps = rate_of(t, *t.tokens_per_day);
  return Fallback{rps, fmt::format("{:.6g}", rps),
                  trf("from traffic.tokens_per_day: {:.10g} ÷ ({:g} prompt + {:g} output tokens a request) "
                      "÷ 86,400 s",
                      *t.tokens_per_day, t.prompt_tokens, t.output_tokens)};
}

// Sensitivity varies the peak only where it shapes the day.
bool no_profile(const ResolvedServing& r) { return r.serving.traffic.daily_profile.empty(); }

constexpr F kTop[] = {
    {.key = "name", .kind = K::kText, .at = serve<&Serving::name>, .echo = {.skip = true}, .label = tr_noop("title")},
};

constexpr F kModel[] = {
    {.key = "parameters",
     .kind = K::kCount,
     .at = model<&ServedModel::parameters>,
     .range = {0, 1e14, true},
     .derive = &built_in<kLlamaParameters>,
     .missing = "is required: the weights every replica holds",
     .label = tr_noop("model parameters (a mixture of experts: all of them)")},
    {.key = "active_parameters",
     .kind = K::kCount,
     .at = model<&ServedModel::active_parameters>,
     .range = {0, 1e14},  // 0, as echoed for a dense model, means dense
     .label = tr_noop("MoE: parameters a token passes through (FLOPs); absent or 0: dense")},
    {.key = "layers",
     .kind = K::kWhole,
     .at = model<&ServedModel::layers>,
     .range = {1, 1000},
     .derive = &built_in_whole<kLlamaLayers>,
     .missing = "is required: the KV cache grows with it (config.json: num_hidden_layers)",
     .label = tr_noop("transformer layers")},
    {.key = "hidden",
     .kind = K::kWhole,
     .at = model<&ServedModel::hidden>,
     .range = {1, 1 << 20},
     .derive = &built_in_whole<kLlamaHidden>,
     .missing = "is required: attention FLOPs and tensor-parallel traffic grow with it (config.json: hidden_size)",
     .label = tr_noop("model width, the residual stream (config.json: hidden_size)")},
    {.key = "heads",
     .kind = K::kWhole,
     .at = model<&ServedModel::heads>,
     .range = {1, 4096},
     .derive = &built_in_whole<kLlamaHeads>,
     .missing = "is required: with hidden it gives the head size (config.json: num_attention_heads)",
     .label = tr_noop("query attention heads")},
    {.key = "kv_heads",
     .kind = K::kWhole,
     .at = model<&ServedModel::kv_heads>,
     .range = {1, 4096},
     .derive = &built_in_whole<kLlamaHeads>,
     .missing = "is required: the KV cache is 2·layers·kv_heads·head size bytes a token, and grouped-query "
                "attention makes it several times smaller (config.json: num_key_value_heads; = heads without GQA)",
     .label = tr_noop("key/value heads (grouped-query attention)")},
    {.key = "head_size",
     .kind = K::kWhole,
     .at = model<&ServedModel::head_size>,
     .range = {0, 4096},
     .label = tr_noop(
         "per attention head; absent or 0: hidden ÷ heads (config.json: head_dim, where a model sets its own)")},
    {.key = "latent_cache",
     .kind = K::kWhole,
     .at = model<&ServedModel::latent_cache>,
     .range = {0, 1 << 20},
     .label =
         tr_noop("latent attention (DeepSeek-V2/V3): the cached latent's width a layer (config.json: kv_lora_rank + "
                 "qk_rope_head_dim); absent or 0: keys and values per KV head")},
    {.key = "context_length",
     .kind = K::kCount,
     .at = model<&ServedModel::context_length>,
     .range = {0, 1e9},
     .derive = &built_in<kLlamaContext>,
     .label = tr_noop(
         "the most tokens a request may hold (config.json: max_position_embeddings); absent or 0: not checked")},
    {.key = "experts",
     .kind = K::kWhole,
     .at = model<&ServedModel::experts>,
     .range = {0, 65536},
     .label = tr_noop(
         "MoE: routed experts a layer (with experts_per_token: a small batch reads only the experts it reaches)")},
    {.key = "experts_per_token",
     .kind = K::kWhole,
     .at = model<&ServedModel::experts_per_token>,
     .range = {0, 1024},
     .label = tr_noop("MoE: routed experts each token goes to (top-k)")},
    {.key = "weights",
     .kind = K::kChoice,
     .at = model<&ServedModel::weights>,
     .fallback = "bf16",
     .why = tr_noop("default: the weights as trained"),
     .choices = kWeights,
     .label = tr_noop("how weights are stored (int8/int4: weight-only, computed in bf16)")},
    {.key = "kv_cache",
     .kind = K::kChoice,
     .at = model<&ServedModel::kv_cache>,
     .fallback = "bf16",
     .why = tr_noop("default: the activations' type (vLLM's kv_cache_dtype auto)"),
     .choices = kCache,
     .label = tr_noop("how the KV cache is stored")},
};

constexpr F kTraffic[] = {
    {.key = "prompt_tokens",
     .kind = K::kCount,
     .at = traffic<&Traffic::prompt_tokens>,
     .range = {1, 1e7},
     .fallback = "1000",
     .why = tr_noop("assumption: a question with a page of context"),
     .vary = true,
     .label = tr_noop("prompt tokens a request (mean)")},
    {.key = "output_tokens",
     .kind = K::kCount,
     .at = traffic<&Traffic::output_tokens>,
     .range = {1, 1e7},
     .fallback = "300",
     .why = tr_noop("assumption: a reply of a few paragraphs"),
     .vary = true,
     .label = tr_noop("output tokens a request (mean)")},
    {.key = "prompt_tokens_p95",
     .kind = K::kCount,
     .at = traffic<&Traffic::prompt_tokens_p95>,
     .range = {1, 1e8},
     .derive = &no_spread<&Traffic::prompt_tokens>,
     .label = tr_noop("95% of prompts are this long or shorter (with the mean: a lognormal; 1 to 3.868 × the mean)")},
    {.key = "output_tokens_p95",
     .kind = K::kCount,
     .at = traffic<&Traffic::output_tokens_p95>,
     .range = {1, 1e8},
     .derive = &no_spread<&Traffic::output_tokens>,
     .label = tr_noop("95% of replies are this long or shorter (with the mean: a lognormal; 1 to 3.868 × the mean)")},
    {.key = "tokens_per_day",
     .kind = K::kCount,
     .at = traffic<&Traffic::tokens_per_day>,
     .range = {0, 1e15, true},
     .label = tr_noop("prompt and output tokens a day (an API bill's count), instead of requests_per_second; absent: "
                      "requests_per_second gives the load")},
    {.key = "requests_per_second",
     .kind = K::kNumber,
     .at = traffic<&Traffic::requests_per_second>,
     .range = {0, 1e7, true},
     .fallback = "0.1",
     .why = tr_noop("assumption: about 200 staff sending 40 requests a day each (8,640 a day)"),
     .derive = &rate_of_tokens,
     .vary = true,
     .label = tr_noop("requests a second, averaged over the day (with tokens_per_day: that ÷ the tokens of a request ÷ "
                      "86,400)")},
    {.key = "daily_profile",
     .kind = K::kNumbers,
     .at = traffic<&Traffic::daily_profile>,
     .range = {0, 1e12},
     .label = tr_noop("relative request rate of each hour of the day, 0:00 to 23:00 (24 numbers, any scale); absent: "
                      "peak_to_average's two-level day")},
    {.key = "peak_to_average",
     .kind = K::kNumber,
     .at = traffic<&Traffic::peak_to_average>,
     .range = {1, 24},
     .fallback = "3",
     .why = tr_noop("assumption: a working day's requests come in about 8 of the 24 hours"),
     .derive = &peak_of_profile,
     .vary = true,
     .varies = &no_profile,
     .label =
         tr_noop("the busiest hour's rate over the day's average (with no daily_profile: 24 ÷ it hours busy from 9:00, "
                 "the rest quiet)")},
};

constexpr F kTargets[] = {
    {.key = "time_to_first_token",
     .kind = K::kDuration,
     .at = targets<&ServiceTargets::time_to_first_token>,
     .range = {0, 3600, true},
     .fallback = "2s",
     .why = tr_noop("assumption: an answer that starts within 2 seconds feels interactive"),
     .echo = {.key = "time_to_first_token_s"},
     .label = tr_noop("time until the first output token")},
    {.key = "time_per_output_token",
     .kind = K::kDuration,
     .at = targets<&ServiceTargets::time_per_output_token>,
     .range = {0, 60, true},
     .fallback = "100ms",
     .why = tr_noop("assumption: 10 tokens a second, faster than people read (about 5 words a second)"),
     .echo = {.key = "time_per_output_token_s"},
     .label = tr_noop("a request's mean time between output tokens")},
    {.key = "percentile",
     .kind = K::kNumber,
     .at = targets<&ServiceTargets::percentile>,
     .range = {50, 99.99},
     .fallback = "50",
     .why = tr_noop("default: the median request meets the targets; service-level objectives often name the 90th, 95th "
                    "or 99th percentile"),
     .label = tr_noop("the targets hold for this percentage of requests, 50 to 99.99 (95, not 0.95; 50: the median)")},
};

constexpr F kServe[] = {
    {.key = "gpus", .kind = K::kList, .at = serve<&Serving::gpus>, .label = tr_noop("GPU ids or families considered")},
    {.key = "providers", .kind = K::kList, .at = serve<&Serving::providers>, .label = tr_noop("providers considered")},
    {.key = "regions", .kind = K::kList, .at = serve<&Serving::regions>, .label = tr_noop("regions considered")},
    {.key = "market",
     .kind = K::kText,
     .at = serve<&Serving::market>,
     .fallback = "CN",
     .why = tr_noop("default: the team buys and rents from China (export controls, purchase prices, operating costs)"),
     .parse = &parse_market,
     .label = tr_noop("where the team buys and rents from")},
    {.key = "prefill_mfu",
     .kind = K::kShare,
     .at = efficiency<&ServingEfficiency::prefill_mfu>,
     .range = {0, 1, true},
     .fallback = "50%",
     .why =
         tr_noop("assumption inside the published 35-69%: TensorRT-LLM v0.5's first-token latency for Llama 2 7B on "
                 "A100 implies 69% at a 2,048-token prompt and 35% at 128; Databricks 2023, MPT-7B at 512 tokens, 48%"),
     .vary = true,
     .label = tr_noop("share of the dense bf16 peak reached on prompts")},
    {.key = "decode_bandwidth",
     .kind = K::kShare,
     .at = efficiency<&ServingEfficiency::decode_bandwidth>,
     .range = {0, 1, true},
     .derive = &decode_bandwidth,
     .vary = true,
     .label = tr_noop("share of the memory bandwidth a decode step reaches")},
    {.key = "memory_share",
     .kind = K::kShare,
     .at = efficiency<&ServingEfficiency::memory_share>,
     .range = {0, 1, true},
     .fallback = "90%",
     .why =
         tr_noop("vLLM's default gpu_memory_utilization (0.9): the rest is left to activations and the CUDA context"),
     .vary = true,
     .label = tr_noop("share of each card's memory for weights and KV cache")},
    {.key = "peak_load",
     .kind = K::kShare,
     .at = efficiency<&ServingEfficiency::peak_load>,
     .range = {0, 1, true},
     .fallback = "80%",
     .why = tr_noop("assumption: at most 80% of a replica's throughput in the busiest hour leaves room for bursts "
                    "(no queueing model)"),
     .vary = true,
     .label = tr_noop("share of a replica's throughput the busiest hour may use")},
    {.key = "min_replicas",
     .kind = K::kWhole,
     .at = serve<&Serving::min_replicas>,
     .range = {0, kMaxReplicas},
     .fallback = "1",
     .why =
         tr_noop("assumption: one replica stays up through quiet hours, so a request at night is answered (0: hourly "
                 "rentals stop when no requests come)"),
     .label = tr_noop("replicas hourly rentals keep up when the day's load needs fewer")},
    {.key = "spot",
     .kind = K::kBool,
     .at = serve<&Serving::spot>,
     .fallback = "false",
     .why = tr_noop("default: a reclaimed spot instance loses the requests in flight and the latency targets until a "
                    "replacement has loaded the model; true prices spot offers too"),
     .label = tr_noop("price spot instances too (reclaims break the latency targets)")},
};

template <auto M>
constexpr Access<ResolvedServing> api = member<&ResolvedServing::serving, &Serving::api, M>();

// An API the catalog prices (apis): refused when it has none by that id, with the nearest one.
Value parse_api_offer(const std::string& text, const FieldContext& ctx) {
  if (text.empty() || !ctx.catalog || ctx.catalog->find_api(text)) return text;  // "": none, as echoed
  std::vector<std::string_view> ids;
  for (const ApiOffer& a : ctx.catalog->apis) ids.push_back(a.id);
  // "deepseek-chat" for "deepseek-chat-cny" and "-usd": the ids it starts, else the nearest spelling.
  std::vector<std::string_view> starts;
  for (std::string_view id : ids)
    if (id.size() > text.size() && id_equals(id.substr(0, text.size()), text)) starts.push_back(id);
  if (starts.empty())
    if (const std::string_view near = nearest(text, ids, 3); !near.empty()) starts.push_back(near);
  if (!starts.empty())
    throw std::invalid_argument(
        trf("'{}' is not an API of the catalog; did you mean '{}'?", text, fmt::join(starts, "' or '")));
  throw std::invalid_argument(ids.empty() ? trf("'{}': the catalog prices no API", text)
                                          : trf("'{}' is not an API of the catalog ({})", text, fmt::join(ids, ", ")));
}

const ApiOffer* api_offer(const ResolvedServing& r, const FieldContext& ctx) {
  return ctx.catalog && !r.serving.api.offer.empty() ? ctx.catalog->find_api(r.serving.api.offer) : nullptr;
}

// Its source and date, and how old the price is: API prices move often.
std::string api_why(const ApiOffer& a, const Price& p, const FieldContext& ctx) {
  std::string why = trf("catalog api {}: {}", a.id, cite(p.provenance));
  const auto age = age_days(p.provenance, ctx.today);
  if (!age) why += tr(", undated: the source gives no date");
  else if (static_cast<double>(*age) > std::chrono::duration_cast<Days>(ctx.stale_after).count())
    why += trf(", stale: {} days old", *age);
  return why;
}

std::optional<Fallback> api_name(const ResolvedServing& r, const FieldContext& ctx) {
  const ApiOffer* a = api_offer(r, ctx);
  if (!a) return std::nullopt;
  return Fallback{a->name, a->name, trf("catalog api {}: {} serving {}", a->id, a->provider, a->model)};
}

template <Price ApiOffer::*Which>
std::optional<Fallback> api_price(const ResolvedServing& r, const FieldContext& ctx) {
  const ApiOffer* a = api_offer(r, ctx);
  if (!a || !ctx.fx) return std::nullopt;
  const Price& p = a->*Which;
  const Money m = ctx.fx->convert(p.amount);
  return Fallback{m, fmt::format("{}", p.amount), api_why(*a, p, ctx)};
}

// No default without api.offer: an API price is the user's own comparison, or a dated catalog entry they name.
constexpr F kApi[] = {
    {.key = "offer",
     .kind = K::kText,
     .at = api<&ApiPrice::offer>,
     .parse = &parse_api_offer,
     .label = tr_noop("a hosted API the catalog prices (its apis section): its name and both prices, dated")},
    {.key = "name",
     .kind = K::kText,
     .at = api<&ApiPrice::name>,
     .derive = &api_name,
     .label = tr_noop("the hosted model compared with")},
    {.key = "input_price_per_million",
     .kind = K::kMoney,
     .at = api<&ApiPrice::input_per_million>,
     .range = {0},
     .derive = &api_price<&ApiOffer::input>,
     .echo = {.money_decimals = -1, .nullable = true},
     .label = tr_noop("price of a million prompt tokens (\"2 CNY\", \"0.27 USD\")")},
    {.key = "output_price_per_million",
     .kind = K::kMoney,
     .at = api<&ApiPrice::output_per_million>,
     .range = {0},
     .derive = &api_price<&ApiOffer::output>,
     .echo = {.money_decimals = -1, .nullable = true},
     .label = tr_noop("price of a million output tokens")},
};

constexpr Section<ResolvedServing> kSections[] = {
    {"", kTop}, {"model", kModel}, {"traffic", kTraffic}, {"targets", kTargets}, {"serve", kServe}, {"api", kApi}};

std::vector<std::string_view> known_keys(std::string_view section) { return keys_of(serving_section(section).rows); }

using Report = std::function<void(const std::string& field, const std::string& message)>;

// "60B", "1.5T", as a count is written.
std::string count_text(double n) {
  for (const auto& [unit, factor] : {std::pair{"T", 1e12}, std::pair{"B", 1e9}, std::pair{"M", 1e6}})
    if (n >= factor) return fmt::format("{:g}{}", n / factor, unit);
  return fmt::format("{:g}", n);
}

// The shape must be one a transformer can have, and a mixture of experts smaller than the whole.
void check_model(const ServedModel& m, const Report& report) {
  if (m.head_size == 0 && m.heads > 0 && m.hidden % m.heads != 0)
    report("model.hidden", trf("{} is not a multiple of the {} heads (give model.head_size when the model "
                               "sets its own)",
                               m.hidden, m.heads));
  if (m.kv_heads > 0 && m.heads > 0 && (m.kv_heads > m.heads || m.heads % m.kv_heads != 0))
    report("model.kv_heads", trf("{} must divide the {} query heads (grouped-query attention)", m.kv_heads, m.heads));
  if ((m.experts > 0) != (m.experts_per_token > 0))
    report(m.experts > 0 ? "model.experts_per_token" : "model.experts",
           std::string(tr("a mixture of experts needs experts and experts_per_token together (or neither)")));
  else if (m.experts > 0 && m.experts_per_token >= m.experts)
    report("model.experts_per_token", trf("{} is not fewer than the {} experts", m.experts_per_token, m.experts));
  else if (m.experts > 0 && m.active_parameters <= 0)
    report("model.active_parameters",
           std::string(tr("is required with experts: the parameters a token passes through")));
  if (m.active_parameters > 0 && m.active_parameters >= m.parameters)
    report("model.active_parameters", trf("{} is not fewer than model.parameters ({})", count_text(m.active_parameters),
                                          count_text(m.parameters)));
}

// A profile is a whole day with some requests, and the peak, when given too, must be the profile's.
void check_profile(const Traffic& t, const Report& report) {
  const std::vector<double>& p = t.daily_profile;
  if (p.empty()) return;
  if (p.size() != kHoursPerDay)
    report("traffic.daily_profile",
           trf("has {} numbers: give one for each hour of the day, 0:00 to 23:00 (24)", p.size()));
  else if (!(profile_peak(p) > 0))
    report("traffic.daily_profile", std::string(tr("is all zero: no hour of the day has requests")));
}

// A lognormal has a 95th percentile from its mean to 3.868 × it (serving.h Lengths); beyond, none fits.
void check_lengths(const Traffic& t, const Report& report) {
  // Both ways of stating the load: one load (an echoed value set back is the same load).
  if (t.tokens_per_day &&
      std::abs(rate_of(t, *t.tokens_per_day) - t.requests_per_second) > 1e-9 * t.requests_per_second)
    report("traffic.requests_per_second",
           trf("{:.10g} and traffic.tokens_per_day {:.10g} ({:.10g} requests/s at {:g} tokens a request) state "
               "two loads: give one of them",
               t.requests_per_second, *t.tokens_per_day, rate_of(t, *t.tokens_per_day),
               t.prompt_tokens + t.output_tokens));
  for (const auto& [key, mean, p95] : {std::tuple{"traffic.prompt_tokens_p95", t.prompt_tokens, t.prompt_tokens_p95},
                                       std::tuple{"traffic.output_tokens_p95", t.output_tokens, t.output_tokens_p95}}) {
    if (p95 < mean)
      report(key, trf("{:g} is below the mean ({:g}): 95% of requests shorter than their mean takes a "
                      "tail gpuplan does not model; give a 95th percentile of at least the mean",
                      p95, mean));
    else if (p95 > kMaxP95OverMean * mean)
      report(key, trf("{:g} is more than {:g} × the mean ({:g}): no lognormal with that mean has so long a "
                      "tail; give at most {:g}",
                      p95, kMaxP95OverMean, mean, std::floor(kMaxP95OverMean * mean)));
  }
}

// A profile says more than a peak: given both, the profile's peak wins, said on stderr (a file's
// peak_to_average cannot be removed with --set, so refusing would leave no way to try a day).
void profile_wins(Traffic& t, std::vector<std::string>& warnings) {
  if (t.daily_profile.empty()) return;
  const double peak = profile_peak(t.daily_profile);
  if (std::abs(t.peak_to_average - peak) <= 1e-6 * peak) return;
  warnings.push_back(
      trf("traffic.peak_to_average {:g} gives way to traffic.daily_profile, whose busiest "
          "hour is {:.4g} × its mean",
          t.peak_to_average, peak));
  t.peak_to_average = peak;
}

// Why a shape field is missing although the built-in model has one.
constexpr std::string_view kShapeInPart =
    "; a model shape is given in part: give all of it, or none of it for the built-in Llama 2 7B";

// Whether the catalog says anything about `market`: a card's or an offer's
// status there, a purchase or operating record for it, a provider in it.
bool catalog_knows(const Catalog& c, std::string_view market) {
  const auto in = [&](const std::vector<MarketStatus>& v) { return status_in(v, market) != nullptr; };
  return std::any_of(c.gpus.begin(), c.gpus.end(), [&](const Gpu& g) { return in(g.availability); }) ||
         std::any_of(c.offers.begin(), c.offers.end(), [&](const Offer& o) { return in(o.availability); }) ||
         std::any_of(c.purchases.begin(), c.purchases.end(),
                     [&](const Purchase& p) { return id_equals(p.region, market) || in(p.availability); }) ||
         std::any_of(c.operating.begin(), c.operating.end(),
                     [&](const OperatingCost& o) { return id_equals(o.region, market); }) ||
         std::any_of(c.providers.begin(), c.providers.end(),
                     [&](const Provider& p) { return id_equals(p.country, market); });
}

// Valid but probably a missing suffix: said on stderr, the answer still computed.
void warn_sizes(ResolvedServing& out) {
  const ServedModel& m = out.serving.model;
  if (m.parameters > 0 && m.parameters < 1e6)
    out.warnings.push_back(
        trf("model.parameters is {:g}, not millions or billions: did you mean {:g}B?", m.parameters, m.parameters));
  const Traffic& t = out.serving.traffic;
  if (m.context_length > 0 && t.prompt_tokens_p95 + t.output_tokens_p95 > m.context_length)
    out.warnings.push_back(
        trf("the 95th percentiles, {:g} prompt + {:g} output tokens, exceed the model's context of {:g}: the longest "
            "requests would be cut short or refused, which gpuplan does not model",
            t.prompt_tokens_p95, t.output_tokens_p95, m.context_length));
}

// An API of a model of another size weighs different models: said, the comparison still made.
void warn_api_size(ResolvedServing& out, const Catalog& c) {
  const ApiOffer* a = out.serving.api.offer.empty() ? nullptr : c.find_api(out.serving.api.offer);
  const double n = out.serving.model.parameters;
  if (!a || !(a->parameters > 0) || (a->parameters >= n / 2 && a->parameters <= n * 2)) return;
  out.warnings.push_back(
      trf("api.offer {} serves {} ({} parameters), not a model of about the {} served "
          "here: the comparison weighs different models",
          a->id, a->model, count_text(a->parameters), count_text(n)));
}

Json echo(const ResolvedServing& out, Currency currency) {
  Json in = Json::object();
  in["serving_file"] = out.source;
  in["name"] = out.serving.name;
  for (const Section<ResolvedServing>& s : kSections)
    if (!s.name.empty()) in[std::string(s.name)] = echo_fields(out, s.rows, currency);
  in["defaults_used"] = Json::strings(out.defaults_used);
  return in;
}

}  // namespace

std::span<const Section<ResolvedServing>> serving_sections() { return kSections; }

const Section<ResolvedServing>& serving_section(std::string_view name) {
  for (const Section<ResolvedServing>& s : kSections)
    if (s.name == name) return s;
  throw std::logic_error(fmt::format("no serving section '{}'", name));
}

ResolvedServing load_serving(const std::string& path, const std::vector<std::string>& sets, const Context& ctx) {
  ResolvedServing out;
  out.source = path.empty() ? std::string(tr("built-in defaults (Llama 2 7B for about 200 staff)")) : path;
  detail::Diagnostics diag(path.empty() ? "<defaults>" : path);
  const detail::Node root =
      detail::load_with_sets(path, echo_keys_as_sets(sets, serving_sections()), diag, nullptr, &sets);
  detail::check_unsets(diag, serving_sections());
  diag.throw_if_any();
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  FieldContext fctx;
  fctx.catalog = &ctx.catalog();
  fctx.fx = &fx;
  fctx.now = ctx.now;
  fctx.today = ctx.today;
  fctx.stale_after = ctx.stale_after;
  detail::Fields top(diag, root, "", known_keys(""));
  for (const Section<ResolvedServing>& s : kSections)
    if (!s.name.empty()) top.declare({s.name});
  top.declare({"schema_version"});
  if (!top.is_map()) throw InputErrors(std::move(diag.problems()));
  if (auto v = top.text("schema_version", false); v && *v != "1")
    top.fail(top.get("schema_version", false), "schema_version", trf("{} is not supported (1 is)", *v));
  std::vector<Given> given(std::size(kSections));
  given[0] = detail::read_fields(top, out, kSections[0].rows, fctx);
  for (std::size_t i = 1; i < std::size(kSections); ++i) {
    const std::string name(kSections[i].name);
    detail::Fields f(diag, detail::section(top, name), name, known_keys(name));
    given[i] = detail::read_fields(f, out, kSections[i].rows, fctx);
    // Any part of the shape given: the whole shape is the user's (`weights` alone keeps the built-in model).
    if (name == "model")
      for (std::size_t row = 0; row < given[i].size(); ++row)
        out.model_given =
            out.model_given || (given[i][row] && kModel[row].kind != K::kChoice && kModel[row].key != "context_length");
    if (name == "serve" && ctx.catalog_ptr) {
      for (const auto& [kind, key, list] : {std::tuple{FilterKind::kGpu, "gpus", &out.serving.gpus},
                                            std::tuple{FilterKind::kProvider, "providers", &out.serving.providers},
                                            std::tuple{FilterKind::kRegion, "regions", &out.serving.regions}})
        if (const auto problem = filter_problem(ctx.catalog(), kind, *list)) {
          const detail::Node n = f.get(key, false);
          f.fail(n.is_sequence() && problem->index < n.size() ? n[problem->index] : n, f.field(key), problem->message);
        }
    }
    f.finish();
  }
  top.finish();
  DefaultNotes notes;
  const Report report = [&](const std::string& field, const std::string& message) {
    diag.fail(detail::node_at(root, field), field, message);
  };
  for (std::size_t i = 0; i < std::size(kSections); ++i)
    for (const MissingField& m : apply_defaults(out, kSections[i], given[i], fctx, notes))
      report(m.field, kSections[i].name == "model" ? m.message + std::string(kShapeInPart) : m.message);
  if (diag.count() == 0) check_model(out.serving.model, report);
  if (const ServedModel& m = out.serving.model; diag.count() == 0 && m.context_length > 0) {
    const Traffic& t = out.serving.traffic;
    if (t.prompt_tokens + t.output_tokens > m.context_length)
      report("traffic.prompt_tokens", trf("{:g} prompt + {:g} output tokens do not fit the model's context of "
                                          "{:g} (model.context_length)",
                                          t.prompt_tokens, t.output_tokens, m.context_length));
  }
  check_profile(out.serving.traffic, report);
  if (diag.count() == 0) check_lengths(out.serving.traffic, report);
  // Only when both were read: a price refused above is not also "missing".
  if (diag.count() == 0 &&
      out.serving.api.input_per_million.has_value() != out.serving.api.output_per_million.has_value())
    report(out.serving.api.input_per_million ? "api.output_price_per_million" : "api.input_price_per_million",
           std::string(tr("an API is priced by prompt and output tokens: give both prices")));
  diag.throw_if_any();
  // Without a file the built-in case names itself, unless --set gave another model.
  if (path.empty() && out.model_given)
    out.source = trf("built-in defaults, a {} model given by --set", count_text(out.serving.model.parameters));
  if (out.serving.name.empty())
    out.serving.name =
        !path.empty()     ? path
        : out.model_given ? trf("a {} model (--set) for the built-in traffic", count_text(out.serving.model.parameters))
                          : std::string(tr("Llama 2 7B for about 200 staff (built-in defaults)"));
  warn_sizes(out);
  profile_wins(out.serving.traffic, out.warnings);
  warn_api_size(out, ctx.catalog());
  if (!catalog_knows(ctx.catalog(), out.serving.market))
    out.warnings.push_back(
        trf("serve.market {}: the catalog states nothing for it (export controls, purchase prices, operating costs, "
            "providers): none of that is applied, and owned cards are priced from other markets' records",
            out.serving.market));
  out.defaults_used = std::move(notes.lines);
  out.inputs = echo(out, ctx.currency);
  out.fx_notes = fx.notes();
  out.fx_used = fx.used_json();
  return out;
}

Json serving_echo_schema() {
  Json p = Json::object();
  p["serving_file"] = value_schema(K::kText, {}, "the serving file, or the built-in defaults", false);
  p["name"] = value_schema(K::kText, {}, "title of the service", false);
  for (const Section<ResolvedServing>& s : kSections)
    if (!s.name.empty()) p[std::string(s.name)] = object_schema(echo_properties(s.rows));
  p["defaults_used"] = value_schema(K::kList, {}, "every default used, with its reason and source", false);
  return object_schema(std::move(p));
}

}  // namespace gpuplan
