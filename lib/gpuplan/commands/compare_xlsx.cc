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
#include "gpuplan/scenario_fields.h"
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

RentRefs rent_inputs(Inputs& in, const std::string& p, const RentInputs& r, const Workload& w,
                     const std::string& what) {
  RentRefs x;
  x.price = in.input(p + "price", what + ": price per instance", r.price.units(), Style::kInputMoney,
                     p == "m_" ? "per instance-month" : "per instance-hour",
                     r.description + (r.offer.empty() ? "" : " (catalog " + r.offer + ")"));
  x.gpi =
      in.input(p + "gpus_per_instance", what + ": GPUs per instance", r.gpus_per_instance, Style::kInputNumber, "GPUs");
  x.granularity = in.input(p + "granularity_h", what + ": billing granularity", r.granularity.count() / 3600.0,
                           Style::kInputNumber, "hours", "0 = billed exactly");
  x.minimum = in.input(p + "minimum_h", what + ": minimum billed per run", r.minimum_billing.count() / 3600.0,
                       Style::kInputNumber, "hours");
  x.storage = in.input(p + "storage_per_gb_month", what + ": storage", r.storage_per_gb_month.units(),
                       Style::kInputMoney, "per GB-month");
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
HourlyParts hourly_parts(Inputs& in, const std::string& p, const RentRefs& r, const V& u, const V& runs,
                         const V& factor, const V& idle_per_run, const V& auto_release, const std::string& what,
                         const RentInputs& ri, const Workload& w) {
  const double u_value = u.v, idle_h_value = idle_per_run.v;
  const int runs_value = static_cast<int>(runs.v);
  HourlyParts h;
  const double busy = kHoursPerMonth * u_value * factor.v;
  const int nruns = std::max(1, runs_value);
  const double run = busy / nruns;
  const double idle = (busy > 0 && auto_release.v == 0) ? idle_h_value : 0.0;
  const V busy_v = in.derived(p + "busy_h", what + ": busy hours a month", fmt::format("730*{}*{}", u.ref, factor.ref),
                              busy, Style::kNumber, "hours");
  const V run_v = in.derived(p + "run_h", what + ": hours per run", fmt::format("{}/MAX(1,{})", busy_v.ref, runs.ref),
                             run, Style::kNumber, "hours");
  const V idle_v = in.derived(p + "idle_h", what + ": left running per run",
                              fmt::format("IF(AND({}>0,{}=0),{},0)", busy_v.ref, auto_release.ref, idle_per_run.ref),
                              idle, Style::kNumber, "hours");
  const double bw = billed_run_hours(run, ri.granularity, ri.minimum_billing) * nruns * r.instances.v;
  const double ba = billed_run_hours(run + idle, ri.granularity, ri.minimum_billing) * nruns * r.instances.v;
  const V work = in.derived(
      p + "billed_work_h", what + ": billed instance-hours (work)",
      fmt::format("{}*MAX(1,{})*{}", billed_formula(run_v.ref, r.granularity, r.minimum), runs.ref, r.instances.ref),
      bw, Style::kNumber, "instance-hours");
  const V all =
      in.derived(p + "billed_all_h", what + ": billed instance-hours (with idle)",
                 fmt::format("{}*MAX(1,{})*{}",
                             billed_formula(fmt::format("({}+{})", run_v.ref, idle_v.ref), r.granularity, r.minimum),
                             runs.ref, r.instances.ref),
                 ba, Style::kNumber, "instance-hours");
  h.compute = in.derived(p + "compute", what + ": compute a month", fmt::format("{}*{}", r.price.ref, work.ref),
                         r.price.v * bw, Style::kMoney);
  h.idle = in.derived(p + "idle", what + ": idle hours billed a month",
                      fmt::format("{}*({}-{})", r.price.ref, all.ref, work.ref), r.price.v * (ba - bw), Style::kMoney);
  const double dataset = w.dataset.value() / kGB, egress = w.egress_per_month.value() / kGB;
  h.storage = in.derived(p + "storage", what + ": storage a month", fmt::format("{}*dataset_gb", r.storage.ref),
                         r.storage.v * dataset, Style::kMoney);
  h.egress = in.derived(p + "egress", what + ": egress a month", fmt::format("{}*egress_gb_per_month", r.egress.ref),
                        r.egress.v * egress, Style::kMoney);
  const double bill = h.compute.v + h.idle.v + h.storage.v + h.egress.v;
  h.support = in.derived(p + "support_month", what + ": support a month",
                         fmt::format("IF({0}>0,MAX(({1}+{2}+{3}+{4})*{0},{5}),0)", r.support.ref, h.compute.ref,
                                     h.idle.ref, h.storage.ref, h.egress.ref, r.support_min.ref),
                         r.support.v > 0 ? std::max(bill * r.support.v, r.support_min.v) : 0.0, Style::kMoney);
  return h;
}

}  // namespace

namespace {

// The named cells the cash flow refers to, filled section by section.
struct Refs {
  V rate, u, runs;
  V lead, cover, delay, hardware, facility, tariff, pue, kwh, ops, coloc, value_share;
  std::optional<RentRefs> hr, mr, sr;
  V h_idle_per_run{"0", 0}, h_auto{"1", 1};
  std::optional<HourlyParts> hp, sp_work, sp_wall, yp;
  std::optional<V> m_commit, m_compute, m_storage, m_egress, m_support;
  std::optional<V> y_power, y_capex;
};

// An input row of the Assumptions sheet described by its field row (scenario_fields.cc).
V field(Inputs& in, std::string_view section, std::string_view key, std::string name, double value, Style style,
        std::string unit) {
  const Field<Scenario>* row = find_field(scenario_section(section).rows, key);
  return in.input(std::move(name), std::string(row->label), value, style, std::move(unit));
}

void workload_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  x.rate = field(gen, "", "discount_rate", "discount_rate", s.discount_rate, Style::kInputPercent, "per year");
  gen.heading("Workload");
  field(gen, "workload", "gpus", "gpus", w.gpus, Style::kInputNumber, "GPUs");
  x.u = field(gen, "workload", "utilisation", "utilisation", w.utilisation, Style::kInputPercent, "share");
  x.runs = field(gen, "workload", "runs_per_month", "runs_per_month", w.runs_per_month, Style::kInputNumber, "runs");
  field(gen, "workload", "dataset", "dataset_gb", w.dataset.value() / kGB, Style::kInputNumber, "GB");
  field(gen, "workload", "egress_per_month", "egress_gb_per_month", w.egress_per_month.value() / kGB,
        Style::kInputNumber, "GB");
}

// Hardware in month 0, energy a month in service and the resale share at the horizon (compare.cc).
void buy_derived(Inputs& gen, const Scenario& s, const V& cards, const V& card_price, const V& base, const V& net,
                 const V& life, const V& residual, const V& busy_w, const V& idle_w, const V& server_w, Refs& x) {
  const OwnInputs& o = s.own;
  const double hardware_v = o.card_price.units() * o.cards + o.server_base.units() + o.network.units();
  x.hardware =
      gen.derived("hardware", "hardware (paid in month 0)",
                  fmt::format("{}*{}+{}+{}", card_price.ref, cards.ref, base.ref, net.ref), hardware_v, Style::kMoney);
  // Power = (busy W × cards × u + idle W × cards × (1 − u) + server W) × PUE × 730 h / 1000 (compare.cc).
  const double u = s.workload.utilisation;
  const double kwh_v = (o.gpu_busy.value() * o.cards * u + o.gpu_idle.value() * o.cards * (1 - u) + o.server.value()) *
                       o.pue * kHoursPerMonth / 1000.0;
  x.kwh = gen.derived("buy_kwh_per_month", "energy a month in service",
                      fmt::format("({0}*{1}*{2}+{3}*{1}*(1-{2})+{4})*{5}*730/1000", busy_w.ref, cards.ref, x.u.ref,
                                  idle_w.ref, server_w.ref, x.pue.ref),
                      kwh_v, Style::kNumber, "kWh");
  const double service = std::max(0.0, s.horizon_months - o.lead_time / Months(1));
  const double life_m = o.useful_life / Months(1);
  const double value_share_v = 1 - (1 - o.residual_share) * (life_m > 0 ? std::min(1.0, service / life_m) : 1.0);
  x.value_share = gen.derived(
      "resale_share", "resale value at the horizon, share of hardware",
      fmt::format("1-(1-{0})*IF({1}>0,MIN(1,MAX(0,horizon_months-{2})/{1}),1)", residual.ref, life.ref, x.lead.ref),
      value_share_v, Style::kPercent);
}

void buy_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const OwnInputs& o = s.own;
  const std::string CUR(s.currency.code());
  gen.heading("Buy");
  const V cards = gen.input("cards", fmt::format("cards ({})", o.gpu), o.cards, Style::kInputNumber, "cards");
  const V card_price = field(gen, "buy", "card_price", "card_price", o.card_price.units(), Style::kInputMoney, CUR);
  const V base = field(gen, "buy", "server_base", "server_base", o.server_base.units(), Style::kInputMoney, CUR);
  const V net = field(gen, "buy", "network", "network", o.network.units(), Style::kInputMoney, CUR);
  x.facility = field(gen, "buy", "facility", "facility", o.facility.units(), Style::kInputMoney, CUR);
  x.lead = field(gen, "buy", "lead_time", "lead_time_months", o.lead_time / Months(1), Style::kInputNumber, "months");
  const bool bridge_possible = s.hourly || s.monthly;
  x.cover = gen.input("cover_by_renting", "bridge the lead time by renting (1) or pay the delay cost (0)",
                      o.cover == LeadTimeCover::kRent && bridge_possible ? 1 : 0, Style::kInputNumber, "1 or 0");
  x.delay = field(gen, "buy", "delay_cost_per_month", "delay_cost_per_month", o.delay_cost_per_month.units(),
                  Style::kInputMoney, CUR);
  const V life =
      field(gen, "buy", "useful_life", "useful_life_months", o.useful_life / Months(1), Style::kInputNumber, "months");
  const V residual = field(gen, "buy", "residual_value", "residual_value", o.residual_share, Style::kInputPercent,
                           "share of hardware");
  const V busy_w = field(gen, "buy", "gpu_power", "gpu_power_w", o.gpu_busy.value(), Style::kInputNumber, "W");
  const V idle_w =
      field(gen, "buy", "gpu_idle_power", "gpu_idle_power_w", o.gpu_idle.value(), Style::kInputNumber, "W");
  const V server_w = field(gen, "buy", "server_power", "server_power_w", o.server.value(), Style::kInputNumber, "W");
  x.pue = field(gen, "buy", "pue", "pue", o.pue, Style::kInputNumber, "ratio");
  x.tariff = field(gen, "buy", "electricity_per_kwh", "electricity_per_kwh", o.electricity_per_kwh.units(),
                   Style::kInputMoney, "per kWh");
  x.ops = field(gen, "buy", "operations_per_month", "operations_per_month", o.operations_per_month.units(),
                Style::kInputMoney, "per month");
  x.coloc = field(gen, "buy", "colocation_per_month", "colocation_per_month", o.colocation_per_month.units(),
                  Style::kInputMoney, "per month");
  buy_derived(gen, s, cards, card_price, base, net, life, residual, busy_w, idle_w, server_w, x);
}

void hourly_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  gen.heading("Rent by the hour");
  x.hr = rent_inputs(gen, "h_", s.hourly->rent, s.workload, "hourly");
  x.h_idle_per_run = gen.input("h_idle_per_run_h", "hourly: left running after each run",
                               s.hourly->idle_per_run.count(), Style::kInputNumber, "hours");
  x.h_auto = gen.input("h_auto_release", "hourly: released automatically (1) or not (0)",
                       s.hourly->auto_release ? 1 : 0, Style::kInputNumber, "1 or 0");
  const V one{"1", 1};
  x.hp = hourly_parts(gen, "h_", *x.hr, x.u, x.runs, one, x.h_idle_per_run, x.h_auto, "hourly", s.hourly->rent,
                      s.workload);
}

void monthly_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  gen.heading("Rent by the month");
  x.mr = rent_inputs(gen, "m_", *s.monthly, w, "monthly");
  const RentRefs& mr = *x.mr;
  x.m_commit = gen.input("m_commitment_months", "monthly: committed term (0 = none)", s.monthly->commitment_months,
                         Style::kInputNumber, "months", "months past the horizon are still owed");
  x.m_compute =
      gen.derived("m_compute", "monthly: compute a month", fmt::format("{}*{}", mr.price.ref, mr.instances.ref),
                  mr.price.v * mr.instances.v, Style::kMoney);
  x.m_storage = gen.derived("m_storage", "monthly: storage a month", fmt::format("{}*dataset_gb", mr.storage.ref),
                            mr.storage.v * w.dataset.value() / kGB, Style::kMoney);
  x.m_egress = gen.derived("m_egress", "monthly: egress a month", fmt::format("{}*egress_gb_per_month", mr.egress.ref),
                           mr.egress.v * w.egress_per_month.value() / kGB, Style::kMoney);
  const double bill = x.m_compute->v + x.m_storage->v + x.m_egress->v;
  x.m_support = gen.derived("m_support_month", "monthly: support a month",
                            fmt::format("IF({0}>0,MAX(({1}+{2}+{3})*{0},{4}),0)", mr.support.ref, x.m_compute->ref,
                                        x.m_storage->ref, x.m_egress->ref, mr.support_min.ref),
                            mr.support.v > 0 ? std::max(bill * mr.support.v, mr.support_min.v) : 0.0, Style::kMoney);
}

void spot_inputs(Inputs& gen, const Scenario& s, const SpotOverhead& ov, Refs& x) {
  gen.heading("Spot");
  x.sr = rent_inputs(gen, "s_", s.spot->rent, s.workload, "spot");
  const RentRefs& sr = *x.sr;
  const SpotParams& p = s.spot->interruptions;
  const V per_day = gen.input("s_interruptions_per_day", "spot: interruptions a day per instance",
                              p.interruptions_per_hour * 24, Style::kInputNumber, "per day");
  const V cw = gen.input("s_checkpoint_write_h", "spot: checkpoint write", p.checkpoint_write.count() / 3600,
                         Style::kInputNumber, "hours");
  const V rs_ = gen.input("s_restart_h", "spot: restart", p.restart.count() / 3600, Style::kInputNumber, "hours");
  const V given = gen.input("s_interval_h", "spot: checkpoint interval (0 = Daly's optimum)",
                            p.interval ? p.interval->count() / 3600 : 0.0, Style::kInputNumber, "hours");
  const double lambda = p.interruptions_per_hour * sr.instances.v;
  const V lam =
      gen.derived("s_lambda_per_h", "spot: interruptions an hour of the job (rate × instances)",
                  fmt::format("{}/24*{}", per_day.ref, sr.instances.ref), lambda, Style::kPrecise, "per hour");
  // τ = sqrt(2·C·MTBF) unless given; C = 0: continuous checkpoints (τ = 0).
  const double tau = std::isfinite(ov.interval.count()) ? ov.interval.count() / 3600 : 0.0;
  // τ: given, else Daly's optimum sqrt(2CM)·[1 + (C/2M)^½/3 + (C/2M)/9] − C (M = 1/λ; C ≥ 2M: τ = M);
  // C = 0: a checkpoint every second of work.
  const V tau_v = gen.derived("s_tau_h", "spot: checkpoint interval used",
                              fmt::format("IF({0}>0,{0},IF({1}>0,IF({2}=0,1/3600,IF({2}>=2/{1},1/{1},"
                                          "SQRT(2*{2}/{1})*(1+SQRT({2}*{1}/2)/3+{2}*{1}/18)-{2})),0))",
                                          given.ref, lam.ref, cw.ref),
                              tau, Style::kPrecise, "hours");
  // Daly's complete model: T/W = M·e^(R/M)·(e^((τ + C)/M) − 1)/τ; never interrupted: 1 + C/τ for a given τ, else 1.
  const V factor =
      gen.derived("s_wall_per_work", "spot: wall time per hour of work (Daly's complete model)",
                  fmt::format("IF({0}=0,IF({1}>0,1+{2}/{1},1),EXP({3}*{0})*(EXP(({1}+{2})*{0})-1)/({0}*{1}))", lam.ref,
                              tau_v.ref, cw.ref, rs_.ref),
                  ov.wall_per_work, Style::kPrecise, "ratio");
  const V one{"1", 1}, zero{"0", 0}, yes{"1", 1};
  x.sp_work = hourly_parts(gen, "s_work_", sr, x.u, x.runs, one, zero, yes, "spot (work)", s.spot->rent, s.workload);
  x.sp_wall = hourly_parts(gen, "s_wall_", sr, x.u, x.runs, factor, zero, yes, "spot (with interruptions)",
                           s.spot->rent, s.workload);
}

void hybrid_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  const HybridInputs& y = *s.hybrid;
  const std::string CUR(s.currency.code());
  gen.heading("Hybrid (local cards, the rest by the hour)");
  const V share = gen.input("y_local_share", "hybrid: share of GPU-hours on local cards", y.local_share,
                            Style::kInputPercent, "share");
  const V lc = gen.input("y_local_cards", fmt::format("hybrid: local cards ({})", y.local_gpu), y.local_cards,
                         Style::kInputNumber, "cards");
  x.y_capex =
      gen.input("y_local_capex", "hybrid: local hardware (month 0)", y.local_capex.units(), Style::kInputMoney, CUR);
  const V lb =
      gen.input("y_gpu_power_w", "hybrid: local GPU power busy", y.local_gpu_busy.value(), Style::kInputNumber, "W");
  const V li = gen.input("y_gpu_idle_power_w", "hybrid: local GPU power idle", y.local_gpu_idle.value(),
                         Style::kInputNumber, "W");
  const double ul = std::min(1.0, y.local_share * w.gpus * w.utilisation / y.local_cards);
  const V u_local = gen.derived("y_u_local", "hybrid: local cards' utilisation",
                                fmt::format("MIN(1,{}*gpus*{}/{})", share.ref, x.u.ref, lc.ref), ul, Style::kPercent);
  const double eff = w.utilisation > 0 ? ul * y.local_cards / (w.gpus * w.utilisation) : 0.0;
  const V u_rent = gen.derived("y_u_rent", "hybrid: rented utilisation",
                               fmt::format("IF({0}>0,{0}*(1-{1}*{2}/(gpus*{0})),0)", x.u.ref, u_local.ref, lc.ref),
                               w.utilisation * (1 - eff), Style::kPercent);
  const double ykwh =
      (y.local_gpu_busy.value() * y.local_cards * ul + y.local_gpu_idle.value() * y.local_cards * (1 - ul)) *
      s.own.pue * kHoursPerMonth / 1000.0;
  x.y_power = gen.derived("y_local_power", "hybrid: local power a month",
                          fmt::format("{}*({}*{}*{}+{}*{}*(1-{}))*{}*730/1000", x.tariff.ref, lb.ref, lc.ref,
                                      u_local.ref, li.ref, lc.ref, u_local.ref, x.pue.ref),
                          s.own.electricity_per_kwh.units() * ykwh, Style::kMoney);
  const V one{"1", 1};
  x.yp = hourly_parts(gen, "y_", *x.hr, u_rent, x.runs, one, x.h_idle_per_run, x.h_auto, "hybrid (rented part)",
                      s.hourly->rent, w);
}

// The month's total of a rental: each item rounded to the cent, as gpuplan adds them.
std::string month_total(const HourlyParts& h) {
  return fmt::format("ROUND({},2)+ROUND({},2)+ROUND({},2)+ROUND({},2)+ROUND({},2)", h.compute.ref, h.idle.ref,
                     h.storage.ref, h.egress.ref, h.support.ref);
}

// Buy: month 0 hardware and facility; later power, operations and colocation
// for the share in service, the waiting share bridged by renting or priced as
// a delay; the resale value comes back in the last month.
std::string buy_month(const Refs& x, const std::string& month, const std::string& in_service) {
  std::string bridge = "0";
  if (x.hp)
    bridge = fmt::format("ROUND(({}+{}+ROUND({},2)+ROUND({},2)+ROUND({},2))*(1-{}),2)", x.hp->compute.ref,
                         x.hp->idle.ref, x.hp->storage.ref, x.hp->egress.ref, x.hp->support.ref, in_service);
  else if (x.m_compute)
    bridge = fmt::format("ROUND(({}+ROUND({},2)+ROUND({},2)+ROUND({},2))*(1-{}),2)", x.m_compute->ref, x.m_storage->ref,
                         x.m_egress->ref, x.m_support->ref, in_service);
  return fmt::format(
      "IF({0}=0,ROUND({1},2)+ROUND({2},2),ROUND({3}*{4}*{5},2)+ROUND({6}*{5},2)+ROUND({7}*{5},2)+"
      "IF({5}<1,IF({8}=1,{9},ROUND({10}*(1-{5}),2)),0))-IF({0}=horizon_months,ROUND({1}*{11},2),0)",
      month, x.hardware.ref, x.facility.ref, x.tariff.ref, x.kwh.ref, in_service, x.ops.ref, x.coloc.ref, x.cover.ref,
      bridge, x.delay.ref, x.value_share.ref);
}

// One option's cash flow in one month, as a formula over the Assumptions sheet.
std::string month_formula(const std::string& key, const Refs& x, const std::string& month,
                          const std::string& in_service) {
  if (key == "buy") return buy_month(x, month, in_service);
  if (key == "rent_hourly") return fmt::format("IF({}=0,0,{})", month, month_total(*x.hp));
  if (key == "rent_monthly")
    return fmt::format(
        "IF({0}=0,0,ROUND({1},2)+ROUND({2},2)+ROUND({3},2)+ROUND({4},2)+IF({0}=horizon_months,"
        "{1}*MAX(0,{5}-horizon_months),0))",
        month, x.m_compute->ref, x.m_storage->ref, x.m_egress->ref, x.m_support->ref, x.m_commit->ref);
  if (key == "spot")
    return fmt::format("IF({0}=0,0,ROUND({1},2)+ROUND({2}-{1},2)+ROUND({3},2)+ROUND({4},2)+ROUND({5},2))", month,
                       x.sp_work->compute.ref, x.sp_wall->compute.ref, x.sp_wall->storage.ref, x.sp_wall->egress.ref,
                       x.sp_wall->support.ref);
  if (key == "hybrid")
    return fmt::format("IF({0}=0,ROUND({1},2),ROUND({2},2)+{3})", month, x.y_capex->ref, x.y_power->ref,
                       month_total(*x.yp));
  throw std::logic_error("compare workbook: no formula for option " + key);
}

// Where the Cash flow sheet's columns are: month, buy's in-service share, each
// option, the discount factor, each option's cumulative discounted cost, then
// buy's break-even flags against every other option.
struct Layout {
  int options = 0;
  int in_service = 1, first = 2, factor = 0, cumulative = 0, flags = 0, total_row = 0;
};

Layout cash_flow_header(xlsx::Sheet& cf, const Comparison& c) {
  Layout l;
  l.options = static_cast<int>(c.options.size());
  l.factor = l.first + l.options;
  l.cumulative = l.factor + 1;
  l.flags = l.cumulative + l.options;
  l.total_row = c.scenario.horizon_months + 2;
  cf.text(0, 0, "month", Style::kHeader);
  cf.text(0, l.in_service, "buy: in service", Style::kHeader);
  for (int k = 0; k < l.options; ++k) {
    const std::string& key = c.options[static_cast<std::size_t>(k)].key;
    cf.text(0, l.first + k, key, Style::kHeader);
    cf.text(0, l.cumulative + k, "cumulative " + key + " (discounted)", Style::kHeader);
    if (k > 0) cf.text(0, l.flags + k - 1, "buy caught up with " + key, Style::kHeader);
  }
  cf.text(0, l.factor, "discount factor", Style::kHeader);
  cf.freeze(1, 1);
  cf.width(0, 8);
  for (int k = 1; k < l.flags + l.options; ++k) cf.width(k, 16);
  return l;
}

void cash_flow_sheet(xlsx::Sheet& cf, const Comparison& c, const Refs& x, const Layout& l) {
  const int H = c.scenario.horizon_months;
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  std::vector<double> cum(static_cast<std::size_t>(l.options), 0.0);
  const double v = 1.0 / (1.0 + monthly_rate(c.scenario.discount_rate));
  double factor = 1.0;
  for (int m = 0; m <= H; ++m) {
    const int r = m + 1;
    cf.number(r, 0, m, Style::kInteger);
    const double ins = std::clamp(static_cast<double>(m) - x.lead.v, 0.0, 1.0);
    cf.formula(r, l.in_service, fmt::format("IF({0}=0,0,MIN(1,MAX(0,{0}-{1})))", at(r, 0), x.lead.ref),
               m == 0 ? 0 : ins, Style::kPercent);
    for (int k = 0; k < l.options; ++k) {
      const OptionResult& opt = c.options[static_cast<std::size_t>(k)];
      const double value = opt.cash_flow[static_cast<std::size_t>(m)].units();
      cf.formula(r, l.first + k, month_formula(opt.key, x, at(r, 0), at(r, l.in_service)), value, Style::kMoney);
      cum[static_cast<std::size_t>(k)] += value * factor;
      cf.formula(r, l.cumulative + k,
                 m == 0 ? fmt::format("{}*{}", at(r, l.first + k), at(r, l.factor))
                        : fmt::format("{}+{}*{}", at(r - 1, l.cumulative + k), at(r, l.first + k), at(r, l.factor)),
                 cum[static_cast<std::size_t>(k)], Style::kMoney);
    }
    cf.formula(r, l.factor, fmt::format("(1+{})^(-{}/12)", x.rate.ref, at(r, 0)), factor, Style::kPrecise);
    // Buy's break-even with option k: the first month ≥ 1 where owning's cumulative cost is at or below k's.
    for (int k = 1; k < l.options; ++k) {
      const bool caught = m >= 1 && cum[0] <= cum[static_cast<std::size_t>(k)] + 1e-9;
      cf.formula_text(r, l.flags + k - 1,
                      fmt::format("IF(AND({}>=1,{}<={}+1E-9),\"{}\",\"\")", at(r, 0), at(r, l.cumulative),
                                  at(r, l.cumulative + k), m),
                      caught ? std::to_string(m) : "");
    }
    factor *= v;
  }
  cf.text(l.total_row, 0, "total", Style::kHeader);
  for (int k = 0; k < l.options; ++k)
    cf.formula(l.total_row, l.first + k, fmt::format("SUM({}:{})", at(1, l.first + k), at(H + 1, l.first + k)),
               c.options[static_cast<std::size_t>(k)].total.units(), Style::kMoney);
}

// One row per option: total, NPV, GPU-hours used, cost per used GPU-hour, break-even.
void summary_options(xlsx::Sheet& sum, const Comparison& c, const Layout& l) {
  const int H = c.scenario.horizon_months;
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  const std::string cfname = "'Cash flow'";
  for (int k = 0; k < l.options; ++k) {
    const OptionResult& opt = c.options[static_cast<std::size_t>(k)];
    const int r = 3 + k;
    const std::string col = xlsx::column_letters(l.first + k);
    sum.text(r, 0, opt.key);
    sum.text(r, 1, opt.label);
    sum.formula(r, 2, fmt::format("{}!{}", cfname, at(l.total_row, l.first + k)), opt.total.units(), Style::kMoney);
    sum.formula(
        r, 3,
        fmt::format("SUMPRODUCT({0}!{1}2:{1}{2},{0}!{3}2:{3}{2})", cfname, col, H + 2, xlsx::column_letters(l.factor)),
        opt.npv, Style::kMoney);
    // GPU-hours used: every month at the utilisation; buying counts its
    // in-service months, and the waiting months only when bridged by renting.
    std::string used = "gpus*730*utilisation*horizon_months";
    if (opt.key == "buy")
      used = fmt::format(
          "gpus*730*utilisation*(SUM({0}!{1}3:{1}{2})+IF(cover_by_renting=1,horizon_months-SUM({0}!{1}3:{1}{2}),0))",
          cfname, xlsx::column_letters(l.in_service), H + 2);
    sum.formula(r, 4, used, opt.used_gpu_hours, Style::kNumber);
    sum.formula(r, 5, fmt::format("IF({0}>0,{1}/{0},\"\")", at(r, 4), at(r, 2)), opt.cost_per_used_gpu_hour.value_or(0),
                Style::kMoney);
    if (k == 0) continue;
    const std::string flags = fmt::format("{}!{}2:{}{}", cfname, xlsx::column_letters(l.flags + k - 1),
                                          xlsx::column_letters(l.flags + k - 1), H + 2);
    // The flags are text; the first non-empty one is the break-even month.
    sum.formula_text(r, 6, fmt::format("IF(COUNTIF({0},\"?*\")=0,\"none\",INDEX({0},MATCH(\"?*\",{0},0)))", flags),
                     opt.break_even_month ? std::to_string(*opt.break_even_month) : "none");
  }
}

// The decision under the options: the cheapest, the cheapest rental and owning's break-even with it.
int summary_decision(xlsx::Sheet& sum, const Comparison& c, const Layout& l) {
  const int last = 3 + l.options - 1;
  int r = last + 2;
  sum.text(r, 0, "cheapest (by NPV)", Style::kHeader);
  sum.formula_text(r, 1, fmt::format("INDEX(A4:A{0},MATCH(MIN(D4:D{0}),D4:D{0},0))", last + 1), c.cheapest);
  ++r;
  int first_rent = -1, last_rent = -1;  // rental options, not hybrid
  for (int k = 0; k < l.options; ++k) {
    const std::string& key = c.options[static_cast<std::size_t>(k)].key;
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
    sum.formula_text(r, 1, fmt::format("INDEX(G{0}:G{1},MATCH(MIN({2}),{2},0))", first_rent + 1, last_rent + 1, range),
                     c.break_even_month ? std::to_string(*c.break_even_month) : "none");
    ++r;
  }
  sum.text(r, 0, "break-even utilisation", Style::kHeader);
  if (c.break_even_utilisation) sum.number(r, 1, *c.break_even_utilisation, Style::kPercent);
  else sum.text(r, 1, "none in 0-100%");
  sum.text(r, 2, "computed by gpuplan (a search, not a formula): rerun it after changing assumptions", Style::kNote);
  return r + 2;
}

void summary_sheet(xlsx::Sheet& sum, const ResolvedScenario& rs, const Comparison& c, const Layout& l) {
  sum.text(0, 0, fmt::format("Buy vs rent over {} months ({})", c.scenario.horizon_months, c.scenario.currency.code()),
           Style::kTitle);
  const std::vector<std::string> heads = {
      "option", "label", "total", "NPV", "GPU-h used", "per used GPU-h", "break-even month (buy vs this)"};
  for (std::size_t j = 0; j < heads.size(); ++j) sum.text(2, static_cast<int>(j), heads[j], Style::kHeader);
  sum.freeze(3);
  sum.width(0, 16);
  sum.width(1, 60);
  for (int j = 2; j < 7; ++j) sum.width(j, 18);
  summary_options(sum, c, l);
  int r = summary_decision(sum, c, l);
  sum.text(r++, 0, c.recommendation, Style::kNote);
  sum.text(r++, 0,
           fmt::format("Scenario: {}. Generated by gpuplan; the cached values are gpuplan's, and every total is "
                       "a formula over the Assumptions sheet.",
                       rs.source),
           Style::kNote);
  for (const auto& n : rs.fx_notes) sum.text(r++, 0, n, Style::kNote);
}

// Every input as a named, editable cell, section by section, then what the cash flow needs.
Refs assumptions_sheet(xlsx::Workbook& wb, xlsx::Sheet& a, const Scenario& s, const Comparison& c) {
  const int first = xlsx::assumptions_header(a, fmt::format("Buy vs rent: {} ({})", s.name, s.currency.code()));
  a.text(2, 0, "The horizon is the number of rows of Cash flow: change it with gpuplan.", Style::kNote);
  Inputs in(wb, a, first);
  a.text(in.row(), 0, "horizon (rows of Cash flow)");
  a.number(in.row(), 1, s.horizon_months, Style::kInteger);
  a.text(in.row(), 2, "months");
  wb.define_name("horizon_months", a, in.row(), 1);
  Inputs gen(wb, a, in.row() + 1);
  Refs x;
  workload_inputs(gen, s, x);
  buy_inputs(gen, s, x);
  if (s.hourly) hourly_inputs(gen, s, x);
  if (s.monthly) monthly_inputs(gen, s, x);
  if (s.spot && c.spot_overhead) spot_inputs(gen, s, *c.spot_overhead, x);
  if (s.hybrid && s.hourly) hybrid_inputs(gen, s, x);
  return x;
}

}  // namespace

std::string compare_workbook(const ResolvedScenario& rs, const Comparison& c) {
  xlsx::Workbook wb(rs.scenario.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& cf = wb.add_sheet("Cash flow");
  xlsx::Sheet& sum = wb.add_sheet("Summary");
  const Refs x = assumptions_sheet(wb, a, rs.scenario, c);
  const Layout l = cash_flow_header(cf, c);
  cash_flow_sheet(cf, c, x, l);
  summary_sheet(sum, rs, c, l);
  return wb.bytes();
}

}  // namespace gpuplan
