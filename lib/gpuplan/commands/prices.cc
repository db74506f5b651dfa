#include "gpuplan/i18n.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/training.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <set>
#include <tuple>

#include "gpuplan/error.h"

namespace gpuplan {
namespace {

bool any_match(const std::vector<std::string>& filters, std::string_view value, bool prefix) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(),
                     [&](const std::string& f) { return prefix ? gpu_matches(f, value) : id_equals(f, value); });
}

// A filter value nobody has is almost always a typo: say so, listing what exists.
struct Row {
  const Offer* offer;
  BillingMode mode;
  std::string term;  // "" or "1y" for committed-use prices
  const Price* price;
  Money converted;
  Money per_gpu_hour;
  bool stale;
  std::optional<long long> age_days;  ///< nullopt: undated
};

}  // namespace

namespace {

std::vector<BillingMode> checked_modes(const Catalog& cat, const PricesQuery& q) {
  std::vector<BillingMode> modes;
  for (const std::string& m : q.modes) {
    const auto mode = parse_billing_mode(m);
    if (!mode) throw InputError(SourceLocation{"--mode"}, "", trf("{} not in {{hourly, monthly, spot}}", m));
    modes.push_back(*mode);
  }
  if (std::find(kPriceSortKeys.begin(), kPriceSortKeys.end(), q.sort) == kPriceSortKeys.end())
    throw InputError(SourceLocation{"--sort"}, "", trf("{} not in {{{}}}", q.sort, fmt::join(kPriceSortKeys, ", ")));
  check_filters(cat, q.gpus, q.providers, q.regions, {"--gpu", "--provider", "--region"});
  return modes;
}

// Every price of every offer the filters keep, converted, with its price per GPU-hour.
std::vector<Row> price_rows(const Context& ctx, const PricesQuery& q, const CurrencyConverter& fx) {
  const std::vector<BillingMode> modes = checked_modes(ctx.catalog(), q);
  const auto stale_days = std::chrono::duration_cast<Days>(ctx.stale_after).count();
  std::vector<Row> rows;
  const auto add = [&](const Offer& o, BillingMode mode, std::string term, const Price& p) {
    if (!modes.empty() && std::find(modes.begin(), modes.end(), mode) == modes.end()) return;
    const std::optional<long long> age = age_days(p.provenance, ctx.today);
    const bool stale = !age || static_cast<double>(*age) > stale_days;  // undated: stale by definition
    if (q.stale_only && !stale) return;
    const Money converted = fx.convert(p.amount);
    // Per GPU-hour: hourly and spot ÷ GPUs; monthly ÷ 730 h ÷ GPUs.
    const double hours = mode == BillingMode::kMonthly ? Months(1) / Hours(1) : 1.0;
    const Money per_gpu_hour = converted.scaled(1.0 / (hours * o.gpus));
    rows.push_back(Row{&o, mode, std::move(term), &p, converted, per_gpu_hour, stale, age});
  };
  for (const Offer& o : ctx.catalog().offers) {
    if (!any_match(q.gpus, o.gpu, true) || !any_match(q.providers, o.provider, false) ||
        !any_match(q.regions, o.region, false))
      continue;
    for (const BillingMode m : kAllModes)
      if (const auto& p = o.price(m)) add(o, m, "", *p);
    for (const Commitment& c : o.commitments) add(o, c.basis, format_duration(c.term), c.price);
  }
  return rows;
}

// By --sort, then the price per GPU-hour, then the offer: a total order, so output is stable.
void sort_rows(std::vector<Row>& rows, const std::string& sort) {
  const auto key = [&](const Row& r) -> std::string {
    if (sort == "provider") return r.offer->provider;
    if (sort == "gpu") return r.offer->gpu;
    if (sort == "as_of") return format_date(r.price->provenance.as_of);
    return {};
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    if (sort == "gpu_hour" && a.per_gpu_hour != b.per_gpu_hour) return a.per_gpu_hour < b.per_gpu_hour;
    if (sort == "price" && a.converted != b.converted) return a.converted < b.converted;
    if (sort == "as_of") {
      if (a.price->provenance.as_of != b.price->provenance.as_of)
        return a.price->provenance.as_of > b.price->provenance.as_of;  // newest first
    } else if (const std::string ka = key(a), kb = key(b); ka != kb) {
      return ka < kb;
    }
    if (a.per_gpu_hour != b.per_gpu_hour) return a.per_gpu_hour < b.per_gpu_hour;
    return std::tie(a.offer->id, a.mode, a.term) < std::tie(b.offer->id, b.mode, b.term);
  });
}

// "single" in the joins column reads as a word; "400G" stays as it is.
constexpr const char* kJoinsContext = "offer joins: ";
[[maybe_unused]] constexpr const char* kJoinsWords[] = {tr_noop("offer joins: single")};

std::vector<Column> price_columns(Currency currency) {
  const std::string CUR(currency.code());
  return {
      {"offer", tr_noop("offer"), 0, false},
      {"provider", tr_noop("provider")},
      {"region", tr_noop("region")},
      {"instance", tr_noop("instance"), 0, false},
      {"gpu", tr_noop("gpu")},
      {"gpus", tr_noop("gpus")},
      {.key = "joins", .label = tr_noop("joins"), .words = true, .context = kJoinsContext},
      {"interconnect", tr_noop("inside"), 0, false},
      {"fabric", tr_noop("fabric"), 0, false},
      {"network_gbps", tr_noop("network Gb/s"), -4, false},
      {"network_assumed", tr_noop("network assumed"), 0, false},
      {"max_instances", tr_noop("max inst"), 0, false},
      {.key = "mode", .label = tr_noop("mode"), .words = true},
      {"term", tr_noop("term")},
      {"price", CUR, 2},
      {.key = "per", .label = tr_noop("per"), .words = true},
      {"gpu_hour", CUR + tr_noop("/GPU-h"), 3},
      {"list_price", tr_noop("list price"), -1, false},
      {"list_currency", tr_noop("list cur"), 0, false},
      {"fx_rate", tr_noop("fx rate"), 6, false},
      {"billing_granularity", tr_noop("billing")},
      {.key = "as_of", .label = tr_noop("as_of"), .words = true},
      {"age_days", tr_noop("age days"), 0, false},
      {"stale", tr_noop("stale")},
      {.key = "confidence",
       .label = tr_noop("confidence"),
       .brief = false,
       .words = true,
       .context = kConfidenceContext},
      {"source", tr_noop("source"), 0, false},
  };
}

// What joins an offer's instances into one job, for the brief column: "single"
// (one job cannot span them), else the network per instance ("400G", "25G?"
// where assumed).
std::string joins(const OfferShape& s) {
  if (s.shape.fabric == "none") return "single";
  return fmt::format("{:g}G{}", s.shape.network.value() * 8 / 1e9, s.assumed.empty() ? "" : "?");
}

// One row per price; `brief` fills only the columns a table shows (start-up time counts).
Table offers_table(const std::vector<Row>& rows, bool brief, Currency currency, const CurrencyConverter& fx,
                   const Catalog& cat) {
  Table t;
  t.name = "offers";
  t.currency = currency;
  t.columns = price_columns(currency);
  for (const Row& r : rows) {
    const Offer& o = *r.offer;
    const Gpu* g = cat.find_gpu(o.gpu);
    const OfferShape shape = g ? offer_shape(o, *g, cat) : OfferShape{};
    const std::string per = r.mode == BillingMode::kMonthly ? "month" : "hour";
    const Cell term = r.term.empty() ? Cell{} : Cell{r.term};
    if (brief) {
      t.add_row({Cell{},
                 o.provider,
                 o.region,
                 Cell{},
                 o.gpu,
                 static_cast<std::int64_t>(o.gpus),
                 joins(shape),
                 Cell{},
                 Cell{},
                 Cell{},
                 Cell{},
                 Cell{},
                 std::string(to_string(r.mode)),
                 term,
                 r.converted,
                 per,
                 r.per_gpu_hour,
                 Cell{},
                 Cell{},
                 Cell{},
                 format_duration(o.billing_granularity),
                 format_date(r.price->provenance.as_of),
                 Cell{},
                 r.stale,
                 Cell{},
                 Cell{}});
      continue;
    }
    const Provenance& pv = r.price->provenance;
    t.add_row({o.id,
               o.provider,
               o.region,
               o.instance,
               o.gpu,
               static_cast<std::int64_t>(o.gpus),
               joins(shape),
               shape.shape.intra_name,
               shape.shape.fabric,
               shape.shape.fabric == "none" ? Cell{} : Cell{shape.shape.network.value() * 8 / 1e9},
               shape.shape.fabric == "none" ? Cell{} : Cell{!shape.assumed.empty()},
               shape.shape.fabric == "none"           ? Cell{static_cast<std::int64_t>(1)}
               : shape.shape.max_instances >= 1 << 20 ? Cell{}
                                                      : Cell{static_cast<std::int64_t>(shape.shape.max_instances)},
               std::string(to_string(r.mode)),
               term,
               r.converted,
               per,
               r.per_gpu_hour,
               r.price->amount,
               std::string(r.price->amount.currency().code()),
               fx.rate(r.price->amount.currency()),
               format_duration(o.billing_granularity),
               format_date(pv.as_of),
               r.age_days ? Cell{static_cast<std::int64_t>(*r.age_days)} : Cell{},
               r.stale,
               pv.confidence.empty() ? Cell{} : Cell{std::string(pv.confidence)},
               std::string(pv.source)});
  }
  return t;
}

Json prices_echo(const Context& ctx, const PricesQuery& q) {
  Json in = ctx.echo();
  Json filters = Json::object();
  filters["gpu"] = Json::strings(q.gpus);
  filters["provider"] = Json::strings(q.providers);
  filters["region"] = Json::strings(q.regions);
  filters["mode"] = Json::strings(q.modes);
  filters["stale_only"] = q.stale_only;
  in["filters"] = std::move(filters);
  in["sort"] = q.sort;
  return in;
}

// ---- prices --history ----

// One offer's prices of one mode, oldest first (undated ones first of all: older than anything dated).
struct Timeline {
  const Offer* offer;
  BillingMode mode;
  std::vector<const Price*> prices;
  const Price* current = nullptr;  ///< the offer's price of this mode; none when only history has the mode
};

std::vector<Timeline> timelines(const Context& ctx, const PricesQuery& q) {
  const std::vector<BillingMode> modes = checked_modes(ctx.catalog(), q);
  std::vector<Timeline> out;
  for (const Offer& o : ctx.catalog().offers) {
    if (o.history.empty() || !any_match(q.gpus, o.gpu, true) || !any_match(q.providers, o.provider, false) ||
        !any_match(q.regions, o.region, false))
      continue;
    for (const BillingMode m : kAllModes) {
      if (!modes.empty() && std::find(modes.begin(), modes.end(), m) == modes.end()) continue;
      Timeline t{&o, m, {}, nullptr};
      for (const PastPrice& h : o.history)
        if (h.mode == m) t.prices.push_back(&h.price);
      if (t.prices.empty()) continue;
      if (const auto& now = o.price(m)) t.prices.push_back(t.current = &*now);
      std::stable_sort(t.prices.begin(), t.prices.end(), [](const Price* a, const Price* b) {
        return a->provenance.as_of.value_or(Date::min()) < b->provenance.as_of.value_or(Date::min());
      });
      out.push_back(std::move(t));
    }
  }
  return out;
}

Table history_table(const std::vector<Timeline>& lines, Currency currency, const CurrencyConverter& fx) {
  const std::string CUR(currency.code());
  Table t;
  t.name = "history";
  t.currency = currency;
  t.columns = {{"offer", tr_noop("offer")},
               {"gpu", tr_noop("gpu")},
               {"gpus", tr_noop("gpus")},
               {.key = "mode", .label = tr_noop("mode"), .words = true},
               {"as_of", tr_noop("as_of")},
               {"current", tr_noop("current")},
               {"list_price", tr_noop("list price"), -1},
               {"list_currency", tr_noop("cur")},
               {"change", tr_noop("change"), 3, true, true},
               {"yearly_trend", tr_noop("yearly trend"), 3, true, true},
               {"gpu_hour", CUR + tr_noop("/GPU-h"), 3},
               {"note", tr_noop("note"), 0, false},
               {"source", tr_noop("source"), 0, false}};
  for (const Timeline& line : lines) {
    const std::optional<PriceTrend> trend = price_trend(*line.offer, line.mode);
    const double hours = line.mode == BillingMode::kMonthly ? Months(1) / Hours(1) : 1.0;
    for (std::size_t i = 0; i < line.prices.size(); ++i) {
      const Price& p = *line.prices[i];
      const bool current = &p == line.current;
      const Price* before = i > 0 ? line.prices[i - 1] : nullptr;
      // Against an undated price there is no "before": it has no place in time.
      const Cell change = before && before->provenance.as_of && before->amount.currency() == p.amount.currency()
                              ? Cell{p.amount.units() / before->amount.units() - 1.0}
                              : Cell{};
      t.add_row({line.offer->id, line.offer->gpu, static_cast<std::int64_t>(line.offer->gpus),
                 std::string(to_string(line.mode)), format_date(p.provenance.as_of), current, p.amount,
                 std::string(p.amount.currency().code()), change, current && trend ? Cell{trend->yearly} : Cell{},
                 fx.convert(p.amount).scaled(1.0 / (hours * line.offer->gpus)),
                 p.provenance.note.empty() ? Cell{} : Cell{std::string(p.provenance.note)},
                 std::string(p.provenance.source)});
    }
  }
  return t;
}

Report history_report(const Context& ctx, const PricesQuery& q) {
  if (q.stale_only || q.sort != "gpu_hour")
    throw UsageError(
        std::string(tr("--history lists every dated price, oldest first: --stale and --sort do not apply to it")));
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const std::vector<Timeline> lines = timelines(ctx, q);
  Report rep;
  rep.command = "prices";
  rep.currency = ctx.currency;
  std::set<std::string> offers;
  for (const Timeline& l : lines) offers.insert(l.offer->id);
  rep.title =
      trf("Price history: {} offer{} with earlier prices, oldest first", offers.size(), offers.size() == 1 ? "" : "s");
  rep.inputs = prices_echo(ctx, q);
  rep.inputs["history"] = true;
  rep.tables.push_back(history_table(lines, ctx.currency, fx));
  rep.extra = Json::object();
  rep.extra["fx_rates_used"] = fx.used_json();
  rep.notes.push_back(ctx.catalog_note() + ". Only offers that keep earlier prices (history: in the catalog).");
  rep.notes.push_back(std::string(tr(
      "change: against the dated price before, in the list currency; notes on the prices (a one-off cut, an unsure "
      "date): --format csv or json. yearly trend: (newest / oldest)^(365 / days) - 1 "
      "over the dated prices, at least 180 days apart; shares (0.143 = +14.3%); evidence for a price-drift assumption, "
      "which no model takes "
      "from here.")));
  rep.notes.push_back(
      trf("{}/GPU-h converts every price at today's rates, to compare, not to restate.", ctx.currency.code()));
  for (auto& n : fx.notes()) rep.notes.push_back(std::move(n));
  return rep;
}

}  // namespace

Report prices_report(const Context& ctx, const PricesQuery& q) {
  if (q.history) return history_report(ctx, q);
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  std::vector<Row> rows = price_rows(ctx, q, fx);
  sort_rows(rows, q.sort);
  const auto stale_days = std::chrono::duration_cast<Days>(ctx.stale_after).count();
  std::set<std::string> offers_seen;
  std::size_t stale_rows = 0, undated_rows = 0;
  for (const Row& r : rows) {
    offers_seen.insert(r.offer->id);
    stale_rows += r.stale ? 1 : 0;
    if (!r.age_days) ++undated_rows;
  }
  Report rep;
  rep.command = "prices";
  rep.currency = ctx.currency;
  rep.title = trf("GPU rental prices in {}: {} offers, {} prices, sorted by {}", ctx.currency.code(),
                  offers_seen.size(), rows.size(), q.sort);
  rep.inputs = prices_echo(ctx, q);
  Table t = offers_table(rows, q.brief, ctx.currency, fx, ctx.catalog());
  if (!q.brief) {
    // The rates, not the converter: the catalog may be gone when the workbook is built.
    std::map<std::string, double> rates;
    for (const Row& r : rows)
      rates[std::string(r.price->amount.currency().code())] = fx.rate(r.price->amount.currency());
    rep.xlsx = [t, cur = ctx.currency, today = ctx.today, stale_days, rates] {
      return prices_workbook(t, cur, today, stale_days, rates);
    };
  }
  rep.tables.push_back(std::move(t));
  rep.extra = Json::object();
  rep.extra["fx_rates_used"] = fx.used_json();
  rep.notes.push_back(trf("{}. Per GPU-hour = price / GPUs (monthly: / 730 h).", ctx.catalog_note()));
  for (auto& n : fx.notes()) rep.notes.push_back(std::move(n));
  if (stale_rows > 0)
    rep.notes.push_back(trf("{} of {} prices are stale: priced more than {} days before {}{}.", stale_rows, rows.size(),
                            stale_days, format_date(ctx.today),
                            undated_rows == 0
                                ? std::string()
                                : trf(", or undated ({}: their sources give no date, as_of unknown)", undated_rows)));
  rep.notes.push_back(std::string(
      tr("joins: what links an offer's instances into one job, per instance (single: one job cannot span them; ?: "
         "assumed, the catalog states no network).")));
  rep.notes.push_back(std::string(tr("Sources and list prices: --format csv or json.")));
  return rep;
}

}  // namespace gpuplan
