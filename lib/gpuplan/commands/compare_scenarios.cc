// `gpuplan compare A.yaml B.yaml C.yaml`: several scenarios side by side —
// "buy 8×A100" against "rent H800 monthly" against "hybrid" — in one table of
// every scenario's options, the cheapest overall, and what each scenario's own
// best costs beyond it. Each scenario is compared exactly as `compare FILE`
// would (compare.cc); this only sets the results beside each other.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuplan/i18n.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/error.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {
namespace {

struct Compared {
  ResolvedScenario rs{};
  Comparison c{};
  const OptionResult* best = nullptr;  ///< the scenario's cheapest (lowest NPV); none when nothing can run
};

std::string amount(Money m) { return fmt::format("{} {}", to_pretty_string(m.rounded(), 0), m.currency().code()); }

Money npv_money(double npv, Currency currency) { return Money::from_micros(std::llround(npv * 1e6), currency); }

Compared compare_one(const std::string& file, const CompareQuery& q, const Context& ctx) {
  Compared x{load_scenario(file, q.sets, ctx), {}, nullptr};
  try {
    x.c = compare(x.rs.scenario);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{file}, "", e.what());
  }
  return x;
}

// Each scenario's cheapest, pointed at once the scenarios stay where they are.
void point_at_best(std::vector<Compared>& all) {
  for (Compared& x : all)
    for (const OptionResult& o : x.c.options)
      if (o.key == x.c.cheapest) x.best = &o;
}

// One currency for all, or the amounts would not compare: refused, naming the file that differs.
void same_currency(const std::vector<Compared>& all) {
  for (const Compared& x : all)
    if (x.rs.scenario.currency != all.front().rs.scenario.currency)
      throw InputError(
          SourceLocation{x.rs.source}, "currency",
          trf("is {}, and {} is in {}: give --currency to compare them in one", x.rs.scenario.currency.code(),
              all.front().rs.source, all.front().rs.scenario.currency.code()));
}

// The work each scenario's cheapest option does: GPU-hours used, within 1%.
bool same_work(const std::vector<Compared>& all) {
  double lo = 1e300, hi = 0;
  for (const Compared& x : all)
    if (x.best) {
      lo = std::min(lo, x.best->used_gpu_hours);
      hi = std::max(hi, x.best->used_gpu_hours);
    }
  return !(hi > lo * 1.01);
}

bool same_horizon(const std::vector<Compared>& all) {
  return std::all_of(all.begin(), all.end(), [&](const Compared& x) {
    return x.rs.scenario.horizon_months == all.front().rs.scenario.horizon_months;
  });
}

// What ranks scenarios: NPV, or NPV a month when their horizons differ (a
// longer horizon costs more in total without being dearer).
double rank(const Compared& x, const OptionResult& o, bool per_month) {
  return per_month ? o.npv / x.rs.scenario.horizon_months : o.npv;
}

const Compared* overall_best(const std::vector<Compared>& all, bool per_month) {
  const Compared* best = nullptr;
  for (const Compared& x : all)
    if (x.best && (!best || rank(x, *x.best, per_month) < rank(*best, *best->best, per_month))) best = &x;
  return best;
}

Table scenarios_table(const std::vector<Compared>& all, const Compared* best, bool per_month, Currency cur) {
  const std::string CUR(cur.code());
  const int cents = cur.minor_digits();
  Table t;
  t.name = "scenarios";
  t.currency = cur;
  t.lead = {"scenario", "option"};
  t.columns = {{"scenario", tr_noop("scenario")},
               {"file", tr_noop("file"), 0, false},
               {.key = "option", .label = tr_noop("option"), .words = true},
               {"label", tr_noop("described"), 0, false},
               {"horizon_months", tr_noop("months")},
               {"total", tr_noop("total") + (" " + CUR), cents},
               {"npv", tr_noop("NPV") + (" " + CUR), cents},
               {"npv_per_month", tr_noop("NPV/month") + (" " + CUR), cents},
               {per_month ? "over_cheapest_per_month" : "over_cheapest",
                std::string(per_month ? tr_noop("over best/month") : tr_noop("over best")) + " " + CUR, cents},
               {"used_gpu_hours", tr_noop("GPU-h used"), 0},
               {"cheapest_in_scenario", tr_noop("best here"), 0},
               {"cheapest_overall", tr_noop("best of all"), 0},
               {"notes", tr_noop("notes"), 0, false}};  // why an option cannot be the cheapest, among others
  for (const Compared& x : all)
    for (const OptionResult& o : x.c.options) {
      const int h = x.rs.scenario.horizon_months;
      // An option left out of its scenario's decision is not measured against the best.
      Cell over{};
      if (best && o.available) over = npv_money(rank(x, o, per_month) - rank(*best, *best->best, per_month), cur);
      std::string notes;
      for (const std::string& n : o.notes) notes += (notes.empty() ? "" : std::string(tr("; "))) + n;
      t.add_row({x.rs.scenario.name, x.rs.source, o.key, o.label, static_cast<std::int64_t>(h), o.total,
                 npv_money(o.npv, cur), npv_money(o.npv / h, cur), over, o.used_gpu_hours, &o == x.best,
                 best && &o == best->best, notes.empty() ? Cell{} : Cell{notes}});
    }
  return t;
}

// Each scenario's own best against the best of all.
Table differences_table(const std::vector<Compared>& all, const Compared* best, bool per_month, Currency cur) {
  const std::string CUR(cur.code());
  const int cents = cur.minor_digits();
  Table t;
  t.name = "scenario_best";
  t.title = per_month ? tr_noop(
                            "Each scenario's cheapest option against the cheapest of all (NPV a month: the "
                            "horizons differ)")
                      : tr_noop("Each scenario's cheapest option against the cheapest of all (NPV)");
  t.currency = cur;
  t.columns = {{"scenario", tr_noop("scenario")},
               {.key = "cheapest", .label = tr_noop("its cheapest"), .words = true},
               {"npv", tr_noop("NPV") + (" " + CUR), cents},
               {"npv_per_month", tr_noop("NPV/month") + (" " + CUR), cents},
               {per_month ? "over_cheapest_per_month" : "over_cheapest",
                std::string(per_month ? tr_noop("over the best/month") : tr_noop("over the best")) + " " + CUR, cents},
               {"over_cheapest_pct", tr_noop("% over the best"), 1}};
  for (const Compared& x : all) {
    if (!x.best) {
      t.add_row({x.rs.scenario.name, std::string(tr_noop("none can run")), Cell{}, Cell{}, Cell{}, Cell{}});
      continue;
    }
    const double mine = rank(x, *x.best, per_month), theirs = rank(*best, *best->best, per_month);
    t.add_row({x.rs.scenario.name, x.best->key, npv_money(x.best->npv, cur),
               npv_money(x.best->npv / x.rs.scenario.horizon_months, cur), npv_money(mine - theirs, cur),
               theirs > 0 ? Cell{(mine / theirs - 1) * 100} : Cell{}});
  }
  return t;
}

void scenario_notes(Report& rep, const std::vector<Compared>& all, const Compared* best, bool per_month,
                    const CompareQuery& q, const Context& ctx) {
  if (best) {
    const Currency cur = best->rs.scenario.currency;
    const int h = best->rs.scenario.horizon_months;
    const std::string npv = amount(npv_money(best->best->npv, cur)),
                      monthly = amount(npv_money(best->best->npv / h, cur));
    rep.notes.push_back(
        per_month ? trf("Cheapest of all by NPV a month (the horizons differ): {} in {} ({}), NPV {} over {} months "
                        "({} a month).",
                        best->best->label, best->rs.scenario.name, best->rs.source, npv, h, monthly)
                  : trf("Cheapest of all by NPV: {} in {} ({}), NPV {} over {} months ({} a month).", best->best->label,
                        best->rs.scenario.name, best->rs.source, npv, h, monthly));
  } else rep.notes.push_back(std::string(tr("No scenario has an option that can run within its horizon.")));
  for (const Compared& x : all) {
    rep.notes.push_back(trf("{}: {}", x.rs.scenario.name, x.c.recommendation));
    // Why an option of the table has no figure against the best: it cannot be chosen.
    for (const OptionResult& o : x.c.options)
      if (!o.available)
        rep.notes.push_back(
            trf("{}: {} is out of the decision ({}).", x.rs.scenario.name, o.key, fmt::join(o.notes, tr("; "))));
  }
  if (!q.sets.empty()) rep.notes.push_back(trf("--set applies to every scenario ({}).", fmt::join(q.sets, ", ")));
  rep.notes.push_back(
      trf("Each scenario alone, with its breakdown, cash flow and workbook of formulas: gpuplan compare FILE. "
          "{}",
          ctx.catalog_note()));
  std::vector<std::string> lines;
  for (const Compared& x : all)
    for (const std::string& d : x.rs.defaults_used) lines.push_back(x.rs.scenario.name + ": " + d);
  add_defaults_notes(rep, lines);
}

// The two tables as values (each scenario's own workbook holds the formulas).
std::string scenarios_workbook(const Report& rep, Currency cur) {
  xlsx::Workbook wb(cur);
  for (const Table& t : rep.tables) {
    xlsx::Sheet& s = wb.add_sheet(t.name == "scenarios" ? "Scenarios" : "Best per scenario");
    s.text(0, 0, t.name == "scenarios" ? rep.title : t.title, xlsx::Style::kTitle);
    s.text(1, 0,
           "Values as gpuplan computed them; each scenario's own workbook (gpuplan compare FILE --format xlsx) "
           "recalculates from its assumptions.",
           xlsx::Style::kNote);
    for (std::size_t j = 0; j < t.columns.size(); ++j) {
      s.text(3, static_cast<int>(j), t.columns[j].label, xlsx::Style::kHeader);
      s.width(static_cast<int>(j), j == 0 || j == 1 ? 30 : 18);
    }
    s.freeze(4);
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      for (std::size_t j = 0; j < t.rows[i].size(); ++j) {
        const int r = static_cast<int>(i) + 4, c = static_cast<int>(j);
        std::visit(
            [&](const auto& v) {
              using T = std::decay_t<decltype(v)>;
              if constexpr (std::is_same_v<T, std::string>) s.text(r, c, v);
              else if constexpr (std::is_same_v<T, std::int64_t>)
                s.number(r, c, static_cast<double>(v), xlsx::Style::kInteger);
              else if constexpr (std::is_same_v<T, double>) s.number(r, c, v);
              else if constexpr (std::is_same_v<T, Money>) s.money(r, c, v);
              else if constexpr (std::is_same_v<T, bool>) s.text(r, c, v ? "yes" : "");
            },
            t.rows[i][j]);
      }
  }
  return wb.bytes();
}

Json scenarios_extra(const std::vector<Compared>& all, const Compared* best) {
  Json extra = Json::object();
  Json list = Json::array();
  for (const Compared& x : all) {
    Json s = Json::object();
    s["name"] = x.rs.scenario.name;
    s["scenario_file"] = x.rs.source;
    s["cheapest"] = x.best ? Json(x.best->key) : Json();
    s["recommendation"] = x.c.recommendation;
    s["inputs"] = x.rs.inputs;
    list.push_back(std::move(s));
  }
  extra["scenario_runs"] = std::move(list);
  if (best) {
    Json b = Json::object();
    b["scenario"] = best->rs.scenario.name;
    b["scenario_file"] = best->rs.source;
    b["option"] = best->best->key;
    extra["cheapest"] = std::move(b);
  } else {
    extra["cheapest"] = Json();
  }
  return extra;
}

// Every priced option of every scenario as a bar of its NPV (a month, when the
// horizons differ), the cheapest of all in a colour of its own.
Chart scenarios_chart(const std::vector<Compared>& all, const Compared* best, bool per_month, Currency cur) {
  Chart c;
  c.kind = Chart::Kind::kBars;
  c.name = "scenario_options";
  c.title = per_month ? tr_noop("Every scenario's options by NPV a month (the horizons differ)")
                      : tr_noop("Every scenario's options by NPV");
  c.x_label = trf("{} ({})", per_month ? tr("NPV a month") : tr("NPV"), cur.code());
  ChartSeries others{std::string(tr("NPV")), {}}, cheapest{std::string(tr("cheapest of all")), {}};
  for (const Compared& x : all)
    for (const OptionResult& o : x.c.options) {
      if (!o.available) continue;  // left out of its decision: no figure, as in the table
      const double row = static_cast<double>(c.categories.size());
      c.categories.push_back(trf("{}: {}", x.rs.scenario.name, tr(o.key)));
      (best && &o == best->best ? cheapest : others).points.emplace_back(row, rank(x, o, per_month));
    }
  c.series = {std::move(others), std::move(cheapest)};
  return c;
}

}  // namespace

Report compare_scenarios_report(const Context& ctx, const CompareQuery& q) {
  std::vector<Compared> all;
  for (const std::string& f : q.scenario_files) all.push_back(compare_one(f, q, ctx));
  point_at_best(all);
  same_currency(all);
  // Rows name their scenario: two of one name are told apart by their files.
  std::vector<std::string> names;
  for (const Compared& x : all) names.push_back(x.rs.scenario.name);
  for (Compared& x : all)
    if (std::count(names.begin(), names.end(), x.rs.scenario.name) > 1) x.rs.scenario.name += " (" + x.rs.source + ")";
  const Currency cur = all.front().rs.scenario.currency;
  const bool per_month = !same_horizon(all);
  const Compared* best = overall_best(all, per_month);
  Report rep;
  rep.command = "compare";
  rep.currency = cur;
  rep.title = trf("Buy vs rent, {} scenarios side by side, {}", all.size(), cur.code());
  rep.tables = tables_of(scenarios_table(all, best, per_month, cur), differences_table(all, best, per_month, cur));
  rep.charts.push_back(scenarios_chart(all, best, per_month, cur));
  Json in = ctx.echo();
  in["scenario_files"] = Json::strings(q.scenario_files);
  in["set"] = Json::strings(q.sets);
  rep.inputs = std::move(in);
  rep.extra = scenarios_extra(all, best);
  for (std::size_t i = 0; i < q.scenario_files.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (q.scenario_files[i] == q.scenario_files[j])
        rep.warnings.push_back(trf("{} is given twice: its rows appear twice", q.scenario_files[i]));
  if (!same_work(all))
    rep.warnings.push_back(std::string(
        tr("the scenarios use different GPU-hours (column GPU-h used): the cheapest of all may simply do less work")));
  if (per_month)
    rep.warnings.push_back(
        std::string(tr("the scenarios span different horizons: they are ranked by NPV a month, not by their totals")));
  scenario_notes(rep, all, best, per_month, q, ctx);
  // Each scenario's own warnings (restricted cards, a buy that cannot be bridged) and their sources, named.
  for (const Compared& x : all) {
    Report one;
    compare_warnings(one, x.c, ctx.catalog());
    for (const std::string& w : one.warnings) rep.warnings.push_back(x.rs.scenario.name + ": " + w);
    for (const std::string& n : one.notes) rep.notes.push_back(x.rs.scenario.name + ": " + n);
  }
  rep.xlsx = [rep, cur] { return scenarios_workbook(rep, cur); };
  return rep;
}

}  // namespace gpuplan
