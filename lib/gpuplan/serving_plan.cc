#include "gpuplan/serving_plan.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/context.h"
#include "gpuplan/efficiency.h"

namespace gpuplan {
namespace {

constexpr int kTensorParallel[] = {1, 2, 4, 8};

bool wanted(const std::vector<std::string>& filters, std::string_view id,
            bool (*match)(std::string_view, std::string_view)) {
  return filters.empty() ||
         std::any_of(filters.begin(), filters.end(), [&](const std::string& f) { return match(f, id); });
}
bool same_id(std::string_view a, std::string_view b) { return a == b; }

}  // namespace

bool gpu_considered(const Serving& s, const Gpu& g) { return wanted(s.gpus, g.id, &gpu_matches); }

double busy_share(const Serving& s, const ReplicaShape& shape, const ReplicaRun& run, int replicas) {
  if (replicas <= 0 || !(run.requests_per_second > 0)) return 0;
  const ReplicaRun alone = replica_at(s.model, s.traffic, s.efficiency, shape, 1);
  // A request alone: its mean prompt, the step after it, and its mean reply.
  const double w = (alone.prefill + alone.decode_step * (1 + s.traffic.output_tokens)).count();
  // Hour by hour over the day (a quiet hour draws idle power), then averaged.
  double sum = 0;
  for (double rate : hourly_rates(s.traffic)) {
    const double lambda = rate / replicas, load = lambda / run.requests_per_second;
    sum += std::min(1.0, std::max(load, 1.0 - std::exp(-lambda * w)));
  }
  return sum / kHoursPerDay;
}

bool card_can_serve(const Gpu& g) { return g.memory_bandwidth && serving_peak_tflops(g, Storage::kBf16) > 0; }

ReplicaPlan best_replica(const Serving& s, const Gpu& g, int per_instance, const InstanceShape& inst) {
  std::optional<ReplicaPlan> best, missing;
  for (int tp : kTensorParallel) {
    if (tp > per_instance || per_instance % tp != 0) continue;
    ReplicaPlan z{ReplicaShape{&g, tp, inst.intra, inst.intra_name}};
    z.run = size_replica(s.model, s.traffic, s.targets, s.efficiency, z.shape);
    if (!z.run.fits) continue;
    if (!z.run.meets_targets) {
      if (!missing) missing = z;
      continue;
    }
    // The busiest hour's replicas, and never fewer than serve.min_replicas.
    const std::optional<int> n = replicas_at(s.traffic.requests_per_second * s.traffic.peak_to_average, s.efficiency,
                                             z.run, std::max(1, s.min_replicas));
    z.beyond = !n;
    z.replicas = n.value_or(0);
    const int per = per_instance / tp;
    z.instances = (z.replicas + per - 1) / per;
    if (z.beyond) {
      if (!missing) missing = z;
      continue;
    }
    if (!best || z.instances < best->instances ||
        (z.instances == best->instances && z.replicas * tp < best->replicas * best->shape.tp))
      best = z;
  }
  if (best) return *best;
  if (missing) return *missing;
  ReplicaPlan none{ReplicaShape{&g, std::min(per_instance, 8), inst.intra, inst.intra_name}};
  none.run = replica_at(s.model, s.traffic, s.efficiency, none.shape, 1);
  return none;
}

namespace {

// Instances each hour at the day's load × `scale`: replicas at the hour's rate
// (at least min_replicas), `per` to an instance. Empty beyond kMaxReplicas.
std::vector<int> counts_at(const Serving& s, const ReplicaPlan& plan, int per, double scale) {
  std::vector<int> out;
  for (double rate : hourly_rates(s.traffic)) {
    const std::optional<int> n = replicas_at(rate * scale, s.efficiency, plan.run, s.min_replicas);
    if (!n) return {};
    out.push_back((*n + per - 1) / per);
  }
  return out;
}

int replicas_an_instance(const RentalQuote& q) { return std::max(1, q.offer->gpus / q.plan.shape.tp); }

// Monthly + hourly: the b-th instance by the month saves the hourly price in
// every hour that runs at least b, so it pays when those hours cost more than a
// month; the cheapest base is the most instances that at least ⌊month ÷ hour's
// month⌋ + 1 hours run (the month is convex in the base).
int cheapest_base(const std::vector<int>& by_hour, double month, double hour) {
  const double hours = month / (hour * kHoursPerMonth / kHoursPerDay);
  const auto need = static_cast<std::size_t>(std::floor(hours)) + 1;
  if (need > by_hour.size()) return 0;
  std::vector<int> sorted = by_hour;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  return sorted[need - 1];
}

// A month of `base` instances by the month and the rest of each hour's by the
// hour: base × the month's price + Σ max(0, n_h − base) × the hour's × 730 ÷ 24.
double mixed_month(const std::vector<int>& by_hour, int base, double month, double hour) {
  return base * month + rise_hours(by_hour, base) * hour * kHoursPerMonth / kHoursPerDay;
}

// The month of a quote's mode for these instance counts, in its price's units.
double month_of(const RentalQuote& q, const std::vector<int>& by_hour) {
  if (q.mixed()) {
    const int b = cheapest_base(by_hour, q.price.units(), q.rise_price.units());
    return mixed_month(by_hour, b, q.price.units(), q.rise_price.units());
  }
  if (q.mode == BillingMode::kMonthly) return q.price.units() * *std::max_element(by_hour.begin(), by_hour.end());
  double sum = 0;
  for (int n : by_hour) sum += n;
  return q.price.units() * sum * kHoursPerMonth / kHoursPerDay;
}

}  // namespace

int rise_hours(const std::vector<int>& by_hour, int base) {
  int sum = 0;
  for (int n : by_hour) sum += std::max(0, n - base);
  return sum;
}

std::vector<int> instances_by_hour(const Serving& s, const ReplicaPlan& plan, int per_instance) {
  return counts_at(s, plan, std::max(1, per_instance / plan.shape.tp), 1.0);
}

std::string RentalQuote::mode_name() const {
  std::string name(to_string(mode));
  if (commitment_months > 0)
    name += commitment_months % 12 == 0 ? fmt::format(" {}y", commitment_months / 12)
                                        : fmt::format(" {}mo", commitment_months);
  return mixed() ? name + "+hourly" : name;
}

std::string_view RentalQuote::how() const {
  if (mixed() && commitment_months > 0) return "a committed base, the rise above it by the hour";
  if (mixed()) return "a base by the month, the rise above it by the hour";
  if (commitment_months > 0) return "the busiest hour's, all month, committed for the term";
  if (mode == BillingMode::kSpot)
    return "started and stopped with the day's load, and reclaimed at the provider's will";
  return mode == BillingMode::kHourly ? "started and stopped with the day's load" : "the busiest hour's, all month";
}

int RentalQuote::instance_hours() const {
  int sum = 0;
  for (int n : by_hour) sum += n;
  return sum;
}

namespace {

// Monthly for the base load, hourly for the rise: a quote only when it beats both modes alone.
std::optional<RentalQuote> base_and_rise(const RentalQuote& hourly, const RentalQuote& monthly) {
  if (!hourly.monthly || !monthly.monthly) return std::nullopt;
  const double m = monthly.price.units(), h = hourly.price.units();
  const int b = cheapest_base(hourly.by_hour, m, h);
  const double cost = mixed_month(hourly.by_hour, b, m, h);
  if (b <= 0 || !(cost < std::min(hourly.monthly->units(), monthly.monthly->units()) * (1 - 1e-9))) return std::nullopt;
  RentalQuote q = monthly;
  q.by_hour = hourly.by_hour;
  q.base = b;
  q.rise_price = hourly.price;
  q.priced.insert(q.priced.end(), hourly.priced.begin(), hourly.priced.end());
  q.monthly = monthly.price.scaled(b) + hourly.price.scaled(rise_hours(hourly.by_hour, b) * kHoursPerMonth / 24);
  return q;
}

}  // namespace

// Against an API that charges the same for every request: with the load
// scaled by f (the day's shape kept), the rental's month is a step function
// c(f) (instances come whole), the API's a line f·A. Each mode's month is at
// most f·S + K (S: what a request/s adds, instances full; K: one instance more
// in every hour), so when S < A the rental is cheaper for good beyond
// K ÷ (A − S); below that the steps are scanned, instance by instance, for the
// last load at which the API is cheaper. S ≥ A: the API stays cheaper as the
// load grows (a step may still dip below it): none.
namespace {

// A mode's month is at most f·S + K at the day's load × f: S what a request/s
// more adds with instances full, K one instance more in every hour.
struct Bound {
  double slope = 0, fixed = 0;
};
Bound month_bound(const Serving& s, const RentalQuote& q) {
  const int per = replicas_an_instance(q);
  const double unit = q.plan.run.requests_per_second * s.efficiency.peak_load * per;  // requests/s an instance
  const double floor = std::ceil(std::max(1, s.min_replicas) / static_cast<double>(per));
  double day = 0, peak = 0;
  for (double r : hourly_rates(s.traffic)) {
    day += r;
    peak = std::max(peak, r);
  }
  const double hour_month = (q.mixed() ? q.rise_price : q.price).units() * kHoursPerMonth / kHoursPerDay;
  const Bound hourly{hour_month * day / unit, hour_month * kHoursPerDay * (1 + floor)};
  const Bound monthly{q.price.units() * peak / unit, q.price.units() * (1 + floor)};
  if (q.mode != BillingMode::kMonthly) return hourly;
  return q.mixed() && hourly.slope <= monthly.slope ? hourly : monthly;
}

}  // namespace

double month_per_rps(const Serving& s, const RentalQuote& q) {
  return month_bound(s, q).slope / s.traffic.requests_per_second;
}

namespace {

std::optional<double> break_even_at_shape(const Serving& s, const RentalQuote& q, double api_per_rps) {
  const double lambda = s.traffic.requests_per_second, a = api_per_rps * lambda;
  const int per = replicas_an_instance(q);
  const double unit = q.plan.run.requests_per_second * s.efficiency.peak_load * per;
  const auto rates = hourly_rates(s.traffic);
  const double floor = std::ceil(std::max(1, s.min_replicas) / static_cast<double>(per));
  const Bound b = month_bound(s, q);
  if (!(b.slope < a * (1 - 1e-12))) return std::nullopt;
  const double f_max = b.fixed / (a - b.slope);
  // Pieces of constant instance counts, from the lightest load up: an hour with requests runs one replica at least.
  std::vector<int> n;
  for (double r : rates) n.push_back(r > 0 ? static_cast<int>(floor) : (s.min_replicas + per - 1) / per);
  double f = 0, last_loss = 0;
  for (int step = 0; step < 200'000; ++step) {
    double next = f_max;
    std::size_t which = n.size();
    for (std::size_t h = 0; h < n.size(); ++h)
      if (rates[h] > 0 && n[h] * unit / rates[h] < next) {
        next = n[h] * unit / rates[h];
        which = h;
      }
    const double cost = month_of(q, n);
    if (cost > f * a) last_loss = std::max(last_loss, std::min(next, cost / a));  // the API is cheaper from f to here
    if (which == n.size()) return last_loss * lambda;
    ++n[which];
    f = next;
  }
  return f_max * lambda;  // too many steps to scan: beyond f_max it is cheaper for good (a bound, still true)
}

}  // namespace

// Re-sized for each load means the tensor parallel too (a busier service may
// fit fewer instances with larger replicas): the lowest break-even of the
// shapes that meet the targets, each scanned as above.
std::optional<double> api_break_even(const Serving& s, const RentalQuote& q, double api_per_rps) {
  if (!q.monthly || !(api_per_rps > 0)) return std::nullopt;
  std::optional<double> best;
  for (int tp : kTensorParallel) {
    if (tp > q.offer->gpus || q.offer->gpus % tp != 0) continue;
    RentalQuote shaped = q;
    shaped.plan.shape.tp = tp;
    shaped.plan.run = size_replica(s.model, s.traffic, s.targets, s.efficiency, shaped.plan.shape);
    if (!shaped.plan.run.meets_targets) continue;
    if (const auto x = break_even_at_shape(s, shaped, api_per_rps); x && (!best || *x < *best)) best = x;
  }
  return best;
}
// Hourly offers bill the hours an instance runs, so they follow the day's
// load (started and stopped each hour; how fast a provider starts one is not
// modelled); monthly ones bill the month, sized for the busiest hour. Amounts
// from a trillion up are no budget anyone has (money.h): left unpriced.
std::vector<RentalQuote> rental_quotes(const Catalog& c, const CurrencyConverter& fx, const Serving& s) {
  std::vector<RentalQuote> out;
  for (const Offer& o : c.offers) {
    const Gpu* g = c.find_gpu(o.gpu);
    if (!g || !card_can_serve(*g) || !gpu_considered(s, *g) || !wanted(s.providers, o.provider, &same_id)) continue;
    if (!s.regions.empty() && std::none_of(s.regions.begin(), s.regions.end(),
                                           [&](const std::string& r) { return offer_in_region(c, o, r); }))
      continue;
    const ReplicaPlan plan = best_replica(s, *g, o.gpus, offer_shape(o, *g, c).shape);
    const auto quote = [&](BillingMode mode, const Price& price, int months) {
      RentalQuote q{&o, mode, plan, fx.convert(price.amount)};
      q.commitment_months = months;
      q.priced = {&price.provenance};
      if (!plan.sized()) return q;
      q.by_hour = mode == BillingMode::kMonthly ? std::vector<int>(kHoursPerDay, plan.instances)
                                                : instances_by_hour(s, plan, o.gpus);
      const double units = mode == BillingMode::kMonthly ? plan.instances : q.instance_hours() * kHoursPerMonth / 24;
      if (!q.by_hour.empty() && q.price.units() * units < Money::kMaxPlausibleUnits) q.monthly = q.price.scaled(units);
      return q;
    };
    std::optional<RentalQuote> hourly;
    if (o.hourly) out.push_back(*(hourly = quote(BillingMode::kHourly, *o.hourly, 0)));
    // By the month, and committed for a term (a price per instance-month, billed every hour of it); each
    // also as the base under an hourly rise.
    std::vector<RentalQuote> months;
    if (o.monthly) months.push_back(quote(BillingMode::kMonthly, *o.monthly, 0));
    for (const Commitment& term : o.commitments) {
      Price per_month = term.price;
      if (term.basis == BillingMode::kHourly) per_month.amount = per_month.amount.scaled(kHoursPerMonth);
      months.push_back(quote(BillingMode::kMonthly, per_month, static_cast<int>(std::lround(term.term / Months(1)))));
      months.back().priced = {&term.price.provenance};
    }
    for (const RentalQuote& m : months) {
      out.push_back(m);
      if (hourly)
        if (auto mixed = base_and_rise(*hourly, m)) out.push_back(std::move(*mixed));
    }
    // Spot only when asked: a reclaim takes a replica and its requests away (serve.spot).
    if (s.spot && o.spot) out.push_back(quote(BillingMode::kSpot, *o.spot, 0));
  }
  return out;
}

// Owned cards hold floor(cards / TP) replicas; the tensor parallel (inside a
// server) that carries most requests wins. Busy share = the day's average
// rate ÷ what the replicas carry: the share of the month the cards draw
// their busy power.
std::optional<OwnedServing> serve_on_owned(const Serving& s, const Gpu& g, int cards, int per_server) {
  if (!card_can_serve(g)) return std::nullopt;
  const InstanceShape inst = server_shape(g, per_server, BytesPerSecond(0), "none");
  std::optional<OwnedServing> best;
  for (int tp : kTensorParallel) {
    if (tp > per_server || per_server % tp != 0 || tp > cards) continue;
    OwnedServing o;
    o.plan.shape = ReplicaShape{&g, tp, inst.intra, inst.intra_name};
    o.plan.run = size_replica(s.model, s.traffic, s.targets, s.efficiency, o.plan.shape);
    if (!o.plan.run.meets_targets) continue;
    o.plan.replicas = cards / tp;
    o.capacity_rps = o.plan.replicas * o.plan.run.requests_per_second;
    if (!best || o.capacity_rps > best->capacity_rps) best = o;
  }
  if (!best) return std::nullopt;
  best->busy_share = busy_share(s, best->plan.shape, best->plan.run, best->plan.replicas);
  best->carries_peak =
      s.traffic.requests_per_second * s.traffic.peak_to_average <= best->capacity_rps * s.efficiency.peak_load;
  return best;
}

}  // namespace gpuplan
