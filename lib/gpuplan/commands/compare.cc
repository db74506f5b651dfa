#include "gpuplan/i18n.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/cost/rent.h"
#include "gpuplan/sensitivity.h"

namespace gpuplan {
namespace {

char symbol(const std::string& key) {
  if (key == "buy") return 'B';
  if (key == "rent_hourly") return 'H';
  if (key == "rent_monthly") return 'M';
  if (key == "spot") return 'S';
  return 'Y';
}

}  // namespace

namespace {

// Each option's cumulative cost month by month; owning net of the hardware's
// book value, so the curves cross at the break-even.
std::vector<std::vector<double>> cumulative_costs(const Comparison& c) {
  std::vector<std::vector<double>> cum;
  for (const OptionResult& o : c.options) {
    std::vector<double> v;
    double run = 0;
    const bool buy = o.key == "buy" && c.own.value.size() == o.cash_flow.size();
    for (std::size_t m = 0; m < o.cash_flow.size(); ++m) {
      const bool last = m + 1 == o.cash_flow.size();
      run += (o.cash_flow[m] + (buy && last ? c.own.resale : Money::zero(c.scenario.currency))).units();
      v.push_back(buy ? run - c.own.value[m].units() : run);
    }
    cum.push_back(std::move(v));
  }
  return cum;
}

}  // namespace

Chart cumulative_cost_chart(const Comparison& c) {
  Chart ch;
  ch.name = "cumulative_cost";
  ch.title = tr_noop("Cumulative cost per option (buy: net of the hardware's book value)");
  ch.x_label = tr_noop("month");
  ch.words = true;  // the series are the options
  ch.y_label = std::string(c.scenario.currency.code());
  const std::vector<std::vector<double>> cum = cumulative_costs(c);
  for (std::size_t i = 0; i < c.options.size(); ++i) {
    ChartSeries s{c.options[i].key, {}};
    for (std::size_t m = 0; m < cum[i].size(); ++m) s.points.emplace_back(static_cast<double>(m), cum[i][m]);
    ch.series.push_back(std::move(s));
  }
  if (c.break_even_month) {
    ch.marker_x = *c.break_even_month;
    ch.marker_label = trf("break-even against {}: month {:.1f}", tr(c.break_even_versus), *c.break_even_month);
  }
  return ch;
}

Chart breakdown_chart(const Comparison& c) {
  Chart ch;
  ch.kind = Chart::Kind::kStackedBars;
  ch.name = "cost_breakdown";
  ch.title = tr_noop("What each option costs over the horizon, by item");
  ch.words = true;
  ch.y_label = std::string(c.scenario.currency.code());
  std::vector<std::string> items;  // in the order they first appear
  for (const OptionResult& o : c.options) {
    ch.categories.push_back(o.key);
    for (const CostLine& l : o.breakdown)
      if (std::find(items.begin(), items.end(), l.item) == items.end()) items.push_back(l.item);
  }
  for (const std::string& item : items) {
    ChartSeries s{item, {}};
    for (std::size_t k = 0; k < c.options.size(); ++k)
      for (const CostLine& l : c.options[k].breakdown)
        if (l.item == item) s.points.emplace_back(static_cast<double>(k), l.amount.units());
    ch.series.push_back(std::move(s));
  }
  return ch;
}

std::string cumulative_chart(const Comparison& c, int width, int height) {
  const int months = c.scenario.horizon_months;
  const std::vector<std::vector<double>> cum = cumulative_costs(c);
  double lo = 0, hi = 0;
  for (const auto& v : cum)
    for (const double x : v) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  if (hi <= lo) hi = lo + 1;
  const int label_w = 8;
  const int plot_w = std::max(10, width - label_w - 2);
  std::vector<std::string> grid(static_cast<std::size_t>(height), std::string(static_cast<std::size_t>(plot_w), ' '));
  const auto col_of = [&](double month) { return static_cast<int>(std::lround(month / months * (plot_w - 1))); };
  const auto row_of = [&](double value) {
    return height - 1 - static_cast<int>(std::lround((value - lo) / (hi - lo) * (height - 1)));
  };
  // The break-even month as a dotted vertical line, drawn first so curves cover it.
  if (c.break_even_month) {
    const int col = col_of(*c.break_even_month);
    for (auto& line : grid) line[static_cast<std::size_t>(col)] = ':';
  }
  for (std::size_t i = 0; i < c.options.size(); ++i) {
    const char s = symbol(c.options[i].key);
    for (int col = 0; col < plot_w; ++col) {
      // Linear interpolation of the cumulative cost between months.
      const double month = static_cast<double>(col) * months / (plot_w - 1);
      const int m0 = std::min(months, static_cast<int>(std::floor(month)));
      const int m1 = std::min(months, m0 + 1);
      const double f = month - m0;
      const double v = cum[i][static_cast<std::size_t>(m0)] * (1 - f) + cum[i][static_cast<std::size_t>(m1)] * f;
      grid[static_cast<std::size_t>(row_of(v))][static_cast<std::size_t>(col)] = s;
    }
  }
  std::string others;
  for (const OptionResult& o : c.options)
    if (o.key != "buy") others += fmt::format("{}{} {}", tr(", "), symbol(o.key), tr(o.key));
  std::string out =
      trf("Cumulative cost, {} (B buy, net of the hardware's book value{})", c.scenario.currency.code(), others) + "\n";
  for (int r = 0; r < height; ++r) {
    const double value = hi - (hi - lo) * r / (height - 1);
    const bool label = r == 0 || r == height - 1 || r == height / 2;
    std::string line =
        fmt::format("{:>{}} |{}", label ? short_number(value) : "", label_w, grid[static_cast<std::size_t>(r)]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += std::string(static_cast<std::size_t>(label_w) + 1, ' ') + "+" +
         std::string(static_cast<std::size_t>(plot_w), '-') + "\n";
  // "0" under the axis's start, the horizon ending under its end (by screen width: Chinese is wide).
  const std::string end = trf("{} months", months);
  const int gap = std::max(1, plot_w - 1 - static_cast<int>(display_width(end)));
  out += std::string(static_cast<std::size_t>(label_w) + 2, ' ') + "0" +
         std::string(static_cast<std::size_t>(gap), ' ') + end + "\n";
  if (c.break_even_month)
    out += std::string(static_cast<std::size_t>(label_w) + 2, ' ') +
           trf("':' counting the hardware's value, owning is ahead of {} from month {:.1f}", tr(c.break_even_versus),
               *c.break_even_month) +
           "\n";
  return out;
}

namespace {

Table options_table(const Comparison& c, Currency currency) {
  const std::string CUR(currency.code());
  const int cents = currency.minor_digits();
  Table opts;
  opts.name = "options";
  opts.currency = currency;
  opts.columns = {{"option", tr_noop("option"), 0, false},
                  {"label", tr_noop("option")},
                  {"gross", tr_noop("gross") + (" " + CUR), cents, false},
                  {"resale", tr_noop("resale") + (" " + CUR), cents, false},
                  {"total", tr_noop("total") + (" " + CUR), cents},
                  {"vat", tr_noop("VAT") + (" " + CUR), cents},
                  {"total_excl_vat", tr_noop("total excl. VAT") + (" " + CUR), cents, false},
                  {"total_incl_vat", tr_noop("total incl. VAT") + (" " + CUR), cents, false},
                  {"npv", tr_noop("NPV") + (" " + CUR), cents},
                  {"used_gpu_hours", tr_noop("GPU-h used"), 0},
                  {"per_used_gpu_hour", CUR + tr_noop("/used GPU-h"), 2},
                  {"start_hours", tr_noop("start in h"), 1},
                  {"break_even_month", tr_noop("break-even mo"), 1, true, true},
                  {"payback_month", tr_noop("payback mo"), 1, true, true},
                  {"notes", tr_noop("notes"), 0, false}};
  const auto month = [](const std::optional<double>& m) { return m ? Cell{*m} : Cell{}; };
  for (const OptionResult& o : c.options) {
    std::string notes;
    for (const auto& n : o.notes) notes += (notes.empty() ? "" : std::string(tr("; "))) + n;
    const bool buy = o.key == "buy";
    const Money resale = buy ? c.own.resale : Money::zero(currency);
    // VAT is in the total only where it is not recoverable (as a line of its own).
    const bool in_total = !c.scenario.vat.recoverable;
    opts.add_row({o.key, o.label, o.total + resale, resale, o.total, o.vat, in_total ? o.total - o.vat : o.total,
                  in_total ? o.total : o.total + o.vat, Money::from_micros(std::llround(o.npv * 1e6), currency),
                  o.used_gpu_hours, o.cost_per_used_gpu_hour ? Cell{*o.cost_per_used_gpu_hour} : Cell{},
                  o.start_delay.count(), month(o.break_even_month), month(o.payback_month),
                  notes.empty() ? Cell{} : Cell{notes}});
  }
  return opts;
}

Table breakdown_table(const Comparison& c, Currency currency) {
  Table breakdown;
  breakdown.name = "breakdown";
  breakdown.currency = currency;
  breakdown.title = tr_noop("Cost breakdown over the horizon");
  breakdown.columns = {{.key = "option", .label = tr_noop("option"), .words = true},
                       {.key = "item", .label = tr_noop("item"), .words = true},
                       {"amount", std::string(currency.code()), currency.minor_digits()}};
  for (const OptionResult& o : c.options)
    for (const CostLine& l : o.breakdown) breakdown.add_row({o.key, l.item, l.amount});
  return breakdown;
}

// Every item of every option in every month, long form (one amount a row): for pivot tables.
Table monthly_breakdown_table(const Comparison& c, Currency currency, bool shown) {
  Table t;
  t.name = "breakdown_monthly";
  t.currency = currency;
  t.title = tr_noop("Cost breakdown month by month (month 0 = purchase)");
  t.text = shown;
  t.columns = {{"option", tr_noop("option")},
               {.key = "item", .label = tr_noop("item"), .words = true},
               {"month", tr_noop("month")},
               {"amount", std::string(currency.code()), currency.minor_digits()}};
  for (const OptionResult& o : c.options)
    for (std::size_t m = 0; m < o.items_by_month.size(); ++m)
      for (const CostLine& l : o.items_by_month[m]) t.add_row({o.key, l.item, static_cast<std::int64_t>(m), l.amount});
  return t;
}

std::string snake(std::string_view item) {
  std::string k;
  for (char ch : item)
    if (std::isalnum(static_cast<unsigned char>(ch)))
      k += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    else if (!k.empty() && k.back() != '_') k += '_';
  while (!k.empty() && k.back() == '_') k.pop_back();
  return k;
}

// Owning month by month, the way finance books it: capex, each running item,
// depreciation, the hardware's book value, cumulative cash and the net position
// (cumulative cash less what the hardware is still worth).
Table own_schedule_table(const Comparison& c, Currency currency, bool shown) {
  const OptionResult& buy = c.options.front();
  const int cents = currency.minor_digits();
  std::vector<std::string> opex;
  for (const CostLine& l : buy.breakdown)
    if (l.item != "hardware" && l.item != "facility" && l.item != "resale value at horizon") opex.push_back(l.item);
  const bool financed = c.scenario.own.financing != Financing::kCash;
  Table t;
  t.name = "own_schedule";
  t.currency = currency;
  t.title = financed ? tr_noop(
                           "Owning month by month (book value by the stated depreciation; net = cumulative cash + "
                           "owed − book value)")
                     : tr_noop(
                           "Owning month by month (book value by the stated depreciation; net = cumulative cash − "
                           "book value)");
  t.text = shown;
  t.columns = {{"month", tr_noop("month")}, {"capex", tr_noop("capex"), cents}};
  for (const auto& item : opex) t.columns.push_back({snake(item), item, cents});
  // The labels are the keys but "book value" (marked for translation as they are).
  static constexpr std::array<std::pair<const char*, const char*>, 5> kRunning = {{
      {"depreciation", tr_noop("depreciation")},
      {"book_value", tr_noop("book value")},
      {"cumulative_cash", tr_noop("cumulative_cash")},
      {"owed", tr_noop("owed")},
      {"net_position", tr_noop("net_position")},
  }};
  for (const auto& [k, label] : kRunning)
    if (financed || k != std::string_view("owed")) t.columns.push_back({k, label, cents});
  Money cash = Money::zero(currency);
  for (std::size_t m = 0; m < buy.items_by_month.size(); ++m) {
    std::vector<Cell> row{static_cast<std::int64_t>(m)};
    Money capex = Money::zero(currency);
    std::vector<Money> running(opex.size(), Money::zero(currency));
    for (const CostLine& l : buy.items_by_month[m]) {
      if (l.item == "hardware" || l.item == "facility") capex += l.amount;
      for (std::size_t i = 0; i < opex.size(); ++i)
        if (l.item == opex[i]) running[i] += l.amount;
      if (l.item != "resale value at horizon") cash += l.amount;
    }
    row.emplace_back(capex);
    for (const Money& r : running) row.emplace_back(r);
    row.emplace_back(c.own.depreciation[m]);
    row.emplace_back(c.own.value[m]);
    row.emplace_back(cash);
    // What a loan or lease still owes is a liability: the net position counts it.
    if (financed) row.emplace_back(c.own.owed[m]);
    row.emplace_back(cash + c.own.owed[m] - c.own.value[m]);
    t.add_row(std::move(row));
  }
  return t;
}

Table cash_flow_table(const Comparison& c, Currency currency, bool shown) {
  Table flow;
  flow.name = "cash_flow";
  flow.currency = currency;
  flow.title = tr_noop("Monthly cash flow (month 0 = purchase; costs positive, resale negative)");
  flow.text = shown;
  flow.columns.push_back({.key = "month", .label = tr_noop("month"), .words = true});  // and the "total" row
  for (const OptionResult& o : c.options) flow.columns.push_back({o.key, o.key, currency.minor_digits()});
  for (int m = 0; m <= c.scenario.horizon_months; ++m) {
    std::vector<Cell> row{static_cast<std::int64_t>(m)};
    for (const OptionResult& o : c.options) row.emplace_back(o.cash_flow[static_cast<std::size_t>(m)]);
    flow.add_row(std::move(row));
  }
  std::vector<Cell> total{std::string("total")};
  for (const OptionResult& o : c.options) total.emplace_back(o.total);
  flow.add_row(std::move(total));
  flow.last_row_is_total = true;
  return flow;
}

// Every default used, with how far to trust it (CSV with --defaults).
Table defaults_table(const ResolvedScenario& rs, bool shown) {
  Table t;
  t.name = "defaults";
  t.title = tr_noop("Defaults used (quality: assumption, default, a catalog record's confidence, or sourced)");
  t.text = shown;
  t.columns = {{"field", tr_noop("field")},
               {"value", tr_noop("value")},
               {.key = "quality", .label = tr_noop("quality"), .words = true, .context = kQualityContext},
               {"why", tr_noop("why and source")}};
  for (const DefaultUsed& d : rs.defaults) t.add_row({d.field, d.value, d.quality, d.why});
  return t;
}

// How VAT is reported: apart, or in the totals as a line where it is a cost.
Json vat_json(const Comparison& c) {
  const VatInputs& v = c.scenario.vat;
  Json j = Json::object();
  j["recoverable"] = v.recoverable;
  j["in_totals"] = !v.recoverable;
  j["prices_include_vat"] = v.prices_include_vat;
  j["basis"] = v.recoverable ? "totals exclude VAT; vat is paid and recovered (shown apart)"
                             : "VAT is a cost: each total includes it as the line 'VAT (not recoverable)'";
  return j;
}

// JSON: the decision, break-even, spot's overhead and the rates used.
Json compare_extra(const ResolvedScenario& rs, const Comparison& c) {
  Json extra = Json::object();
  Json be = Json::object();
  be["versus"] = c.break_even_versus.empty() ? Json() : Json(c.break_even_versus);
  be["month"] = c.break_even_month ? Json(*c.break_even_month) : Json();
  be["payback_month"] = c.payback_month ? Json(*c.payback_month) : Json();
  be["basis"] =
      "break-even: cumulative cost less the hardware's book value; payback: cash alone (a loan's or lease's balance "
      "still owed counts as paid in both)";
  extra["break_even"] = std::move(be);
  Json bu = Json::object();
  bu["versus"] = "rent_hourly";
  bu["value"] = c.break_even_utilisation ? Json(*c.break_even_utilisation) : Json();
  extra["break_even_utilisation"] = std::move(bu);
  extra["cheapest"] = c.cheapest.empty() ? Json() : Json(c.cheapest);
  extra["recommendation"] = c.recommendation;
  extra["deciding_input"] = c.deciding_input;
  if (c.spot_overhead) {
    Json sp = Json::object();
    const SpotOverhead& ov = *c.spot_overhead;
    sp["checkpoint_interval_minutes"] = std::isfinite(ov.interval.count()) ? Json(ov.interval.count() / 60) : Json();
    sp["interval_is_young_daly_optimum"] = ov.optimal;
    // Null: beyond any number (Daly's e^((R + τ + C)/M) overflows); spot is then left out.
    sp["wall_time_per_work_time"] = std::isfinite(ov.wall_per_work) ? Json(ov.wall_per_work) : Json();
    sp["checkpoint_share"] = ov.checkpoint_share;
    sp["lost_share"] = ov.lost_share;
    extra["spot"] = std::move(sp);
  }
  extra["vat"] = vat_json(c);
  extra["fx_rates_used"] = rs.fx_used;
  if (const Workload& w = rs.scenario.workload; !w.serving.empty()) {
    Json sv = Json::object();
    sv["file"] = w.serving;
    sv["busy_share"] = w.serving_share;
    sv["rented_monthly"] = w.serving_rented ? Json(w.serving_rented->units()) : Json();
    extra["serving"] = std::move(sv);
  }
  return extra;
}

std::optional<std::string> spot_note(const Comparison& c) {
  if (!c.spot_overhead) return std::nullopt;
  const SpotOverhead& ov = *c.spot_overhead;
  if (!std::isfinite(ov.interval.count())) return std::nullopt;
  if (!std::isfinite(ov.wall_per_work))
    return trf(
        "Spot: {:g} interruption(s) a day per instance × {} instance(s); checkpoint every {:.0f} min ({}): the "
        "expected "
        "wall time is beyond any number (restart and checkpoint stretches hundreds of times the time between "
        "interruptions), so spot never finishes the work.",
        c.scenario.spot->interruptions.interruptions_per_hour * 24,
        instances_for(c.scenario.workload.gpus, c.scenario.spot->rent.gpus_per_instance), ov.interval.count() / 60,
        ov.optimal ? tr("Daly's optimum") : tr("as given"));
  return trf(
      "Spot: {:g} interruption(s) a day per instance × {} instance(s); checkpoint every {:.0f} min ({}), wall time "
      "{:.3f}× the work ({:.1f}% writing checkpoints, {:.1f}% lost to interruptions).",
      c.scenario.spot->interruptions.interruptions_per_hour * 24,
      instances_for(c.scenario.workload.gpus, c.scenario.spot->rent.gpus_per_instance), ov.interval.count() / 60,
      ov.optimal ? tr("Daly's optimum") : tr("as given"), ov.wall_per_work, ov.checkpoint_share * 100,
      ov.lost_share * 100);
}

// What may make the answer wrong goes to stderr too, whatever the format.
void compare_notes(Report& rep, const ResolvedScenario& rs, const Comparison& c, const CompareQuery& q,
                   const Context& ctx) {
  rep.notes.push_back(c.recommendation);
  for (const std::string& n : rs.scenario.workload.serving_notes) rep.notes.push_back("workload.serving: " + n);
  for (const OptionResult& o : c.options)
    for (const auto& n : o.notes) rep.notes.push_back(trf("{}: {}", tr(o.key), n));
  if (c.break_even_utilisation)
    rep.notes.push_back(
        trf("Break-even utilisation (buy = rent by the hour, by NPV): {:.1f}%.", *c.break_even_utilisation * 100));
  if (auto n = spot_note(c)) rep.notes.push_back(std::move(*n));
  const VatInputs& v = c.scenario.vat;
  rep.notes.push_back(trf("VAT ({:g}% goods, {:g}% rent, {:g}% services; prices {} VAT): {}.", v.goods * 100,
                          v.rent * 100, v.services * 100, v.prices_include_vat ? tr("given with") : tr("taken without"),
                          v.recoverable ? tr("recoverable, so not in the totals (column VAT)")
                                        : tr("not recoverable, so in every total as a line")));
  rep.notes.push_back(trf("Scenario: {}. {}", rs.source, ctx.catalog_note()));
  for (const auto& n : rs.fx_notes) rep.notes.push_back(n);
  if (!q.defaults) add_defaults_notes(rep, rs.defaults_used);
  if (!q.monthly)
    rep.notes.push_back(
        std::string(tr("Month by month: --monthly (cash flow, owning's schedule); every item of every month: "
                       "--breakdown. Every input: --format json.")));
}

}  // namespace

namespace {
// A default read from another market's record (a 2020 CN salary for a US team)
// is weak evidence there: markets differ by up to about 3× in salaries, prices
// and delivery times (a ratio such as PUE differs far less: not tested). When a
// third or three times it changes the cheapest option, that default decides the
// answer, and stderr says so.
void foreign_default_warnings(Report& rep, const ResolvedScenario& rs, const Comparison& c) {
  // The words scenario_fields.cc puts before the record's region, in the language in use.
  const std::string marked = trf(", from region {}, not {}", "\x01", "\x02");
  const std::string mark = marked.substr(0, marked.find('\x01'));
  std::vector<const DefaultUsed*> foreign;
  for (const DefaultUsed& d : rs.defaults)
    if (d.why.find(mark) != std::string::npos) foreign.push_back(&d);
  if (foreign.empty() || c.cheapest.empty()) return;
  const ScenarioSubject subject = scenario_subject(rs.scenario);
  for (const DefaultUsed* d : foreign) {
    const auto it = std::find_if(subject.inputs.begin(), subject.inputs.end(),
                                 [&](const SensitivityInput& in) { return in.name == d->field; });
    if (it == subject.inputs.end() || !(it->base > 0)) continue;
    if (it->kind != ValueKind::kMoney && it->kind != ValueKind::kDuration) continue;
    for (const double factor : {1.0 / 3, 3.0}) {
      double v = std::clamp(it->base * factor, it->min, it->max);
      if (it->whole) v = std::round(v);
      const SensitivityOutcome o = subject.evaluate(static_cast<std::size_t>(it - subject.inputs.begin()), v);
      if (o.decision.empty() || o.decision == c.cheapest) continue;
      const std::string_view why(d->why);
      std::string_view region = why.substr(why.find(mark) + mark.size());  // "CN, not US"
      region = region.substr(0, region.find_first_of(");"));
      rep.warnings.push_back(trf("{} was not given and its default, {}, is another market's figure (region {}); at {} the "
                                 "cheapest option is {}, not {}: it decides the answer, so give {} for yours",
                                 d->field, d->value, region,
                                 it->kind == ValueKind::kMoney
                                     ? fmt::format("{} {}", format_value(it->kind, v), rs.scenario.currency.code())
                                     : format_value(it->kind, v),
                                 o.decision, c.cheapest, d->field));
      break;
    }
  }
}
}  // namespace

void compare_warnings(Report& rep, const Comparison& c, const Catalog& catalog) {
  if (c.cheapest.empty() || c.options.size() == 1) rep.warnings.push_back(c.recommendation);
  // Buying or renting what the market restricts (export controls) is not plain: said, with the source.
  for (AvailabilityCaveat& caveat : availability_caveats(catalog, c.scenario)) {
    rep.warnings.push_back(std::move(caveat.warning));
    if (caveat.status == Availability::kRestricted && !c.scenario.exclude_restricted)
      caveat.source_note += tr(" --set exclude_restricted=true leaves it out of the decision.");
    rep.notes.push_back(std::move(caveat.source_note));
  }
  for (const std::string& n : c.options.front().warnings) rep.warnings.push_back(trf("{}: {}", tr("buy"), n));
}

Report compare_report(const Context& ctx, const CompareQuery& q) {
  if (q.scenario_files.size() > 1) return compare_scenarios_report(ctx, q);
  const std::string file = q.scenario_files.empty() ? q.scenario_file : q.scenario_files.front();
  ResolvedScenario rs = load_scenario(file, q.sets, ctx);
  Comparison c;
  try {
    c = compare(rs.scenario);
  } catch (const std::invalid_argument& e) {
    // Inputs that pass every field check but overflow the model (amounts past 9.2e12).
    throw InputError(SourceLocation{file.empty() ? "<defaults>" : file}, "", e.what());
  }
  const Currency currency = rs.scenario.currency;
  Report rep;
  rep.command = "compare";
  rep.currency = currency;
  rep.title = trf("Buy vs rent over {} months, {}: {}", rs.scenario.horizon_months, currency.code(), rs.scenario.name);
  // A section that will not be printed stays an empty hidden table, so `primary` still counts right.
  const auto unless = [&](bool shown, auto make) {
    if (shown || q.every_section) return make();
    Table hidden;
    hidden.text = false;
    return hidden;
  };
  rep.tables = tables_of(
      options_table(c, currency), breakdown_table(c, currency),
      unless(q.monthly, [&] { return cash_flow_table(c, currency, q.monthly); }),
      unless(q.monthly, [&] { return own_schedule_table(c, currency, q.monthly); }),
      unless(q.breakdown, [&] { return monthly_breakdown_table(c, currency, q.breakdown); }),
      unless(q.defaults, [&] { return defaults_table(rs, q.defaults); }));
  if (q.monthly) rep.primary = 2;
  if (q.breakdown) rep.primary = 4;
  if (q.defaults) rep.primary = 5;
  if (q.chart) rep.figures.push_back(cumulative_chart(c));
  if (q.every_section) {
    rep.charts.push_back(cumulative_cost_chart(c));
    rep.charts.push_back(breakdown_chart(c));
  }
  Json in = ctx.echo();
  append(in, rs.inputs);
  in["set"] = Json::strings(q.sets);
  rep.inputs = std::move(in);
  rep.extra = compare_extra(rs, c);
  compare_notes(rep, rs, c, q, ctx);
  compare_warnings(rep, c, ctx.catalog());
  foreign_default_warnings(rep, rs, c);
  // Last, so the inputs and results move into it rather than being copied.
  rep.xlsx = [rs = std::move(rs), c = std::move(c)] {
    // The workbook rebuilds every item with formulas; a served model is not one of them yet.
    if (!rs.scenario.workload.serving.empty())
      throw InputError(
          SourceLocation{"--format xlsx"}, "workload.serving",
          std::string(tr("the compare workbook does not model a served model yet: use --format csv or json")));
    return compare_workbook(rs, c);
  };
  return rep;
}

}  // namespace gpuplan
