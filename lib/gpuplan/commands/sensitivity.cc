#include "gpuplan/commands/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/scenario.h"

namespace gpuplan {
namespace {

bool plan_flags_given(const PlanQuery& q) {
  return q.deadline || q.budget || q.max_gpus || q.objective || q.confidence || q.mfu || !q.gpus.empty() ||
         !q.providers.empty() || !q.regions.empty() || q.allow_spot || q.include_buy || q.scaling_file || q.trials ||
         q.seed;
}

bool sets_name_a_job(const std::vector<std::string>& sets) {
  return std::any_of(sets.begin(), sets.end(), [](const std::string& s) {
    for (const char* p : {"job.", "cluster.", "data.", "checkpoint.", "cost.", "plan."})
      if (s.starts_with(p)) return true;
    return false;
  });
}

std::string short_number(double v) {
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.3g}B", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  if (a >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3g}", v);
}

}  // namespace

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
  const auto pos = [&](double m) {
    return most > 0 ? static_cast<int>(std::lround((m - base) / most * half)) : 0;
  };
  std::string out = fmt::format("Tornado: {} with each input at -{:g}% ('-') and +{:g}% ('+'); '|' is the base ({})\n",
                                metric_label, s.range * 100, s.range * 100, short_number(base));
  // Axis labels: the largest change either way.
  std::string axis(static_cast<std::size_t>(2 * half + 1), ' ');
  const std::string left = short_number(-most), right = "+" + short_number(most);
  axis.replace(0, left.size(), left);
  axis[static_cast<std::size_t>(half)] = '0';
  axis.replace(axis.size() - right.size(), right.size(), right);
  out += fmt::format("{:<{}}  {}\n", "", label_w, axis);
  for (const Swing* w : shown) {
    std::string bar(static_cast<std::size_t>(2 * half + 1), ' ');
    const auto draw = [&](const std::optional<double>& m, char c) {
      if (!m) return;
      const int p = pos(*m);
      for (int k = std::min(0, p); k <= std::max(0, p); ++k) bar[static_cast<std::size_t>(half + k)] = c;
    };
    // The longer side first, so that the shorter stays visible where they overlap.
    const int dl = w->low.metric ? std::abs(pos(*w->low.metric)) : 0, dh = w->high.metric ? std::abs(pos(*w->high.metric)) : 0;
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

Report sensitivity_report(const Context& ctx, const SensitivityQuery& q) {
  double range = 0.2;
  if (q.range) {
    try {
      range = parse_share(*q.range);
      if (!(range > 0 && range < 1)) throw std::invalid_argument(fmt::format("{} is outside (0%, 100%)", *q.range));
    } catch (const std::invalid_argument& e) {
      throw InputError(SourceLocation{fmt::format("--range {}", *q.range)}, "", e.what());
    }
  }
  const bool job = q.file.empty() ? plan_flags_given(q.plan) || sets_name_a_job(q.plan.sets) : is_job_file(q.file);
  if (!job && plan_flags_given(q.plan))
    throw UsageError("--deadline, --budget and the other plan flags apply to a job file, not a buy-vs-rent scenario");
  const std::string cur = ctx.currency.lower();
  const std::string CUR(ctx.currency.code());

  Report rep;
  rep.command = "sensitivity";
  std::string metric_key, metric_label, subject, decision_what;
  std::vector<std::string> defaults;
  Json echo = ctx.echo();
  std::optional<CurrencyConverter> fx;
  ScenarioSubject subj;
  Currency currency = ctx.currency;
  std::optional<ResolvedScenario> rs;
  std::optional<ResolvedPlan> rp;
  if (job) {
    PlanQuery pq = q.plan;
    pq.job_file = q.file;
    rp = resolve_plan(ctx, pq);
    fx.emplace(ctx.catalog(), ctx.currency);
    subj = job_subject(rp->inputs, ctx.catalog(), *fx);
    const bool time = rp->inputs.objective == Objective::kTime;
    metric_key = time ? "finish_hours" : "cost_" + cur;
    metric_label = time ? "the recommended plan's time to finish (hours)" : "the recommended plan's cost (" + CUR + ")";
    subject = rp->inputs.job.name.empty() ? rp->source : rp->inputs.job.name;
    decision_what = "the recommended GPU, provider and billing mode";
    defaults = rp->defaults_used;
    if (const auto* o = rp->echo.as_object())
      for (const auto& [k, v] : *o) echo[k] = v;
  } else {
    rs = load_scenario(q.file, q.plan.sets, ctx);
    currency = rs->scenario.currency;
    subj = scenario_subject(rs->scenario);
    metric_key = "buy_minus_rent_npv_" + currency.lower();
    metric_label = fmt::format("NPV of buying minus the cheapest rental ({})", currency.code());
    subject = rs->scenario.name;
    decision_what = "the cheapest option";
    defaults = rs->defaults_used;
    if (const auto* o = rs->inputs.as_object())
      for (const auto& [k, v] : *o) echo[k] = v;
  }
  Sensitivity s;
  try {
    s = analyse(subj.inputs, subj.evaluate, range);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{q.file.empty() ? "<defaults>" : q.file}, "", e.what());
  }
  rep.title = fmt::format("Sensitivity: {}, each input ±{:g}%", subject, range * 100);

  Table t;
  t.name = "ranking";  // not "inputs": that key holds the echoed inputs
  const int digits = 2;  // money to the cent, hours to 0.01 h
  t.columns = {{"rank", "#"},
               {"input", "input"},
               {"base", "base"},
               {"low", "-" + fmt::format("{:g}%", range * 100)},
               {"high", "+" + fmt::format("{:g}%", range * 100)},
               {metric_key + "_low", "metric at -", digits},
               {metric_key + "_high", "metric at +", digits},
               {"swing", "swing", digits},
               {"decision_low", "decision at -", 0, false},
               {"decision_high", "decision at +", 0, false},
               {"flips", "flips"},
               {"flips_at", "flips at"},
               {"unit", "unit", 0, false},
               {"base_value", "base value", -10, false},
               {"low_value", "low value", -10, false},
               {"high_value", "high value", -10, false},
               {"flip_value", "flip value", -10, false}};
  std::int64_t rank = 0;
  for (const Swing& w : s.ranked) {
    const SensitivityInput& in = s.inputs[w.input];
    const auto metric = [](const SensitivityOutcome& o) { return o.metric ? Cell{*o.metric} : Cell{}; };
    t.add_row({++rank, in.name, format_value(in.kind, in.base), format_value(in.kind, w.low_value),
               format_value(in.kind, w.high_value), metric(w.low), metric(w.high),
               std::isfinite(w.swing) ? Cell{w.swing} : Cell{}, w.low.decision, w.high.decision, w.flips,
               w.flip_value ? Cell{format_value(in.kind, *w.flip_value)} : Cell{}, value_unit(in.kind, currency), in.base,
               w.low_value, w.high_value, w.flip_value ? Cell{*w.flip_value} : Cell{}});
  }
  rep.tables.push_back(std::move(t));
  if (const std::string chart = tornado_chart(s, metric_label); !chart.empty()) rep.figures.push_back(chart);
  rep.inputs = std::move(echo);

  Json ex = Json::object();
  ex["metric"] = metric_key;
  ex["range"] = range;
  ex["base_metric"] = s.base.metric ? Json(*s.base.metric) : Json();
  ex["base_decision"] = s.base.decision;
  Json flips = Json::array();
  for (const Swing& w : s.ranked)
    if (w.flips) flips.push_back(s.inputs[w.input].name);
  ex["flips"] = std::move(flips);
  Json nv = Json::array();
  for (const auto& n : s.not_varied) nv.push_back(n);
  ex["not_varied"] = std::move(nv);
  rep.extra = std::move(ex);

  rep.notes.push_back(fmt::format("Base: {} = {}; decision ({}): {}.", metric_label,
                                  s.base.metric ? group_thousands(fmt::format("{:.{}f}", *s.base.metric, digits)) : "none",
                                  decision_what, s.base.decision));
  std::vector<std::string> flipping;
  for (const Swing& w : s.ranked)
    if (w.flips && w.flip_value)
      flipping.push_back(fmt::format("{} at {} (base {})", s.inputs[w.input].name,
                                     format_value(s.inputs[w.input].kind, *w.flip_value),
                                     format_value(s.inputs[w.input].kind, s.inputs[w.input].base)));
  if (flipping.empty())
    rep.notes.push_back(fmt::format("No input flips the decision within ±{:g}%.", range * 100));
  else
    rep.notes.push_back(fmt::format("Flip the decision within ±{:g}%: {}.", range * 100, fmt::join(flipping, "; ")));
  if (!job)
    rep.notes.push_back("Metric: NPV of buying minus the NPV of the cheapest rental option; below zero, buying is "
                        "cheaper. Swing = |metric at +range − metric at −range|; one input moves at a time.");
  else
    rep.notes.push_back("Each variation reruns the whole plan search; swing = |metric at +range − metric at −range|; "
                        "one input moves at a time.");
  if (!s.not_varied.empty())
    rep.notes.push_back(fmt::format("Not varied (zero in the base case): {}.", fmt::join(s.not_varied, ", ")));
  rep.notes.push_back(fmt::format("{}: {}. {}", job ? "Job" : "Scenario", job ? rp->source : rs->source, ctx.catalog_note()));
  if (fx)
    for (auto& n : fx->notes()) rep.notes.push_back(std::move(n));
  if (rs)
    for (const auto& n : rs->fx_notes) rep.notes.push_back(n);
  add_defaults_notes(rep, defaults);
  return rep;
}

}  // namespace gpuplan
