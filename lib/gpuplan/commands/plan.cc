#include "gpuplan/i18n.h"
#include "gpuplan/commands/plan.h"

#include "gpuplan/fit.h"
#include "gpuplan/job_fields.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/commands/flags.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/job.h"

namespace gpuplan {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string days_text(double hours) {
  if (hours < 48) return fmt::format("{:.1f} h", hours);
  return fmt::format("{:.1f} days", hours / 24);
}

// The columns every plan row has, in the order tables show them.
std::vector<Column> plan_columns(const std::string& CUR, int cents) {
  return {{"offer", tr_noop("offer"), 0, false},
          {"provider", tr_noop("provider")},
          {"region", tr_noop("region")},
          {"gpu", tr_noop("gpu")},
          {.key = "mode", .label = tr_noop("mode"), .words = true},
          {"gpus", tr_noop("GPUs")},
          {"instances", tr_noop("inst")},
          {"zero_stage", tr_noop("ZeRO")},
          {"layout", tr_noop("layout")},
          {"start_hours", tr_noop("start h"), 2},
          {"run_hours", tr_noop("run h"), 2},
          {"finish_hours", tr_noop("done in h"), 2},
          {"finish_days", tr_noop("days"), 1},
          {"cost", CUR, cents},
          {"on_time_probability", tr_noop("P(on time)"), 3},
          {"compute", tr_noop("compute"), cents, false},
          {"storage", tr_noop("storage"), cents, false},
          {"support", tr_noop("support"), cents, false},
          {"hardware", tr_noop("hardware"), cents, false},
          {"power", tr_noop("power"), cents, false},
          {"resale_after", tr_noop("resale after"), cents, false},
          {"bottleneck", tr_noop("bottleneck"), 0, false},
          {"gpu_utilisation", tr_noop("GPU util"), 3, false},
          {"note", tr_noop("note")}};
}

std::vector<Cell> plan_cells(const PlanDetail& d, const PlanInputs& in, const Context& ctx) {
  const PlanSource& s = *d.source;
  const bool buy = d.config.mode == PlanMode::kBuy;
  // Provider, region and GPU may not say which offer: the instance does (a Capacity Block is not p5 on demand).
  std::string note = buy ? std::string() : ctx.catalog().instance_if_ambiguous(*s.offer);
  const auto add = [&](const std::string& n) { note += (note.empty() ? "" : std::string(tr("; "))) + n; };
  // A stale price is flagged wherever it is used, not only by `prices`.
  const Provenance* priced = nullptr;
  if (buy) priced = &s.card->price.provenance;
  else if (const auto& p = s.offer->price(billing(d.config.mode))) priced = &p->provenance;
  if (priced && is_stale(*priced, ctx.today, std::chrono::duration_cast<std::chrono::days>(ctx.stale_after)))
    add(priced->as_of ? trf("stale price (as_of {})", format_date(priced->as_of))
                      : std::string(tr("undated price (as_of unknown)")));
  for (const auto& n : d.notes) add(n);
  if (d.spot && d.work_hours > 0)  // reclaims on top of what the same cards take on demand
    add(trf("+{:.1f}% time for spot reclaims", (d.wall_hours / d.work_hours - 1) * 100));
  Cell probability{};
  if (d.on_time) probability = d.on_time->probability;
  const auto money_or_empty = [](bool has, Money m) { return has ? Cell{m} : Cell{}; };
  return {buy ? Cell{s.card->id} : Cell{s.offer->id},
          buy ? Cell{std::string("buy")} : Cell{s.offer->provider},
          buy ? Cell{in.market} : Cell{s.offer->region},
          s.gpu->id,
          std::string(to_string(d.config.mode)),
          static_cast<std::int64_t>(d.config.gpus),
          static_cast<std::int64_t>(d.instances),
          static_cast<std::int64_t>(d.config.zero_stage),
          parallel_text(d.config.layout()),
          d.start_hours,
          d.wall_hours,
          d.finish_hours,
          d.finish_hours / 24.0,
          d.cost,
          probability,
          money_or_empty(!buy, d.run.compute),
          money_or_empty(!buy, d.run.storage),
          money_or_empty(!buy, d.run.support),
          money_or_empty(buy, d.hardware),
          money_or_empty(buy, d.power),
          money_or_empty(buy, d.resale_after),
          std::string(d.step.bottleneck),
          d.step.gpu_utilisation,
          note.empty() ? Cell{} : Cell{note}};
}

bool same(const PlanDetail& a, const PlanDetail& b) {
  return a.config.source == b.config.source && a.config.mode == b.config.mode && a.config.gpus == b.config.gpus;
}

}  // namespace

ResolvedPlan resolve_plan(const Context& ctx, const PlanQuery& q) {
  std::vector<FlagOverride> flags;
  if (q.deadline) flags.push_back({"--deadline", "plan.deadline", *q.deadline});
  if (q.budget) {
    // On the command line a bare amount is in the display currency (the file's are in its own).
    std::string v = *q.budget;
    try {
      parse_number(v);
      v += " " + std::string(ctx.currency.code());
    } catch (const std::invalid_argument&) {
    }
    flags.push_back({"--budget", "plan.budget", v});
  }
  if (q.max_gpus) flags.push_back({"--max-gpus", "plan.max_gpus", *q.max_gpus});
  if (q.objective) flags.push_back({"--objective", "plan.objective", *q.objective});
  if (q.confidence) flags.push_back({"--confidence", "plan.confidence", *q.confidence});
  if (q.mfu) flags.push_back({"--mfu", "job.mfu", *q.mfu});
  if (q.layout) flags.push_back({"--layout", "job.layout", *q.layout});
  if (!q.gpus.empty()) flags.push_back({"--gpu", "plan.gpus", join(q.gpus)});
  if (!q.providers.empty()) flags.push_back({"--provider", "plan.providers", join(q.providers)});
  if (!q.regions.empty()) flags.push_back({"--region", "plan.regions", join(q.regions)});
  if (q.allow_spot) flags.push_back({"--allow-spot", "plan.allow_spot", *q.allow_spot ? "true" : "false"});
  if (q.include_buy) flags.push_back({"--include-buy", "plan.include_buy", *q.include_buy ? "true" : "false"});
  if (q.exclude_restricted)
    flags.push_back({"--exclude-restricted", "plan.exclude_restricted", *q.exclude_restricted ? "true" : "false"});
  const ResolvedJob rj = load_job_with_flags(q.job_file, q.sets, flags, ctx, JobUse::kPlan);

  ResolvedPlan out;
  out.source = rj.source;
  out.defaults_used = rj.defaults_used;
  out.warnings = rj.warnings;
  PlanInputs& in = out.inputs;
  apply_job(rj, in);
  in.layout = rj.layout;
  out.job = rj;
  if (q.trials) in.trials = static_cast<int>(flag_whole("--trials", *q.trials, 1, 1e6));
  if (q.seed) in.seed = flag_whole("--seed", *q.seed, 0, 9e15);
  if (q.scaling_file) {
    in.scaling = load_scaling_fit(*q.scaling_file);
    if (in.scaling->r_squared)
      if (std::string w = poor_scaling_fit(*in.scaling->r_squared, "--scaling " + *q.scaling_file); !w.empty())
        out.warnings.push_back(std::move(w));
  }

  Json e = rj.inputs;
  Json pj = echo_fields(rj, job_section("plan").rows, ctx.currency);
  pj["trials"] = in.trials;
  pj["seed"] = static_cast<long long>(in.seed);
  pj["scaling_file"] = q.scaling_file ? Json(*q.scaling_file) : Json();
  e["plan"] = std::move(pj);
  out.echo = std::move(e);
  return out;
}

namespace {

// "Capacity plan: NAME; deadline 2026-12-20 (6.0 days from now), budget 200,000 CNY".
std::string plan_title(const ResolvedPlan& rp, const Context& ctx) {
  const PlanInputs& in = rp.inputs;
  std::vector<std::string> limits;
  if (in.deadline) {
    // A date or a time as the user wrote it, with what it leaves; a duration as hours or days.
    const std::string left = days_text(in.deadline->count() / 3600.0);
    limits.push_back(in.deadline_text.find('-') != std::string::npos
                         ? trf("deadline {} ({} from now)", in.deadline_text, left)
                         : trf("deadline {}", left));
  }
  if (in.budget) limits.push_back(trf("budget {} {}", to_pretty_string(*in.budget, 0), ctx.currency.code()));
  return trf("Capacity plan: {}{}{}", in.job.name.empty() ? rp.source : in.job.name, limits.empty() ? "" : tr("; "),
             fmt::format("{}", fmt::join(limits, tr(", "))));
}

// One entry per distinct plan, its roles joined ("recommended, cheapest").
using Roles = std::vector<std::pair<std::string, const PlanDetail*>>;

Roles plan_roles(const PlanResult& r) {
  Roles roles;
  for (const auto& [role, plan] :
       {std::pair{tr_noop("recommended"), &r.recommended}, std::pair{tr_noop("cheapest"), &r.cheapest},
        std::pair{tr_noop("fastest"), &r.fastest}}) {
    if (!*plan) continue;
    const PlanDetail& d = **plan;  // named, not bound: clang 14 cannot capture bindings
    auto it = std::find_if(roles.begin(), roles.end(), [&](const auto& x) { return same(*x.second, d); });
    if (it != roles.end()) it->first += std::string(tr(", ")) + std::string(tr(role));
    else roles.emplace_back(std::string(tr(role)), &d);
  }
  return roles;
}

std::string role_of(const Roles& roles, const PlanDetail& d) {
  for (const auto& [names, x] : roles)
    if (same(*x, d)) return names;
  return {};
}

// One row per role (recommended, cheapest, fastest), the same plan again when
// it holds several: a script finds each role by the first column alone.
Table plans_table(const PlanResult& r, const PlanInputs& in, const Context& ctx) {
  Table t;
  t.name = "plans";
  t.currency = ctx.currency;
  t.columns = plan_columns(std::string(ctx.currency.code()), ctx.currency.minor_digits());
  t.columns.insert(t.columns.begin(), Column{.key = "role", .label = tr_noop("role"), .words = true});
  for (const auto& [role, plan] :
       {std::pair{tr_noop("recommended"), &r.recommended}, std::pair{tr_noop("cheapest"), &r.cheapest},
        std::pair{tr_noop("fastest"), &r.fastest}}) {
    if (!*plan) continue;
    std::vector<Cell> row = plan_cells(**plan, in, ctx);
    row.insert(row.begin(), std::string(role));
    t.add_row(std::move(row));
  }
  return t;
}

// The frontier (the CSV export) says which of its plans are recommended, cheapest, fastest.
Table frontier_table(const std::vector<PlanDetail>& frontier, const Roles& roles, const PlanInputs& in,
                     const Context& ctx) {
  Table t;
  t.name = "frontier";
  t.currency = ctx.currency;
  t.title = trf("Pareto frontier: {} plan(s) where finishing sooner costs more, fastest first", frontier.size());
  t.columns = plan_columns(std::string(ctx.currency.code()), ctx.currency.minor_digits());
  t.text_max_rows = 12;
  // Which roles each plan holds, one true/false column each (a joined "recommended, cheapest" cell split CSV fields).
  const std::array<std::string_view, 3> names{"recommended", "cheapest", "fastest"};
  for (std::size_t k = 0; k < names.size(); ++k)
    t.columns.insert(t.columns.begin() + static_cast<std::ptrdiff_t>(k),
                     Column{std::string(names[k]), std::string(names[k]), 0, false});
  for (const PlanDetail& d : frontier) {
    const std::string role = role_of(roles, d);
    std::vector<Cell> row = plan_cells(d, in, ctx);
    for (std::size_t k = names.size(); k-- > 0;)
      row.insert(row.begin(), Cell{role.find(tr(names[k])) != std::string::npos});  // roles are in the language
    t.add_row(std::move(row));
  }
  return t;
}

// Time against cost of the frontier's plans, the recommendation its own dot, the deadline a dashed line.
Chart frontier_chart(const std::vector<PlanDetail>& frontier, const PlanResult& r, const PlanInputs& in,
                     Currency currency) {
  Chart c;
  c.name = "pareto_frontier";
  c.title = tr_noop("Plans where finishing sooner costs more (Pareto frontier), the recommendation marked");
  c.x_label = tr_noop("done in, hours");
  c.y_label = std::string(currency.code());
  c.dots = true;
  c.words = true;  // the series: the frontier and the recommendation
  ChartSeries line{tr_noop("frontier"), {}};
  for (const PlanDetail& d : frontier) line.points.emplace_back(d.finish_hours, d.cost.units());
  std::sort(line.points.begin(), line.points.end());
  c.series.push_back(std::move(line));
  if (r.recommended)
    c.series.push_back({tr_noop("recommended"), {{r.recommended->finish_hours, r.recommended->cost.units()}}});
  if (in.deadline) {
    c.marker_x = in.deadline->count() / 3600;
    c.marker_label = trf("deadline {:.1f} h", *c.marker_x);
  }
  return c;
}

Table misses_table(const PlanResult& r, const PlanInputs& in, const Context& ctx) {
  const int cents = ctx.currency.minor_digits();
  Table t;
  t.name = "near_misses";
  t.currency = ctx.currency;
  t.title = tr_noop("Nearest misses: what each would need");
  t.columns = plan_columns(std::string(ctx.currency.code()), cents);
  t.columns.insert(t.columns.end() - 1, {Column{"budget_needed", tr_noop("needs budget"), cents},
                                         Column{"deadline_needed_hours", tr_noop("needs deadline h"), 2}});
  for (const NearMiss& m : r.near_misses) {
    std::vector<Cell> row = plan_cells(m.plan, in, ctx);
    row.insert(row.end() - 1, {m.budget_needed ? Cell{*m.budget_needed} : Cell{},
                               m.deadline_needed_hours ? Cell{*m.deadline_needed_hours} : Cell{}});
    t.add_row(std::move(row));
  }
  return t;
}

Table explain_table(const PlanResult& r, const Context& ctx) {
  Table t;
  t.name = "rejected";
  t.currency = ctx.currency;
  t.title = tr_noop("Why notable configurations were not chosen (--explain)");
  t.columns = {{"what", tr_noop("configuration")},
               {"gpus", tr_noop("GPUs")},
               {.key = "mode", .label = tr_noop("mode"), .words = true},
               {"finish_hours", tr_noop("done in h"), 1},
               {"cost", std::string(ctx.currency.code()), ctx.currency.minor_digits()},
               {"why", tr_noop("why not")}};
  for (const Rejected& x : r.explained) {
    if (x.plan)
      t.add_row({x.what, static_cast<std::int64_t>(x.plan->config.gpus), std::string(to_string(x.plan->config.mode)),
                 x.plan->finish_hours, x.plan->cost, x.why});
    else t.add_row({x.what, Cell{}, Cell{}, Cell{}, Cell{}, x.why});
  }
  return t;
}

// Nothing to recommend: how the configurations failed, as data.
Table rejections_table(const PlanResult& r) {
  Table t;
  t.name = "rejections";
  t.title = trf("Why the {} configurations failed (first reason each)", group_thousands(std::to_string(r.evaluated)));
  t.columns = {{.key = "reason", .label = tr_noop("reason"), .words = true},
               {"configurations", tr_noop("configurations")}};
  for (int i = 0; i < kRejectionCount; ++i)
    if (const auto n = r.rejected[static_cast<std::size_t>(i)])
      t.add_row({std::string(to_string(static_cast<Rejection>(i))), static_cast<std::int64_t>(n)});
  if (!r.feasible.empty() && !r.recommended)
    t.add_row({std::string(tr_noop("below the required confidence of being on time")),
               static_cast<std::int64_t>(r.feasible.size())});
  return t;
}

// One plan as a workbook line: its prices and its cost parts.
PlanLine workbook_line(const std::string& role, const PlanDetail& d, const PlanInputs& in) {
  const PlanSource& s = *d.source;
  const bool buy = d.config.mode == PlanMode::kBuy;
  PlanLine l;
  l.role = role;
  l.offer = buy ? s.card->id : s.offer->id;
  l.provider = buy ? "buy" : s.offer->provider;
  l.region = buy ? in.market : s.offer->region;
  l.gpu = s.gpu->id;
  l.mode = std::string(to_string(d.config.mode));
  l.gpus = d.config.gpus;
  l.instances = d.instances;
  l.zero_stage = d.config.zero_stage;
  if (buy) {
    l.price = s.card_price.units();
    l.server_base = s.server_base.units();
  } else {
    l.price = s.prices.price(billing(d.config.mode))->units();
    l.granularity_h = s.prices.granularity.count() / 3600.0;
    l.minimum_h = s.prices.minimum_billing.count() / 3600.0;
    l.storage_per_gb_month = s.prices.storage_priced ? s.prices.storage_per_gb_month.units() : 0.0;
    l.support_share = s.prices.support_share;
  }
  l.start_hours = d.start_hours;
  l.run_hours = d.wall_hours;
  l.finish_hours = d.finish_hours;
  l.billed_hours = d.run.billed_instance_hours;
  l.compute = d.run.compute.units();
  l.storage = d.run.storage.units();
  l.support = d.run.support.units();
  l.hardware = d.hardware.units();
  l.power = d.power.units();
  l.total = d.cost.units();
  if (d.on_time) l.on_time_probability = d.on_time->probability;
  return l;
}

// The workbook lists the same plans: the roles, the frontier, the nearest misses.
PlanWorkbook workbook_data(const std::string& title, const PlanInputs& in, const PlanResult& r, const Roles& roles,
                           const std::vector<PlanDetail>& frontier, Currency currency) {
  PlanWorkbook wbd;
  wbd.title = title;
  wbd.currency = currency;
  if (in.deadline) wbd.deadline_hours = in.deadline->count() / 3600.0;
  if (in.budget) wbd.budget = in.budget->units();
  wbd.confidence = in.confidence;
  wbd.dataset_gb = in.dataset.value() / kGB;
  wbd.recommendation = r.recommendation;
  for (const auto& [role, d] : roles) wbd.lines.push_back(workbook_line(role, *d, in));
  for (const PlanDetail& d : frontier) wbd.lines.push_back(workbook_line("frontier", d, in));
  for (const NearMiss& m : r.near_misses) wbd.lines.push_back(workbook_line("near miss", m.plan, in));
  return wbd;
}

// JSON: the search in numbers, the recommendation and the rates used.
Json plan_extra(const PlanResult& r, const CurrencyConverter& fx) {
  Json search = Json::object();
  search["configurations"] = static_cast<long long>(r.evaluated);
  search["valid"] = static_cast<long long>(r.valid.size());
  search["feasible"] = static_cast<long long>(r.feasible.size());
  search["frontier"] = static_cast<long long>(r.frontier.size());
  Json rej = Json::object();
  static constexpr const char* kKeys[] = {"precision", "memory", "batch", "join", "out_of_range", "deadline", "budget"};
  for (int i = 0; i < kRejectionCount; ++i)
    rej[kKeys[i]] = static_cast<long long>(r.rejected[static_cast<std::size_t>(i)]);
  search["rejected"] = std::move(rej);
  Json ex = Json::object();
  ex["search"] = std::move(search);
  ex["recommendation"] = r.recommendation.empty() ? Json() : Json(r.recommendation);
  ex["fx_rates_used"] = fx.used_json();
  return ex;
}

// Nothing feasible: which limit binds, and what each nearest miss would need.
void infeasible_notes(Report& rep, const PlanInputs& in, const PlanResult& r, Currency currency) {
  std::string what = "fits";
  if (in.deadline && in.budget) what = "meets the deadline within the budget";
  else if (in.deadline) what = "meets the deadline";
  else if (in.budget) what = "stays within the budget";
  rep.notes.push_back(trf("Nothing feasible: no configuration {}.", what));
  for (const NearMiss& m : r.near_misses) {
    std::vector<std::string> change;
    if (m.deadline_needed_hours)
      change.push_back(trf("a deadline of {} (+{})", days_text(*m.deadline_needed_hours),
                           days_text(*m.deadline_needed_hours - in.deadline->count() / 3600.0)));
    if (m.budget_needed)
      change.push_back(trf("a budget of {} {} (+{} {})", to_pretty_string(*m.budget_needed, 0), currency.code(),
                           to_pretty_string(*m.budget_needed - *in.budget, 0), currency.code()));
    rep.notes.push_back(trf("  {}× {} on {} ({}) would need {}.", m.plan.config.gpus, m.plan.source->gpu->id,
                            m.plan.source->offer ? m.plan.source->offer->provider : std::string("own hardware"),
                            to_string(m.plan.config.mode), fmt::format("{}", fmt::join(change, " and "))));
  }
  if (!r.valid.empty()) return;
  // Why nothing is valid, from the rejections that happened (not always memory).
  const auto rejected = [&](Rejection why) { return r.rejected[static_cast<std::size_t>(why)] > 0; };
  if (rejected(Rejection::kMemory))
    rep.notes.push_back(std::string(
        tr("No configuration fits in memory at any count up to --max-gpus: see gpuplan estimate's fit table.")));
  else if (rejected(Rejection::kBatch) && !in.layout.empty())
    rep.notes.push_back(
        std::string(tr("No layout that matches job.layout (--layout) runs at any count up to --max-gpus: TP × PP "
                       "must divide the GPUs, TP the heads and the GPUs per node; gpuplan estimate with the same "
                       "layout says why for one count.")));
  else if (rejected(Rejection::kBatch))
    rep.notes.push_back(std::string(
        tr("No count gives every data-parallel rank a micro-batch of the global batch: raise job.global_batch or "
           "lower job.micro_batch.")));
}

// The default MFU the recommended plan is timed with, and where it comes from.
std::string default_mfu_note(const PlanInputs& in, const Gpu& gpu) {
  const MfuDefault d = default_mfu(gpu, in.job);
  return d.stack.empty() ? trf("MFU {:.0f}% on the recommended {} (default; its band {:.0f}–{:.0f}%): {}.",
                               d.value * 100, gpu.id, d.low * 100, d.high * 100, tr(d.source))
                         : trf("MFU {:.0f}% on the recommended {} (default for job.stack {}; its band {:.0f}–{:.0f}%): "
                               "{}.",
                               d.value * 100, gpu.id, d.stack, d.low * 100, d.high * 100, tr(d.source));
}

// What P(on time) counts, and for the recommendation which uncertainty dominates.
std::string on_time_note(const PlanInputs& in, const PlanResult& r) {
  std::string out(in.job.mfu
                      ? tr("P(on time): the MFU is given, so taken as exact")
                      : tr("P(on time): the chance of finishing by the deadline with the default MFU uncertain "
                           "(lognormal on each side of it, its band's ends the 16th and 84th percentiles of published "
                           "runs)"));
  if (in.allow_spot)
    out += trf("; spot plans draw it with reclaims in {} simulated runs (seed {})", in.trials, in.seed);
  out += tr(".");
  if (r.recommended && r.recommended->on_time) {
    const OnTime& t = *r.recommended->on_time;
    out += trf(" Recommended plan: {:.3f}; the MFU's uncertainty alone {:.3f}", t.probability, t.mfu_only);
    if (t.spot_only) out += trf(", reclaims alone {:.3f}", *t.spot_only);
    out += t.dominant() == "neither" ? std::string(tr(": neither makes it likely to be late."))
                                     : trf(": {} uncertainty dominates.", tr(t.dominant()));
  }
  return out;
}

// How the answer was reached: the search's size, the rejections, the cost model.
void search_notes(Report& rep, const PlanInputs& in, const PlanResult& r) {
  rep.notes.push_back(
      trf("Searched {} configurations ({} offers{} × 1–{} GPUs × billing modes): {} feasible, {} on the frontier.",
          group_thousands(std::to_string(r.evaluated)),
          std::count_if(r.sources.begin(), r.sources.end(), [](const auto& s) { return s.offer != nullptr; }),
          in.include_buy ? tr(" and buying") : "", in.max_gpus, group_thousands(std::to_string(r.feasible.size())),
          r.frontier.size()));
  std::vector<std::string> counts;
  for (int i = 0; i < kRejectionCount; ++i)
    if (const auto n = r.rejected[static_cast<std::size_t>(i)])
      counts.push_back(trf("{} {}", group_thousands(std::to_string(n)), tr(to_string(static_cast<Rejection>(i)))));
  if (!counts.empty()) rep.notes.push_back(trf("Rejected: {}.", fmt::join(counts, tr("; "))));
  if (r.frontier.size() > 12)
    rep.notes.push_back(
        trf("The frontier shows 12 of its {} plans; --format csv or json lists them all.", r.frontier.size()));
  rep.notes.push_back(std::string(
      tr("Time = start (provisioning + dataset upload; buying: the lead time) + run time (spot: expected, with "
         "interruptions); cost = billed compute + storage + support (buying: hardware + power; its resale value is "
         "shown, not deducted).")));
  if (in.deadline) rep.notes.push_back(on_time_note(in, r));
}

// Notes: warnings, the answer, then how it was reached and from what.
void plan_notes(Report& rep, const ResolvedPlan& rp, const PlanResult& r, const PlanQuery& q, const Context& ctx,
                const CurrencyConverter& fx) {
  const PlanInputs& in = rp.inputs;
  rep.warnings = rp.warnings;
  for (const auto& w : r.warnings) rep.warnings.push_back(w);
  if (!r.recommendation.empty()) rep.notes.push_back(r.recommendation);
  if (r.feasible.empty()) infeasible_notes(rep, in, r, ctx.currency);
  search_notes(rep, in, r);
  for (const auto& n : r.notes) rep.notes.push_back(n);
  if (in.job.mfu) rep.notes.push_back(trf("MFU {:.0f}% (given) on every GPU.", *in.job.mfu * 100));
  else if (r.recommended) rep.notes.push_back(default_mfu_note(in, *r.recommended->source->gpu));
  if (in.include_buy)
    for (const PlanSource& s : r.sources)
      if (!s.offer && r.recommended && r.recommended->source == &s)
        for (const auto& n : s.notes) rep.notes.push_back("Buying: " + n);
  if (!q.explain) rep.notes.push_back(std::string(tr("Why other configurations lost: --explain.")));
  rep.notes.push_back(trf("Job: {}. {}", rp.source, ctx.catalog_note()));
  for (auto& n : fx.notes()) rep.notes.push_back(std::move(n));
  add_defaults_notes(rep, rp.defaults_used);
}

PlanResult run_plan(const ResolvedPlan& rp, const PlanQuery& q, const Context& ctx, const CurrencyConverter& fx) {
  const PlanInputs& in = rp.inputs;
  check_filters(ctx.catalog(), in.gpus, in.providers, in.regions,
                {"--gpu (plan.gpus)", "--provider (plan.providers)", "--region (plan.regions)"});
  try {
    return plan(in, ctx.catalog(), fx);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{q.job_file.empty() ? "<defaults>" : q.job_file}, "", e.what());
  }
}

}  // namespace

PlanOutcome plan_report(const Context& ctx, const PlanQuery& q) {
  const ResolvedPlan rp = resolve_plan(ctx, q);
  const PlanInputs& in = rp.inputs;
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const PlanResult r = run_plan(rp, q, ctx, fx);
  PlanOutcome out;
  out.feasible = r.recommended.has_value();
  Report& rep = out.report;
  rep.command = "plan";
  rep.currency = ctx.currency;
  rep.title = plan_title(rp, ctx);
  const Roles roles = plan_roles(r);
  std::vector<PlanDetail> frontier;  // once, with the spot simulations: the table and the workbook
  for (const PlanConfig& c : r.frontier) frontier.push_back(describe(in, r, c));
  rep.xlsx = [wbd = workbook_data(rep.title, in, r, roles, frontier, ctx.currency)] { return plan_workbook(wbd); };
  // JSON always holds the four tables (empty where nothing applies), so its
  // keys do not change with the outcome; the terminal shows those with rows.
  // CSV prints the plans, one row per role; on exit 4 the nearest misses (or,
  // without any, why every configuration failed): a documented other table.
  rep.tables = tables_of(plans_table(r, in, ctx), frontier_table(frontier, roles, in, ctx), misses_table(r, in, ctx),
                         rejections_table(r));
  if (!frontier.empty()) rep.charts.push_back(frontier_chart(frontier, r, in, ctx.currency));
  rep.tables[0].text = !roles.empty();
  rep.tables[1].text = !r.feasible.empty();
  rep.tables[2].text = !r.near_misses.empty();
  rep.tables[3].text = !out.feasible;
  rep.primary = out.feasible ? 0 : r.near_misses.empty() ? 3 : 2;
  if (q.explain) rep.tables.push_back(explain_table(r, ctx));
  rep.extra = plan_extra(r, fx);
  Json echo = ctx.echo();
  append(echo, rp.echo);
  rep.inputs = std::move(echo);
  plan_notes(rep, rp, r, q, ctx, fx);
  return out;
}

}  // namespace gpuplan
