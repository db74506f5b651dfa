#include "gpuplan/compare.h"

#include "gpuplan/cost/rent.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <stdexcept>

namespace gpuplan {
namespace {

double hours(Seconds s) { return s.count() / 3600.0; }

// Costs of one month, itemised; each item is rounded to the minor unit so that
// items add up to the month and months add up to the total.
class Month {
 public:
  /// `totals_only`: the items are not kept (a search needs the month's total alone).
  explicit Month(Currency c, bool totals_only = false) : total_(Money::zero(c)), totals_only_(totals_only) {}
  void add(std::string_view item, Money amount) {
    const Money r = amount.rounded();
    if (r.micros() == 0) return;  // a zero line says nothing; notes say what has no price
    total_ += r;
    if (totals_only_) return;
    for (auto& [k, v] : items_)
      if (k == item) {
        v += r;
        return;
      }
    if (items_.empty()) items_.reserve(8);  // a month holds a handful of items: one allocation
    items_.emplace_back(std::string(item), r);
  }
  /// Adds every item of `other`, or its total as `item` when it keeps none.
  void add(std::string_view item, const Month& other) {
    if (other.totals_only_) return add(item, other.total_);
    for (const auto& [k, v] : other.items_) add(k, v);
  }
  Money total() const { return total_; }
  const std::vector<std::pair<std::string, Money>>& items() const { return items_; }

 private:
  Money total_;
  bool totals_only_ = false;
  std::vector<std::pair<std::string, Money>> items_;
};

class OptionBuilder {
 public:
  /// `lean`: only the cash flow and NPV are wanted (a search over utilisation), not the items.
  OptionBuilder(std::string key, std::string label, const Scenario& s, bool lean = false) : s_(s), lean_(lean) {
    out_.key = std::move(key);
    out_.label = std::move(label);
    // A lean build whose VAT is apart needs no items: only the months' totals reach its NPV.
    const bool totals_only = lean && s.vat.recoverable;
    months_.reserve(static_cast<std::size_t>(s.horizon_months) + 1);
    for (int m = 0; m <= s.horizon_months; ++m) months_.emplace_back(s.currency, totals_only);
  }
  Month& month(int m) { return months_.at(static_cast<std::size_t>(m)); }
  /// Whether only months' totals are kept: equal months may then be copied.
  bool totals_only() const { return lean_ && s_.vat.recoverable; }
  /// Whether only the NPV is wanted: notes and labels are not written.
  bool lean() const { return lean_; }
  OptionResult& result() { return out_; }

  OptionResult finish(double used_gpu_hours) {
    add_vat();
    const double v = 1.0 / (1.0 + monthly_rate(s_.discount_rate));
    out_.total = Money::zero(s_.currency);
    std::vector<CostLine> lines;
    out_.cash_flow.reserve(months_.size());
    double factor = 1.0;
    for (const Month& m : months_) {
      const Money t = m.total();
      out_.cash_flow.push_back(t);
      out_.total += t;
      // NPV = Σ CF_m · v^m with v = 1 / (1 + r_m): month 0 undiscounted.
      out_.npv += t.units() * factor;
      factor *= v;
      if (lean_) continue;
      auto& month_items = out_.items_by_month.emplace_back();
      for (const auto& entry : m.items()) {
        month_items.push_back(CostLine{entry.first, entry.second});
        const std::string& item = entry.first;  // named, not bound: clang 14 cannot capture bindings
        auto it = std::find_if(lines.begin(), lines.end(), [&](const CostLine& l) { return l.item == item; });
        if (it == lines.end()) lines.push_back(CostLine{item, entry.second});
        else it->amount += entry.second;
      }
    }
    // VAT that is a cost comes last: it is on every other line.
    std::stable_partition(lines.begin(), lines.end(), [](const CostLine& l) { return l.item != kVatCostItem; });
    out_.breakdown = std::move(lines);
    out_.used_gpu_hours = used_gpu_hours;
    // Cost per GPU-hour actually used: what a team pays for each hour it trains.
    if (used_gpu_hours > 0) out_.cost_per_used_gpu_hour = out_.total.units() / used_gpu_hours;
    return std::move(out_);
  }

 private:
  // VAT of each month: Σ item × its class's rate, each rounded to the minor
  // unit; a cost of its own when it is not recoverable, else reported apart.
  void add_vat() {
    out_.vat = Money::zero(s_.currency);
    if (lean_ && s_.vat.recoverable) return;  // apart from the cash flow: no part of an NPV
    out_.vat_flow.reserve(months_.size());
    for (Month& m : months_) {
      Money vat = Money::zero(s_.currency);
      for (const auto& [item, amount] : m.items()) vat += amount.scaled(s_.vat.rate(vat_class(item))).rounded();
      out_.vat_flow.push_back(vat);
      out_.vat += vat;
      if (!s_.vat.recoverable) m.add(kVatCostItem, vat);
    }
  }

  const Scenario& s_;
  bool lean_ = false;
  OptionResult out_;
  std::vector<Month> months_;
};

// Add-ons billed with a rental each month: storage (dataset GB × price per
// GB-month), egress (GB × price per GB), and support as a share of the bill
// (compute + storage + egress), at least the plan's monthly minimum.
// `drift`: the month's rental price level (rent_drift), applied to every price.
void add_markups(Month& month, const RentInputs& r, const Workload& w, Money compute_bill, double drift = 1.0) {
  const Money storage = r.storage_per_gb_month.scaled(w.dataset.value() / kGB * drift);
  const Money egress = r.egress_per_gb.scaled(w.egress_per_month.value() / kGB * drift);
  month.add(tr_noop("storage"), storage);
  month.add(tr_noop("egress"), egress);
  if (r.support_share > 0) {
    Money support = (compute_bill + storage + egress).scaled(r.support_share);
    const Money minimum = r.support_minimum_monthly.scaled(drift);
    if (support < minimum) support = minimum;
    month.add(tr_noop("support"), support);
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
  bool whole_month = false;  ///< billing each run would pass a month's hours: billed as kept all month
};

// On-demand hourly, one month at busy fraction u: each of the month's runs
// lasts 730·u / runs hours and is billed per instance rounded up to the
// granularity; idle hours left running after each run are billed too unless
// the instance is released automatically.
HourlyMonth hourly_month(const HourlyInputs& h, const Workload& w, double u, double wall_per_work = 1.0,
                         double drift = 1.0, bool idle_applies = true) {
  const RentInputs& r = h.rent;
  const int n = instances_for(w.gpus, r.gpus_per_instance);
  const double busy = kHoursPerMonth * u * wall_per_work;
  const int runs = std::max(1, w.runs_per_month);
  const double run = busy / runs;
  // Idle hours fit between runs: a month holds 730 h, busy ones included.
  const double room = std::max(0.0, kHoursPerMonth - busy) / runs;
  const double idle = (idle_applies && !h.auto_release && busy > 0) ? std::min(hours(h.idle_per_run), room) : 0.0;
  // Runs rounded up to the billing step can bill more hours than a month has
  // (1,000 half-hour runs at hourly billing): keeping the instances all month
  // costs no more, so that is the ceiling.
  const double per_run = billed_run_hours(run, r.granularity, r.minimum_billing) * runs;
  const double per_run_all = billed_run_hours(run + idle, r.granularity, r.minimum_billing) * runs;
  const double billed_work = std::min(per_run, kHoursPerMonth) * n;
  const double billed_all = std::min(per_run_all, kHoursPerMonth) * n;
  return HourlyMonth{r.price.scaled(billed_work * drift), r.price.scaled((billed_all - billed_work) * drift),
                     per_run_all > kHoursPerMonth};
}

// The rental price level of month m (m ≥ 1): (1 + yearly trend)^((m − 1)/12),
// today's prices in month 1.
// The yearly trend compounds monthly; no trend (the default) is exactly 1, without a pow a month.
double trend_factor(double yearly, double years) { return yearly == 0.0 ? 1.0 : std::pow(1.0 + yearly, years); }

double rent_drift(const Scenario& s, int m) { return trend_factor(s.rent_price_trend, (m - 1) / 12.0); }

// A served model (workload.serving) that a rental option must rent as well:
// its monthly cost at the month's rental price level, for `share` of the month.
void add_rented_serving(const Scenario& s, Month& month, double drift, double share = 1.0) {
  if (s.workload.serving_rented)
    month.add(tr_noop("serving (rented)"), s.workload.serving_rented->scaled(drift * share));
}

// Said when hourly_month billed a whole month rather than the runs' rounded-up hours.
void whole_month_note(OptionResult& r, const HourlyMonth& hm, const Workload& w, const RentInputs& rent) {
  if (hm.whole_month)
    r.notes.push_back(trf("{} runs a month, each billed in steps of {}, would bill more than a month's {:g} h: "
                          "billed as instances kept the whole month",
                          w.runs_per_month, format_duration(rent.granularity), kHoursPerMonth));
}

OptionResult build_hourly(const Scenario& s, const HourlyInputs& h, double u, bool lean = false) {
  const Workload& w = s.workload;
  OptionBuilder b(
      tr_noop("rent_hourly"),
      lean ? "" : trf("Rent by the hour: {}× {}", instances_for(w.gpus, h.rent.gpus_per_instance), h.rent.description),
      s, lean);
  for (int m = 1; m <= s.horizon_months; ++m) {
    const double f = rent_drift(s, m);
    if (m > 1 && b.lean() && s.rent_price_trend == 0.0) {  // every month bills the same
      b.month(m) = b.month(1);
      continue;
    }
    const HourlyMonth hm = hourly_month(h, w, u, 1.0, f);
    b.month(m).add(tr_noop("compute"), hm.compute);
    if (hm.idle.micros() > 0) b.month(m).add(tr_noop("idle (left running)"), hm.idle);
    add_markups(b.month(m), h.rent, w, hm.compute + hm.idle, f);
    add_rented_serving(s, b.month(m), f);
  }
  if (lean) return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
  b.result().start_delay = rental_start_delay(h.rent, w);
  for (const auto& n : h.rent.notes) b.result().notes.push_back(n);
  whole_month_note(b.result(), hourly_month(h, w, u), w, h.rent);
  if (!h.auto_release && h.idle_per_run > Hours(0) && hourly_month(h, w, u).idle.micros() > 0)
    b.result().notes.push_back(
        trf("{:g} h left running after each of {} runs a month is billed (auto_release "
            "removes it)",
            h.idle_per_run.count(), w.runs_per_month));
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

OptionResult build_monthly(const Scenario& s, const RentInputs& r, double u) {
  const Workload& w = s.workload;
  OptionBuilder b(tr_noop("rent_monthly"),
                  trf("Rent by the month: {}× {}", instances_for(w.gpus, r.gpus_per_instance), r.description), s);
  const int n = instances_for(w.gpus, r.gpus_per_instance);
  // Paid upfront: that share of the whole committed term's compute in month 0
  // (the term's months past the horizon included), the rest month by month.
  const double upfront = r.commitment_months > 0 ? r.upfront_share : 0.0;
  b.month(0).add(tr_noop("commitment paid upfront"), r.price.times(n).times(r.commitment_months).scaled(upfront));
  for (int m = 1; m <= s.horizon_months; ++m) {
    // A monthly rental is charged in full whether the cards are busy or not; a committed price does not move.
    const double f = r.commitment_months > 0 ? 1.0 : rent_drift(s, m);
    const Money compute = r.price.scaled(n * f);
    b.month(m).add(tr_noop("compute"), compute.scaled(1.0 - upfront));
    add_markups(b.month(m), r, w, compute, f);
    add_rented_serving(s, b.month(m), rent_drift(s, m));
  }
  if (r.commitment_months > s.horizon_months) {
    // A committed term outlasts the horizon: the remaining months are owed all the same.
    const int rest = r.commitment_months - s.horizon_months;
    b.month(s.horizon_months)
        .add(tr_noop("commitment beyond horizon"), r.price.times(n).times(rest).scaled(1.0 - upfront));
    b.result().notes.push_back(
        trf("the {}-month commitment runs {} months past the horizon; they are owed", r.commitment_months, rest));
  }
  b.result().start_delay = rental_start_delay(r, w);
  for (const auto& note : r.notes) b.result().notes.push_back(note);
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

OptionResult build_spot(const Scenario& s, const SpotInputs& sp, double u, const SpotOverhead& ov) {
  const Workload& w = s.workload;
  OptionBuilder b(tr_noop("spot"),
                  trf("Spot: {}× {}", instances_for(w.gpus, sp.rent.gpus_per_instance), sp.rent.description), s);
  const HourlyInputs as_hourly{sp.rent, Hours(0), true};
  // Interruptions stretch each run by T/W (spot.h); the stretch is billed, up to
  // the whole month: past it, spot cannot do the work (left out below).
  const double billed_stretch = u > 0 ? std::min(ov.wall_per_work, 1.0 / u) : ov.wall_per_work;
  for (int m = 1; m <= s.horizon_months; ++m) {
    const double f = rent_drift(s, m);
    const HourlyMonth work = hourly_month(as_hourly, w, u, 1.0, f);
    const HourlyMonth wall = hourly_month(as_hourly, w, u, billed_stretch, f);
    b.month(m).add(tr_noop("compute"), work.compute);
    if (wall.compute != work.compute) b.month(m).add(tr_noop("interruption overhead"), wall.compute - work.compute);
    add_markups(b.month(m), sp.rent, w, wall.compute, f);
    add_rented_serving(s, b.month(m), f);
  }
  b.result().start_delay = rental_start_delay(sp.rent, w);
  for (const auto& n : sp.rent.notes) b.result().notes.push_back(n);
  whole_month_note(b.result(), hourly_month(as_hourly, w, u, billed_stretch), w, sp.rent);
  const double needed = kHoursPerMonth * u * ov.wall_per_work;
  if (needed > kHoursPerMonth) {
    b.result().available = false;
    b.result().notes.push_back(
        std::isfinite(needed) && needed < 1e9
            ? trf("spot needs {:.0f} h of wall time a month for {:.0f} h of work: more than a month holds, so "
                  "it cannot sustain {:.0f}% utilisation and is left out of the decision (shown billed for "
                  "the whole month)",
                  needed, kHoursPerMonth * u, u * 100)
            : trf("spot is interrupted too often to finish any work at {:.0f}% utilisation: left out of the "
                  "decision (shown billed for the whole month)",
                  u * 100));
  }
  // The work done: all of it, or, when the month cannot hold the stretched runs,
  // what its billed hours deliver (so GPU-h used and the price per used hour say so).
  const double done = ov.wall_per_work > 0 ? std::min(1.0, billed_stretch / ov.wall_per_work) : 1.0;
  return b.finish(w.gpus * kHoursPerMonth * u * done * s.horizon_months);
}

double energy_kwh_per_month(Watts busy, Watts idle, int cards, Watts server, double pue, double u) {
  // Power = (GPU TDP × cards × busy fraction + idle watts × cards × (1 − busy) + server watts) × PUE;
  // energy per month = power × 730 h, in kWh.
  const double watts = busy.value() * cards * u + idle.value() * cards * (1.0 - u) + server.value();
  return watts * pue * kHoursPerMonth / 1000.0;
}

// What renting costs for one whole month as a bridge: compute and its add-ons.
Money bridge_month(const Scenario& s, const RentInputs& r, Money compute, double drift) {
  Month m(s.currency);
  add_markups(m, r, s.workload, compute, drift);
  return compute + m.total();
}

struct Bridge {
  Money cost;
  const char* mode;  ///< "by the hour", "by the month"
};

const Scenario::Exclusion* exclusion(const Scenario& s, std::string_view option) {
  for (const Scenario::Exclusion& x : s.excluded)
    if (x.option == option) return &x;
  return nullptr;
}

// Renting while the hardware is on order, for the `waiting` share of a month:
// by the hour for that share, or a whole monthly package (a package is sold by
// the month), whichever costs less. A committed term cannot bridge, nor an
// option left out of the decision (exclude_restricted).
std::optional<Bridge> cheapest_bridge(const Scenario& s, double u, double waiting, int month) {
  std::optional<Bridge> best;
  const double f = rent_drift(s, month);
  if (s.hourly && !exclusion(s, "rent_hourly")) {
    const HourlyMonth hm = hourly_month(*s.hourly, s.workload, u, 1.0, f);
    best = Bridge{bridge_month(s, s.hourly->rent, hm.compute + hm.idle, f).scaled(waiting), tr_noop("by the hour")};
  }
  if (s.monthly && !exclusion(s, "rent_monthly") && (s.monthly->commitment_months == 0 || !s.hourly)) {
    const RentInputs& r = *s.monthly;
    const double fm = r.commitment_months > 0 ? 1.0 : f;
    const Money full = bridge_month(s, r, r.price.scaled(instances_for(s.workload.gpus, r.gpus_per_instance) * fm), fm);
    if (!best || full < best->cost) best = Bridge{full, tr_noop("by the month")};
  }
  return best;
}

// The hardware's value at each month end (months 0..H). By default straight-
// line depreciation from delivery over the useful life down to the residual
// share; with a resale override, a straight line from the price at delivery to
// the stated resale at the horizon. Before delivery it keeps its price.
std::vector<Money> hardware_value(const Scenario& s, Money hardware) {
  const OwnInputs& o = s.own;
  const double lead = o.lead_time / Months(1);
  const double life = o.useful_life / Months(1);
  const double served_at_horizon = std::max(0.0, s.horizon_months - lead);
  std::optional<Money> at_horizon;
  if (o.resale_amount) at_horizon = *o.resale_amount;
  else if (o.resale_share) at_horizon = hardware.scaled(*o.resale_share);
  std::vector<Money> v;
  for (int m = 0; m <= s.horizon_months; ++m) {
    const double served = std::max(0.0, m - lead);
    Money value = hardware;
    if (at_horizon) {
      const double f = served_at_horizon > 0 ? served / served_at_horizon : (m == s.horizon_months ? 1.0 : 0.0);
      value = hardware + (*at_horizon - hardware).scaled(f);
    } else {
      const double used = life > 0 ? std::min(1.0, served / life) : 1.0;
      const double market = trend_factor(o.card_price_trend, m / 12.0);  // new cards cheaper: used ones too
      value = hardware.scaled((1.0 - (1.0 - o.residual_share) * used) * market);
    }
    v.push_back(value.rounded());
  }
  return v;
}

// Power, operations and colocation for a month `in_service` share of which the hardware runs.
void running_costs(const Scenario& s, double u, double in_service, Month& month) {
  const OwnInputs& o = s.own;
  const int servers = servers_for(o);
  // Training keeps the cards busy u of the month; a served model fills serving_share more of it.
  const double busy = std::min(1.0, u + s.workload.serving_share);
  const double kwh = energy_kwh_per_month(o.gpu_busy, o.gpu_idle, o.cards, o.server * servers, o.pue, busy);
  month.add(tr_noop("power"), o.electricity_per_kwh.scaled(kwh * in_service));
  month.add(s.vat.operations_in_house ? kOperationsItem : kContractedOperationsItem,
            o.operations_per_month.scaled(servers * in_service));
  month.add(tr_noop("colocation"), o.colocation_per_month.scaled(servers * in_service));
}

std::string bridge_note(double lead, const std::vector<std::string>& modes) {
  std::string how;
  for (const auto& m : modes) how += std::string(how.empty() ? "" : tr(", then ")) + std::string(tr(m));
  return trf("the {:.1f}-month lead time is bridged by renting {}", lead, how);
}

void buy_notes(const Scenario& s, const std::vector<std::string>& bridged, OptionResult& r) {
  const OwnInputs& o = s.own;
  const Workload& w = s.workload;
  const double lead = o.lead_time / Months(1);
  if (lead >= s.horizon_months) {
    r.available = false;
    r.notes.push_back(
        trf("the lead time ({:.1f} months) is not shorter than the {}-month horizon: the "
            "hardware never trains within it, so buying is left out of the decision",
            lead, s.horizon_months));
  }
  if (!bridged.empty()) {
    r.start_delay = s.hourly ? rental_start_delay(s.hourly->rent, w) : rental_start_delay(*s.monthly, w);
    r.notes.push_back(bridge_note(lead, bridged));
    // Given for a delay_cost cover and left when the cover was switched (by --set, say): said, not charged.
    if (o.delay_cost_per_month.micros() != 0)
      r.notes.push_back(trf("buy.delay_cost_per_month ({}) is not charged: the lead time is bridged by renting",
                            to_pretty_string(o.delay_cost_per_month)));
  } else {
    r.start_delay = Hours(o.lead_time);
    if (o.lead_time > Seconds(0)) r.notes.push_back(trf("no training for the first {:.1f} months (lead time)", lead));
  }
  if (bridged.empty() && o.cover == LeadTimeCover::kRent && lead > 0 && lead < s.horizon_months) {
    r.notes.push_back(
        trf("no rental to bridge the {:.1f}-month lead time: those months train nothing and "
            "cost nothing here (set lead_time_cover: delay_cost with delay_cost_per_month)",
            lead));
    r.warnings.push_back(r.notes.back());
  }
  if (const int n = servers_for(o); n > 1)
    r.notes.push_back(
        trf("{} cards in {} servers of {}: server base, server power, operations and "
            "colocation are counted per server",
            o.cards, n, o.cards_per_server));
}

struct Financed {
  std::vector<Money> owed;  ///< months 0..H, at each month end
  Money interest;
};

// How the hardware is paid: in cash in month 0, or by a loan (the hardware is
// bought in month 0 with the loan drawn against it, then repaid) or a finance
// lease (the lessor buys it; the lessee pays upfront, monthly and a buyout).
// Payments start in month 1 whatever the lead time; what is still owed at the
// horizon is paid off there, when the hardware is sold.
Financed pay_for_hardware(const Scenario& s, Money hardware, OptionBuilder& b) {
  const OwnInputs& o = s.own;
  const int horizon = s.horizon_months;
  Financed f{std::vector<Money>(static_cast<std::size_t>(horizon) + 1, Money::zero(s.currency)),
             Money::zero(s.currency)};
  if (o.financing == Financing::kCash) {
    b.month(0).add(tr_noop("hardware"), hardware);
    return f;
  }
  const bool lease = o.financing == Financing::kLease;
  const FinancingTerms t = financing_terms(o);
  const Schedule plan = amortise(hardware, t);
  const std::string_view kind = lease ? tr("lease") : tr("loan");
  if (lease) {
    b.month(0).add(tr_noop("lease upfront"), plan.upfront);
  } else {
    b.month(0).add(tr_noop("hardware"), hardware);
    b.month(0).add(tr_noop("loan drawn"), -plan.balance[0]);
  }
  f.owed[0] = plan.balance[0];
  for (int m = 1; m <= std::min(t.months, horizon); ++m) {
    const auto k = static_cast<std::size_t>(m);
    b.month(m).add(lease ? tr_noop("lease interest") : tr_noop("loan interest"), plan.interest[k]);
    b.month(m).add(lease ? tr_noop("lease principal") : tr_noop("loan principal"), plan.principal[k]);
    if (m == t.months) b.month(m).add(tr_noop("lease buyout"), plan.balloon);
    f.owed[k] = plan.balance[k];
    f.interest += plan.interest[k];
  }
  const Money payoff = horizon < t.months ? f.owed.back() : Money::zero(s.currency);
  if (horizon < t.months) {
    b.month(horizon).add(lease ? tr_noop("lease payoff") : tr_noop("loan payoff"), payoff);
    f.owed.back() = Money::zero(s.currency);
  }
  if (b.lean()) return f;  // a search wants the cash flow, not the note
  std::string note = trf("the hardware is paid by a {}: {:g}% at {}, then {} a month for {} months at {:g}% a year",
                         kind, t.upfront_share * 100, lease ? tr("signing") : tr("purchase"),
                         to_pretty_string(plan.payment), t.months, t.annual_rate * 100);
  if (lease && plan.balloon.micros() != 0) note += trf(" and a buyout of {}", to_pretty_string(plan.balloon));
  if (horizon < t.months)
    note += trf("; the {} still owed at the horizon is paid off in month {}", to_pretty_string(payoff), horizon);
  b.result().notes.push_back(note);
  return f;
}

OptionResult build_buy(const Scenario& s, double u, OwnSummary* summary = nullptr, bool lean = false) {
  const OwnInputs& o = s.own;
  const Workload& w = s.workload;
  OptionBuilder b(tr_noop("buy"), lean ? "" : trf("Buy {}× {}", o.cards, o.gpu), s, lean);
  const Money hardware = hardware_capex(o);
  const Financed financed = pay_for_hardware(s, hardware, b);
  b.month(0).add(tr_noop("facility"), o.facility);
  const double lead = o.lead_time / Months(1);
  double used = 0.0;
  std::vector<std::string> bridged;
  std::optional<Month> steady;
  for (int m = 1; m <= s.horizon_months; ++m) {
    // Share of month m (which spans months m−1..m) with the hardware in service.
    const double in_service = std::clamp(static_cast<double>(m) - lead, 0.0, 1.0);
    const double waiting = 1.0 - in_service;
    if (in_service == 1.0 && b.lean()) {
      // A whole month in service costs the same every month: priced once (a search wants the NPV alone).
      if (!steady) {
        steady.emplace(s.currency, b.totals_only());
        running_costs(s, u, 1.0, *steady);
      }
      b.month(m).add(tr_noop("running"), *steady);
      used += w.gpus * kHoursPerMonth * u;
      continue;
    }
    if (in_service > 0) {
      running_costs(s, u, in_service, b.month(m));
      used += w.gpus * kHoursPerMonth * u * in_service;
    }
    if (waiting <= 0) continue;
    const auto bridge = o.cover == LeadTimeCover::kRent ? cheapest_bridge(s, u, waiting, m) : std::nullopt;
    // Until the cards arrive, a served model is rented as the rental options rent it.
    add_rented_serving(s, b.month(m), rent_drift(s, m), waiting);
    if (bridge) {
      // The bridge pays what renting pays: compute, and its storage, egress and support.
      b.month(m).add(tr_noop("bridge rental"), bridge->cost);
      if (std::find(bridged.begin(), bridged.end(), bridge->mode) == bridged.end()) bridged.push_back(bridge->mode);
      used += w.gpus * kHoursPerMonth * u * waiting;
    } else {
      b.month(m).add(tr_noop("delay cost"), o.delay_cost_per_month.scaled(waiting));
    }
  }
  const std::vector<Money> value = hardware_value(s, hardware);
  b.month(s.horizon_months).add(tr_noop("resale value at horizon"), -value.back());
  if (!lean) buy_notes(s, bridged, b.result());
  // Cards that cannot carry the served model beside training do not do the work the rentals are priced for.
  if (!w.serving_overload.empty() && !lean) {
    b.result().available = false;
    b.result().notes.push_back(trf("{}: buying is left out of the decision (shown as priced)", w.serving_overload));
  }
  if (hardware < value.back() && !lean) {
    b.result().notes.push_back(
        trf("the hardware is resold for more than it cost ({} against {}): check the "
            "resale override or the card-price trend",
            to_pretty_string(value.back()), to_pretty_string(hardware)));
    b.result().warnings.push_back(b.result().notes.back());
  }
  OptionResult r = b.finish(used);
  if (summary) {
    summary->value = value;
    summary->depreciation.assign(value.size(), Money::zero(s.currency));
    for (std::size_t m = 1; m < value.size(); ++m) summary->depreciation[m] = value[m - 1] - value[m];
    summary->resale = value.back();
    summary->owed = financed.owed;
    summary->interest = financed.interest;
    summary->net = r.total;
    summary->gross = r.total + value.back();
    summary->capex = hardware.rounded() + o.facility.rounded();
    summary->opex = summary->gross - summary->capex;
  }
  return r;
}

OptionResult build_hybrid(const Scenario& s, const HybridInputs& hy, const HourlyInputs& h, double u) {
  const Workload& w = s.workload;
  const OwnInputs& o = s.own;
  // Local cards take local_share of the work, measured in rented-card GPU-hours;
  // a local card does local_speed of a rented card's work an hour, so their busy
  // fraction is u_local = share × gpus × u / (local_cards × speed), at most 1.
  const double wanted = hy.local_share * w.gpus * u / (hy.local_cards * hy.local_speed);
  const double u_local = std::min(1.0, wanted);
  const double share = u > 0 ? u_local * hy.local_cards * hy.local_speed / (w.gpus * u) : 0.0;
  OptionBuilder b(tr_noop("hybrid"),
                  trf("Hybrid: {:.0f}% of the work on {}× local {}, rest by the hour",
                      (wanted > 1.0 ? share : hy.local_share) * 100, hy.local_cards, hy.local_gpu),
                  s);
  if (hy.local_capex.micros() != 0) b.month(0).add(tr_noop("local hardware"), hy.local_capex);
  const double u_rent = u * (1.0 - share);
  for (int m = 1; m <= s.horizon_months; ++m) {
    const double kwh =
        energy_kwh_per_month(hy.local_gpu_busy, hy.local_gpu_idle, hy.local_cards, Watts(0), o.pue, u_local);
    b.month(m).add(tr_noop("local power"), o.electricity_per_kwh.scaled(kwh));
    const double f = rent_drift(s, m);
    const HourlyMonth hm = hourly_month(h, w, u_rent, 1.0, f);
    b.month(m).add(tr_noop("compute"), hm.compute);
    if (hm.idle.micros() > 0) b.month(m).add(tr_noop("idle (left running)"), hm.idle);
    add_markups(b.month(m), h.rent, w, hm.compute + hm.idle, f);
    add_rented_serving(s, b.month(m), f);  // the serving load is sized for the bought cards, not the local ones
  }
  b.result().start_delay = Hours(0);
  if (wanted > 1.0)
    b.result().notes.push_back(
        trf("{} local {} ({:.2f}× a rented card each) can take only {:.0f}% of the "
            "work, not {:.0f}%",
            hy.local_cards, hy.local_gpu, hy.local_speed, share * 100, hy.local_share * 100));
  return b.finish(w.gpus * kHoursPerMonth * u * s.horizon_months);
}

// The month (one decimal) from which d ≤ 0 holds to the horizon, d taken as
// linear between month ends; none when d is still above zero at the horizon.
std::optional<double> stays_at_or_below_from(const std::vector<double>& d) {
  constexpr double kTie = 1e-6;  // a millionth of a currency unit: equal
  const std::size_t h = d.size() - 1;
  if (d[h] > kTie) return std::nullopt;
  double t = 0.0;
  for (std::size_t m = h; m-- > 0;)
    if (d[m] > kTie) {
      t = static_cast<double>(m) + d[m] / (d[m] - d[m + 1]);
      break;
    }
  return std::round(t * 10) / 10;
}

// Buy against `other`, month by month: cumulative (discounted, when a rate is
// set) cost of owning less what the hardware is worth at that month end
// (break-even), or with no credit for it (payback), minus the other's.
void break_even(const OptionResult& buy, const OwnSummary& own, OptionResult& other, double annual_rate) {
  const double v = 1.0 / (1.0 + monthly_rate(annual_rate));
  const std::size_t h = buy.cash_flow.size() - 1;
  std::vector<double> net, cash;
  double cb = 0, co = 0, factor = 1.0;
  for (std::size_t m = 0; m <= h; ++m) {
    // The resale credit of the last month is the value subtracted below.
    cb += (buy.cash_flow[m] + (m == h ? own.resale : Money::zero(own.resale.currency()))).units() * factor;
    co += other.cash_flow[m].units() * factor;
    // What is still owed on a loan or lease counts as paid: a loan is no payback.
    const double owed = own.owed.empty() ? 0.0 : own.owed[m].units() * factor;
    net.push_back(cb + owed - own.value[m].units() * factor - co);
    cash.push_back(cb + owed - co);
    factor *= v;
  }
  other.break_even_month = stays_at_or_below_from(net);
  other.payback_month = stays_at_or_below_from(cash);
}

std::vector<OptionResult> build_all(const Scenario& s, double u, const SpotOverhead* ov, OwnSummary* own) {
  std::vector<OptionResult> out;
  out.push_back(build_buy(s, u, own));
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
  if (s.own.cards_per_server < 1) fail("buy.cards_per_server must be at least 1");
  if (s.hybrid && s.hybrid->local_cards < 1) fail("hybrid.local_cards must be at least 1");
  if (s.hybrid && !(s.hybrid->local_speed > 0)) fail("hybrid.local_speed must be above zero");
  if (s.own.financing != Financing::kCash) {
    const FinancingTerms t = financing_terms(s.own);
    if (t.months < 1) fail("a loan or lease term is at least one month");
    if (!(t.upfront_share + t.balloon_share <= 1)) fail("buy.lease_upfront and buy.lease_buyout add up to over 100%");
  }
  if (s.monthly && s.monthly->upfront_share > 0 && s.monthly->commitment_months == 0)
    fail("rent.monthly.upfront needs a commitment to pay for");
}

// Prices given with VAT, taken less it by each one's class (vat.h): the model
// works on amounts excluding VAT and adds VAT apart.
Scenario excluding_vat(const Scenario& given) {
  Scenario s = given;
  if (!s.vat.prices_include_vat) return s;
  const auto less = [&](Money& m, VatClass c) { m = m.scaled(1.0 / (1.0 + s.vat.rate(c))); };
  OwnInputs& o = s.own;
  for (Money* m : {&o.card_price, &o.server_base, &o.network, &o.facility, &o.electricity_per_kwh})
    less(*m, VatClass::kGoods);
  if (o.resale_amount) less(*o.resale_amount, VatClass::kGoods);
  less(o.operations_per_month, s.vat.operations_in_house ? VatClass::kNone : VatClass::kServices);
  less(o.colocation_per_month, VatClass::kServices);
  for (RentInputs* r :
       {s.hourly ? &s.hourly->rent : nullptr, s.monthly ? &*s.monthly : nullptr, s.spot ? &s.spot->rent : nullptr}) {
    if (!r) continue;
    for (Money* m : {&r->price, &r->storage_per_gb_month, &r->egress_per_gb, &r->support_minimum_monthly})
      less(*m, VatClass::kRent);
  }
  if (s.hybrid) less(s.hybrid->local_capex, VatClass::kGoods);
  return s;
}

}  // namespace

double monthly_rate(double annual) { return std::pow(1.0 + annual, 1.0 / 12.0) - 1.0; }

namespace {

// Break-even utilisation: the busy fraction u* where NPV(buy) = NPV(rent by
// the hour). Both grow with u; find the sign change of their difference on
// [0, 1] by bisection (the hourly bill is a step function of u, so a closed
// form does not exist in general).
std::optional<double> break_even_utilisation(const Scenario& s) {
  const auto diff = [&](double u) {
    // The builders take the utilisation as an argument: the scenario is not copied.
    return build_buy(s, u, nullptr, true).npv - build_hourly(s, *s.hourly, u, true).npv;
  };
  double lo = 0.0, hi = 1.0;
  const double f_lo = diff(lo), f_hi = diff(hi);
  if (f_lo == 0) return 0.0;
  if ((f_lo > 0) == (f_hi > 0)) return std::nullopt;
  // 21 halvings leave [lo, hi] 2^-21 = 4.8e-7 wide: the midpoint is within
  // 2.4e-7 of the root, below the millionth it is reported to (and far below
  // the 0.1% printed). Each halving costs two cash flows.
  for (int i = 0; i < 21; ++i) {
    const double mid = 0.5 * (lo + hi);
    if ((diff(mid) > 0) == (f_lo > 0)) lo = mid;
    else hi = mid;
  }
  // Reported to a millionth: the digits past it would be the search's, not the model's.
  return std::round(0.5 * (lo + hi) * 1e6) / 1e6;
}

// Buy against every rental, and the decision's rental: the cheapest one that is not hybrid.
void break_evens(Comparison& c) {
  OptionResult& buy = c.options.front();
  const OptionResult* best_rent = nullptr;
  for (OptionResult& o : c.options) {
    if (o.key == "buy" || !o.available) continue;
    if (buy.available) break_even(buy, c.own, o, c.scenario.discount_rate);
    if (o.key != "hybrid" && (!best_rent || o.npv < best_rent->npv)) best_rent = &o;
  }
  if (!best_rent) return;
  c.break_even_versus = best_rent->key;
  c.break_even_month = best_rent->break_even_month;
  c.payback_month = best_rent->payback_month;
}

// One sentence, naming the input that decides it.
std::string recommendation(Comparison& c, const OptionResult& win) {
  const Scenario& s = c.scenario;
  const OptionResult& buy = c.options.front();
  const double u = s.workload.utilisation;
  std::string why;
  if (const Scenario::Exclusion* x = exclusion(s, "buy")) {
    c.deciding_input = "exclude_restricted";
    why = trf("buying is left out: {}", x->why);
  } else if (!buy.available && !s.workload.serving_overload.empty()) {
    c.deciding_input = "buy.cards";
    why = trf("buying is left out: {}", s.workload.serving_overload);
  } else if (!buy.available) {
    c.deciding_input = "buy.lead_time";
    why = trf("buying is left out: the hardware arrives after the {}-month horizon", s.horizon_months);
  } else if (c.break_even_utilisation) {
    const double ub = *c.break_even_utilisation;
    c.deciding_input = "workload.utilisation";
    why = trf("at {:.0f}% utilisation; buying beats renting by the hour {} {:.0f}%", u * 100,
              ub > u ? tr("only above") : tr("from"), ub * 100);
  } else if (s.hourly && !exclusion(s, "rent_hourly")) {
    c.deciding_input = "workload.utilisation";
    const OptionResult& hourly = c.options.at(1);
    why = trf("at {:.0f}% utilisation; buying is {} than renting by the hour at any utilisation", u * 100,
              buy.npv < hourly.npv ? tr("cheaper") : tr("dearer"));
  }
  const std::string sep = why.empty() ? "" : std::string(tr("; "));
  if (buy.available && !c.break_even_versus.empty()) {
    if (why.empty()) c.deciding_input = "horizon";
    const std::string payback = c.payback_month ? trf("cash paid back in month {:.1f}", *c.payback_month)
                                                : trf("cash not paid back within {} months", s.horizon_months);
    why += c.break_even_month
               ? trf("{}counting the hardware's value, owning is ahead of {} from month {:.1f} of {} ({})", sep,
                     tr(c.break_even_versus), *c.break_even_month, s.horizon_months, payback)
               : trf("{}owning is still behind {} at the {}-month horizon, counting the hardware's value", sep,
                     tr(c.break_even_versus), s.horizon_months);
  }
  std::string out = trf("{} is cheapest (NPV {} {}){}{}.", win.label, group_thousands(fmt::format("{:.0f}", win.npv)),
                        s.currency.code(), why.empty() ? "" : tr(": "), why);
  std::vector<std::string> rentals_out;  // buying's exclusion is the why above
  for (const Scenario::Exclusion& x : s.excluded)
    if (x.option != "buy") rentals_out.push_back(x.option);
  if (!rentals_out.empty())
    out += trf(" Left out of the decision as restricted in {}: {}.", s.region, fmt::join(rentals_out, tr(", ")));
  return out;
}

}  // namespace

FinancingTerms financing_terms(const OwnInputs& o) {
  if (o.financing == Financing::kLease)
    return FinancingTerms{o.lease_upfront, o.lease_rate, o.lease_term_months, o.lease_buyout};
  return FinancingTerms{o.down_payment, o.loan_rate, o.loan_term_months, 0.0};
}

Money hardware_capex(const OwnInputs& o) {
  return o.card_price.times(o.cards) + o.server_base.times(servers_for(o)) + o.network;
}

Comparison compare(const Scenario& given) {
  check(given);
  const Scenario s = excluding_vat(given);
  Comparison c;
  c.scenario = given;
  if (s.spot) {
    // The rate is per instance, and any instance's interruption stops a
    // data-parallel job: the job sees λ × instances.
    SpotParams p = s.spot->interruptions;
    p.interruptions_per_hour *= instances_for(s.workload.gpus, s.spot->rent.gpus_per_instance);
    c.spot_overhead = spot_overhead(p);
  }
  const SpotOverhead* ov = c.spot_overhead ? &*c.spot_overhead : nullptr;
  c.options = build_all(s, s.workload.utilisation, ov, &c.own);
  for (OptionResult& o : c.options) {
    for (const Scenario::Exclusion& x : s.caveats)
      if (x.option == o.key) o.notes.push_back(x.why);
    if (const Scenario::Exclusion* x = exclusion(s, o.key)) {
      o.available = false;
      o.notes.push_back(trf("left out of the decision: {}", x->why));
    }
  }
  // The cheapest option by NPV (equal to the total at a zero rate), among those that can deliver.
  const OptionResult* win = nullptr;
  for (const OptionResult& o : c.options)
    if (o.available && (!win || o.npv < win->npv)) win = &o;
  if (!win) {
    c.recommendation = std::string(
        s.excluded.empty() ? tr("Nothing to compare: no option can deliver within the horizon (see each "
                                "option's notes).")
                           : tr("Nothing to compare: every option is left out of the decision (restricted "
                                "in the region, or unable to deliver within the horizon; see each option's notes)."));
    return c;
  }
  c.cheapest = win->key;
  break_evens(c);
  if (s.hourly && c.options.front().available && !exclusion(s, "rent_hourly"))
    c.break_even_utilisation = break_even_utilisation(s);
  c.recommendation = recommendation(c, *win);
  if (c.options.size() == 1)
    c.recommendation =
        trf("Only buying is compared: no rental option is offered (see the defaults used). {}", c.recommendation);
  return c;
}

}  // namespace gpuplan
