// `gpuplan compare --format xlsx`: the buy-vs-rent model as a live workbook.
//
//   Assumptions  every input as a named, editable (yellow) cell, then the
//                quantities of one month derived from them (formulas), each
//                mirroring a function of compare.cc
//   Cash flow    month 0..H per option: formulas over the named cells
//   Summary      totals, NPV, used GPU-hours, cost per used GPU-hour,
//                break-even months and the cheapest option: formulas
//
// Every formula carries the value gpuplan computed (cached), so viewers that
// do not recalculate still show the right numbers; the tests recalculate the
// workbook in LibreOffice and check that both agree, and that changing an
// assumption matches `gpuplan compare --set`. The horizon is the number of
// rows, so it is shown but not editable. Amounts are rounded with ROUND (half
// away from zero) where gpuplan rounds half to even: they differ only on an
// exact half cent.
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/commands/compare.h"
#include "gpuplan/cost/rent.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {
namespace {

using xlsx::Style;


using V = xlsx::Value;
using Inputs = xlsx::Assumptions;

// billed_run_hours() (cost/rent.cc): each run rounded up to the granularity, at least the minimum.
std::string billed_formula(const std::string& hours, const V& g, const V& min) {
  return fmt::format("IF({0}<=0,0,MAX(IF({1}>0,ROUNDUP({0}/{1}-1E-9,0)*{1},{0}),{2}))", hours, g.ref, min.ref);
}

struct RentRefs {
  V price, gpi, instances, granularity, minimum, storage, egress, support, support_min;
};

RentRefs rent_inputs(Inputs& in, const std::string& p, const RentInputs& r, const Workload& w, const std::string& what) {
  RentRefs x;
  x.price = in.input(p + "price", what + ": price per instance", r.price.units(), Style::kInputMoney,
                     p == "m_" ? "per instance-month" : "per instance-hour",
                     r.description + (r.offer.empty() ? "" : " (catalog " + r.offer + ")"));
  x.gpi = in.input(p + "gpus_per_instance", what + ": GPUs per instance", r.gpus_per_instance, Style::kInputNumber, "GPUs");
  x.granularity = in.input(p + "granularity_h", what + ": billing granularity", r.granularity.count() / 3600.0,
                           Style::kInputNumber, "hours", "0 = billed exactly");
  x.minimum = in.input(p + "minimum_h", what + ": minimum billed per run", r.minimum_billing.count() / 3600.0,
                       Style::kInputNumber, "hours");
  x.storage = in.input(p + "storage_per_gb_month", what + ": storage", r.storage_per_gb_month.units(), Style::kInputMoney,
                       "per GB-month");
  x.egress = in.input(p + "egress_per_gb", what + ": egress", r.egress_per_gb.units(), Style::kInputMoney, "per GB");
  x.support = in.input(p + "support", what + ": support", r.support_share, Style::kInputPercent, "share of the bill");
  x.support_min = in.input(p + "support_minimum", what + ": support minimum", r.support_minimum_monthly.units(),
                           Style::kInputMoney, "per month");
  const double n = instances_for(w.gpus, r.gpus_per_instance);
  x.instances = in.derived(p + "instances", what + ": instances", fmt::format("ROUNDUP(gpus/{},0)", x.gpi.ref), n,
                           Style::kInteger);
  return x;
}

// One month of on-demand billing (compare.cc hourly_month + add_markups):
// returns the month's total; `idle_h` is "" for no forgotten-instance hours.
struct HourlyParts {
  V compute, idle, storage, egress, support, total;
};
HourlyParts hourly_parts(Inputs& in, const std::string& p, const RentRefs& r, const V& u, const V& runs, const V& factor,
                         const V& idle_per_run, const V& auto_release, const std::string& what, const RentInputs& ri,
                         const Workload& w) {
  const double u_value = u.v, idle_h_value = idle_per_run.v;
  const int runs_value = static_cast<int>(runs.v);
  HourlyParts h;
  const double busy = kHoursPerMonth * u_value * factor.v;
  const int nruns = std::max(1, runs_value);
  const double run = busy / nruns;
  const double idle = (busy > 0 && auto_release.v == 0) ? idle_h_value : 0.0;
  const V busy_v = in.derived(p + "busy_h", what + ": busy hours a month", fmt::format("730*{}*{}", u.ref, factor.ref), busy,
                              Style::kNumber, "hours");
  const V run_v = in.derived(p + "run_h", what + ": hours per run", fmt::format("{}/MAX(1,{})", busy_v.ref, runs.ref), run,
                             Style::kNumber, "hours");
  const V idle_v = in.derived(p + "idle_h", what + ": left running per run",
                              fmt::format("IF(AND({}>0,{}=0),{},0)", busy_v.ref, auto_release.ref, idle_per_run.ref), idle,
                              Style::kNumber, "hours");
  const double bw = billed_run_hours(run, ri.granularity, ri.minimum_billing) * nruns * r.instances.v;
  const double ba = billed_run_hours(run + idle, ri.granularity, ri.minimum_billing) * nruns * r.instances.v;
  const V work = in.derived(p + "billed_work_h", what + ": billed instance-hours (work)",
                            fmt::format("{}*MAX(1,{})*{}", billed_formula(run_v.ref, r.granularity, r.minimum), runs.ref,
                                        r.instances.ref),
                            bw, Style::kNumber, "instance-hours");
  const V all = in.derived(p + "billed_all_h", what + ": billed instance-hours (with idle)",
                           fmt::format("{}*MAX(1,{})*{}",
                                       billed_formula(fmt::format("({}+{})", run_v.ref, idle_v.ref), r.granularity, r.minimum),
                                       runs.ref, r.instances.ref),
                           ba, Style::kNumber, "instance-hours");
  h.compute = in.derived(p + "compute", what + ": compute a month", fmt::format("{}*{}", r.price.ref, work.ref),
                         r.price.v * bw, Style::kMoney);
  h.idle = in.derived(p + "idle", what + ": idle hours billed a month", fmt::format("{}*({}-{})", r.price.ref, all.ref, work.ref),
                      r.price.v * (ba - bw), Style::kMoney);
  const double dataset = w.dataset.value() / kGB, egress = w.egress_per_month.value() / kGB;
  h.storage = in.derived(p + "storage", what + ": storage a month", fmt::format("{}*dataset_gb", r.storage.ref),
                         r.storage.v * dataset, Style::kMoney);
  h.egress = in.derived(p + "egress", what + ": egress a month", fmt::format("{}*egress_gb_per_month", r.egress.ref),
                        r.egress.v * egress, Style::kMoney);
  const double bill = h.compute.v + h.idle.v + h.storage.v + h.egress.v;
  h.support = in.derived(p + "support_month", what + ": support a month",
                         fmt::format("IF({0}>0,MAX(({1}+{2}+{3}+{4})*{0},{5}),0)", r.support.ref, h.compute.ref, h.idle.ref,
                                     h.storage.ref, h.egress.ref, r.support_min.ref),
                         r.support.v > 0 ? std::max(bill * r.support.v, r.support_min.v) : 0.0, Style::kMoney);
  return h;
}

}  // namespace

std::string compare_workbook(const ResolvedScenario& rs, const Comparison& c) {
  const Scenario& s = rs.scenario;
  const Workload& w = s.workload;
  const OwnInputs& o = s.own;
  xlsx::Workbook wb(s.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& cf = wb.add_sheet("Cash flow");
  xlsx::Sheet& sum = wb.add_sheet("Summary");
  const std::string CUR(s.currency.code());

  const int first = xlsx::assumptions_header(a, fmt::format("Buy vs rent: {} ({})", s.name, CUR));
  a.text(2, 0, "The horizon is the number of rows of Cash flow: change it with gpuplan.", Style::kNote);
  Inputs in(wb, a, first);

  const int H = s.horizon_months;
  a.text(in.row(), 0, "horizon (rows of Cash flow)");
  a.number(in.row(), 1, H, Style::kInteger);
  a.text(in.row(), 2, "months");
  wb.define_name("horizon_months", a, in.row(), 1);
  Inputs gen(wb, a, in.row() + 1);
  const V rate = gen.input("discount_rate", "discount rate (annual)", s.discount_rate, Style::kInputPercent, "per year");
  gen.heading("Workload");
  const V gpus = gen.input("gpus", "GPUs busy while training", w.gpus, Style::kInputNumber, "GPUs");
  const V u = gen.input("utilisation", "utilisation (busy share of each month)", w.utilisation, Style::kInputPercent, "share");
  const V runs = gen.input("runs_per_month", "training runs a month", w.runs_per_month, Style::kInputNumber, "runs");
  gen.input("dataset_gb", "dataset kept in storage", w.dataset.value() / kGB, Style::kInputNumber, "GB");
  gen.input("egress_gb_per_month", "egress a month", w.egress_per_month.value() / kGB, Style::kInputNumber, "GB");
  (void)gpus;

  gen.heading("Buy");
  const V cards = gen.input("cards", fmt::format("cards ({})", o.gpu), o.cards, Style::kInputNumber, "cards");
  const V card_price = gen.input("card_price", "price per card", o.card_price.units(), Style::kInputMoney, CUR);
  const V base = gen.input("server_base", "server without GPUs", o.server_base.units(), Style::kInputMoney, CUR);
  const V net = gen.input("network", "network", o.network.units(), Style::kInputMoney, CUR);
  const V facility = gen.input("facility", "facility (not resold)", o.facility.units(), Style::kInputMoney, CUR);
  const V lead = gen.input("lead_time_months", "lead time", o.lead_time / Months(1), Style::kInputNumber, "months");
  const bool bridge_possible = s.hourly || s.monthly;
  const V cover = gen.input("cover_by_renting", "bridge the lead time by renting (1) or pay the delay cost (0)",
                            o.cover == LeadTimeCover::kRent && bridge_possible ? 1 : 0, Style::kInputNumber, "1 or 0");
  const V delay = gen.input("delay_cost_per_month", "delay cost per month without training", o.delay_cost_per_month.units(),
                            Style::kInputMoney, CUR);
  const V life = gen.input("useful_life_months", "useful life", o.useful_life / Months(1), Style::kInputNumber, "months");
  const V residual = gen.input("residual_value", "resale value at end of life", o.residual_share, Style::kInputPercent,
                               "share of hardware");
  const V busy_w = gen.input("gpu_power_w", "GPU power when busy", o.gpu_busy.value(), Style::kInputNumber, "W");
  const V idle_w = gen.input("gpu_idle_power_w", "GPU power when idle", o.gpu_idle.value(), Style::kInputNumber, "W");
  const V server_w = gen.input("server_power_w", "server power", o.server.value(), Style::kInputNumber, "W");
  const V pue = gen.input("pue", "PUE", o.pue, Style::kInputNumber, "ratio");
  const V tariff = gen.input("electricity_per_kwh", "electricity", o.electricity_per_kwh.units(), Style::kInputMoney, "per kWh");
  const V ops = gen.input("operations_per_month", "operations", o.operations_per_month.units(), Style::kInputMoney, "per month");
  const V coloc = gen.input("colocation_per_month", "colocation", o.colocation_per_month.units(), Style::kInputMoney, "per month");
  const double hardware_v = o.card_price.units() * o.cards + o.server_base.units() + o.network.units();
  const V hardware = gen.derived("hardware", "hardware (paid in month 0)",
                                 fmt::format("{}*{}+{}+{}", card_price.ref, cards.ref, base.ref, net.ref), hardware_v,
                                 Style::kMoney);
  // Power = (busy W × cards × u + idle W × cards × (1 − u) + server W) × PUE × 730 h / 1000 (compare.cc).
  const double kwh_v = (o.gpu_busy.value() * o.cards * w.utilisation + o.gpu_idle.value() * o.cards * (1 - w.utilisation) +
                        o.server.value()) * o.pue * kHoursPerMonth / 1000.0;
  const V kwh = gen.derived("buy_kwh_per_month", "energy a month in service",
                            fmt::format("({0}*{1}*{2}+{3}*{1}*(1-{2})+{4})*{5}*730/1000", busy_w.ref, cards.ref, u.ref,
                                        idle_w.ref, server_w.ref, pue.ref),
                            kwh_v, Style::kNumber, "kWh");
  const double service = std::max(0.0, H - o.lead_time / Months(1));
  const double life_m = o.useful_life / Months(1);
  const double value_share_v = 1 - (1 - o.residual_share) * (life_m > 0 ? std::min(1.0, service / life_m) : 1.0);
  const V value_share = gen.derived(
      "resale_share", "resale value at the horizon, share of hardware",
      fmt::format("1-(1-{0})*IF({1}>0,MIN(1,MAX(0,horizon_months-{2})/{1}),1)", residual.ref, life.ref, lead.ref),
      value_share_v, Style::kPercent);

  std::optional<RentRefs> hr, mr, sr;
  std::optional<HourlyParts> hp, sp_work, sp_wall, yp;
  V h_idle_per_run{"0", 0}, h_auto{"1", 1};
  if (s.hourly) {
    gen.heading("Rent by the hour");
    hr = rent_inputs(gen, "h_", s.hourly->rent, w, "hourly");
    h_idle_per_run = gen.input("h_idle_per_run_h", "hourly: left running after each run", s.hourly->idle_per_run.count(),
                               Style::kInputNumber, "hours");
    h_auto = gen.input("h_auto_release", "hourly: released automatically (1) or not (0)", s.hourly->auto_release ? 1 : 0,
                       Style::kInputNumber, "1 or 0");
    const V one{"1", 1};
    hp = hourly_parts(gen, "h_", *hr, u, runs, one, h_idle_per_run, h_auto, "hourly", s.hourly->rent, w);
  }
  std::optional<V> m_commit, m_compute, m_storage, m_egress, m_support;
  if (s.monthly) {
    gen.heading("Rent by the month");
    mr = rent_inputs(gen, "m_", *s.monthly, w, "monthly");
    m_commit = gen.input("m_commitment_months", "monthly: committed term (0 = none)", s.monthly->commitment_months,
                         Style::kInputNumber, "months", "months past the horizon are still owed");
    m_compute = gen.derived("m_compute", "monthly: compute a month", fmt::format("{}*{}", mr->price.ref, mr->instances.ref),
                            mr->price.v * mr->instances.v, Style::kMoney);
    m_storage = gen.derived("m_storage", "monthly: storage a month", fmt::format("{}*dataset_gb", mr->storage.ref),
                            mr->storage.v * w.dataset.value() / kGB, Style::kMoney);
    m_egress = gen.derived("m_egress", "monthly: egress a month", fmt::format("{}*egress_gb_per_month", mr->egress.ref),
                           mr->egress.v * w.egress_per_month.value() / kGB, Style::kMoney);
    const double bill = m_compute->v + m_storage->v + m_egress->v;
    m_support = gen.derived("m_support_month", "monthly: support a month",
                            fmt::format("IF({0}>0,MAX(({1}+{2}+{3})*{0},{4}),0)", mr->support.ref, m_compute->ref,
                                        m_storage->ref, m_egress->ref, mr->support_min.ref),
                            mr->support.v > 0 ? std::max(bill * mr->support.v, mr->support_min.v) : 0.0, Style::kMoney);
  }
  std::optional<V> s_factor;
  if (s.spot && c.spot_overhead && c.spot_overhead->feasible) {
    gen.heading("Spot");
    sr = rent_inputs(gen, "s_", s.spot->rent, w, "spot");
    const SpotParams& p = s.spot->interruptions;
    const V per_day = gen.input("s_interruptions_per_day", "spot: interruptions a day per instance",
                                p.interruptions_per_hour * 24, Style::kInputNumber, "per day");
    const V cw = gen.input("s_checkpoint_write_h", "spot: checkpoint write", p.checkpoint_write.count() / 3600,
                           Style::kInputNumber, "hours");
    const V rs_ = gen.input("s_restart_h", "spot: restart", p.restart.count() / 3600, Style::kInputNumber, "hours");
    const V given = gen.input("s_interval_h", "spot: checkpoint interval (0 = Young/Daly optimum)",
                              p.interval ? p.interval->count() / 3600 : 0.0, Style::kInputNumber, "hours");
    const SpotOverhead& ov = *c.spot_overhead;
    const double lambda = p.interruptions_per_hour * sr->instances.v;
    const V lam = gen.derived("s_lambda_per_h", "spot: interruptions an hour of the job (rate × instances)",
                              fmt::format("{}/24*{}", per_day.ref, sr->instances.ref), lambda, Style::kPrecise, "per hour");
    // τ = sqrt(2·C·MTBF) unless given; C = 0: continuous checkpoints (τ = 0).
    const double tau = std::isfinite(ov.interval.count()) ? ov.interval.count() / 3600 : 0.0;
    const V tau_v = gen.derived("s_tau_h", "spot: checkpoint interval used",
                                fmt::format("IF({0}>0,{0},IF({1}>0,SQRT(2*{2}/{1}),0))", given.ref, lam.ref, cw.ref), tau,
                                Style::kPrecise, "hours");
    // Daly: T/W = (1 + C/τ) / (1 − λ(R + (τ + C)/2)); never interrupted: 1 + C/τ for a given τ, else 1.
    s_factor = gen.derived("s_wall_per_work", "spot: wall time per hour of work (Daly)",
                           fmt::format("IF({0}=0,IF({1}>0,1+{2}/{1},1),(1+IF({1}>0,{2}/{1},0))/(1-{0}*({3}+({1}+{2})/2)))",
                                       lam.ref, tau_v.ref, cw.ref, rs_.ref),
                           ov.wall_per_work, Style::kPrecise, "ratio");
    const V one{"1", 1}, zero{"0", 0}, yes{"1", 1};
    sp_work = hourly_parts(gen, "s_work_", *sr, u, runs, one, zero, yes, "spot (work)", s.spot->rent, w);
    sp_wall = hourly_parts(gen, "s_wall_", *sr, u, runs, *s_factor, zero, yes, "spot (with interruptions)", s.spot->rent, w);
  }
  std::optional<V> y_power, y_capex;
  if (s.hybrid && s.hourly) {
    gen.heading("Hybrid (local cards, the rest by the hour)");
    const HybridInputs& y = *s.hybrid;
    const V share = gen.input("y_local_share", "hybrid: share of GPU-hours on local cards", y.local_share,
                              Style::kInputPercent, "share");
    const V lc = gen.input("y_local_cards", fmt::format("hybrid: local cards ({})", y.local_gpu), y.local_cards,
                           Style::kInputNumber, "cards");
    y_capex = gen.input("y_local_capex", "hybrid: local hardware (month 0)", y.local_capex.units(), Style::kInputMoney, CUR);
    const V lb = gen.input("y_gpu_power_w", "hybrid: local GPU power busy", y.local_gpu_busy.value(), Style::kInputNumber, "W");
    const V li = gen.input("y_gpu_idle_power_w", "hybrid: local GPU power idle", y.local_gpu_idle.value(),
                           Style::kInputNumber, "W");
    const double wanted = y.local_share * w.gpus * w.utilisation / y.local_cards;
    const double ul = std::min(1.0, wanted);
    const V u_local = gen.derived("y_u_local", "hybrid: local cards' utilisation",
                                  fmt::format("MIN(1,{}*gpus*{}/{})", share.ref, u.ref, lc.ref), ul, Style::kPercent);
    const double eff = w.utilisation > 0 ? ul * y.local_cards / (w.gpus * w.utilisation) : 0.0;
    const V u_rent = gen.derived("y_u_rent", "hybrid: rented utilisation",
                                 fmt::format("IF({0}>0,{0}*(1-{1}*{2}/(gpus*{0})),0)", u.ref, u_local.ref, lc.ref),
                                 w.utilisation * (1 - eff), Style::kPercent);
    const double ykwh = (y.local_gpu_busy.value() * y.local_cards * ul + y.local_gpu_idle.value() * y.local_cards * (1 - ul)) *
                        o.pue * kHoursPerMonth / 1000.0;
    y_power = gen.derived("y_local_power", "hybrid: local power a month",
                          fmt::format("{}*({}*{}*{}+{}*{}*(1-{}))*{}*730/1000", tariff.ref, lb.ref, lc.ref, u_local.ref,
                                      li.ref, lc.ref, u_local.ref, pue.ref),
                          o.electricity_per_kwh.units() * ykwh, Style::kMoney);
    const V one{"1", 1};
    yp = hourly_parts(gen, "y_", *hr, u_rent, runs, one, h_idle_per_run, h_auto, "hybrid (rented part)", s.hourly->rent, w);
  }
  // The month's total of a rental: each item rounded to the cent, as gpuplan adds them.
  const auto month_total = [](const HourlyParts& h) {
    return fmt::format("ROUND({},2)+ROUND({},2)+ROUND({},2)+ROUND({},2)+ROUND({},2)", h.compute.ref, h.idle.ref,
                       h.storage.ref, h.egress.ref, h.support.ref);
  };

  // Cash flow: month, buy's in-service share, each option, the discount factor,
  // then each option's cumulative discounted cost and buy's break-even flags.
  std::vector<std::string> keys;
  for (const OptionResult& opt : c.options) keys.push_back(opt.key);
  const int n_opt = static_cast<int>(keys.size());
  const int col_in_service = 1, col_first = 2, col_factor = col_first + n_opt, col_cum = col_factor + 1;
  const int col_flags = col_cum + n_opt;
  cf.text(0, 0, "month", Style::kHeader);
  cf.text(0, col_in_service, "buy: in service", Style::kHeader);
  for (int k = 0; k < n_opt; ++k) {
    cf.text(0, col_first + k, keys[static_cast<std::size_t>(k)], Style::kHeader);
    cf.text(0, col_cum + k, "cumulative " + keys[static_cast<std::size_t>(k)] + " (discounted)", Style::kHeader);
    if (k > 0) cf.text(0, col_flags + k - 1, "buy caught up with " + keys[static_cast<std::size_t>(k)], Style::kHeader);
  }
  cf.text(0, col_factor, "discount factor", Style::kHeader);
  cf.freeze(1, 1);
  cf.width(0, 8);
  for (int k = 1; k < col_flags + n_opt; ++k) cf.width(k, 16);
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  std::vector<double> cum(static_cast<std::size_t>(n_opt), 0.0);
  const double v = 1.0 / (1.0 + monthly_rate(s.discount_rate));
  double factor = 1.0;
  for (int m = 0; m <= H; ++m) {
    const int r = m + 1;
    cf.number(r, 0, m, Style::kInteger);
    const double ins = std::clamp(static_cast<double>(m) - lead.v, 0.0, 1.0);
    cf.formula(r, col_in_service, fmt::format("IF({0}=0,0,MIN(1,MAX(0,{0}-{1})))", at(r, 0), lead.ref), m == 0 ? 0 : ins,
               Style::kPercent);
    for (int k = 0; k < n_opt; ++k) {
      const std::string& key = keys[static_cast<std::size_t>(k)];
      const std::string month = at(r, 0), in_service = at(r, col_in_service);
      std::string f;
      if (key == "buy") {
        // Month 0: hardware and facility. Later: power, operations and colocation
        // for the share in service; the waiting share bridged by renting or
        // priced as a delay; the resale value comes back in the last month.
        std::string bridge;
        if (hp)
          bridge = fmt::format("ROUND(({}+{}+ROUND({},2)+ROUND({},2)+ROUND({},2))*(1-{}),2)", hp->compute.ref, hp->idle.ref,
                               hp->storage.ref, hp->egress.ref, hp->support.ref, in_service);
        else if (m_compute)
          bridge = fmt::format("ROUND(({}+ROUND({},2)+ROUND({},2)+ROUND({},2))*(1-{}),2)", m_compute->ref, m_storage->ref,
                               m_egress->ref, m_support->ref, in_service);
        else
          bridge = "0";
        f = fmt::format(
            "IF({0}=0,ROUND({1},2)+ROUND({2},2),ROUND({3}*{4}*{5},2)+ROUND({6}*{5},2)+ROUND({7}*{5},2)+"
            "IF({5}<1,IF({8}=1,{9},ROUND({10}*(1-{5}),2)),0))-IF({0}=horizon_months,ROUND({1}*{11},2),0)",
            month, hardware.ref, facility.ref, tariff.ref, kwh.ref, in_service, ops.ref, coloc.ref, cover.ref, bridge,
            delay.ref, value_share.ref);
      } else if (key == "rent_hourly") {
        f = fmt::format("IF({}=0,0,{})", month, month_total(*hp));
      } else if (key == "rent_monthly") {
        f = fmt::format("IF({0}=0,0,ROUND({1},2)+ROUND({2},2)+ROUND({3},2)+ROUND({4},2)+IF({0}=horizon_months,"
                        "{1}*MAX(0,{5}-horizon_months),0))",
                        month, m_compute->ref, m_storage->ref, m_egress->ref, m_support->ref, m_commit->ref);
      } else if (key == "spot") {
        f = fmt::format("IF({0}=0,0,ROUND({1},2)+ROUND({2}-{1},2)+ROUND({3},2)+ROUND({4},2)+ROUND({5},2))", month,
                        sp_work->compute.ref, sp_wall->compute.ref, sp_wall->storage.ref, sp_wall->egress.ref,
                        sp_wall->support.ref);
      } else if (key == "hybrid") {
        f = fmt::format("IF({0}=0,ROUND({1},2),ROUND({2},2)+{3})", month, y_capex->ref, y_power->ref, month_total(*yp));
      }
      const double value = c.options[static_cast<std::size_t>(k)].cash_flow[static_cast<std::size_t>(m)].units();
      cf.formula(r, col_first + k, f, value, Style::kMoney);
      cum[static_cast<std::size_t>(k)] += value * factor;
      cf.formula(r, col_cum + k,
                 m == 0 ? fmt::format("{}*{}", at(r, col_first + k), at(r, col_factor))
                        : fmt::format("{}+{}*{}", at(r - 1, col_cum + k), at(r, col_first + k), at(r, col_factor)),
                 cum[static_cast<std::size_t>(k)], Style::kMoney);
    }
    cf.formula(r, col_factor, fmt::format("(1+{})^(-{}/12)", rate.ref, at(r, 0)), factor, Style::kPrecise);
    // Buy's break-even with option k: the first month ≥ 1 where owning's cumulative cost is at or below k's.
    for (int k = 1; k < n_opt; ++k) {
      const bool caught = m >= 1 && cum[0] <= cum[static_cast<std::size_t>(k)] + 1e-9;
      cf.formula_text(r, col_flags + k - 1,
                      fmt::format("IF(AND({}>=1,{}<={}+1E-9),\"{}\",\"\")", at(r, 0), at(r, col_cum), at(r, col_cum + k), m),
                      caught ? std::to_string(m) : "");
    }
    factor *= v;
  }
  const int total_row = H + 2;
  cf.text(total_row, 0, "total", Style::kHeader);
  for (int k = 0; k < n_opt; ++k)
    cf.formula(total_row, col_first + k,
               fmt::format("SUM({}:{})", at(1, col_first + k), at(H + 1, col_first + k)),
               c.options[static_cast<std::size_t>(k)].total.units(), Style::kMoney);

  // Summary: one row per option, then the decision.
  sum.text(0, 0, fmt::format("Buy vs rent over {} months ({})", H, CUR), Style::kTitle);
  const std::vector<std::string> heads = {"option", "label", "total", "NPV", "GPU-h used", "per used GPU-h",
                                          "break-even month (buy vs this)"};
  for (std::size_t j = 0; j < heads.size(); ++j) sum.text(2, static_cast<int>(j), heads[j], Style::kHeader);
  sum.freeze(3);
  sum.width(0, 16);
  sum.width(1, 60);
  for (int j = 2; j < 7; ++j) sum.width(j, 18);
  const std::string cfname = "'Cash flow'";
  for (int k = 0; k < n_opt; ++k) {
    const OptionResult& opt = c.options[static_cast<std::size_t>(k)];
    const int r = 3 + k;
    const std::string col = xlsx::column_letters(col_first + k);
    sum.text(r, 0, opt.key);
    sum.text(r, 1, opt.label);
    sum.formula(r, 2, fmt::format("{}!{}", cfname, at(total_row, col_first + k)), opt.total.units(), Style::kMoney);
    sum.formula(r, 3, fmt::format("SUMPRODUCT({0}!{1}2:{1}{2},{0}!{3}2:{3}{2})", cfname, col, H + 2,
                                  xlsx::column_letters(col_factor)),
                opt.npv, Style::kMoney);
    // GPU-hours used: every month at the utilisation; buying counts its
    // in-service months, and the waiting months only when bridged by renting.
    std::string used = "gpus*730*utilisation*horizon_months";
    if (opt.key == "buy")
      used = fmt::format("gpus*730*utilisation*(SUM({0}!{1}3:{1}{2})+IF(cover_by_renting=1,horizon_months-SUM({0}!{1}3:{1}{2}),0))",
                         cfname, xlsx::column_letters(col_in_service), H + 2);
    sum.formula(r, 4, used, opt.used_gpu_hours, Style::kNumber);
    sum.formula(r, 5, fmt::format("IF({0}>0,{1}/{0},\"\")", at(r, 4), at(r, 2)), opt.cost_per_used_gpu_hour.value_or(0),
                Style::kMoney);
    if (k > 0) {
      const std::string flags = fmt::format("{}!{}2:{}{}", cfname, xlsx::column_letters(col_flags + k - 1),
                                            xlsx::column_letters(col_flags + k - 1), H + 2);
      // The flags are text; the first non-empty one is the break-even month.
      sum.formula_text(r, 6, fmt::format("IF(COUNTIF({0},\"?*\")=0,\"none\",INDEX({0},MATCH(\"?*\",{0},0)))", flags),
                       opt.break_even_month ? std::to_string(*opt.break_even_month) : "none");
    }
  }
  const int last = 3 + n_opt - 1;
  int r = last + 2;
  sum.text(r, 0, "cheapest (by NPV)", Style::kHeader);
  sum.formula_text(r, 1, fmt::format("INDEX(A4:A{0},MATCH(MIN(D4:D{0}),D4:D{0},0))", last + 1), c.cheapest);
  ++r;
  // The cheapest rental option (not hybrid), and owning's break-even with it.
  std::string rent_rows;
  int first_rent = -1, last_rent = -1;
  for (int k = 0; k < n_opt; ++k) {
    const std::string& key = keys[static_cast<std::size_t>(k)];
    if (key == "buy" || key == "hybrid") continue;
    if (first_rent < 0) first_rent = 3 + k;
    last_rent = 3 + k;
  }
  if (first_rent >= 0) {
    sum.text(r, 0, "cheapest rental", Style::kHeader);
    const std::string range = fmt::format("{}{}:{}{}", "D", first_rent + 1, "D", last_rent + 1);
    sum.formula_text(r, 1, fmt::format("INDEX(A{0}:A{1},MATCH(MIN({2}),{2},0))", first_rent + 1, last_rent + 1, range),
                     c.break_even_versus);
    ++r;
    sum.text(r, 0, "break-even month", Style::kHeader);
    sum.formula_text(r, 1,
                     fmt::format("INDEX(G{0}:G{1},MATCH(MIN({2}),{2},0))", first_rent + 1, last_rent + 1, range),
                     c.break_even_month ? std::to_string(*c.break_even_month) : "none");
    ++r;
  }
  sum.text(r, 0, "break-even utilisation", Style::kHeader);
  if (c.break_even_utilisation) sum.number(r, 1, *c.break_even_utilisation, Style::kPercent);
  else sum.text(r, 1, "none in 0-100%");
  sum.text(r, 2, "computed by gpuplan (a search, not a formula): rerun it after changing assumptions", Style::kNote);
  r += 2;
  sum.text(r++, 0, c.recommendation, Style::kNote);
  sum.text(r++, 0, fmt::format("Scenario: {}. Generated by gpuplan; the cached values are gpuplan's, and every total is "
                               "a formula over the Assumptions sheet.",
                               rs.source),
           Style::kNote);
  for (const auto& n : rs.fx_notes) sum.text(r++, 0, n, Style::kNote);
  return wb.bytes();
}

}  // namespace gpuplan
