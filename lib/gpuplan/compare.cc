#include "gpuplan/compare.h"

#include "gpuplan/cost/rent.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <stdexcept>

namespace gpuplan {
namespace {

double hours(Seconds s) { return s.count() / 3600.0; }

// Costs of one month, itemised; each item is rounded to the minor unit so that
// items add up to the month and months add up to the total.
class Month {
 public:
  explicit Month(Currency c) : currency_(c) {}
  void add(const std::string& item, Money amount) {
    const Money r = amount.rounded();
    if (r.micros() == 0) return;  // a zero line says nothing; notes say what has no price
    for (auto& [k, v] : items_)
      if (k == item) {
        v += r;
        return;
      }
    items_.emplace_back(item, r);
  }
  Money total() const {
    Money t = Money::zero(currency_);
    for (const auto& [k, v] : items_) t += v;
    return t;
  }
  const std::vector<std::pair<std::string, Money>>& items() const { return items_; }

 private:
  Currency currency_;
  std::vector<std::pair<std::string, Money>> items_;
};

class OptionBuilder {
 public:
  OptionBuilder(std::string key, std::string label, const Scenario& s) : s_(s) {
    out_.key = std::move(key);
    out_.label = std::move(label);
    for (int m = 0; m <= s.horizon_months; ++m) months_.emplace_back(s.currency);
  }
  Month& month(int m) { return months_.at(static_cast<std::size_t>(m)); }
  OptionResult& result() { return out_; }

  OptionResult finish(double used_gpu_hours) {
    const double v = 1.0 / (1.0 + monthly_rate(s_.discount_rate));
    out_.total = Money::zero(s_.currency);
    std::vector<CostLine> lines;
    double factor = 1.0;
    for (const Month& m : months_) {
      const Money t = m.total();
      out_.cash_flow.push_back(t);
      out_.total += t;
      // NPV = Σ CF_m · v^m with v = 1 / (1 + r_m): month 0 undiscounted.
      out_.npv += t.units() * factor;
      factor *= v;
      for (const auto& entry : m.items()) {
        const std::string& item = entry.first;  // named, not bound: clang 14 cannot capture bindings
        auto it = std::find_if(lines.begin(), lines.end(), [&](const CostLine& l) { return l.item == item; });
        if (it == lines.end()) lines.push_back(CostLine{item, entry.second});
        else it->amount += entry.second;
      }
    }
    out_.breakdown = std::move(lines);
    out_.used_gpu_hours = used_gpu_hours;
    // Cost per GPU-hour actually used: what a team pays for each hour it trains.
    if (used_gpu_hours > 0) out_.cost_per_used_gpu_hour = out_.total.units() / used_gpu_hours;
    return out_;
  }

 private:
  const Scenario& s_;
  OptionResult out_;
  std::vector<Month> months_;
};

// Add-ons billed with a rental each month: storage (dataset GB × price per
// GB-month), egress (GB × price per GB), and support as a share of the bill
// (compute + storage + egress), at least the plan's monthly minimum.
void add_markups(Month& month, const RentInputs& r, const Workload& w, Money compute_bill) {
  const Money storage = r.storage_per_gb_month.scaled(w.dataset.value() / kGB);
  const Money egress = r.egress_per_gb.scaled(w.egress_per_month.value() / kGB);
  month.add("storage", storage);
  month.add("egress", egress);
  if (r.support_share > 0) {
    Money support = (compute_bill + storage + egress).scaled(r.support_share);
    if (support < r.support_minimum_monthly) support = r.support_minimum_monthly;
    month.add("support", support);
  }
}

// Time before training can start on a rental: provisioning, then the one-off
// upload of the dataset at the measured bandwidth (dataset ÷ bandwidth).
Hours rental_start_delay(const RentInputs& r, const Workload& w) {
  double h = hours(r.provisioning);
  if (w.dataset.value() > 0 && w.upload_bandwidth.value() > 0) h += hours(w.dataset / w.upload_bandwidth);
  return Hours(h);
}

struct HourlyMonth {
  Money compute;
  Money idle;
};

// On-demand hourly, one month at busy fraction u: each of the month's runs
// lasts 730·u / runs hours and is billed per instance rounded up to the
// granularity; idle hours left running after each run are billed too unless
// the instance is released automatically.
HourlyMonth hourly_month(const HourlyInputs& h, const Workload& w, double u, double wall_per_work = 1.0,
                         bool idle_applies = true) {
  const RentInputs& r = h.rent;
  const int n = instances_for(w.gpus, r.gpus_per_instance);
  const double busy = kHoursPerMonth * u * wall_per_work;
  const int runs = std::max(1, w.runs_per_month);
  const double run = busy / runs;
  const double idle = (idle_applies && !h.auto_release && busy > 0) ? hours(h.idle_per_run) : 0.0;
  const double billed_work = billed_run_hours(run, r.granularity, r.minimum_billing) * runs * n;
  const double billed_all = billed_run_hours(run + idle, r.granularity, r.minimum_billing) * runs * n;
  return HourlyMonth{r.price.scaled(billed_work), r.price.scaled(billed_all - billed_work)};
}

OptionResult build_hourly(const Scenario& s, const HourlyInputs& h, double u) {
  const Workload& w = s.workload;
  OptionBuilder b(
      "rent_hourly",
      fmt::format("Rent by the hour: {}× {}", instances_for(w.gpus, h.rent.gpus_per_instance), h.rent.description), s);
  for (int m = 1; m <= s.horizon_months; ++m) {
    const HourlyMonth hm = hourly_month(h, w, u);
    b.month(m).add("compute", hm.compute);
    if (hm.idle.micros() > 0) b.month(m).add("idle (left running)", hm.idle);
    add_markups(b.month(m), h.rent, w, hm.compute + hm.idle);
  }
  b.result().start_delay = rental_start_delay(h.rent, w);
  for (const auto& n : h.rent.notes) b.result().notes.push_back(n);
  if (!h.auto_release && h.idle_per_run > Hours(0))
    b.result().notes.push_back(
        fmt::format("{:g} h left running after each of {} runs a month is billed (auto_release "
                    "removes it)",
                    h.idle_per_run.count(), w.runs_per_month));
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

OptionResult build_monthly(const Scenario& s, const RentInputs& r, double u) {
  const Workload& w = s.workload;
  OptionBuilder b("rent_monthly",
                  fmt::format("Rent by the month: {}× {}", instances_for(w.gpus, r.gpus_per_instance), r.description),
                  s);
  const int n = instances_for(w.gpus, r.gpus_per_instance);
  for (int m = 1; m <= s.horizon_months; ++m) {
    // A monthly rental is charged in full whether the cards are busy or not.
    const Money compute = r.price.times(n);
    b.month(m).add("compute", compute);
    add_markups(b.month(m), r, w, compute);
  }
  if (r.commitment_months > s.horizon_months) {
    // A committed term outlasts the horizon: the remaining months are owed all the same.
    const int rest = r.commitment_months - s.horizon_months;
    b.month(s.horizon_months).add("commitment beyond horizon", r.price.times(n).times(rest));
    b.result().notes.push_back(fmt::format("the {}-month commitment runs {} months past the horizon; they are owed",
                                           r.commitment_months, rest));
  }
  b.result().start_delay = rental_start_delay(r, w);
  for (const auto& note : r.notes) b.result().notes.push_back(note);
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

OptionResult build_spot(const Scenario& s, const SpotInputs& sp, double u, const SpotOverhead& ov) {
  const Workload& w = s.workload;
  OptionBuilder b(
      "spot", fmt::format("Spot: {}× {}", instances_for(w.gpus, sp.rent.gpus_per_instance), sp.rent.description), s);
  const HourlyInputs as_hourly{sp.rent, Hours(0), true};
  for (int m = 1; m <= s.horizon_months; ++m) {
    // Interruptions stretch each run by T/W (spot.h); the stretch is billed.
    const HourlyMonth work = hourly_month(as_hourly, w, u, 1.0);
    const HourlyMonth wall = hourly_month(as_hourly, w, u, ov.wall_per_work);
    b.month(m).add("compute", work.compute);
    if (wall.compute != work.compute) b.month(m).add("interruption overhead", wall.compute - work.compute);
    add_markups(b.month(m), sp.rent, w, wall.compute);
  }
  b.result().start_delay = rental_start_delay(sp.rent, w);
  for (const auto& n : sp.rent.notes) b.result().notes.push_back(n);
  const double needed = kHoursPerMonth * u * ov.wall_per_work;
  if (needed > kHoursPerMonth)
    b.result().notes.push_back(
        fmt::format("spot needs {:.0f} h of wall time a month for {:.0f} h of work: more than "
                    "a month holds, so it cannot sustain {:.0f}% utilisation",
                    needed, kHoursPerMonth * u, u * 100));
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

double energy_kwh_per_month(Watts busy, Watts idle, int cards, Watts server, double pue, double u) {
  // Power = (GPU TDP × cards × busy fraction + idle watts × cards × (1 − busy) + server watts) × PUE;
  // energy per month = power × 730 h, in kWh.
  const double watts = busy.value() * cards * u + idle.value() * cards * (1.0 - u) + server.value();
  return watts * pue * kHoursPerMonth / 1000.0;
}

OptionResult build_buy(const Scenario& s, double u, const std::optional<HourlyInputs>& bridge_hourly,
                       const std::optional<RentInputs>& bridge_monthly) {
  const OwnInputs& o = s.own;
  const Workload& w = s.workload;
  OptionBuilder b("buy", fmt::format("Buy {}× {}", o.cards, o.gpu), s);
  const Money hardware = o.card_price.times(o.cards) + o.server_base + o.network;
  b.month(0).add("hardware", hardware);
  if (o.facility.micros() != 0) b.month(0).add("facility", o.facility);
  const double lead = o.lead_time / Months(1);
  double used = 0.0;
  for (int m = 1; m <= s.horizon_months; ++m) {
    // Share of month m (which spans months m−1..m) with the hardware in service.
    const double in_service = std::clamp(static_cast<double>(m) - lead, 0.0, 1.0);
    const double waiting = 1.0 - in_service;
    Month& month = b.month(m);
    if (in_service > 0) {
      const double kwh = energy_kwh_per_month(o.gpu_busy, o.gpu_idle, o.cards, o.server, o.pue, u);
      month.add("power", o.electricity_per_kwh.scaled(kwh * in_service));
      month.add("operations", o.operations_per_month.scaled(in_service));
      if (o.colocation_per_month.micros() != 0) month.add("colocation", o.colocation_per_month.scaled(in_service));
      used += w.gpus * kHoursPerMonth * u * in_service;
    }
    if (waiting > 0) {
      if (o.cover == LeadTimeCover::kRent && (bridge_hourly || bridge_monthly)) {
        // Bridged by renting until the hardware arrives: on demand when offered.
        // The bridge pays what renting pays: compute, and its storage, egress and support.
        if (bridge_hourly) {
          const HourlyMonth hm = hourly_month(*bridge_hourly, w, u);
          Month bridge(s.currency);
          add_markups(bridge, bridge_hourly->rent, w, hm.compute + hm.idle);
          month.add("bridge rental", (hm.compute + hm.idle + bridge.total()).scaled(waiting));
        } else {
          const Money compute = bridge_monthly->price.times(instances_for(w.gpus, bridge_monthly->gpus_per_instance));
          Month bridge(s.currency);
          add_markups(bridge, *bridge_monthly, w, compute);
          month.add("bridge rental", (compute + bridge.total()).scaled(waiting));
        }
        used += w.gpus * kHoursPerMonth * u * waiting;
      } else {
        month.add("delay cost", o.delay_cost_per_month.scaled(waiting));
      }
    }
  }
  // Resale at the horizon: straight-line depreciation from delivery over the
  // useful life down to the residual share; the facility is sunk.
  const double service_months = std::max(0.0, s.horizon_months - lead);
  const double life_months = o.useful_life / Months(1);
  const double depreciated = life_months > 0 ? std::min(1.0, service_months / life_months) : 1.0;
  const double value_share = 1.0 - (1.0 - o.residual_share) * depreciated;
  b.month(s.horizon_months).add("resale value at horizon", -hardware.scaled(value_share));
  OptionResult& r = b.result();
  if (lead >= s.horizon_months)
    r.notes.push_back(
        fmt::format("the lead time ({:.1f} months) is not shorter than the {}-month horizon: the "
                    "hardware never trains within it",
                    lead, s.horizon_months));
  if (o.cover == LeadTimeCover::kRent && (bridge_hourly || bridge_monthly)) {
    r.start_delay = bridge_hourly ? rental_start_delay(bridge_hourly->rent, w) : rental_start_delay(*bridge_monthly, w);
    r.notes.push_back(fmt::format("the {:.1f}-month lead time is bridged by renting", lead));
  } else {
    r.start_delay = Hours(o.lead_time);
    if (o.lead_time > Seconds(0))
      r.notes.push_back(fmt::format("no training for the first {:.1f} months (lead time)", lead));
  }
  return b.finish(used);
}

OptionResult build_hybrid(const Scenario& s, const HybridInputs& hy, const HourlyInputs& h, double u) {
  const Workload& w = s.workload;
  const OwnInputs& o = s.own;
  OptionBuilder b("hybrid",
                  fmt::format("Hybrid: {:g}% on {}× local {}, rest by the hour", hy.local_share * 100, hy.local_cards,
                              hy.local_gpu),
                  s);
  if (hy.local_capex.micros() != 0) b.month(0).add("local hardware", hy.local_capex);
  // Local cards take local_share of the GPU-hours: busy fraction
  // u_local = share × gpus × u / local_cards, at most 1.
  const double wanted = hy.local_share * w.gpus * u / hy.local_cards;
  const double u_local = std::min(1.0, wanted);
  const double share = u > 0 ? u_local * hy.local_cards / (w.gpus * u) : 0.0;
  const double u_rent = u * (1.0 - share);
  for (int m = 1; m <= s.horizon_months; ++m) {
    const double kwh =
        energy_kwh_per_month(hy.local_gpu_busy, hy.local_gpu_idle, hy.local_cards, Watts(0), o.pue, u_local);
    b.month(m).add("local power", o.electricity_per_kwh.scaled(kwh));
    const HourlyMonth hm = hourly_month(h, w, u_rent);
    b.month(m).add("compute", hm.compute);
    if (hm.idle.micros() > 0) b.month(m).add("idle (left running)", hm.idle);
    add_markups(b.month(m), h.rent, w, hm.compute + hm.idle);
  }
  b.result().start_delay = Hours(0);
  if (wanted > 1.0)
    b.result().notes.push_back(fmt::format("{} local cards can take only {:.0f}% of the GPU-hours, not {:.0f}%",
                                           hy.local_cards, share * 100, hy.local_share * 100));
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

// Buy vs `other`: the first month m ≥ 1 where owning's cumulative (discounted,
// when a rate is set) cost is at or below the other option's.
std::optional<int> break_even(const OptionResult& buy, const OptionResult& other, double annual_rate) {
  const double v = 1.0 / (1.0 + monthly_rate(annual_rate));
  double cb = 0, co = 0, factor = 1.0;
  for (std::size_t m = 0; m < buy.cash_flow.size(); ++m) {
    cb += buy.cash_flow[m].units() * factor;
    co += other.cash_flow[m].units() * factor;
    factor *= v;
    if (m >= 1 && cb <= co + 1e-9) return static_cast<int>(m);
  }
  return std::nullopt;
}

std::vector<OptionResult> build_all(const Scenario& s, double u, const SpotOverhead* ov) {
  std::vector<OptionResult> out;
  out.push_back(build_buy(s, u, s.hourly, s.monthly));
  if (s.hourly) out.push_back(build_hourly(s, *s.hourly, u));
  if (s.monthly) out.push_back(build_monthly(s, *s.monthly, u));
  if (s.spot && ov) out.push_back(build_spot(s, *s.spot, u, *ov));
  if (s.hybrid && s.hourly) out.push_back(build_hybrid(s, *s.hybrid, *s.hourly, u));
  return out;
}

void check(const Scenario& s) {
  const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (s.horizon_months < 1) fail("horizon must be at least one month");
  if (!(s.workload.utilisation >= 0 && s.workload.utilisation <= 1)) fail("utilisation must be within 0–100%");
  if (s.workload.gpus < 1) fail("gpus must be at least 1");
  if (s.own.cards < 1) fail("buy.cards must be at least 1");
  if (s.hybrid && s.hybrid->local_cards < 1) fail("hybrid.local_cards must be at least 1");
}

}  // namespace

double monthly_rate(double annual) { return std::pow(1.0 + annual, 1.0 / 12.0) - 1.0; }

Comparison compare(const Scenario& s) {
  check(s);
  Comparison c;
  c.scenario = s;
  if (s.spot) {
    // The rate is per instance, and any instance's interruption stops a
    // data-parallel job: the job sees λ × instances.
    SpotParams p = s.spot->interruptions;
    p.interruptions_per_hour *= instances_for(s.workload.gpus, s.spot->rent.gpus_per_instance);
    c.spot_overhead = spot_overhead(p);
  }
  const SpotOverhead* ov = c.spot_overhead ? &*c.spot_overhead : nullptr;
  c.options = build_all(s, s.workload.utilisation, ov);
  OptionResult& buy = c.options.front();

  // The cheapest option by NPV (equal to the total at a zero rate).
  const auto cheapest = std::min_element(c.options.begin(), c.options.end(),
                                         [](const OptionResult& a, const OptionResult& b) { return a.npv < b.npv; });
  c.cheapest = cheapest->key;
  const OptionResult* best_rent = nullptr;
  for (OptionResult& o : c.options) {
    if (o.key == "buy") continue;
    o.break_even_month = break_even(buy, o, s.discount_rate);
    if (o.key != "hybrid" && (!best_rent || o.npv < best_rent->npv)) best_rent = &o;
  }
  if (best_rent) {
    c.break_even_versus = best_rent->key;
    c.break_even_month = best_rent->break_even_month;
  }

  // Break-even utilisation: the busy fraction u* where NPV(buy) = NPV(rent by
  // the hour). Both grow with u; find the sign change of their difference on
  // [0, 1] by bisection (the hourly bill is a step function of u, so a closed
  // form does not exist in general).
  if (s.hourly) {
    const auto diff = [&](double u) {
      Scenario t = s;
      t.workload.utilisation = u;
      const OptionResult b = build_buy(t, u, t.hourly, t.monthly);
      const OptionResult h = build_hourly(t, *t.hourly, u);
      return b.npv - h.npv;
    };
    double lo = 0.0, hi = 1.0;
    const double f_lo = diff(lo), f_hi = diff(hi);
    if (f_lo == 0) {
      c.break_even_utilisation = 0.0;
    } else if ((f_lo > 0) != (f_hi > 0)) {
      for (int i = 0; i < 60; ++i) {
        const double mid = 0.5 * (lo + hi);
        if ((diff(mid) > 0) == (f_lo > 0)) lo = mid;
        else hi = mid;
      }
      c.break_even_utilisation = 0.5 * (lo + hi);
    }
  }

  // One sentence, naming the input that decides it.
  const double u = s.workload.utilisation;
  const OptionResult& win = *cheapest;
  std::string why;
  if (c.break_even_utilisation) {
    const double ub = *c.break_even_utilisation;
    c.deciding_input = "workload.utilisation";
    why = fmt::format("at {:.0f}% utilisation; buying beats renting by the hour {} {:.0f}%", u * 100,
                      ub > u ? "only above" : "from", ub * 100);
  } else if (s.hourly) {
    c.deciding_input = "workload.utilisation";
    const OptionResult& hourly = c.options.at(1);
    why = fmt::format("at {:.0f}% utilisation; buying is {} than renting by the hour at any utilisation", u * 100,
                      buy.npv < hourly.npv ? "cheaper" : "dearer");
  }
  if (c.break_even_month) {
    if (why.empty()) c.deciding_input = "horizon";
    why += fmt::format("{}owning catches up with {} in month {} of {}", why.empty() ? "" : "; ", c.break_even_versus,
                       *c.break_even_month, s.horizon_months);
  } else if (best_rent) {
    if (why.empty()) c.deciding_input = "horizon";
    why += fmt::format("{}owning does not catch up with {} within the {}-month horizon", why.empty() ? "" : "; ",
                       c.break_even_versus, s.horizon_months);
  }
  c.recommendation = fmt::format("{} is cheapest (NPV {:.0f} {}){}{}.", win.label, win.npv, s.currency.code(),
                                 why.empty() ? "" : ": ", why);
  return c;
}

}  // namespace gpuplan
