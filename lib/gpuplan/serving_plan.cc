#include "gpuplan/serving_plan.h"

#include <algorithm>
#include <cmath>

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
  const double load = s.traffic.requests_per_second / (replicas * run.requests_per_second);
  const ReplicaRun alone = replica_at(s.model, s.traffic, s.efficiency, shape, 1);
  const double w = (alone.time_to_first_token + alone.decode_step * s.traffic.output_tokens).count();
  const double lambda = s.traffic.requests_per_second / replicas;
  return std::min(1.0, std::max(load, 1.0 - std::exp(-lambda * w)));
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
    const std::optional<int> n = replicas_for(s.traffic, s.efficiency, z.run);
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

std::vector<int> instances_by_hour(const Serving& s, const ReplicaPlan& plan, int per_instance) {
  std::vector<int> out;
  const int per = std::max(1, per_instance / plan.shape.tp);
  for (double rate : hourly_rates(s.traffic)) {
    const std::optional<int> n = replicas_at(rate, s.efficiency, plan.run, s.min_replicas);
    if (!n) return {};
    out.push_back((*n + per - 1) / per);
  }
  return out;
}

std::string_view RentalQuote::mode_name() const { return mixed() ? "monthly+hourly" : to_string(mode); }

std::string_view RentalQuote::how() const {
  if (mixed()) return "a base by the month, the rise above it by the hour";
  if (mode == BillingMode::kSpot)
    return "started and stopped with the day's load, and reclaimed at the provider's will";
  return mode == BillingMode::kHourly ? "started and stopped with the day's load" : "the busiest hour's, all month";
}

namespace {

// A month of `base` instances by the month and the rest of each hour's by the
// hour: base × the month's price + Σ max(0, n_h − base) × the hour's × 730 ÷ 24.
double mixed_month(const std::vector<int>& by_hour, int base, double month, double hour) {
  double rise = 0;
  for (int n : by_hour) rise += std::max(0, n - base);
  return base * month + rise * hour * kHoursPerMonth / kHoursPerDay;
}

// Monthly for the base load, hourly for the rise: the base that costs least is
// one of the hours' instance counts (the month is piecewise linear in it, bending
// only there). A quote only when it beats both modes alone.
std::optional<RentalQuote> base_and_rise(const RentalQuote& hourly, const RentalQuote& monthly) {
  if (!hourly.monthly || !monthly.monthly) return std::nullopt;
  const double m = monthly.price.units(), h = hourly.price.units();
  std::optional<int> best;
  double least = std::min(hourly.monthly->units(), monthly.monthly->units());
  for (int b : hourly.by_hour) {
    const double cost = mixed_month(hourly.by_hour, b, m, h);
    if (b > 0 && cost < least * (1 - 1e-9)) {
      least = cost;
      best = b;
    }
  }
  if (!best) return std::nullopt;
  RentalQuote q = monthly;
  q.by_hour = hourly.by_hour;
  q.base = *best;
  q.rise_price = hourly.price;
  q.monthly = monthly.price.scaled(*best) + hourly.price.scaled(mixed_month(hourly.by_hour, *best, 0, 1));
  return q;
}

}  // namespace

int RentalQuote::instance_hours() const {
  int sum = 0;
  for (int n : by_hour) sum += n;
  return sum;
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
    const auto quote = [&](BillingMode mode) {
      RentalQuote q{&o, mode, plan, fx.convert(o.price(mode)->amount)};
      if (!plan.sized()) return q;
      q.by_hour = mode == BillingMode::kMonthly ? std::vector<int>(kHoursPerDay, plan.instances)
                                                : instances_by_hour(s, plan, o.gpus);
      const double units = mode == BillingMode::kMonthly ? plan.instances : q.instance_hours() * kHoursPerMonth / 24;
      if (!q.by_hour.empty() && q.price.units() * units < Money::kMaxPlausibleUnits) q.monthly = q.price.scaled(units);
      return q;
    };
    std::optional<RentalQuote> hourly, monthly;
    if (o.hourly) out.push_back(*(hourly = quote(BillingMode::kHourly)));
    if (o.monthly) out.push_back(*(monthly = quote(BillingMode::kMonthly)));
    if (hourly && monthly)
      if (auto mixed = base_and_rise(*hourly, *monthly)) out.push_back(std::move(*mixed));
    // Spot only when asked: a reclaim takes a replica and its requests away (serve.spot).
    if (s.spot && o.price(BillingMode::kSpot)) out.push_back(quote(BillingMode::kSpot));
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
