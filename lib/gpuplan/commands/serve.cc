#include "gpuplan/i18n.h"
#include "gpuplan/commands/serve.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>

#include "gpuplan/efficiency.h"
#include "gpuplan/compare.h"
#include "gpuplan/error.h"
#include "gpuplan/scenario.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/serving_plan.h"
#include "gpuplan/training.h"

namespace gpuplan {
namespace {

std::string why_not(const ReplicaPlan& z, const ServiceTargets& t) {
  if (!z.run.fits)
    return trf("does not fit: {:.1f} GB of weights a card on TP{}", z.run.weights_per_gpu.value() / kGB, z.shape.tp);
  if (z.beyond) return trf("the busiest hour needs more than {} replicas", kMaxReplicas);
  if (!z.run.meets_targets)
    return z.run.limit == BatchLimit::kTimeToFirstToken
               ? trf("misses time to first token at batch 1 ({:.2f} s > {:g} s)", z.run.time_to_first_token.count(),
                     t.time_to_first_token.count())
               : trf("misses time per output token at batch 1 ({:.0f} ms > {:g} ms)",
                     z.run.time_per_output_token.count() * 1e3, t.time_per_output_token.count() * 1e3);
  return "";
}

Cell if_met(const ReplicaPlan& z, Cell c) { return z.sized() ? std::move(c) : Cell{}; }

// ---- per GPU: the replica on a server of eight (or as many as fit one) ----

struct GpuRow {
  const Gpu* gpu = nullptr;
  ReplicaPlan sized{};
};

std::vector<GpuRow> gpu_rows(const Catalog& c, const Serving& s, std::vector<std::string>& left_out) {
  std::vector<GpuRow> rows;
  for (const Gpu& g : c.gpus) {
    if (!gpu_considered(s, g)) continue;
    if (!card_can_serve(g)) {
      left_out.push_back(g.id);
      continue;
    }
    const InstanceShape inst = server_shape(g, 8, BytesPerSecond(0), "none");
    rows.push_back({&g, best_replica(s, g, 8, inst)});
  }
  return rows;
}

Table gpu_table(const std::vector<GpuRow>& rows, const ServiceTargets& t, const Serving& serving) {
  Table tb;
  tb.name = "replicas";
  tb.title = tr_noop(
      "Per GPU: one replica (tensor parallel inside a server of up to 8), at the largest batch that meets "
      "the targets");
  tb.columns = {{"gpu", tr_noop("gpu")},
                {"tp", tr_noop("TP")},
                {"link", tr_noop("link"), 0, false},
                {"weights_gb_per_gpu", tr_noop("weights GB/GPU"), 1},
                {"kv_cache_gb", tr_noop("KV GB"), 1},
                {"max_batch", tr_noop("max batch"), 0, false},
                {"batch", tr_noop("batch"), 0, true, true},
                {.key = "batch_limit", .label = tr_noop("limited by"), .words = true},
                {"prefill_s", tr_noop("prefill s"), 3, false},
                {"decode_step_ms", tr_noop("step ms"), 1, false},
                {"decode_bound", tr_noop("decode bound"), 0, false},
                {"ttft_s", tr_noop("TTFT s"), 2},
                {"tpot_ms", tr_noop("TPOT ms"), 1},
                {"output_tokens_per_s", tr_noop("out tok/s"), 0},
                {"requests_per_s", tr_noop("req/s"), 3, false},
                {"replicas", tr_noop("replicas"), 0, true, true},
                {"gpus", tr_noop("GPUs"), 0, true, true},
                {"busy_share", tr_noop("busy"), 3, false, true},
                {"meets_targets", tr_noop("meets targets"), 0, false},
                {"note", tr_noop("note"), 0, false}};
  for (const GpuRow& r : rows) {
    const ReplicaPlan& z = r.sized;
    const ReplicaRun& run = z.run;
    const auto whole = [](long long v) { return Cell{static_cast<std::int64_t>(v)}; };
    const auto fit = [&](Cell c) { return run.fits ? std::move(c) : Cell{}; };
    tb.add_row({r.gpu->id, whole(z.shape.tp), z.shape.link_name, run.weights_per_gpu.value() / kGB,
                run.kv_capacity.value() / kGB, whole(run.max_batch), run.fits ? whole(run.batch) : Cell{},
                run.fits ? Cell{std::string(to_string(run.limit))} : Cell{},
                // A replica that does not fit has no speed to show.
                fit(Cell{run.prefill.count()}), fit(Cell{run.decode_step.count() * 1e3}),
                fit(Cell{std::string(run.decode_memory_bound ? "memory" : "compute")}),
                fit(Cell{run.time_to_first_token.count()}), fit(Cell{run.time_per_output_token.count() * 1e3}),
                fit(Cell{run.output_tokens_per_second}), fit(Cell{run.requests_per_second}),
                if_met(z, whole(z.replicas)), if_met(z, whole(static_cast<long long>(z.replicas) * z.shape.tp)),
                if_met(z, busy_share(serving, z.shape, z.run, z.replicas)), run.meets_targets, why_not(z, t)});
  }
  return tb;
}

// ---- per offer and billing mode, owned cards ----

/// One way to run the service for a month: a rental offer in a billing mode, or cards bought.
struct CostRow {
  std::string option{}, provider{}, region{}, gpu{}, mode{};
  int gpus_per_instance = 1;     ///< owned: the cards bought
  std::optional<Money> price{};  ///< per instance-hour, or instance-month (monthly); owned: none
  ReplicaPlan sized{};
  std::optional<Money> monthly{}, per_million{}, per_million_output{};
  /// Rentals: a month of one instance run as this row runs it (hourly: the hours that have requests or
  /// keep serve.min_replicas up); what a load one instance carries costs.
  std::optional<Money> one_instance{};
  std::vector<int> by_hour{};              ///< rentals: instances each hour of the day
  int base = 0;                            ///< monthly + hourly: instances by the month
  std::optional<Money> rise_price{};       ///< monthly + hourly: an instance-hour above the base
  std::optional<double> api_break_even{};  ///< requests/s on average from which this beats the API
  double month_per_rps = 0;                ///< rentals: what a request/s more adds to the month, instances full
  std::string as_of{}, note{};
  std::optional<AvailabilityCaveat> caveat{};  ///< not plainly available in the market (export controls)
  std::string stale{};                         ///< "stale price (as_of …)" or "undated price …"; "" = fresh
};

void add_caveat(CostRow& r, std::optional<AvailabilityCaveat> c) {
  if (!c) return;
  r.note = c->detail + (r.note.empty() ? "" : std::string(tr("; ")) + r.note);
  r.caveat = std::move(c);
}

double tokens_per_month(const Traffic& t) {
  return t.requests_per_second * (t.prompt_tokens + t.output_tokens) * kHoursPerMonth * 3600;
}

// Average requests a second one instance (owned: all the cards) carries when
// the busiest hour fills it to peak_load.
double average_capacity(const CostRow& r, const Serving& s) {
  const int replicas = r.mode == "own" ? r.sized.replicas : r.gpus_per_instance / r.sized.shape.tp;
  return replicas * r.sized.run.requests_per_second * s.efficiency.peak_load / s.traffic.peak_to_average;
}

// The API's month for one request a second on average, in the report currency's units; 0 without an API.
double api_per_rps(const Serving& s) {
  if (!s.api.input_per_million || !s.api.output_per_million) return 0;
  return (s.traffic.prompt_tokens * s.api.input_per_million->units() +
          s.traffic.output_tokens * s.api.output_per_million->units()) /
         1e6 * kHoursPerMonth * 3600;
}

// To 3 significant figures, as the table shows it (the model is not more
// precise), rounded up: at the load printed the rental already costs less.
double significant(double x) {
  if (!(x > 0)) return x;
  const double step = std::pow(10.0, std::floor(std::log10(x)) - 2);
  return std::stod(fmt::format("{:.3g}", std::ceil(x / step * (1 - 1e-12)) * step));
}

// An amount in the row's currency.
Money money_of(double units, const CostRow& r) {
  return Money::from_micros(std::llround(units * 1e6), r.monthly->currency());
}

// Owned cards cost the same whatever they carry, so the API is dearer from
// their month ÷ (API cost of 1 request/s for a month), if they carry that much.
void owned_break_even(CostRow& r, const Serving& s) {
  const double per_rps = api_per_rps(s);
  if (!r.monthly || !(per_rps > 0)) return;
  const double rps = r.monthly->units() / per_rps;
  if (rps <= average_capacity(r, s)) r.api_break_even = significant(rps);
}

// A million tokens at the day's average load; a million output tokens at full
// rate: price an hour ÷ (replicas an instance × output tokens/s × 3,600) × 10⁶.
void per_million(CostRow& r, const Serving& s, double replicas, double hours_in_price) {
  r.per_million = r.monthly->scaled(1e6 / tokens_per_month(s.traffic));
  const Money basis = r.price ? *r.price : *r.monthly;
  r.per_million_output = basis.scaled(1e6 / (replicas * r.sized.run.output_tokens_per_second * 3600 * hours_in_price));
}

// Amounts from a trillion up are no budget anyone has (money.h): the row stays, unpriced, and says so.
bool plausible(CostRow& r, double monthly_units) {
  if (monthly_units < Money::kMaxPlausibleUnits) return true;
  r.note = std::string(tr("a month costs more than a trillion: left unpriced")) +
           (r.note.empty() ? "" : std::string(tr("; ")) + r.note);
  return false;
}

std::string money_text(const Money& m, int decimals) {
  return fmt::format("{} {}", to_pretty_string(m.rounded(), decimals), m.currency().code());
}

// A billing mode as people read it: "monthly 1y+hourly" → 包月 1y+按小时.
std::string mode_shown(std::string_view mode) {
  return translate_word({.key = "mode", .label = "", .words = true}, mode);
}

// How the row runs through the day, for its note.
std::string day_text(const RentalQuote& q) {
  const auto [lo, hi] = std::minmax_element(q.by_hour.begin(), q.by_hour.end());
  if (q.mixed())
    return trf("{} by the month, up to {} more by the hour at {} ({} instance-hours a day)", q.base, *hi - q.base,
               money_text(q.rise_price, 2), rise_hours(q.by_hour, q.base));
  if (*lo == *hi) return trf("follows the day: {} running all day", *hi);
  return trf("follows the day: {} to {} running, {} instance-hours a day", *lo, *hi, q.instance_hours());
}

void price_rental(CostRow& r, const Serving& s, const RentalQuote& q) {
  if (!q.plan.sized()) return;
  if (!q.monthly) {
    plausible(r, Money::kMaxPlausibleUnits);
    return;
  }
  r.monthly = q.monthly;
  r.by_hour = q.by_hour;
  if (q.mixed()) {
    r.base = q.base;
    r.rise_price = q.rise_price;
  }
  // A light load: one instance, by the month, or by the hour in every hour that has requests or keeps
  // min_replicas up (monthly + hourly: the cheaper of the two).
  const auto rates = hourly_rates(s.traffic);
  const auto on = std::count_if(rates.begin(), rates.end(), [&](double x) { return x > 0 || s.min_replicas > 0; });
  const Money by_month = q.price,
              by_hour = (q.mixed() ? q.rise_price : q.price).scaled(static_cast<double>(on) * kHoursPerMonth / 24);
  const bool monthly = q.mode == BillingMode::kMonthly && !q.mixed();
  if (!monthly) r.note = day_text(q) + (r.note.empty() ? "" : std::string(tr("; ")) + r.note);
  if (q.commitment_months > 0)
    r.note = trf("committed for {} months: owed for the whole term, whatever the load", q.commitment_months) +
             (r.note.empty() ? "" : std::string(tr("; ")) + r.note);
  if (q.mode == BillingMode::kSpot)
    r.note = std::string(tr("spot: a reclaim loses its replica's requests in flight, and the latency targets until "
                            "a replacement has loaded the model (no spares priced); ")) +
             r.note;
  r.one_instance = q.mixed() ? std::min(by_month, by_hour) : monthly ? by_month : by_hour;
  const double hours = q.mode == BillingMode::kMonthly ? kHoursPerMonth : 1.0;
  per_million(r, s, static_cast<double>(r.gpus_per_instance / q.plan.shape.tp), hours);
  r.month_per_rps = month_per_rps(s, q);
  if (const double per_rps = api_per_rps(s); per_rps > 0) {
    if (const auto rps = api_break_even(s, q, per_rps)) r.api_break_even = significant(*rps);
    else
      r.note += trf(
          "{}the API stays cheaper as the load grows: a request/s more costs {} a month rented, {} "
          "by the API",
          r.note.empty() ? "" : "; ", money_text(money_of(r.month_per_rps, r), 0), money_text(money_of(per_rps, r), 0));
  }
}

bool by_monthly(const CostRow& a, const CostRow& b) {
  if (a.monthly.has_value() != b.monthly.has_value()) return a.monthly.has_value();
  return a.monthly && a.monthly->micros() < b.monthly->micros();
}

std::vector<CostRow> rental_rows(const Context& ctx, const CurrencyConverter& fx, const Serving& s) {
  std::vector<CostRow> rows;
  for (const RentalQuote& q : rental_quotes(ctx.catalog(), fx, s)) {
    const Offer& o = *q.offer;
    CostRow r{o.id, o.provider, o.region, o.gpu, std::string(q.mode_name()), o.gpus, q.price, q.plan};
    r.as_of = format_date(q.priced.front()->as_of);
    r.note = why_not(q.plan, s.targets);
    // A stale price is flagged wherever it is used, not only by `prices` (monthly + hourly: either).
    for (const Provenance* p : q.priced) {
      const Provenance& priced = *p;
      if (!r.stale.empty() ||
          !is_stale(priced, ctx.today, std::chrono::duration_cast<std::chrono::days>(ctx.stale_after)))
        continue;
      r.stale = priced.as_of ? trf("stale price (as_of {})", format_date(priced.as_of))
                             : std::string(tr("undated price (as_of unknown)"));
      r.note = r.stale + (r.note.empty() ? "" : std::string(tr("; ")) + r.note);
    }
    add_caveat(r, rental_caveat(ctx.catalog(), "rent", o.id, s.market));
    price_rental(r, s, q);
    rows.push_back(std::move(r));
  }
  return rows;
}

// Owning: compare's buy option for the cards the busiest hour needs, busy
// for the share of the month the average load keeps them, over compare's
// horizon: its total (hardware, power, operations, less the resale value at
// the horizon) ÷ the horizon's months. Until the cards arrive the service
// must run somewhere: the lead time costs the cheapest rental's month
// (compare's delay cost), not nothing.
std::optional<CostRow> owned_row(const Context& ctx, const Serving& s, const GpuRow& g,
                                 const std::optional<Money>& rented_month) {
  const ReplicaPlan& z = g.sized;
  if (!z.sized() || !find_purchase(ctx.catalog(), PurchaseKind::kCard, g.gpu->id, "")) return std::nullopt;
  const int cards = z.replicas * z.shape.tp;
  const double busy = busy_share(s, z.shape, z.run, z.replicas);
  std::vector<std::string> sets = {"region=" + s.market, "buy.gpu=" + g.gpu->id, fmt::format("buy.cards={}", cards),
                                   fmt::format("workload.gpus={}", cards),
                                   fmt::format("workload.utilisation={:.6f}", busy)};
  if (rented_month) {
    sets.push_back("buy.lead_time_cover=delay_cost");
    sets.push_back(
        fmt::format("buy.delay_cost_per_month={:.6f} {}", rented_month->units(), rented_month->currency().code()));
  }
  ResolvedScenario rs;
  try {
    rs = load_scenario("", sets, ctx);
  } catch (const InputErrors&) {
    return std::nullopt;  // the catalog lacks what compare needs to own this card, or more cards than it allows
  }
  const Comparison c = compare(rs.scenario);
  const auto buy =
      std::find_if(c.options.begin(), c.options.end(), [](const OptionResult& o) { return o.key == "buy"; });
  if (buy == c.options.end()) return std::nullopt;
  CostRow r{trf("buy {}", g.gpu->id), "", rs.scenario.region, g.gpu->id, tr_noop("own"), cards, std::nullopt, z};
  r.sized.instances = 1;
  if (!plausible(r, buy->total.units() / rs.scenario.horizon_months)) return r;
  r.monthly = buy->total.scaled(1.0 / rs.scenario.horizon_months);
  per_million(r, s, z.replicas, kHoursPerMonth);
  owned_break_even(r, s);
  r.note = trf("compare's buy option over {} months at {:.0f}% busy{}", rs.scenario.horizon_months, busy * 100,
               rented_month ? trf(", the {:.1f}-month lead time served by the cheapest rental",
                                  rs.scenario.own.lead_time / Months(1))
                            : std::string(tr(", no rental to serve the lead time: it costs nothing here")));
  add_caveat(r, purchase_caveat(ctx.catalog(), g.gpu->id, s.market));
  return r;
}

std::vector<CostRow> cost_rows(const Context& ctx, const CurrencyConverter& fx, const Serving& s,
                               const std::vector<GpuRow>& gpus) {
  std::vector<CostRow> rows = rental_rows(ctx, fx, s);
  std::optional<Money> rented;
  for (const CostRow& r : rows)
    if (r.monthly && (!rented || *r.monthly < *rented)) rented = r.monthly;
  for (const GpuRow& g : gpus)
    if (auto r = owned_row(ctx, s, g, rented)) rows.push_back(std::move(*r));
  std::stable_sort(rows.begin(), rows.end(), by_monthly);
  return rows;
}

// Instance-hours a day a rental runs; none for owned cards (bought: all day) or a row not priced.
Cell instance_hours(const CostRow& r) {
  if (r.by_hour.empty() || !r.monthly) return Cell{};
  std::int64_t sum = 0;
  for (int n : r.by_hour) sum += n;
  return Cell{sum};
}

// Instances billed by the month: a monthly row's all, a monthly+hourly row's base, none of an hourly one.
Cell by_month(const CostRow& r) {
  if (r.by_hour.empty() || !r.monthly) return Cell{};
  if (r.base > 0) return Cell{static_cast<std::int64_t>(r.base)};
  return Cell{static_cast<std::int64_t>(r.mode.starts_with("monthly") ? r.sized.instances : 0)};
}

Table cost_table(const std::vector<CostRow>& rows, Currency cur) {
  Table tb;
  tb.name = "offers";
  tb.lead = {"offer", "mode"};
  tb.title = tr_noop(
      "Per rental offer and billing mode (hourly: started and stopped with the day's load; monthly: all month, sized "
      "for the busiest hour), and owning the cards");
  tb.currency = cur;
  tb.columns = {
      {"offer", tr_noop("offer")},
      {"provider", tr_noop("provider"), 0, false},
      {"region", tr_noop("region"), 0, false},
      {"gpu", tr_noop("gpu")},
      {"gpus_per_instance", tr_noop("GPUs/inst")},
      {.key = "mode", .label = tr_noop("mode"), .words = true},
      {"price", tr_noop("price"), -1, false},
      {.key = "per", .label = tr_noop("per"), .decimals = 0, .brief = false, .words = true},
      {"tp", tr_noop("TP")},
      {"batch", tr_noop("batch"), 0, true, true},
      {"replicas", tr_noop("replicas"), 0, true, true},
      {"instances", tr_noop("instances"), 0, true, true},
      {"instance_hours_per_day", tr_noop("inst-h/day"), 0, true, true},
      {"monthly_instances", tr_noop("by month"), 0, true, true},
      {"monthly", std::string(cur.code()) + tr_noop("/month"), 2, true, true},
      {"per_million_tokens", std::string(cur.code()) + tr_noop("/M tok"), 2, true, true},
      {"per_million_output_tokens_at_capacity", std::string(cur.code()) + tr_noop("/M out@cap"), 2, true, true},
      {"api_break_even_rps", tr_noop("API break-even req/s"), -3, false, true},
      {"as_of", tr_noop("as_of"), 0, false},
      {"note", tr_noop("note"), 0, false}};
  for (const CostRow& r : rows) {
    const ReplicaPlan& z = r.sized;
    const auto whole = [](long long v) { return Cell{static_cast<std::int64_t>(v)}; };
    const auto money = [](const std::optional<Money>& m) { return m ? Cell{*m} : Cell{}; };
    tb.add_row(
        {r.option,
         r.provider.empty() ? Cell{} : Cell{r.provider},
         r.region,
         r.gpu,
         whole(r.gpus_per_instance),
         r.mode,
         money(r.price),
         r.price ? Cell{std::string(r.mode.starts_with("monthly") ? tr_noop("month") : tr_noop("hour"))} : Cell{},
         whole(z.shape.tp),
         if_met(z, whole(z.run.batch)),
         if_met(z, whole(z.replicas)),
         if_met(z, whole(z.instances)),
         instance_hours(r),
         by_month(r),
         money(r.monthly),
         money(r.per_million),
         money(r.per_million_output),
         r.api_break_even ? Cell{*r.api_break_even} : Cell{},
         r.as_of.empty() ? Cell{} : Cell{r.as_of},
         r.note});
  }
  return tb;
}

// ---- notes ----

// "2000" or "2000 (95% up to 6000)".
std::string length_text(double mean, double p95) {
  return p95 > mean ? trf("{:g} (95% up to {:g})", mean, p95) : fmt::format("{:g}", mean);
}

std::string for_whom(double percentile) {
  return percentile == 50 ? std::string(tr("the median request")) : trf("{:g}% of requests", percentile);
}

std::string title(const Serving& s) {
  const Traffic& t = s.traffic;
  const std::string day = t.tokens_per_day ? trf("{:.10g} tokens a day = ", *t.tokens_per_day) : "";
  return trf(
      "Serving {}: {}{:.3g} requests/s ({:.3g} in the busiest hour), {} prompt + {} output tokens; "
      "targets: first token within {:g} s, {:g} ms a token, for {}",
      s.name, day, t.requests_per_second, t.requests_per_second * t.peak_to_average,
      length_text(t.prompt_tokens, t.prompt_tokens_p95), length_text(t.output_tokens, t.output_tokens_p95),
      s.targets.time_to_first_token.count(), s.targets.time_per_output_token.count() * 1e3,
      for_whom(s.targets.percentile));
}

// What the latency columns are: at which percentile, over which lengths.
std::string lengths_note(const Serving& s) {
  const Traffic& t = s.traffic;
  const std::string at = trf("TTFT and TPOT are for {}", for_whom(s.targets.percentile));
  if (!(t.prompt_tokens_p95 > t.prompt_tokens) && !(t.output_tokens_p95 > t.output_tokens))
    return at + std::string(tr(": every request is taken as the mean length (give traffic.prompt_tokens_p95 and "
                               "output_tokens_p95 for lengths that vary)."));
  const Lengths p = prompt_lengths(t), o = output_lengths(t);
  const double q = s.targets.percentile / 100;
  return trf(
      "{}. Lengths lognormal from the mean and the 95th percentile: prompts median {:.0f}, {:g}th percentile {:.0f}; "
      "replies median {:.0f}, {:g}th percentile {:.0f}. TTFT = the prompt at the percentile, after the step in "
      "flight; TPOT = a request's mean gap (a step plus the prompts of the newcomers during its reply, their count "
      "and lengths varying); memory holds a batch's mean context, long replies weighted by how long they stay.",
      at, p.quantile(0.5), s.targets.percentile, p.quantile(q), o.quantile(0.5), s.targets.percentile, o.quantile(q));
}

const CostRow* cheapest(const std::vector<CostRow>& rows, bool owned) {
  for (const CostRow& r : rows)
    if (r.monthly && (r.mode == "own") == owned) return &r;
  return nullptr;
}

// A rental re-sized for each load against the API (serving_plan.h api_break_even).
void rent_against_api(Report& rep, const CostRow& r, double api_per_rps) {
  const auto money = [&](double units) {
    return money_text(Money::from_micros(std::llround(units * 1e6), r.monthly->currency()), 0);
  };
  if (r.api_break_even) {
    rep.notes.push_back(
        trf("Renting {} {} costs less than the API at every load from {:.3g} requests/s on average (re-sized for each "
            "load, the day's shape kept; below it the API is cheaper at some loads).",
            r.option, mode_shown(r.mode), *r.api_break_even));
    return;
  }
  rep.notes.push_back(trf(
      "Renting {} {} does not beat the API for good at any load: a request/s more on average costs about {} a month "
      "rented, its instances full, against {} by the API.",
      r.option, mode_shown(r.mode), money(r.month_per_rps), money(api_per_rps)));
}

void decision_notes(Report& rep, const Serving& s, const std::vector<CostRow>& rows, const CurrencyConverter& fx) {
  const CostRow* rent = cheapest(rows, false);
  const CostRow* own = cheapest(rows, true);
  const auto instances = [](long long n) { return n == 1 ? trf("{} instance", n) : trf("{} instances", n); };
  const auto cards = [](long long n) { return n == 1 ? trf("{} card", n) : trf("{} cards", n); };
  if (rent)
    rep.notes.push_back(
        trf("Cheapest rental: {} {} ({}), {}{} of {} {}: {} a month, {} a million tokens at the average load{}{}.",
            rent->option, mode_shown(rent->mode), rent->provider,
            std::adjacent_find(rent->by_hour.begin(), rent->by_hour.end(), std::not_equal_to<>()) != rent->by_hour.end()
                ? tr("up to ")
                : "",
            instances(rent->sized.instances), rent->gpus_per_instance, rent->gpu, money_text(*rent->monthly, 0),
            money_text(*rent->per_million, 2),
            rent->stale.empty() ? "" : trf("; its {}: confirm it before relying on it", rent->stale),
            rent->mode == "spot" ? tr("; spot: a reclaim loses the requests in flight (serve.spot=false leaves it out)")
                                 : ""));
  else if (std::any_of(rows.begin(), rows.end(),
                       [](const CostRow& r) { return r.mode != "own" && r.sized.sized() && !r.monthly; }))
    rep.notes.push_back(std::string(
        tr("No rental offer of the search has a price gpuplan can state: the ones that meet the targets would cost a "
           "trillion or more a month (is the load right? traffic.requests_per_second, traffic.tokens_per_day).")));
  else if (std::any_of(rows.begin(), rows.end(), [](const CostRow& r) { return r.sized.beyond; }))
    rep.notes.push_back(
        trf("No rental offer of the search meets the load: its busiest hour needs more than "
            "{} replicas (is the load right?).",
            kMaxReplicas));
  else rep.notes.push_back(std::string(tr("No rental offer of the search meets the targets.")));
  if (own)
    rep.notes.push_back(trf("Cheapest to own: {} of {}: {} a month ({}).", cards(own->gpus_per_instance), own->gpu,
                            money_text(*own->monthly, 0), own->note));
  // What the report names as cheapest must say when the market cannot plainly have it.
  for (const CostRow* r : {rent, own})
    if (r && r->caveat && r->caveat->status == Availability::kRestricted)
      rep.warnings.push_back(trf("{} is the cheapest {}, and {}", r->option,
                                 r->mode == "own" ? tr("way to own") : tr("rental"), r->caveat->detail));
  if (!s.api.input_per_million || !s.api.output_per_million) return;
  const Money in = *s.api.input_per_million, out = *s.api.output_per_million;
  const Traffic& t = s.traffic;
  const double in_millions = t.requests_per_second * t.prompt_tokens * kHoursPerMonth * 3600 / 1e6;
  const double out_millions = t.requests_per_second * t.output_tokens * kHoursPerMonth * 3600 / 1e6;
  if (in.units() * in_millions + out.units() * out_millions >= Money::kMaxPlausibleUnits) {
    rep.notes.push_back(std::string(tr("API: a month at this load costs more than a trillion.")));
    return;
  }
  const Money api = in.scaled(in_millions) + out.scaled(out_millions);
  rep.notes.push_back(trf(
      "API{}: {} a month at the average load ({} a million prompt tokens, {} a million "
      "output tokens).",
      s.api.name.empty() ? "" : " (" + s.api.name + ")", money_text(api, 0), money_text(in, 2), money_text(out, 2)));
  for (const CostRow* r : {rent, own}) {
    if (!r) continue;
    if (r->mode != "own") {
      rent_against_api(rep, *r, api_per_rps(s));
      continue;
    }
    const std::string what = trf("Owning {} {}", r->gpus_per_instance, r->gpu);
    const double cap = average_capacity(*r, s);
    if (r->api_break_even) {
      rep.notes.push_back(trf("{} beats the API from {:.3g} requests/s on average ({} a month).", what,
                              *r->api_break_even, money_text(*r->monthly, 0)));
      continue;
    }
    // No crossing within what they carry; more cards share a server's costs, so a higher load may still cross.
    const double millions = cap * kHoursPerMonth * 3600 / 1e6;
    const Money api_there = in.scaled(millions * t.prompt_tokens) + out.scaled(millions * t.output_tokens);
    rep.notes.push_back(
        trf("{} does not beat the API up to what the cards carry ({:.3g} requests/s on average): the API costs {} a "
            "month there, against {}; at a higher load more cards share a server's costs: rerun at that load.",
            what, cap, money_text(api_there, 0), money_text(*r->monthly, 0)));
  }
  (void)fx;
}

// The day hourly rentals follow, said so a reader can check the instance-hours.
std::string day_note(const Serving& s) {
  const Traffic& t = s.traffic;
  if (!t.daily_profile.empty()) {
    std::string rates;
    for (double r : hourly_rates(t)) rates += fmt::format("{}{:.3g}", rates.empty() ? "" : " ", r);
    return trf("The day (traffic.daily_profile, requests/s from 0:00 to 23:00): {}.", rates);
  }
  const double busy = kHoursPerDay / t.peak_to_average;
  const std::string own(tr("give traffic.daily_profile, 24 numbers, for your own day"));
  if (busy >= kHoursPerDay - 1e-9)
    return trf("The day: flat, {:.3g} requests/s every hour (traffic.peak_to_average 1; {}).", t.requests_per_second,
               own);
  const auto hours = [](double h) { return h == 1 ? trf("{:.3g} hour", h) : trf("{:.3g} hours", h); };
  return trf(
      "The day: {} busy from {}:00 at {:.3g} requests/s, the other {} without requests (traffic.peak_to_average "
      "{:g}; {}).",
      hours(busy), kBusyFrom, t.requests_per_second * t.peak_to_average, hours(kHoursPerDay - busy), t.peak_to_average,
      own);
}

// Without an API to weigh, the catalog's APIs serving a model of about this size (half to twice its
// parameters), with their prices and dates, so api.offer is one step away.
std::string api_hint(const Serving& s, const Catalog& c) {
  std::vector<std::string> near;
  const double n = s.model.parameters;
  for (const ApiOffer& a : c.apis)
    if (a.parameters >= n / 2 && a.parameters <= n * 2)
      near.push_back(trf("{} ({}, {}/{} {} a million tokens in/out, as_of {})", a.id, a.model,
                         to_pretty_string(a.input.amount, 2), to_pretty_string(a.output.amount, 2), a.currency.code(),
                         format_date(a.input.provenance.as_of)));
  if (near.empty())
    return trf(
        "No API compared: the catalog prices {} APIs (api.offer=ID; the manual lists them), none of a model "
        "of about {}; or give api.input_price_per_million and api.output_price_per_million.",
        c.apis.size(), trf("{:.3g}B parameters", n / 1e9));
  return trf("No API compared: api.offer=ID weighs one of the catalog's for a model of about this size: {}.",
             fmt::join(near, tr("; ")));
}

void serve_notes(Report& rep, const ResolvedServing& rs, const std::vector<CostRow>& rows,
                 const std::vector<std::string>& left_out, const std::vector<std::string>& no_card, const Context& ctx,
                 const CurrencyConverter& fx) {
  const ServedModel& m = rs.serving.model;
  decision_notes(rep, rs.serving, rows, fx);
  if (!rs.serving.api.input_per_million) rep.notes.push_back(api_hint(rs.serving, ctx.catalog()));
  rep.notes.push_back(day_note(rs.serving));
  rep.notes.push_back(trf(
      "Model: weights {:.2f} GB ({}), KV cache {:.1f} KB a token ({}: 2 x {} layers x {} KV heads x {:g} head size x "
      "{:g} bytes).",
      weight_bytes(m).value() / kGB, to_string(m.weights), kv_bytes_per_token(m).value() / 1e3, to_string(m.kv_cache),
      m.layers, m.kv_head_count(), m.head_dim(), bytes_per_value(m.kv_cache)));
  rep.notes.push_back(std::string(
      tr("Prefill = (2·N_active·P + 2·L·P²·h) FLOPs at prefill_mfu of the dense bf16 peak (fp8 weights: x the measured "
         "FP8 speed-up); decode step = max(bytes read: weights + the batch's cached context, over decode_bandwidth of "
         "the memory bandwidth; FLOPs at prefill_mfu) + tensor-parallel all-reduces (2 a layer, ring, 20 µs each to "
         "start). Continuous batching: a token waits a step plus its share of the batch's prompts; replicas = busiest "
         "hour ÷ (a replica's requests/s × peak_load); hourly rentals: each hour's rate ÷ the same, at least "
         "serve.min_replicas. Owning: compare's buy option with its defaults (gpuplan compare "
         "--set buy.gpu=... shows every part).")));
  rep.notes.push_back(lengths_note(rs.serving));
  rep.notes.push_back(std::string(tr(
      "Not modelled yet: queueing (time waiting for a free slot in a burst; peak_load is the headroom), the gap "
      "before a single token (a request's mean gap is what the target holds), chunked prefill, the minutes an hourly "
      "instance takes to start (it is taken as running from the hour its load needs it), "
      "spot spares (serve.spot prices spot instances, none kept to cover a reclaim).")));
  if (!left_out.empty()) {
    std::string ids;
    for (const std::string& id : left_out) ids += (ids.empty() ? "" : ", ") + id;
    rep.notes.push_back(trf("Left out: {} (no memory bandwidth or bf16 rate in the catalog).", ids));
  }
  rep.notes.push_back(trf("Serving: {}. {}", rs.source, ctx.catalog_note()));
  // Rates used for the file's amounts (an API price in USD) and for the catalog's prices, each once.
  for (const std::vector<std::string>& notes : {rs.fx_notes, fx.notes()})
    for (const std::string& n : notes)
      if (std::find(rep.notes.begin(), rep.notes.end(), n) == rep.notes.end()) rep.notes.push_back(n);
  if (!no_card.empty())
    rep.notes.push_back(
        trf("Not owned: {} (no card price in the catalog for compare's buy option).", fmt::join(no_card, ", ")));
  add_defaults_notes(rep, rs.defaults_used);
}

Json row_json(const CostRow* r) {
  if (!r) return Json();
  Json j = Json::object();
  j["offer"] = r->option;
  j["mode"] = r->mode;
  j["instances"] = r->sized.instances;
  // As the offers table has them: to the currency's minor unit.
  j["monthly"] = r->monthly->rounded().units();
  j["per_million_tokens"] = r->per_million->rounded().units();
  j["api_break_even_rps"] = r->api_break_even ? Json(*r->api_break_even) : Json();
  return j;
}

// The API's month at the average load; none without an API or beyond a trillion.
std::optional<Money> api_monthly(const Serving& s, Currency cur) {
  const double month = api_per_rps(s) * s.traffic.requests_per_second;
  if (!(month > 0 && month < Money::kMaxPlausibleUnits)) return std::nullopt;
  return Money::from_micros(std::llround(month * 1e6), cur);
}

Json serve_extra(const ResolvedServing& rs, const std::vector<CostRow>& rows, const CurrencyConverter& fx) {
  Json x = Json::object();
  const ServedModel& m = rs.serving.model;
  x["weight_bytes"] = weight_bytes(m).value();
  x["kv_bytes_per_token"] = kv_bytes_per_token(m).value();
  x["tokens_per_month"] = tokens_per_month(rs.serving.traffic);
  // The API's month at the average load, to the minor unit as the notes round it; null without an API.
  const std::optional<Money> api = api_monthly(rs.serving, fx.display());
  x["api_monthly"] = api ? Json(api->rounded().units()) : Json();
  x["cheapest"] = row_json(rows.empty() || !rows.front().monthly ? nullptr : &rows.front());
  x["cheapest_rental"] = row_json(cheapest(rows, false));
  x["cheapest_owned"] = row_json(cheapest(rows, true));
  Json rates = Json::array();
  std::vector<std::string> seen;
  for (const Json& used : {rs.fx_used, fx.used_json()})
    if (const auto* a = used.as_array())
      for (const Json& r : *a)
        if (std::find(seen.begin(), seen.end(), r.dump_compact()) == seen.end()) {
          seen.push_back(r.dump_compact());
          rates.push_back(r);
        }
  x["fx_rates_used"] = std::move(rates);
  return x;
}

ServeWorkbook workbook_data(const std::string& title, const Serving& s, const std::vector<CostRow>& rows,
                            Currency currency) {
  ServeWorkbook w{title, currency, s.traffic, s.efficiency.peak_load, s.min_replicas};
  for (const CostRow& r : rows) {
    ServeWorkbookRow x{r.option, r.gpu, r.mode, r.note, r.gpus_per_instance, r.sized.shape.tp};
    x.price = r.price ? std::optional<double>(r.price->units()) : std::nullopt;
    if (r.monthly) {
      x.batch = r.sized.run.batch;
      x.replicas = r.sized.replicas;
      x.instances = r.sized.instances;
      x.replica_rps = r.sized.run.requests_per_second;
      x.replica_output_tps = r.sized.run.output_tokens_per_second;
      x.monthly = r.monthly->units();
      x.per_million = r.per_million->units();
      x.per_million_output = r.per_million_output->units();
      x.by_hour = r.by_hour;
      x.base = r.base;
      if (r.rise_price) x.rise_price = r.rise_price->units();
    }
    w.rows.push_back(std::move(x));
  }
  return w;
}

}  // namespace

// What serving costs a month on the cheapest options, renting and owning side by
// side (the rows are sorted by it); the API at the average load as its own bar.
Chart month_chart(const std::vector<CostRow>& rows, const std::optional<Money>& api, Currency cur) {
  constexpr std::size_t kMostBars = 12;  // the cheapest; the table lists them all
  Chart c;
  c.kind = Chart::Kind::kBars;
  c.name = "monthly_cost";
  c.title = tr("What serving costs a month, the cheapest options (renting sized for each hour's load)");
  c.x_label = trf("{} a month", cur.code());
  ChartSeries rent{std::string(tr("rent")), {}}, own{std::string(tr("own")), {}}, by_api{std::string(tr("API")), {}};
  for (const CostRow& r : rows) {
    if (!r.monthly || c.categories.size() >= kMostBars) continue;
    (r.mode == "own" ? own : rent).points.emplace_back(static_cast<double>(c.categories.size()), r.monthly->units());
    c.categories.push_back(r.mode == "own" ? r.option : fmt::format("{} ({})", r.option, mode_shown(r.mode)));
  }
  if (api) {
    by_api.points.emplace_back(static_cast<double>(c.categories.size()), api->units());
    c.categories.emplace_back(tr("API at the average load"));
  }
  c.series = {std::move(rent), std::move(own), std::move(by_api)};
  return c;
}

ServeOutcome serve_report(const Context& ctx, const ServeQuery& q) {
  const ResolvedServing rs = load_serving(q.serving_file, q.sets, ctx);
  const Serving& s = rs.serving;
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  std::vector<std::string> left_out;
  const std::vector<GpuRow> gpus = gpu_rows(ctx.catalog(), s, left_out);
  const std::vector<CostRow> offers = cost_rows(ctx, fx, s, gpus);
  ServeOutcome out;
  Report& rep = out.report;
  rep.command = "serve";
  rep.currency = ctx.currency;
  rep.title = title(s);
  rep.tables = tables_of(gpu_table(gpus, s.targets, s), cost_table(offers, ctx.currency));
  if (std::any_of(offers.begin(), offers.end(), [](const CostRow& r) { return r.monthly.has_value(); }))
    rep.charts.push_back(month_chart(offers, api_monthly(s, ctx.currency), ctx.currency));
  rep.xlsx = [wbd = workbook_data(rep.title, s, offers, ctx.currency)] { return serve_workbook(wbd); };
  rep.primary = 1;
  Json in = ctx.echo();
  append(in, rs.inputs);
  rep.inputs = std::move(in);
  rep.extra = serve_extra(rs, offers, fx);
  rep.warnings = rs.warnings;
  std::vector<std::string> no_card;  // cards that meet the targets but cannot be priced to own
  for (const GpuRow& g : gpus)
    if (g.sized.sized() && !find_purchase(ctx.catalog(), PurchaseKind::kCard, g.gpu->id, ""))
      no_card.push_back(g.gpu->id);
  serve_notes(rep, rs, offers, left_out, no_card, ctx, fx);
  out.feasible = std::any_of(gpus.begin(), gpus.end(), [](const GpuRow& g) { return g.sized.sized(); });
  return out;
}

}  // namespace gpuplan
