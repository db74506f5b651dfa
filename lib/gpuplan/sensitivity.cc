#include "gpuplan/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

#include "gpuplan/cost/rent.h"
#include "gpuplan/job_fields.h"
#include "gpuplan/scenario_fields.h"

namespace gpuplan {
namespace {

constexpr std::size_t kBase = static_cast<std::size_t>(-1);
// Bisection steps for a flip point: the range is found to 2^-16 of its width.
constexpr int kBisections = 16;

double moved(const SensitivityInput& in, double factor) {
  // With a spread, ±range maps to ±spread: factor 1 ± range → base ± spread.
  const double target = in.spread > 0 ? in.base + (factor > 1 ? in.spread : -in.spread) : in.base * factor;
  double v = std::clamp(target, in.min, in.max);
  if (in.whole) v = std::max(in.min, std::round(v));
  return v;
}

bool same_decision(const SensitivityOutcome& a, const SensitivityOutcome& b) { return a.decision == b.decision; }

// Money fields are set from a value in currency units, rounded to the micro-unit.
void set_money(Money& m, double units) { m = Money::from_micros(std::llround(units * 1e6), m.currency()); }

// The inputs of a subject and, for each, how to set it on a copy of the subject.
template <class Subject>
struct InputList {
  using Set = std::function<void(Subject&, double)>;
  std::vector<SensitivityInput> inputs{};
  std::vector<Set> setters{};
  void add(std::string name, ValueKind kind, double value, Set set, double min = 0, double max = 1e300,
           bool whole = false, double spread = 0) {
    inputs.push_back(SensitivityInput{std::move(name), kind, value, min, max, whole, spread});
    setters.push_back(std::move(set));
  }
};

}  // namespace

std::string format_value(ValueKind kind, double v) {
  switch (kind) {
    // No thousands separators: these are cells of CSV too.
    case ValueKind::kMoney:
      return fmt::format("{:.{}f}", v, std::abs(v) < 10 ? 4 : std::abs(v) < 1000 ? 2 : 0);
    case ValueKind::kShare:
      return fmt::format("{:.3g}%", v * 100);
    case ValueKind::kDuration: {
      const double h = v / 3600;
      if (h >= 730 * 0.999) return fmt::format("{:.3g}mo", h / 730);
      if (h >= 48) return fmt::format("{:.3g}d", h / 24);
      if (h >= 1) return fmt::format("{:.3g}h", h);
      return fmt::format("{:.3g}min", v / 60);
    }
    case ValueKind::kWatts:
      return fmt::format("{:.4g}W", v);
    case ValueKind::kBytes:
      return v >= 1e12 ? fmt::format("{:.3g}TB", v / 1e12) : fmt::format("{:.4g}GB", v / 1e9);
    case ValueKind::kRate:
      return v >= 1e9 ? fmt::format("{:.3g}GB/s", v / 1e9) : fmt::format("{:.4g}MB/s", v / 1e6);
    case ValueKind::kCount:
      if (v >= 1e12) return fmt::format("{:.3g}T", v / 1e12);
      if (v >= 1e9) return fmt::format("{:.3g}B", v / 1e9);
      if (v >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
      return fmt::format("{:.4g}", v);
    case ValueKind::kNumber:
    case ValueKind::kWhole:
    case ValueKind::kChoice:
    case ValueKind::kBool:
    case ValueKind::kText:
    case ValueKind::kList:
    case ValueKind::kNumbers:
      return fmt::format("{:.4g}", v);
    case ValueKind::kFactor:
      return fmt::format("×{:.3g}", v);
  }
  return fmt::format("{:g}", v);
}

std::string value_unit(ValueKind kind, Currency currency) {
  switch (kind) {
    case ValueKind::kMoney:
      return std::string(currency.code());
    case ValueKind::kShare:
      return "share";
    case ValueKind::kDuration:
      return "s";
    case ValueKind::kWatts:
      return "W";
    case ValueKind::kBytes:
      return "B";
    case ValueKind::kRate:
      return "B/s";
    case ValueKind::kCount:
      return "count";
    case ValueKind::kNumber:
    case ValueKind::kWhole:
    case ValueKind::kChoice:
    case ValueKind::kBool:
    case ValueKind::kText:
    case ValueKind::kList:
    case ValueKind::kNumbers:
      return "number";
    case ValueKind::kFactor:
      return "factor";
  }
  return "number";
}

Sensitivity analyse(std::vector<SensitivityInput> inputs, const SensitivityEvaluate& evaluate, double range) {
  if (!(range > 0 && range < 1)) throw std::invalid_argument("range must be within (0%, 100%)");
  Sensitivity out;
  out.range = range;
  out.base = evaluate(kBase, 0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const SensitivityInput& in = inputs[i];
    if (in.base == 0 && in.spread <= 0) {
      out.not_varied.push_back(in.name);
      continue;
    }
    Swing s;
    s.input = i;
    s.low_value = moved(in, 1 - range);
    s.high_value = moved(in, 1 + range);
    s.low = evaluate(i, s.low_value);
    s.high = evaluate(i, s.high_value);
    if (s.low.metric && s.high.metric) s.swing = std::abs(*s.high.metric - *s.low.metric);
    else s.swing = std::numeric_limits<double>::infinity();  // a plan that becomes impossible outweighs any number
    const bool low_flips = !same_decision(s.low, out.base), high_flips = !same_decision(s.high, out.base);
    s.flips = low_flips || high_flips;
    if (s.flips) {
      // Bisect between the base and the nearer end that flips, assuming one
      // change of decision there (a second change within the range is not sought).
      double keep = in.base, flip = low_flips ? s.low_value : s.high_value;
      for (int k = 0; k < kBisections; ++k) {
        double mid = 0.5 * (keep + flip);
        if (in.whole) {
          mid = std::round(mid);
          if (mid == keep || mid == flip) break;
        }
        if (same_decision(evaluate(i, mid), out.base)) keep = mid;
        else flip = mid;
      }
      s.flip_value = flip;
    }
    out.ranked.push_back(std::move(s));
  }
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const Swing& a, const Swing& b) { return a.swing > b.swing; });
  out.inputs = std::move(inputs);
  return out;
}

namespace {

using ScenarioInputs = InputList<Scenario>;

// Every `vary` row of a section that matters for `base`, with the row's range;
// rows with no value (an option that is not there) are left out. `at` reaches
// the rows' root inside the subject.
template <class Subject, class Root>
void add_rows(InputList<Subject>& list, const Root& base, const Section<Root>& section, Root& (*at)(Subject&)) {
  for (const Field<Root>& row : section.rows) {
    if (!row.vary || !row.at.get || !row.at.set || (row.varies && !row.varies(base))) continue;
    const Value v = row.at.get(base);
    if (std::holds_alternative<std::monostate>(v)) continue;
    // An open upper bound is kept just inside (a 100% spot discount would make spot free).
    const double hi = row.range.hi_open ? row.range.hi * 0.99 : row.range.hi;
    const double lo = std::isinf(row.range.lo) ? 0.0 : row.range.lo;  // a trend may be below zero: its range says
    list.add(
        field_path(section.name, row.key), row.kind, as_number(v),
        [set = row.at.set, get = row.at.get, at](Subject& s, double x) {
          Root& r = at(s);
          set(r, with_number(get(r), x));
        },
        lo, std::isinf(hi) ? 1e300 : hi, row.whole, row.spread);
  }
}

Scenario& itself(Scenario& s) { return s; }

void add_rows(ScenarioInputs& list, const Scenario& base, std::string_view section) {
  add_rows(list, base, scenario_section(section), &itself);
}

// The rental prices and add-ons, which no single row holds: a price moves its
// option (and a spot price given as a discount off the hourly one), an add-on
// moves every option that bills it, as `rent.*` sets them.
void add_rent_prices(ScenarioInputs& list, const Scenario& base) {
  const auto add = [&list](auto&&... args) { list.add(std::forward<decltype(args)>(args)...); };
  if (base.hourly)
    add("rent.hourly.price_per_instance_hour", ValueKind::kMoney, base.hourly->rent.price.units(),
        [](Scenario& s, double v) {
          set_money(s.hourly->rent.price, v);
          if (s.spot && s.spot->discount) s.spot->rent.price = s.hourly->rent.price.scaled(1.0 - *s.spot->discount);
        });
  add_rows(list, base, "rent.hourly");
  if (base.monthly)
    add("rent.monthly.price_per_instance_month", ValueKind::kMoney, base.monthly->price.units(),
        [](Scenario& s, double v) { set_money(s.monthly->price, v); });
  if (base.spot) {
    if (base.spot->discount)
      add(
          "rent.spot.discount", ValueKind::kShare, *base.spot->discount,
          [](Scenario& s, double v) {
            s.spot->discount = v;
            s.spot->rent.price = s.hourly->rent.price.scaled(1.0 - v);
          },
          0, 0.99);
    else
      add("rent.spot.price_per_instance_hour", ValueKind::kMoney, base.spot->rent.price.units(),
          [](Scenario& s, double v) { set_money(s.spot->rent.price, v); });
  }
  add_rows(list, base, "rent.spot");
}

void add_rent_add_ons(ScenarioInputs& list, const Scenario& base) {
  const RentInputs* any = base.hourly    ? &base.hourly->rent
                          : base.monthly ? &*base.monthly
                          : base.spot    ? &base.spot->rent
                                         : nullptr;
  if (!any) return;
  const auto each = [](Scenario& s, const std::function<void(RentInputs&)>& f) {
    if (s.hourly) f(s.hourly->rent);
    if (s.monthly) f(*s.monthly);
    if (s.spot) f(s.spot->rent);
  };
  list.add("rent.storage_per_gb_month", ValueKind::kMoney, any->storage_per_gb_month.units(),
           [each](Scenario& s, double v) { each(s, [v](RentInputs& r) { set_money(r.storage_per_gb_month, v); }); });
  list.add("rent.egress_per_gb", ValueKind::kMoney, any->egress_per_gb.units(),
           [each](Scenario& s, double v) { each(s, [v](RentInputs& r) { set_money(r.egress_per_gb, v); }); });
  list.add(
      "rent.support", ValueKind::kShare, any->support_share,
      [each](Scenario& s, double v) { each(s, [v](RentInputs& r) { r.support_share = v; }); }, 0, 1);
}

}  // namespace

ScenarioSubject scenario_subject(const Scenario& base) {
  ScenarioInputs list;
  add_rows(list, base, "workload");
  add_rows(list, base, "buy");
  // A delay cost matters only when the lead time is priced rather than bridged.
  if (base.own.cover == LeadTimeCover::kDelayCost)
    list.add("buy.delay_cost_per_month", ValueKind::kMoney, base.own.delay_cost_per_month.units(),
             [](Scenario& s, double v) { set_money(s.own.delay_cost_per_month, v); });
  add_rent_prices(list, base);
  add_rent_add_ons(list, base);
  add_rows(list, base, "hybrid");
  add_rows(list, base, "");
  add_rows(list, base, "rent");
  add_rows(list, base, "tax");

  ScenarioSubject out;
  out.inputs = std::move(list.inputs);
  // The metric: the NPV of the base case's cheapest option (any option,
  // hybrid included) minus the cheapest of the others; it crosses zero where
  // the answer changes.
  const std::string winner = compare(base).cheapest;
  out.winner = winner;
  out.evaluate = [base, winner, setters = std::move(list.setters)](std::size_t i, double v) {
    Scenario s = base;
    if (i != kBase) setters.at(i)(s, v);
    const Comparison c = compare(s);
    std::optional<double> mine;
    double others = std::numeric_limits<double>::infinity();
    for (const OptionResult& opt : c.options) {
      if (!opt.available) continue;
      if (opt.key == winner) mine = opt.npv;
      else others = std::min(others, opt.npv);
    }
    SensitivityOutcome r;
    if (mine && std::isfinite(others)) r.metric = *mine - others;
    r.decision = c.cheapest;
    return r;
  };
  return out;
}

namespace {

// A job's inputs as sensitivity moves them: the job file's fields, and two
// that stand for many numbers (every GPU's MFU, every catalog price).
struct JobVariation {
  ResolvedJob job{};
  double mfu_factor = 1.0;
  double price_factor = 1.0;
};

ResolvedJob& job_of(JobVariation& v) { return v.job; }

}  // namespace

ScenarioSubject job_subject(const ResolvedJob& job, const PlanInputs& base, const Catalog& catalog,
                            const CurrencyConverter& fx) {
  InputList<JobVariation> list;
  add_rows(list, job, job_section("job"), &job_of);
  list.add(
      "MFU of every GPU", ValueKind::kFactor, 1.0, [](JobVariation& v, double x) { v.mfu_factor = x; }, 0.01, 100);
  list.add(
      "every catalog price", ValueKind::kFactor, 1.0, [](JobVariation& v, double x) { v.price_factor = x; }, 0.01, 100);
  for (const char* section : {"cluster", "data", "checkpoint", "cost", "plan"})
    add_rows(list, job, job_section(section), &job_of);

  ScenarioSubject out;
  out.inputs = std::move(list.inputs);
  out.evaluate = [job, base, setters = std::move(list.setters), &catalog, &fx](std::size_t i, double v) {
    JobVariation var{job};
    if (i != kBase) setters.at(i)(var, v);
    PlanInputs p = base;
    apply_job(var.job, p);
    p.mfu_factor = var.mfu_factor;
    p.price_factor = var.price_factor;
    const PlanResult r = plan(p, catalog, fx);
    SensitivityOutcome o;
    if (!r.recommended) {
      o.decision = "nothing feasible";
      return o;
    }
    const PlanDetail& d = *r.recommended;
    o.metric = p.objective == Objective::kTime ? d.finish_hours : d.cost.units();
    o.decision = d.source->offer ? fmt::format("{} on {} ({})", d.source->gpu->id, d.source->offer->provider,
                                               to_string(d.config.mode))
                                 : fmt::format("buy {}", d.source->gpu->id);
    return o;
  };
  return out;
}

}  // namespace gpuplan
