#include "gpuplan/commands/serve.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/training.h"

namespace gpuplan {
namespace {

constexpr int kTensorParallel[] = {1, 2, 4, 8};

/// A replica shape at its batch, and what the busiest hour needs of it.
struct Sized {
  ReplicaShape shape{};
  ReplicaRun run{};
  int replicas = 0;
  int instances = 0;  ///< of `per_instance` cards
};

bool card_can_serve(const Gpu& g) { return g.memory_bandwidth && mfu_peak_tflops(g, Precision::kBf16) > 0; }

bool wanted(const std::vector<std::string>& filters, std::string_view id,
            bool (*match)(std::string_view, std::string_view)) {
  return filters.empty() ||
         std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return match(f, id); });
}
bool same_id(std::string_view a, std::string_view b) { return a == b; }

// The replica that needs the fewest instances of `per_instance` cards (then
// the fewest cards): tensor parallel 1, 2, 4 or 8 inside one instance. When
// none meets the targets, the first that fits, shown as missing them.
Sized best_replica(const Serving& s, const Gpu& g, int per_instance, const InstanceShape& inst) {
  std::optional<Sized> best, missing;
  for (int tp : kTensorParallel) {
    if (tp > per_instance || per_instance % tp != 0) continue;
    Sized z{ReplicaShape{&g, tp, inst.intra, inst.intra_name}};
    z.run = size_replica(s.model, s.traffic, s.targets, s.efficiency, z.shape);
    if (!z.run.fits) continue;
    if (!z.run.meets_targets) {
      if (!missing) missing = z;
      continue;
    }
    z.replicas = replicas_for(s.traffic, s.efficiency, z.run);
    const int per = per_instance / tp;
    z.instances = (z.replicas + per - 1) / per;
    if (!best || z.instances < best->instances ||
        (z.instances == best->instances && z.replicas * tp < best->replicas * best->shape.tp))
      best = z;
  }
  if (best) return *best;
  if (missing) return *missing;
  Sized none{ReplicaShape{&g, std::min(per_instance, 8), inst.intra, inst.intra_name}};
  none.run = replica_at(s.model, s.traffic, s.efficiency, none.shape, 1);
  return none;
}

std::string why_not(const Sized& z, const ServiceTargets& t) {
  if (!z.run.fits)
    return fmt::format("does not fit: {:.1f} GB of weights a card on TP{}", z.run.weights_per_gpu.value() / kGB,
                       z.shape.tp);
  if (!z.run.meets_targets)
    return z.run.limit == BatchLimit::kTimeToFirstToken
               ? fmt::format("misses time to first token at batch 1 ({:.2f} s > {:g} s)",
                             z.run.time_to_first_token.count(), t.time_to_first_token.count())
               : fmt::format("misses time per output token at batch 1 ({:.0f} ms > {:g} ms)",
                             z.run.time_per_output_token.count() * 1e3, t.time_per_output_token.count() * 1e3);
  return "";
}

Cell if_met(const Sized& z, Cell c) { return z.run.meets_targets ? std::move(c) : Cell{}; }

// ---- per GPU: the replica on a server of eight (or as many as fit one) ----

struct GpuRow {
  const Gpu* gpu = nullptr;
  Sized sized{};
};

std::vector<GpuRow> gpu_rows(const Catalog& c, const Serving& s, std::vector<std::string>& left_out) {
  std::vector<GpuRow> rows;
  for (const Gpu& g : c.gpus) {
    if (!wanted(s.gpus, g.id, &gpu_matches)) continue;
    if (!card_can_serve(g)) {
      left_out.push_back(g.id);
      continue;
    }
    const InstanceShape inst = server_shape(g, 8, BytesPerSecond(0), "none");
    rows.push_back({&g, best_replica(s, g, 8, inst)});
  }
  return rows;
}

Table gpu_table(const std::vector<GpuRow>& rows, const ServiceTargets& t) {
  Table tb;
  tb.name = "replicas";
  tb.title =
      "Per GPU: one replica (tensor parallel inside a server of up to 8), at the largest batch that meets "
      "the targets";
  tb.columns = {{"gpu", "gpu"},
                {"tp", "TP"},
                {"link", "link", 0, false},
                {"weights_gb_per_gpu", "weights GB/GPU", 1},
                {"kv_cache_gb", "KV GB", 1},
                {"max_batch", "max batch", 0, false},
                {"batch", "batch", 0, true, true},
                {"batch_limit", "limited by"},
                {"prefill_s", "prefill s", 3, false},
                {"decode_step_ms", "step ms", 1, false},
                {"decode_bound", "decode bound", 0, false},
                {"ttft_s", "TTFT s", 2},
                {"tpot_ms", "TPOT ms", 1},
                {"output_tokens_per_s", "out tok/s", 0},
                {"requests_per_s", "req/s", 3, false},
                {"replicas", "replicas", 0, true, true},
                {"gpus", "GPUs", 0, true, true},
                {"meets_targets", "meets targets", 0, false},
                {"note", "note", 0, false}};
  for (const GpuRow& r : rows) {
    const Sized& z = r.sized;
    const ReplicaRun& run = z.run;
    const auto whole = [](long long v) { return Cell{static_cast<std::int64_t>(v)}; };
    tb.add_row({r.gpu->id, whole(z.shape.tp), z.shape.link_name, run.weights_per_gpu.value() / kGB,
                run.kv_capacity.value() / kGB, whole(run.max_batch), run.fits ? whole(run.batch) : Cell{},
                run.fits ? Cell{std::string(to_string(run.limit))} : Cell{}, run.prefill.count(),
                run.decode_step.count() * 1e3, std::string(run.decode_memory_bound ? "memory" : "compute"),
                run.time_to_first_token.count(), run.time_per_output_token.count() * 1e3, run.output_tokens_per_second,
                run.requests_per_second, if_met(z, whole(z.replicas)),
                if_met(z, whole(static_cast<long long>(z.replicas) * z.shape.tp)), run.meets_targets, why_not(z, t)});
  }
  return tb;
}

// ---- per offer and billing mode ----

struct OfferRow {
  const Offer* offer = nullptr;
  BillingMode mode = BillingMode::kHourly;
  Sized sized{};
  Money price = Money::zero(kCny);  ///< per instance-hour, or instance-month (monthly)
  std::optional<Money> monthly{}, per_million{}, per_million_output{};
};

double tokens_per_month(const Traffic& t) {
  return t.requests_per_second * (t.prompt_tokens + t.output_tokens) * kHoursPerMonth * 3600;
}

// Always on, sized for the busiest hour: hourly × 730 h or the monthly price,
// per instance. A million tokens at the day's average load; a million output
// tokens at a replica's full rate: price an hour ÷ (replicas an instance ×
// output tokens/s × 3,600) × 10⁶.
void price_row(OfferRow& r, const Traffic& t) {
  const Sized& z = r.sized;
  if (!z.run.meets_targets) return;
  const double hours = r.mode == BillingMode::kMonthly ? 1.0 : kHoursPerMonth;
  r.monthly = r.price.scaled(hours).times(z.instances);
  r.per_million = r.monthly->scaled(1e6 / tokens_per_month(t));
  const double per_instance = static_cast<double>(r.offer->gpus / z.shape.tp);
  const double price_hours = r.mode == BillingMode::kMonthly ? kHoursPerMonth : 1.0;
  r.per_million_output = r.price.scaled(1e6 / (per_instance * z.run.output_tokens_per_second * 3600 * price_hours));
}

std::vector<OfferRow> offer_rows(const Context& ctx, const CurrencyConverter& fx, const Serving& s) {
  std::vector<OfferRow> rows;
  const Catalog& c = ctx.catalog();
  for (const Offer& o : c.offers) {
    const Gpu* g = c.find_gpu(o.gpu);
    if (!g || !card_can_serve(*g) || !wanted(s.gpus, g->id, &gpu_matches) || !wanted(s.providers, o.provider, &same_id))
      continue;
    if (!s.regions.empty() && std::none_of(s.regions.begin(), s.regions.end(),
                                           [&](const std::string& r) { return offer_in_region(c, o, r); }))
      continue;
    const OfferShape shape = offer_shape(o, *g, c);
    const Sized z = best_replica(s, *g, o.gpus, shape.shape);
    for (BillingMode mode : {BillingMode::kHourly, BillingMode::kMonthly}) {
      if (!o.price(mode)) continue;
      OfferRow r{&o, mode, z, fx.convert(o.price(mode)->amount)};
      price_row(r, s.traffic);
      rows.push_back(std::move(r));
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const OfferRow& a, const OfferRow& b) {
    if (a.monthly.has_value() != b.monthly.has_value()) return a.monthly.has_value();
    return a.monthly && a.monthly->micros() < b.monthly->micros();
  });
  return rows;
}

Table offer_table(const std::vector<OfferRow>& rows, const ServiceTargets& t, Currency cur) {
  Table tb;
  tb.name = "offers";
  tb.title = "Per rental offer and billing mode: always on, sized for the busiest hour";
  tb.currency = cur;
  tb.columns = {{"offer", "offer"},
                {"provider", "provider", 0, false},
                {"region", "region", 0, false},
                {"gpu", "gpu"},
                {"gpus_per_instance", "GPUs/inst"},
                {"mode", "mode"},
                {"price", "price", -1, false},
                {"tp", "TP"},
                {"batch", "batch", 0, true, true},
                {"replicas", "replicas", 0, true, true},
                {"instances", "instances", 0, true, true},
                {"monthly", fmt::format("{}/month", cur.code()), 0, true, true},
                {"per_million_tokens", fmt::format("{}/M tok", cur.code()), 2, true, true},
                {"per_million_output_tokens_at_capacity", fmt::format("{}/M out@cap", cur.code()), 2, true, true},
                {"as_of", "as_of", 0, false},
                {"note", "note", 0, false}};
  for (const OfferRow& r : rows) {
    const Sized& z = r.sized;
    const auto whole = [](long long v) { return Cell{static_cast<std::int64_t>(v)}; };
    const auto money = [](const std::optional<Money>& m) { return m ? Cell{*m} : Cell{}; };
    tb.add_row({r.offer->id, r.offer->provider, r.offer->region, r.offer->gpu, whole(r.offer->gpus),
                std::string(to_string(r.mode)), r.price, whole(z.shape.tp), if_met(z, whole(z.run.batch)),
                if_met(z, whole(z.replicas)), if_met(z, whole(z.instances)), money(r.monthly), money(r.per_million),
                money(r.per_million_output), format_date(r.offer->price(r.mode)->provenance.as_of), why_not(z, t)});
  }
  return tb;
}

// ---- notes ----

std::string title(const Serving& s) {
  const Traffic& t = s.traffic;
  return fmt::format(
      "Serving {}: {:g} requests/s ({:g} in the busiest hour), {:g} prompt + {:g} output tokens; "
      "targets: first token within {:g} s, {:g} ms a token",
      s.name, t.requests_per_second, t.requests_per_second * t.peak_to_average, t.prompt_tokens, t.output_tokens,
      s.targets.time_to_first_token.count(), s.targets.time_per_output_token.count() * 1e3);
}

void serve_notes(Report& rep, const ResolvedServing& rs, const std::vector<OfferRow>& offers,
                 const std::vector<std::string>& left_out, const Context& ctx, const CurrencyConverter& fx) {
  const ServedModel& m = rs.serving.model;
  if (!offers.empty() && offers.front().monthly) {
    const OfferRow& best = offers.front();
    rep.notes.push_back(fmt::format(
        "Cheapest: {} {} ({}), {} instance(s) of {} {}: {} {} a month, {} {} a million tokens at the average load.",
        best.offer->id, to_string(best.mode), best.offer->provider, best.sized.instances, best.offer->gpus,
        best.offer->gpu, to_pretty_string(best.monthly->rounded(), 0), fx.display().code(),
        to_pretty_string(best.per_million->rounded()), fx.display().code()));
  } else {
    rep.notes.push_back("No rental offer of the search meets the targets.");
  }
  rep.notes.push_back(fmt::format(
      "Model: weights {:.2f} GB ({}), KV cache {:.1f} KB a token ({}: 2 x {} layers x {} KV heads x {:g} head size x "
      "{:g} bytes).",
      weight_bytes(m).value() / kGB, to_string(m.weights), kv_bytes_per_token(m).value() / 1e3, to_string(m.kv_cache),
      m.layers, m.kv_head_count(), m.head_dim(), bytes_per_value(m.kv_cache)));
  rep.notes.push_back(
      "Prefill = (2·N_active·P + 2·L·P²·h) FLOPs at prefill_mfu of the dense bf16 peak (fp8 weights: x the measured "
      "FP8 speed-up); decode step = max(bytes read: weights + the batch's cached context, over decode_bandwidth of "
      "the memory bandwidth; FLOPs at prefill_mfu) + tensor-parallel all-reduces (2 a layer, ring). Continuous "
      "batching: a token waits a step plus its share of the batch's prompts; replicas = busiest hour ÷ (a "
      "replica's requests/s × peak_load).");
  rep.notes.push_back(
      "Not modelled yet: latency percentiles and queueing (targets are met on the mean; peak_load is the headroom), "
      "autoscaling hourly instances to a daily load curve (hourly rows run all month), spot (reclaims break "
      "latency targets), owned cards and per-token API prices.");
  if (!left_out.empty()) {
    std::string ids;
    for (const std::string& id : left_out) ids += (ids.empty() ? "" : ", ") + id;
    rep.notes.push_back(fmt::format("Left out: {} (no memory bandwidth or bf16 rate in the catalog).", ids));
  }
  rep.notes.push_back(fmt::format("Serving: {}. {}", rs.source, ctx.catalog_note()));
  for (auto& n : fx.notes()) rep.notes.push_back(std::move(n));
  add_defaults_notes(rep, rs.defaults_used);
}

Json serve_extra(const ResolvedServing& rs, const std::vector<OfferRow>& offers, const CurrencyConverter& fx) {
  Json x = Json::object();
  const ServedModel& m = rs.serving.model;
  x["weight_bytes"] = weight_bytes(m).value();
  x["kv_bytes_per_token"] = kv_bytes_per_token(m).value();
  x["tokens_per_month"] = tokens_per_month(rs.serving.traffic);
  Json best = Json();
  if (!offers.empty() && offers.front().monthly) {
    const OfferRow& r = offers.front();
    best = Json::object();
    best["offer"] = r.offer->id;
    best["mode"] = std::string(to_string(r.mode));
    best["instances"] = r.sized.instances;
    best["monthly"] = r.monthly->units();
    best["per_million_tokens"] = r.per_million->units();
  }
  x["cheapest"] = std::move(best);
  x["fx_rates_used"] = fx.used_json();
  return x;
}

}  // namespace

ServeOutcome serve_report(const Context& ctx, const ServeQuery& q) {
  const ResolvedServing rs = load_serving(q.serving_file, q.sets, ctx);
  const Serving& s = rs.serving;
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  std::vector<std::string> left_out;
  const std::vector<GpuRow> gpus = gpu_rows(ctx.catalog(), s, left_out);
  const std::vector<OfferRow> offers = offer_rows(ctx, fx, s);
  ServeOutcome out;
  Report& rep = out.report;
  rep.command = "serve";
  rep.currency = ctx.currency;
  rep.title = title(s);
  rep.tables = {gpu_table(gpus, s.targets), offer_table(offers, s.targets, ctx.currency)};
  rep.primary = 1;
  Json in = ctx.echo();
  append(in, rs.inputs);
  rep.inputs = std::move(in);
  rep.extra = serve_extra(rs, offers, fx);
  rep.warnings = rs.warnings;
  serve_notes(rep, rs, offers, left_out, ctx, fx);
  out.feasible = std::any_of(gpus.begin(), gpus.end(), [](const GpuRow& g) { return g.sized.run.meets_targets; });
  return out;
}

}  // namespace gpuplan
