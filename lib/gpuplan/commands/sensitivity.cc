#include "gpuplan/i18n.h"
#include "gpuplan/commands/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/job_fields.h"
#include "gpuplan/scenario.h"

namespace gpuplan {
namespace {

bool plan_flags_given(const PlanQuery& q) {
  return q.deadline || q.budget || q.max_gpus || q.objective || q.confidence || q.mfu || !q.gpus.empty() ||
         !q.providers.empty() || !q.regions.empty() || q.allow_spot || q.include_buy || q.scaling_file || q.trials ||
         q.seed || q.layout;
}

// A --set of a job file's section ("cluster.gpus=16") makes the built-in subject a job.
bool sets_name_a_job(const std::vector<std::string>& sets) {
  return std::any_of(sets.begin(), sets.end(), [](const std::string& s) {
    for (const Section<ResolvedJob>& section : job_sections())
      if (!section.name.empty() && s.starts_with(std::string(section.name) + ".")) return true;
    return false;
  });
}

}  // namespace

Chart tornado(const Sensitivity& s, const std::string& metric_label, std::size_t rows) {
  Chart c;
  c.kind = Chart::Kind::kTornado;
  c.name = "tornado";
  c.title = trf("What moves the result most: each input at ±{:g}%", s.range * 100);
  c.x_label = trf("change from the base ({}): {}", short_number(s.base.metric.value_or(0)), metric_label);
  ChartSeries low{fmt::format("-{:g}%", s.range * 100), {}}, high{fmt::format("+{:g}%", s.range * 100), {}};
  const double base = s.base.metric.value_or(0);
  for (const Swing& w : s.ranked) {
    if (c.categories.size() == rows) break;
    if (w.swing == 0 && !w.flips) continue;
    const auto row = static_cast<double>(c.categories.size());
    c.categories.push_back(s.inputs[w.input].name + (w.flips ? " (flips)" : ""));
    if (w.low.metric) low.points.emplace_back(row, *w.low.metric - base);
    if (w.high.metric) high.points.emplace_back(row, *w.high.metric - base);
  }
  c.series = {std::move(low), std::move(high)};
  return c;
}

std::string tornado_chart(const Sensitivity& s, const std::string& metric_label, int width, std::size_t rows) {
  const double base = s.base.metric.value_or(0);
  double most = 0;
  std::size_t label_w = 5;
  std::vector<const Swing*> shown;
  for (const Swing& w : s.ranked) {
    if (shown.size() == rows) break;
    if (w.swing == 0 && !w.flips) continue;
    shown.push_back(&w);
    label_w = std::max(label_w, s.inputs[w.input].name.size());
    for (const auto& m : {w.low.metric, w.high.metric})
      if (m) most = std::max(most, std::abs(*m - base));
  }
  if (shown.empty()) return "";
  label_w = std::min<std::size_t>(label_w, 32);
  const int half = std::max(8, (width - static_cast<int>(label_w) - 2 - 8) / 2);  // room for " flips"
  const auto pos = [&](double m) { return most > 0 ? static_cast<int>(std::lround((m - base) / most * half)) : 0; };
  std::string out = trf("Tornado: {} with each input at -{:g}% ('-') and +{:g}% ('+'); '|' is the base ({})\n",
                        metric_label, s.range * 100, s.range * 100, short_number(base));
  // Axis labels: the largest change either way.
  // Padded by display width: "-46.8万" takes six columns in seven bytes.
  const std::string left = short_number(-most), right = "+" + short_number(most);
  const auto pad = [&](const std::string& label) {
    return std::string(static_cast<std::size_t>(half) - std::min(display_width(label), static_cast<std::size_t>(half)),
                       ' ');
  };
  const std::string axis = left + pad(left) + "0" + pad(right) + right;
  out += fmt::format("{:<{}}  {}\n", "", label_w, axis);
  for (const Swing* w : shown) {
    std::string bar(static_cast<std::size_t>(2 * half + 1), ' ');
    const auto draw = [&](const std::optional<double>& m, char c) {
      if (!m) return;
      const int p = pos(*m);
      for (int k = std::min(0, p); k <= std::max(0, p); ++k) bar[static_cast<std::size_t>(half + k)] = c;
    };
    // The longer side first, so that the shorter stays visible where they overlap.
    const int dl = w->low.metric ? std::abs(pos(*w->low.metric)) : 0,
              dh = w->high.metric ? std::abs(pos(*w->high.metric)) : 0;
    if (dl >= dh) draw(w->low.metric, '-'), draw(w->high.metric, '+');
    else draw(w->high.metric, '+'), draw(w->low.metric, '-');
    bar[static_cast<std::size_t>(half)] = '|';
    std::string name = s.inputs[w->input].name;
    if (name.size() > label_w) name = name.substr(0, label_w - 1) + "~";
    std::string line = fmt::format("{:<{}}  {}", name, label_w, bar);
    if (!w->low.metric || !w->high.metric) line += " nothing feasible at one end";
    else if (w->flips) line += " flips";
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

namespace {

double parse_range(const SensitivityQuery& q) {
  if (!q.range) return 0.2;
  try {
    const double range = parse_share(*q.range);
    if (!(range > 0 && range < 1)) throw std::invalid_argument(trf("{} is outside (0%, 100%)", *q.range));
    return range;
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{trf("--range {}", *q.range)}, "", e.what());
  }
}

// What is analysed: a scenario (buy vs rent) or a job (its plan), with how to name its metric.
struct Subject {
  bool job = false;
  ScenarioSubject inputs{};
  std::string metric_key{}, metric_label{}, name{}, decision_what{}, source{};
  std::vector<std::string> defaults{}, fx_notes{};
  std::vector<std::string> warnings{};  ///< what may make the answer wrong (a restricted purchase)
  Json echo{};
  Currency currency = kCny;
};

// `fx` outlives the analysis: the job's evaluator converts prices with it.
Subject job_subject_of(const Context& ctx, const SensitivityQuery& q, const CurrencyConverter& fx) {
  PlanQuery pq = q.plan;
  pq.job_file = q.file;
  const ResolvedPlan rp = resolve_plan(ctx, pq);
  Subject sub;
  sub.job = true;
  sub.inputs = job_subject(rp.job, rp.inputs, ctx.catalog(), fx);
  const bool time = rp.inputs.objective == Objective::kTime;
  sub.metric_key = time ? "finish_hours" : "cost";
  sub.metric_label = time ? std::string(tr("the recommended plan's time to finish (hours)"))
                          : trf("the recommended plan's cost ({})", ctx.currency.code());
  sub.name = rp.inputs.job.name.empty() ? rp.source : rp.inputs.job.name;
  sub.decision_what = tr_noop("the recommended GPU, provider and billing mode");
  sub.source = rp.source;
  sub.defaults = rp.defaults_used;
  sub.echo = ctx.echo();
  append(sub.echo, rp.echo);
  sub.currency = ctx.currency;
  return sub;
}

Subject scenario_subject_of(const Context& ctx, const SensitivityQuery& q) {
  const ResolvedScenario rs = load_scenario(q.file, q.plan.sets, ctx);
  Subject sub;
  sub.currency = rs.scenario.currency;
  sub.inputs = scenario_subject(rs.scenario);
  sub.metric_key = "lead_npv";
  sub.metric_label = trf("NPV of {} (cheapest at the base) minus the next cheapest option ({})",
                         sub.inputs.winner.empty() ? tr("the option") : tr(sub.inputs.winner), sub.currency.code());
  sub.name = rs.scenario.name;
  sub.decision_what = tr_noop("the cheapest option");
  sub.source = rs.source;
  sub.defaults = rs.defaults_used;
  sub.fx_notes = rs.fx_notes;
  sub.echo = ctx.echo();
  append(sub.echo, rs.inputs);
  for (AvailabilityCaveat& caveat : availability_caveats(ctx.catalog(), rs.scenario)) {
    sub.warnings.push_back(std::move(caveat.warning));
    sub.fx_notes.push_back(std::move(caveat.source_note));
  }
  for (const Scenario::Exclusion& x : rs.scenario.excluded)
    sub.fx_notes.push_back(
        trf("{}: left out of the decision at every value, so its inputs move nothing: {}", x.option, x.why));
  return sub;
}

constexpr int kDigits = 2;  // money to the cent, hours to 0.01 h

Table ranking_table(const Sensitivity& s, const Subject& sub, double range) {
  Table t;
  t.name = "ranking";  // not "inputs": that key holds the echoed inputs
  const std::string& key = sub.metric_key;
  if (key != "finish_hours") t.currency = sub.currency;
  t.columns = {{"rank", tr_noop("#")},
               {"input", tr_noop("input")},
               {"base", tr_noop("base")},
               {"low", "-" + fmt::format("{:g}%", range * 100)},
               {"high", "+" + fmt::format("{:g}%", range * 100)},
               {key + "_low", tr_noop("metric at -"), kDigits},
               {key + "_high", tr_noop("metric at +"), kDigits},
               {"swing", tr_noop("swing"), kDigits},
               {"decision_low", tr_noop("decision at -"), 0, false},
               {"decision_high", tr_noop("decision at +"), 0, false},
               {"flips", tr_noop("flips")},
               {"flips_at", tr_noop("flips at")},
               {"unit", tr_noop("unit"), 0, false},
               {"base_value", tr_noop("base value"), -10, false},
               {"low_value", tr_noop("low value"), -10, false},
               {"high_value", tr_noop("high value"), -10, false},
               {"flip_value", tr_noop("flip value"), -10, false}};
  std::int64_t rank = 0;
  for (const Swing& w : s.ranked) {
    const SensitivityInput& in = s.inputs[w.input];
    const auto metric = [](const SensitivityOutcome& o) { return o.metric ? Cell{*o.metric} : Cell{}; };
    t.add_row({++rank, in.name, format_value(in.kind, in.base), format_value(in.kind, w.low_value),
               format_value(in.kind, w.high_value), metric(w.low), metric(w.high),
               std::isfinite(w.swing) ? Cell{w.swing} : Cell{}, w.low.decision, w.high.decision, w.flips,
               w.flip_value ? Cell{format_value(in.kind, *w.flip_value)} : Cell{}, value_unit(in.kind, sub.currency),
               in.base, w.low_value, w.high_value, w.flip_value ? Cell{*w.flip_value} : Cell{}});
  }
  return t;
}

Json sensitivity_extra(const Sensitivity& s, const Subject& sub, double range) {
  Json ex = Json::object();
  ex["metric"] = sub.metric_key;
  ex["range"] = range;
  ex["base_metric"] = s.base.metric ? Json(*s.base.metric) : Json();
  ex["base_decision"] = s.base.decision;
  Json flips = Json::array();
  for (const Swing& w : s.ranked)
    if (w.flips) flips.push_back(s.inputs[w.input].name);
  ex["flips"] = std::move(flips);
  ex["not_varied"] = Json::strings(s.not_varied);
  return ex;
}

// The inputs whose low or high value is not base × (1 ± range), because they
// are whole numbers or reach a bound, with the change they really got: the
// table's column headings say ±range for every row.
std::string moved_otherwise(const Sensitivity& s, double range) {
  std::vector<std::string> off;
  for (const Swing& w : s.ranked) {
    const SensitivityInput& in = s.inputs[w.input];
    if (in.spread > 0 || in.base == 0) continue;  // trends move by points, said in the metric note
    const double low = w.low_value / in.base - 1, high = w.high_value / in.base - 1;
    if (std::abs(low + range) < 1e-3 && std::abs(high - range) < 1e-3) continue;
    const bool bound = w.low_value <= in.min || w.high_value >= in.max;
    off.push_back(trf("{} {} and {} ({:+.1f}%, {:+.1f}%: {})", in.name, format_value(in.kind, w.low_value),
                      format_value(in.kind, w.high_value), low * 100, high * 100,
                      bound ? tr("held within its allowed range") : tr("rounded to a whole number")));
  }
  return fmt::format("{}", fmt::join(off, tr("; ")));
}

void sensitivity_notes(Report& rep, const Sensitivity& s, const Subject& sub, double range, const Context& ctx,
                       const std::optional<CurrencyConverter>& fx) {
  rep.notes.push_back(trf("Base: {} = {}; decision ({}): {}.", sub.metric_label,
                          s.base.metric ? group_thousands(fmt::format("{:.{}f}", *s.base.metric, kDigits)) : "none",
                          tr(sub.decision_what), tr(s.base.decision)));
  std::vector<std::string> flipping;
  for (const Swing& w : s.ranked)
    if (w.flips && w.flip_value)
      flipping.push_back(trf("{} at {} (base {})", s.inputs[w.input].name,
                             format_value(s.inputs[w.input].kind, *w.flip_value),
                             format_value(s.inputs[w.input].kind, s.inputs[w.input].base)));
  if (flipping.empty()) rep.notes.push_back(trf("No input flips the decision within ±{:g}%.", range * 100));
  else rep.notes.push_back(trf("Flip the decision within ±{:g}%: {}.", range * 100, fmt::join(flipping, tr("; "))));
  if (!sub.job)
    rep.notes.push_back(std::string(
        tr("Metric: NPV of the option cheapest at the base minus the NPV of the next cheapest; below zero, it "
           "stays cheapest. An input with no swing does not move that lead (it may still move other options). "
           "Swing = |metric at +range − metric at −range|; one input moves at a time; a trend moves by ±10 "
           "points.")));
  else
    rep.notes.push_back(
        std::string(tr("Each variation reruns the whole plan search; swing = |metric at +range − metric at −range|; "
                       "one input moves at a time.")));
  if (const std::string off = moved_otherwise(s, range); !off.empty())
    rep.notes.push_back(trf("Moved by other than ±{:g}%: {}.", range * 100, off));
  if (!s.not_varied.empty())
    rep.notes.push_back(trf("Not varied (zero in the base case): {}.", fmt::join(s.not_varied, ", ")));
  rep.notes.push_back(trf("{}: {}. {}", sub.job ? tr("Job") : tr("Scenario"), sub.source, ctx.catalog_note()));
  for (const auto& w : sub.warnings) rep.warnings.push_back(w);
  if (fx)
    for (auto& n : fx->notes()) rep.notes.push_back(std::move(n));
  for (const auto& n : sub.fx_notes) rep.notes.push_back(n);
  add_defaults_notes(rep, sub.defaults);
}

}  // namespace

SensitivityReport sensitivity_report(const Context& ctx, const SensitivityQuery& q) {
  const double range = parse_range(q);
  const bool job = q.file.empty() ? plan_flags_given(q.plan) || sets_name_a_job(q.plan.sets) : is_job_file(q.file);
  if (!job && plan_flags_given(q.plan))
    throw UsageError(std::string(
        tr("--deadline, --budget and the other plan flags apply to a job file, not a buy-vs-rent scenario")));
  std::optional<CurrencyConverter> fx;
  if (job) fx.emplace(ctx.catalog(), ctx.currency);
  const Subject sub = job ? job_subject_of(ctx, q, *fx) : scenario_subject_of(ctx, q);
  Sensitivity s;
  try {
    s = analyse(sub.inputs.inputs, sub.inputs.evaluate, range);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{q.file.empty() ? "<defaults>" : q.file}, "", e.what());
  }
  SensitivityReport out;
  out.feasible = s.base.metric.has_value();
  Report& rep = out.report;
  rep.command = "sensitivity";
  rep.currency = sub.currency;
  rep.title = trf("Sensitivity: {}, each input ±{:g}%", sub.name, range * 100);
  rep.tables.push_back(ranking_table(s, sub, range));
  if (const std::string chart = tornado_chart(s, sub.metric_label); !chart.empty()) rep.figures.push_back(chart);
  if (Chart c = tornado(s, sub.metric_label, 15); !c.categories.empty()) rep.charts.push_back(std::move(c));
  rep.inputs = sub.echo;
  rep.extra = sensitivity_extra(s, sub, range);
  sensitivity_notes(rep, s, sub, range, ctx, fx);
  if (!out.feasible)
    rep.notes.insert(rep.notes.begin(),
                     "Nothing is feasible at the base, so there is no metric to vary (exit 4): "
                     "run plan (or compare) on the same file to see the nearest misses.");
  return out;
}

}  // namespace gpuplan
