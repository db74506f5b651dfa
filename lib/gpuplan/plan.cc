#include "gpuplan/plan.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numbers>
#include <random>
#include <tuple>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <limits>
#include <stdexcept>

#include "gpuplan/cost/rent.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/job_fields.h"

namespace gpuplan {
namespace {

// The job as it runs on `instances` instances or servers (checkpoint defaults follow the count).
const Job& job_on(const PlanInputs& in, int instances) {
  return instances > 1 && in.job_on_several ? *in.job_on_several : in.job;
}

// Spot plans simulated at most when looking for a recommendation: beyond this
// many risky ones, the recommendation falls back to plans that are not spot.
constexpr int kMaxSpotSimulations = 64;
// Plans checked against the deadline's confidence before giving up (each a few
// dozen step evaluations; a spot plan a Monte Carlo).
constexpr int kMaxOnTimeChecks = 512;

bool matches_any(const std::vector<std::string>& filters, std::string_view value, bool gpu) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(),
                     [&](const std::string& f) { return gpu ? gpu_matches(f, value) : id_equals(f, value); });
}

std::vector<PlanMode> modes_of(const PlanSource& s, bool allow_spot) {
  if (!s.offer) return {PlanMode::kBuy};
  std::vector<PlanMode> m;
  if (s.prices.hourly) m.push_back(PlanMode::kHourly);
  if (s.prices.monthly) m.push_back(PlanMode::kMonthly);
  if (allow_spot && s.prices.spot) m.push_back(PlanMode::kSpot);
  return m;
}

}  // namespace

BillingMode billing(PlanMode m) {
  return m == PlanMode::kMonthly ? BillingMode::kMonthly
         : m == PlanMode::kSpot  ? BillingMode::kSpot
                                 : BillingMode::kHourly;
}

namespace {

// Price per GPU-hour of a source's mode, for "the cheapest card per hour".
std::optional<double> gpu_hour_price(const PlanSource& s, PlanMode m) {
  if (!s.offer) return std::nullopt;
  const auto& p = s.prices.price(billing(m));
  if (!p) return std::nullopt;
  return p->units() / (s.offer->gpus * (m == PlanMode::kMonthly ? kHoursPerMonth : 1.0));
}

// Marks `s` with a status other than available; false for a restricted one
// that --exclude-restricted leaves out (named in `left_out`).
bool admit(const MarketStatus* m, const PlanInputs& in, std::string_view name, PlanSource& s,
           std::vector<std::string>& left_out) {
  if (!m || m->status == Availability::kAvailable) return true;
  if (m->status == Availability::kRestricted && in.exclude_restricted) {
    left_out.emplace_back(name);
    return false;
  }
  s.availability = m;
  return true;
}

// Every offer and, when buying, every card with a price; `left_out`: offers
// and cards restricted in the market that --exclude-restricted leaves out.
std::vector<PlanSource> build_sources(const PlanInputs& in, const Catalog& cat, const CurrencyConverter& fx,
                                      std::vector<std::string>& left_out) {
  std::vector<PlanSource> out;
  for (const Offer& o : cat.offers) {
    const Gpu* g = cat.find_gpu(o.gpu);
    if (!g || !matches_any(in.gpus, g->id, true) || !matches_any(in.providers, o.provider, false) ||
        !matches_any(in.regions, o.region, false))
      continue;
    PlanSource s;
    s.gpu = g;
    s.offer = &o;
    s.prices = offer_prices(o, cat, fx);
    if (in.price_factor != 1.0)
      for (std::optional<Money>* p : {&s.prices.hourly, &s.prices.monthly, &s.prices.spot})
        if (*p) **p = (*p)->scaled(in.price_factor);
    if (!admit(status_in(o.availability, in.market), in, "offer " + o.id, s, left_out)) continue;
    const OfferShape shape = offer_shape(o, *g, cat);
    s.shape = shape.shape;
    s.shape_assumed = shape.assumed;
    if (modes_of(s, in.allow_spot).empty()) continue;
    out.push_back(std::move(s));
  }
  if (in.include_buy) {
    for (const Gpu& g : cat.gpus) {
      if (!matches_any(in.gpus, g.id, true)) continue;
      const Purchase* card = find_purchase(cat, PurchaseKind::kCard, g.id, in.market);
      if (!card) continue;
      PlanSource s;
      s.gpu = &g;
      s.card = card;
      if (!admit(purchase_status(g, card, in.market), in, "buying " + g.id, s, left_out)) continue;
      s.card_price = fx.convert(card->price.amount).scaled(in.price_factor);
      s.shape = server_shape(g, in.cluster.gpus_per_node, in.cluster.network_bandwidth, fabric_of(in.cluster.network));
      s.notes.push_back(trf("card price {} {} (catalog {}: {}{})", to_plain_string(s.card_price), fx.display().code(),
                            card->id, cite(card->provenance),
                            card->region.empty() || id_equals(card->region, in.market)
                                ? ""
                                : fmt::format(", priced in {}: no record for {}", card->region, in.market)));
      s.server_base = Money::zero(fx.display());
      if (const Purchase* base = find_purchase(cat, PurchaseKind::kServerBase, "", in.market)) {
        s.server_base = fx.convert(base->price.amount);
        s.notes.push_back(trf("server without GPUs {} {} per {} cards (catalog {}: {})", to_plain_string(s.server_base),
                              fx.display().code(), s.shape.gpus, base->id, cite(base->provenance)));
      }
      s.lead_time = Months(2);  // the article: procurement "拖两个月"
      if (const OperatingCost* c = find_operating(cat, OperatingKind::kLeadTime, in.market))
        s.lead_time = Seconds(c->number);
      s.electricity_per_kwh = Money::zero(fx.display());
      if (const OperatingCost* c = find_operating(cat, OperatingKind::kElectricityPerKwh, in.market); c && c->money)
        s.electricity_per_kwh = fx.convert(*c->money);
      if (const OperatingCost* c = find_operating(cat, OperatingKind::kPue, in.market)) s.pue = c->number;
      if (const OperatingCost* c = find_operating(cat, OperatingKind::kResidualValue, in.market))
        s.residual_share = c->number;
      if (const OperatingCost* c = find_operating(cat, OperatingKind::kUsefulLife, in.market))
        s.useful_life = Seconds(c->number);
      out.push_back(std::move(s));
    }
  }
  if (out.size() > std::numeric_limits<std::uint16_t>::max())
    throw std::invalid_argument(
        std::string(tr("more than 65,535 offers to search: filter with --gpu, --provider or --region")));
  return out;
}

// One configuration's time and cost: the formulas the search and describe() share.
struct Evaluation {
  std::optional<Rejection> rejected{};
  double work_hours = 0, wall_hours = 0, start_hours = 0, finish_hours = 0;
  int instances = 0;
  Money cost = Money::zero(kCny);
  RunCost run{};
  Money hardware = Money::zero(kCny), power = Money::zero(kCny);
  std::optional<SpotOverhead> spot{};
};

// Interruptions an hour on spot capacity: the hardware's, and each instance's reclaims.
double spot_rate(const PlanInputs& in, const StepBreakdown& st, int instances) {
  return st.interruptions_per_hour + in.spot_interruptions_per_day / 24.0 * instances;
}

Evaluation evaluate(const PlanInputs& in, const TrainingModel& model, const PlanSource& s, PlanMode mode, int gpus,
                    const StepBreakdown& st) {
  const double steps = model.steps();
  Evaluation e;
  e.work_hours = st.step.count() * steps / 3600.0;
  e.wall_hours = e.work_hours;
  if (mode == PlanMode::kBuy) {
    // Buying: cards + one server (without GPUs) per gpus_per_node cards, paid up
    // front; the run starts after the lead time. Energy for the run =
    // (TDP × cards + server watts × servers) × PUE × hours, at the tariff.
    const int servers = instances_for(gpus, s.shape.gpus);
    e.instances = servers;
    e.start_hours = s.lead_time.count() / 3600.0;
    const double kwh = (s.gpu->tdp.value() * gpus + s.server_power.value() * servers) * s.pue * e.work_hours / 1000.0;
    const double biggest =
        s.card_price.units() * gpus + s.server_base.units() * servers + s.electricity_per_kwh.units() * kwh;
    if (!std::isfinite(biggest) || biggest >= kMaxRunCostUnits) {
      e.rejected = Rejection::kRange;
      return e;
    }
    e.hardware = s.card_price.times(gpus) + s.server_base.times(servers);
    e.power = s.electricity_per_kwh.scaled(kwh).rounded();
    e.cost = e.hardware.rounded() + e.power;
  } else {
    e.instances = instances_for(gpus, s.offer->gpus);
    if (mode == PlanMode::kSpot) {
      // Any instance's reclaim stops a data-parallel job: λ = failures + rate × instances.
      const SpotOverhead ov = spot_overhead(model.interruptions(st, spot_rate(in, st, e.instances)));
      e.spot = ov;
      e.wall_hours = st.work.count() * steps / 3600.0 * ov.wall_per_work;
    }
    // Before training: the instance is provisioned, then the dataset uploaded.
    e.start_hours = in.provisioning.count() / 3600.0;
    if (in.dataset.value() > 0 && in.upload_bandwidth.value() > 0)
      e.start_hours += (in.dataset / in.upload_bandwidth).count() / 3600.0;
    const std::optional<RunCost> c =
        run_cost(s.prices, billing(mode), e.wall_hours, e.instances, in.dataset.value() / kGB);
    if (!c) {
      e.rejected = Rejection::kRange;
      return e;
    }
    e.run = *c;
    e.cost = c->total;
  }
  e.finish_hours = e.start_hours + e.wall_hours;
  if (!std::isfinite(e.finish_hours)) e.rejected = Rejection::kRange;
  return e;
}

// Achieved FLOP/s per GPU: peak × MFU × the sensitivity factor, never above the peak.
double achieved(const TrainingModel& model, const Gpu& gpu, const PlanInputs& in) {
  const double f = model.achieved_flops(gpu);
  if (in.mfu_factor == 1.0 || f <= 0) return f;
  const double speedup = in.job.precision == Precision::kFp8 ? in.job.fp8_speedup : 1.0;
  return std::min(f * in.mfu_factor, mfu_peak_tflops(gpu, in.job.precision) * 1e12 * speedup);
}

Configuration configuration(const PlanInputs& in, const PlanSource& s, int gpus) {
  return Configuration{s.gpu, gpus, s.shape, in.cluster.comm_overlap};
}

std::string hours_text(double h) {
  if (h < 48) return fmt::format("{:.1f} h", h);
  return fmt::format("{:.1f} days", h / 24);
}

std::string money_text(Money m) { return fmt::format("{} {}", to_pretty_string(m.rounded(), 0), m.currency().code()); }

std::string label(const PlanDetail& d) {
  const PlanSource& s = *d.source;
  if (!s.offer) return trf("buy {}× {}", d.config.gpus, s.gpu->id);
  return trf("{}× {} on {} {} ({})", d.config.gpus, s.gpu->id, s.offer->provider, s.offer->region,
             tr(to_string(d.config.mode)));
}

bool before(const PlanConfig& a, const PlanConfig& b, Objective o) {
  if (o == Objective::kTime) {
    if (a.finish_hours != b.finish_hours) return a.finish_hours < b.finish_hours;
    return a.cost_micros < b.cost_micros;
  }
  if (a.cost_micros != b.cost_micros) return a.cost_micros < b.cost_micros;
  return a.finish_hours < b.finish_hours;
}

}  // namespace

std::string_view to_string(PlanMode m) {
  switch (m) {
    case PlanMode::kHourly:
      return "hourly";
    case PlanMode::kMonthly:
      return "monthly";
    case PlanMode::kSpot:
      return "spot";
    case PlanMode::kBuy:
      return "buy";
  }
  return "?";
}

std::string_view to_string(Rejection r) {
  switch (r) {
    case Rejection::kPrecision:
      return tr_noop("no tensor rate for the precision");
    case Rejection::kMemory:
      return tr_noop("does not fit in memory with any layout");
    case Rejection::kBatch:
      return tr_noop("no layout gives every data-parallel rank a micro-batch");
    case Rejection::kJoin:
      return tr_noop("more instances than the offer lets one job join");
    case Rejection::kRange:
      return tr_noop("cost beyond a trillion");
    case Rejection::kDeadline:
      return tr_noop("misses the deadline");
    case Rejection::kBudget:
      return tr_noop("over budget");
  }
  return "?";
}

std::vector<PlanConfig> pareto_frontier(std::vector<PlanConfig> p) {
  if (p.size() > 512) {
    // Prefilter in O(n) so that only a few points need sorting: with the finish
    // times cut into buckets, a point is dominated when any bucket wholly before
    // its own holds a point that costs no more (that point finishes strictly
    // sooner). Only such provably dominated points are dropped.
    constexpr std::size_t kBuckets = 1024;
    double lo = p.front().finish_hours, hi = lo;
    for (const PlanConfig& c : p) lo = std::min(lo, c.finish_hours), hi = std::max(hi, c.finish_hours);
    if (hi > lo) {
      const double scale = (kBuckets - 1) / (hi - lo);
      const auto bucket = [&](double f) { return static_cast<std::size_t>((f - lo) * scale); };
      std::vector<std::int64_t> cheapest(kBuckets, std::numeric_limits<std::int64_t>::max());
      for (const PlanConfig& c : p) {
        std::int64_t& b = cheapest[bucket(c.finish_hours)];
        b = std::min(b, c.cost_micros);
      }
      // before[b]: the cheapest cost in buckets 0..b−1.
      std::vector<std::int64_t> before_bucket(kBuckets);
      std::int64_t run = std::numeric_limits<std::int64_t>::max();
      for (std::size_t b = 0; b < kBuckets; ++b) {
        before_bucket[b] = run;
        run = std::min(run, cheapest[b]);
      }
      std::erase_if(p, [&](const PlanConfig& c) { return c.cost_micros >= before_bucket[bucket(c.finish_hours)]; });
    }
  }
  std::sort(p.begin(), p.end(), [](const PlanConfig& a, const PlanConfig& b) {
    if (a.finish_hours != b.finish_hours) return a.finish_hours < b.finish_hours;
    return a.cost_micros < b.cost_micros;
  });
  // A point is dominated by a faster one that costs no more, or by one as fast
  // that costs less: keep a group of equal times' cheapest points only when
  // they cost less than everything faster.
  std::vector<PlanConfig> out;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < p.size();) {
    std::size_t j = i;
    while (j < p.size() && p[j].finish_hours == p[i].finish_hours) ++j;
    const std::int64_t cheapest = p[i].cost_micros;
    if (cheapest < best)
      for (std::size_t k = i; k < j && p[k].cost_micros == cheapest; ++k) out.push_back(p[k]);
    best = std::min(best, cheapest);
    i = j;
  }
  return out;
}

std::string_view OnTime::dominant() const {
  const double late_mfu = 1 - mfu_only, late_spot = spot_only ? 1 - *spot_only : 0;
  if (std::max(late_mfu, late_spot) < 0.005) return "neither";
  return late_mfu >= late_spot ? "MFU" : "spot";
}

namespace {

// The log-space σ of the MFU on each side of its value: its default band's
// ends are the 16th and 84th percentiles (±1σ) of the published runs
// (efficiency.cc), which need not sit evenly around the median; a given MFU
// is exact.
void mfu_spread(const PlanInputs& in, const Gpu& gpu, OnTime& out) {
  if (in.job.mfu) return;
  const MfuDefault d = default_mfu(gpu, in.job);
  if (!(d.low > 0 && d.low < d.value && d.value < d.high)) return;
  out.mfu_sigma_low = std::log(d.value / d.low);
  out.mfu_sigma_high = std::log(d.high / d.value);
}

// Standard normal draws from a generator whose output the standard fixes
// (Box–Muller), so a seed gives the same plan on every platform.
struct Normal {
  std::mt19937_64 rng;
  double operator()() {
    const auto uniform = [&] { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; };
    const double u1 = uniform(), u2 = uniform();
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }
};

// P(on time) for one configuration: the MFU factor f = e^(σz), z standard
// normal and σ the side's (OnTime::mfu_factor), scales the achieved rate; a
// rental or purchase is late when its wall time at f exceeds what the
// deadline leaves after the start. Without reclaims the wall time falls as f
// rises, so P = P(z ≥ z*) = Φ(−z*), z* by bisection; spot runs draw f and a
// reclaim history together.
OnTime on_time(const PlanInputs& in, const TrainingModel& model, const PlanSource& s, const PlanConfig& c,
               const PlanDetail& d, const MeasuredScaling* measured) {
  OnTime out;
  mfu_spread(in, *s.gpu, out);
  const double available = in.deadline->count() - d.start_hours * 3600.0;
  Layout layout = c.layout();
  layout.micro_batch = in.job.micro_batch;
  const Configuration conf = configuration(in, s, c.gpus);
  const double per_gpu = achieved(model, *s.gpu, in);
  const auto step_at = [&](double f) { return model.step(conf, layout, per_gpu * f, measured); };
  const auto wall_at = [&](double f) { return step_at(f).step.count() * model.steps(); };
  if (!out.mfu_uncertain()) {
    out.mfu_only = wall_at(1) <= available ? 1 : 0;
  } else {
    double lo = -6, hi = 6;  // z
    if (wall_at(out.mfu_factor(hi)) > available) lo = hi;
    else if (wall_at(out.mfu_factor(lo)) <= available) hi = lo;
    for (int i = 0; i < 50 && hi - lo > 1e-6; ++i) {
      const double mid = (lo + hi) / 2;
      (wall_at(out.mfu_factor(mid)) > available ? lo : hi) = mid;
    }
    out.mfu_only = 0.5 * std::erfc(hi / std::sqrt(2.0));  // P(z ≥ z*)
  }
  out.probability = out.mfu_only;
  if (c.mode != PlanMode::kSpot || !d.simulation) return out;
  out.spot_only = d.simulation->probability;
  if (!out.mfu_uncertain()) {
    out.probability = *out.spot_only;
    return out;
  }
  Normal z{std::mt19937_64(in.seed ^ 0x9e3779b97f4a7c15ULL)};
  int met = 0;
  for (int t = 0; t < in.trials; ++t) {
    const StepBreakdown st = step_at(out.mfu_factor(z()));
    const SpotSimulation one =
        simulate_spot(st.work * model.steps(), model.interruptions(st, spot_rate(in, st, d.instances)),
                      Seconds(std::max(0.0, available)), 1, in.seed + static_cast<std::uint64_t>(t));
    met += one.probability > 0;
  }
  out.probability = static_cast<double>(met) / in.trials;
  return out;
}

}  // namespace

PlanDetail describe(const PlanInputs& in, const PlanResult& r, const PlanConfig& c, bool simulate) {
  const PlanSource& s = r.sources.at(c.source);
  const TrainingModel model(job_on(in, instances_for(c.gpus, s.shape.gpus)));
  PlanDetail d;
  d.config = c;
  d.source = &s;
  const MeasuredScaling* measured = in.scaling ? &*in.scaling : nullptr;
  Layout layout = c.layout();
  layout.micro_batch = in.job.micro_batch;
  d.step = model.step(configuration(in, s, c.gpus), layout, achieved(model, *s.gpu, in), measured);
  const Evaluation e = evaluate(in, model, s, c.mode, c.gpus, d.step);
  d.instances = e.instances;
  d.work_hours = e.work_hours;
  d.wall_hours = e.wall_hours;
  d.start_hours = e.start_hours;
  d.finish_hours = e.finish_hours;
  d.cost = e.cost;
  d.run = e.run;
  d.hardware = e.hardware;
  d.power = e.power;
  d.spot = e.spot;
  if (c.mode == PlanMode::kBuy) {
    // Straight-line depreciation over the useful life down to the residual share.
    const double used = std::min(1.0, e.work_hours / (s.useful_life.count() / 3600.0));
    d.resale_after = e.hardware.scaled(1.0 - (1.0 - s.residual_share) * used).rounded();
  }
  if (simulate && c.mode == PlanMode::kSpot && in.deadline && e.spot) {
    const double available = in.deadline->count() - e.start_hours * 3600.0;
    d.simulation =
        simulate_spot(d.step.work * model.steps(), model.interruptions(d.step, spot_rate(in, d.step, e.instances)),
                      Seconds(std::max(0.0, available)), in.trials, in.seed);
  }
  if (simulate && in.deadline) d.on_time = on_time(in, model, s, c, d, measured);
  if (s.availability) d.notes.push_back(trf("{} in {}", to_string(s.availability->status), in.market));
  if (c.zero_stage > in.job.zero_stage)
    d.notes.push_back(trf("ZeRO-{} to fit in memory", static_cast<int>(c.zero_stage)));
  if (c.recompute != in.job.recompute) d.notes.push_back(trf("{} recompute to fit in memory", to_string(c.recompute)));
  if (measured && c.gpus > measured->max_measured_gpus)
    d.notes.push_back(trf("scaling extrapolated beyond the {:g} GPUs measured", measured->max_measured_gpus));
  if (s.offer && c.gpus > s.offer->gpus && !s.shape_assumed.empty())
    d.notes.push_back(trf("{} instances linked at {:g} Gb/s per instance (assumed: the offer states none)", e.instances,
                          s.shape.network.value() * 8 / 1e9));
  return d;
}

namespace {

// A layout search's answer for one GPU model, instance shape and count: many
// offers share them (the same 8×H100 at several providers), so it is computed once.
using LayoutKey = std::tuple<const Gpu*, int, double, double, int>;
using LayoutCache = std::map<LayoutKey, std::optional<LayoutChoice>>;

// What every phase of a plan looks at: the inputs, the job's model and the limits.
struct Search {
  const PlanInputs& in;
  const TrainingModel& model;    ///< on one instance or server
  const TrainingModel& several;  ///< on more than one (checkpoint defaults differ)
  const Catalog& catalog;
  Currency currency;
  double deadline_h;    ///< infinite without a deadline
  std::int64_t budget;  ///< micro-units; the largest value without a budget

  // How far a configuration misses: the smallest relaxation of the binding
  // constraints that would admit it, max(cost / budget, finish / deadline).
  double excess(const PlanConfig& c) const {
    double x = 0;
    if (in.budget && in.budget->micros() > 0)
      x = std::max(x, static_cast<double>(c.cost_micros) / static_cast<double>(budget));
    if (in.deadline && deadline_h > 0) x = std::max(x, c.finish_hours / deadline_h);
    return x;
  }

  const TrainingModel& on(int instances) const { return instances > 1 ? several : model; }

  // The best layout of `src` on `n` GPUs, through the cache (its key holds the instance count).
  const std::optional<LayoutChoice>& layout(const PlanSource& src, int n, double per_gpu, LayoutCache& cache,
                                            PlanResult& r) const {
    const LayoutKey key{src.gpu, src.shape.gpus, src.shape.intra.value(), src.shape.network.value(), n};
    if (const auto it = cache.find(key); it != cache.end()) {
      ++r.layout_cache_hits;
      return it->second;
    }
    const MeasuredScaling* measured = in.scaling ? &*in.scaling : nullptr;
    const Configuration c{src.gpu, n, src.shape, in.cluster.comm_overlap};
    auto choice =
        on(instances_for(n, src.shape.gpus)).best_layout(c, per_gpu, in.cluster.usable_memory, in.layout, measured);
    if (choice) r.layouts_evaluated += choice->evaluated;
    return cache.emplace(key, std::move(choice)).first->second;
  }
};

void validate(const PlanInputs& in) {
  if (in.max_gpus < 1) throw std::invalid_argument(std::string(tr("max_gpus must be at least 1")));
  if (!(in.confidence > 0 && in.confidence <= 1))
    throw std::invalid_argument(std::string(tr("confidence must be within (0, 1]")));
  if (in.trials < 1) throw std::invalid_argument(std::string(tr("trials must be at least 1")));
}

void reject(PlanResult& r, Rejection why, std::int64_t n = 1) { r.rejected[static_cast<std::size_t>(why)] += n; }

// One source: every card count (multiples of its instance size) × mode.
void search_source(const Search& s, PlanResult& r, std::size_t si, LayoutCache& cache) {
  const PlanInputs& in = s.in;
  const PlanSource& src = r.sources[si];
  const std::vector<PlanMode> modes = modes_of(src, in.allow_spot);
  const auto nmodes = static_cast<std::int64_t>(modes.size());
  const int stride = src.offer ? src.offer->gpus : 1;
  const std::int64_t counts = in.max_gpus / stride;
  r.evaluated += counts * nmodes;
  const double per_gpu = achieved(s.model, *src.gpu, in);
  if (per_gpu <= 0) return reject(r, Rejection::kPrecision, counts * nmodes);
  for (std::int64_t k = 1; k <= counts; ++k) {
    const int n = static_cast<int>(k) * stride;
    // Every larger count needs more instances than the offer lets a job join.
    if (static_cast<int>(k) > src.shape.max_instances) return reject(r, Rejection::kJoin, (counts - k + 1) * nmodes);
    const std::optional<LayoutChoice>& choice = s.layout(src, n, per_gpu, cache, r);
    if (!choice || !choice->memory.fits) {
      reject(r, choice ? Rejection::kMemory : Rejection::kBatch, nmodes);
      continue;
    }
    const Layout& l = choice->layout;
    const StepBreakdown& st = choice->step;
    for (const PlanMode m : modes) {
      const Evaluation e = evaluate(in, s.on(instances_for(n, src.shape.gpus)), src, m, n, st);
      if (e.rejected) {
        reject(r, *e.rejected);
        continue;
      }
      const PlanConfig c{e.finish_hours,
                         e.cost.micros(),
                         static_cast<std::uint16_t>(si),
                         m,
                         static_cast<std::int8_t>(l.zero),
                         n,
                         static_cast<std::uint8_t>(l.tp),
                         static_cast<std::uint8_t>(l.pp),
                         l.recompute,
                         static_cast<std::uint8_t>(l.vp),
                         static_cast<std::uint16_t>(l.ep),
                         static_cast<std::uint8_t>(l.cp)};
      r.valid.push_back(c);
      if (c.finish_hours > s.deadline_h) reject(r, Rejection::kDeadline);
      else if (c.cost_micros > s.budget) reject(r, Rejection::kBudget);
      else r.feasible.push_back(c);
    }
  }
}

// Every source × count × mode: the valid configurations, the feasible ones and why the rest failed.
void search(const Search& s, PlanResult& r) {
  std::size_t upper = 0;  // configurations at most, so the vectors grow once
  for (const PlanSource& src : r.sources)
    upper += static_cast<std::size_t>(s.in.max_gpus / (src.offer ? src.offer->gpus : 1)) *
             modes_of(src, s.in.allow_spot).size();
  r.valid.reserve(upper);
  r.feasible.reserve(upper);
  LayoutCache cache;
  for (std::size_t si = 0; si < r.sources.size(); ++si) search_source(s, r, si, cache);
}

// The recommendation: the best plan for the objective that meets the deadline
// with the required confidence (MFU uncertainty and, on spot, reclaims).
// Candidates come off a heap, so only as many are ordered as are looked at.
// Returns the first plan passed over as too likely to be late.
std::optional<PlanDetail> recommend(const Search& s, PlanResult& r) {
  const PlanInputs& in = s.in;
  std::vector<PlanConfig> heap = r.feasible;
  const auto worse = [&](const PlanConfig& a, const PlanConfig& b) { return before(b, a, in.objective); };
  std::make_heap(heap.begin(), heap.end(), worse);
  int spot_checked = 0, checked = 0;
  std::optional<PlanDetail> risky;
  while (!heap.empty() && checked < kMaxOnTimeChecks) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    const PlanConfig c = heap.back();
    heap.pop_back();
    if (!in.deadline) {
      r.recommended = describe(in, r, c);
      break;
    }
    if (c.mode == PlanMode::kSpot && spot_checked++ >= kMaxSpotSimulations) continue;
    ++checked;
    PlanDetail d = describe(in, r, c);
    if (!d.on_time || d.on_time->probability >= in.confidence) {
      r.recommended = std::move(d);
      break;
    }
    if (!risky) risky = std::move(d);
  }
  return risky;
}

// Per GPU-hour, the cheapest price among the sources that can run the job (the
// "obvious" choice), and its best configuration, feasible or not.
struct CheapestCard {
  const PlanSource* source = nullptr;
  PlanMode mode = PlanMode::kHourly;
  double rate = std::numeric_limits<double>::infinity();
  std::optional<PlanConfig> best{};
  std::string text(Currency currency) const {
    return trf("{} on {} at {:.2f} {}/GPU-h ({})", source->gpu->id, source->offer->provider, rate, currency.code(),
               tr(to_string(mode)));
  }
};

CheapestCard cheapest_card(const Search& s, const PlanResult& r) {
  CheapestCard cc;
  for (const PlanSource& src : r.sources)
    for (const PlanMode m : modes_of(src, s.in.allow_spot))
      if (const auto rate = gpu_hour_price(src, m); rate && *rate < cc.rate && s.model.achieved_flops(*src.gpu) > 0) {
        cc.rate = *rate;
        cc.source = &src;
        cc.mode = m;
      }
  for (const PlanConfig& c : r.valid)
    if (cc.source && &r.sources[c.source] == cc.source && c.mode == cc.mode &&
        (!cc.best || before(c, *cc.best, s.in.objective)))
      cc.best = c;
  return cc;
}

// Why a GPU has no valid configuration at all: no tensor rate, or the memory
// needs more cards than the batch keeps busy or --max-gpus allows.
std::string unrunnable(const Search& s, const Gpu& g) {
  const PlanInputs& in = s.in;
  if (s.model.achieved_flops(g) <= 0)
    return trf("{} has no {} tensor rate in the catalog", g.id, to_string(in.job.precision));
  const auto need = minimum_gpus(in.job, g, in.cluster.gpus_per_node, 1 << 16, in.cluster.usable_memory);
  if (!need) return std::string(tr("it does not fit in memory with any layout on any count"));
  if (need->first > in.max_gpus)
    return trf("it needs {} cards to fit in memory ({}), more than --max-gpus {}", need->first, to_string(need->second),
               in.max_gpus);
  return trf("no offer of it can be joined into the {} cards it needs to fit ({})", need->first,
             to_string(need->second));
}

// A feasible configuration that was not recommended: what it costs or loses against the recommendation.
std::string feasible_but(const Search& s, const PlanResult& r, const PlanConfig& c, const PlanDetail& d) {
  const PlanInputs& in = s.in;
  const PlanDetail& best = *r.recommended;
  const Money more = d.cost - best.cost;
  if (in.deadline && more.micros() < 0)
    return trf("is cheaper ({}) but too likely to be late for the {:.0f}% confidence required", money_text(d.cost),
               in.confidence * 100);
  if (in.objective == Objective::kCost || more.micros() > 0)
    return trf("is feasible but costs {} ({} more than the recommendation) and finishes in {}", money_text(d.cost),
               money_text(more), hours_text(c.finish_hours));
  return trf("is feasible but finishes in {} ({} later than the recommendation)", hours_text(c.finish_hours),
             hours_text(c.finish_hours - best.finish_hours));
}

// Why a configuration was not chosen: the limit it breaks, or what it loses.
std::string why_not(const Search& s, const PlanResult& r, const PlanConfig& c) {
  const PlanDetail d = describe(s.in, r, c, false);
  std::string out;
  if (c.finish_hours > s.deadline_h)
    out = trf("would finish in {}, {} after the deadline", hours_text(c.finish_hours),
              hours_text(c.finish_hours - s.deadline_h));
  if (c.cost_micros > s.budget)
    out += trf("{}would cost {}, {} over budget", out.empty() ? "" : tr(" and "), money_text(d.cost),
               money_text(Money::from_micros(c.cost_micros - s.budget, s.currency)));
  if (out.empty() && r.recommended) out = feasible_but(s, r, c, d);
  if (c.zero_stage > s.in.job.zero_stage) out += trf(" (it needs ZeRO-{} on {} cards)", c.zero_stage, c.gpus);
  return out;
}

// The sentence under the plan: what is recommended and why, what the
// too-risky spot plan and the cheapest card per hour would have done.
std::string recommendation(const Search& s, const PlanResult& r, const std::optional<PlanDetail>& risky,
                           const CheapestCard& cheap) {
  const PlanInputs& in = s.in;
  if (!r.recommended) {
    if (r.feasible.empty()) return {};
    return fmt::format(
        "No plan meets the deadline with {:.0f}% confidence: the plans that meet it at the MFU used are too likely to "
        "be late{}. Loosen the deadline, lower --confidence, or give a measured --mfu (gpuplan fit mfu: a default "
        "MFU is never certain){}.",
        in.confidence * 100,
        risky && risky->on_time ? trf(" (the first passed over, {}, {:.1f}%; {} uncertainty dominates)", label(*risky),
                                      risky->on_time->probability * 100, tr(risky->on_time->dominant()))
                                : "",
        in.allow_spot ? tr(", or leave out --allow-spot") : "");
  }
  const PlanDetail& d = *r.recommended;
  const std::string why(in.objective == Objective::kCost ? tr("the cheapest plan") : tr("the fastest plan"));
  std::vector<std::string> limits;
  if (in.deadline) limits.push_back(trf("finishes {} before the deadline", hours_text(s.deadline_h - d.finish_hours)));
  if (in.budget) limits.push_back(trf("{} under budget", money_text(*in.budget - d.cost)));
  std::string sentence =
      trf("Recommended: {}, done in {} for {}: {}{}{}.", label(d), hours_text(d.finish_hours), money_text(d.cost), why,
          limits.empty() ? "" : tr(" that "), fmt::format("{}", fmt::join(limits, tr(" and "))));
  if (risky && risky->on_time)
    sentence +=
        trf(" Cheaper, {} meets the deadline with only {:.1f}% probability (below the {:g}% required; {} "
            "uncertainty dominates).",
            label(*risky), risky->on_time->probability * 100, in.confidence * 100, tr(risky->on_time->dominant()));
  if (cheap.source && &r.sources[d.config.source] != cheap.source)
    sentence += cheap.best
                    ? trf(" The cheapest card per hour, {}, {}.", cheap.text(s.currency), why_not(s, r, *cheap.best))
                    : trf(" The cheapest card per hour, {}, cannot run this job: {}.", cheap.text(s.currency),
                          unrunnable(s, *cheap.source->gpu));
  return sentence;
}

// Nothing feasible: the configurations that miss by the least (three different
// offers, then the cheapest and the fastest if they are not among them) and
// what each would need.
std::vector<NearMiss> near_misses(const Search& s, const PlanResult& r) {
  const PlanInputs& in = s.in;
  std::vector<PlanConfig> v = r.valid;
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    const double ea = s.excess(a), eb = s.excess(b);
    return ea != eb ? ea < eb : before(a, b, in.objective);
  });
  // A count more or less on the same offer is no news.
  std::vector<PlanConfig> picks;
  const auto add_if_new = [&](const PlanConfig& c) {
    if (std::none_of(picks.begin(), picks.end(),
                     [&](const PlanConfig& p) { return p.source == c.source && p.mode == c.mode; }))
      picks.push_back(c);
  };
  for (const PlanConfig& c : v) {
    if (picks.size() == 3) break;
    add_if_new(c);
  }
  for (const Objective o : {Objective::kCost, Objective::kTime})
    add_if_new(*std::min_element(r.valid.begin(), r.valid.end(),
                                 [o](const auto& a, const auto& b) { return before(a, b, o); }));
  std::vector<NearMiss> out;
  for (const PlanConfig& c : picks) {
    NearMiss m;
    m.plan = describe(in, r, c);
    if (c.cost_micros > s.budget) m.budget_needed = Money::from_micros(c.cost_micros, s.currency);
    if (c.finish_hours > s.deadline_h) m.deadline_needed_hours = c.finish_hours;
    out.push_back(std::move(m));
  }
  return out;
}

bool is_recommended(const PlanResult& r, const PlanConfig& c) {
  return r.recommended && r.recommended->config.source == c.source && r.recommended->config.mode == c.mode &&
         r.recommended->config.gpus == c.gpus;
}

// One explained row: a configuration (or none) and why it lost.
Rejected explained(const Search& s, const PlanResult& r, std::string what, const std::optional<PlanConfig>& c,
                   const std::string& none_why) {
  Rejected x;
  x.what = std::move(what);
  if (c) {
    if (const PlanSource& src = r.sources[c->source]; src.availability)
      x.what += fmt::format(" ({} in {})", to_string(src.availability->status), s.in.market);
    x.plan = describe(s.in, r, *c, false);
    x.why = is_recommended(r, *c) ? "recommended" : why_not(s, r, *c);
  } else {
    x.why = none_why;
  }
  return x;
}

// Per GPU in the catalog's order: its best feasible plan when it has one, else
// its best plan of all (a pointer-keyed pass, not a string map per configuration).
void explain_per_gpu(const Search& s, PlanResult& r) {
  std::vector<const Gpu*> gpus;
  for (const PlanSource& src : r.sources)
    if (std::find(gpus.begin(), gpus.end(), src.gpu) == gpus.end()) gpus.push_back(src.gpu);
  std::sort(gpus.begin(), gpus.end(), [](const Gpu* a, const Gpu* b) { return a < b; });
  std::vector<std::optional<PlanConfig>> best_of(gpus.size());
  const auto index_of = [&](const PlanConfig& c) {
    return static_cast<std::size_t>(std::lower_bound(gpus.begin(), gpus.end(), r.sources[c.source].gpu) - gpus.begin());
  };
  const Objective o = s.in.objective;
  for (const PlanConfig& c : r.feasible)
    if (auto& b = best_of[index_of(c)]; !b || before(c, *b, o)) b = c;
  std::vector<bool> has_feasible(gpus.size());
  for (std::size_t i = 0; i < gpus.size(); ++i) has_feasible[i] = best_of[i].has_value();
  for (const PlanConfig& c : r.valid)
    if (auto& b = best_of[index_of(c)]; !has_feasible[index_of(c)] && (!b || before(c, *b, o))) b = c;
  if (r.recommended) best_of[index_of(r.recommended->config)] = r.recommended->config;  // its GPU's row says so
  for (const Gpu& g : s.catalog.gpus) {
    const auto it = std::lower_bound(gpus.begin(), gpus.end(), &g);
    if (it == gpus.end() || *it != &g) continue;
    const std::optional<PlanConfig>& best = best_of[static_cast<std::size_t>(it - gpus.begin())];
    r.explained.push_back(explained(s, r, fmt::format("best on {}", g.id), best, best ? "" : unrunnable(s, g)));
  }
}

// Buy or rent: the best purchase, feasible first (else the one that misses by the least), and why it lost.
void explain_purchase(const Search& s, PlanResult& r) {
  std::optional<PlanConfig> buy;
  bool buy_feasible = false;
  for (const PlanConfig& c : r.feasible)
    if (c.mode == PlanMode::kBuy && (!buy || before(c, *buy, s.in.objective))) buy = c, buy_feasible = true;
  if (!buy_feasible)
    for (const PlanConfig& c : r.valid)
      if (c.mode == PlanMode::kBuy && (!buy || s.excess(c) < s.excess(*buy))) buy = c;
  const std::string what =
      buy ? fmt::format("best purchase: {}× {}", buy->gpus, r.sources[buy->source].gpu->id) : "best purchase";
  r.explained.push_back(explained(s, r, what, buy, "no GPU with a card price in the catalog fits the job"));
}

// Explain: the cheapest card per GPU-hour, each GPU's best configuration and
// the best purchase, with why each was not chosen.
void explain(const Search& s, const CheapestCard& cheap, PlanResult& r) {
  if (cheap.source)
    r.explained.push_back(
        explained(s, r,
                  fmt::format("cheapest per GPU-hour: {} on {} {} ({:.2f} {}/GPU-h)", cheap.source->gpu->id,
                              cheap.source->offer->provider, to_string(cheap.mode), cheap.rate, s.currency.code()),
                  cheap.best, cheap.best ? "" : unrunnable(s, *cheap.source->gpu)));
  explain_per_gpu(s, r);
  if (s.in.include_buy) explain_purchase(s, r);
}

}  // namespace

void apply_job(const ResolvedJob& rj, PlanInputs& in) {
  in.job = rj.job;
  in.job_on_several.reset();
  if (Job several = job_on_instances(rj, 2); several.checkpoint_bandwidth != rj.job.checkpoint_bandwidth ||
                                             several.checkpoint_aggregate != rj.job.checkpoint_aggregate)
    in.job_on_several = several;
  in.cluster = rj.cluster;
  in.dataset = rj.dataset;
  in.upload_bandwidth = rj.upload_bandwidth;
  in.spot_interruptions_per_day = rj.spot_interruptions_per_day;
  const PlanSettings& p = rj.plan;
  in.deadline = p.deadline;
  in.deadline_text = p.deadline_text;
  in.budget = p.budget;
  in.allow_spot = p.allow_spot;
  in.include_buy = p.include_buy;
  in.exclude_restricted = p.exclude_restricted;
  in.max_gpus = p.max_gpus;
  in.objective = p.objective;
  in.confidence = p.confidence;
  in.gpus = p.gpus;
  in.providers = p.providers;
  in.regions = p.regions;
  in.market = p.market;
}

namespace {

// A recommendation that rents outside the market: the training data leaves the country.
void residency_note(const PlanInputs& in, const Catalog& cat, PlanResult& r) {
  if (in.market.empty() || !r.recommended || !r.recommended->source->offer) return;
  const Offer& o = *r.recommended->source->offer;
  if (offer_in_region(cat, o, in.market)) return;
  r.notes.push_back(
      trf("The recommendation rents on {} {}, outside {}: the training data leaves {} "
          "(--region or --provider keeps the search in it).",
          o.provider, o.region, in.market, in.market));
}

// Cards whose purchase the market restricts (or leaves open), grouped by
// reason, each with its source; and the ones --exclude-restricted left out.
void availability_notes(const PlanInputs& in, PlanResult& r, const std::vector<std::string>& left_out) {
  // One note per reason, buying and renting apart, in a stable order: "Buying H100, A100-80G in CN is restricted: …".
  std::map<std::pair<bool, std::string>, std::pair<const MarketStatus*, std::vector<std::string>>> by_reason;
  for (const PlanSource& src : r.sources)
    if (src.availability) {
      auto& [first, names] = by_reason[{src.offer != nullptr, src.availability->reason}];
      if (!first) first = src.availability;
      names.push_back(src.offer ? src.offer->id : src.gpu->id);
    }
  for (const auto& [key, entry] : by_reason) {
    const auto& [m, names] = entry;
    const std::string what =
        fmt::format("{} {} in {}", key.first ? "renting" : "buying", fmt::join(names, ", "), in.market);
    const bool restricted = m->status == Availability::kRestricted;
    r.notes.push_back(trf(
        "{}: {} ({}).{}",
        restricted ? fmt::format("{}{} is restricted", static_cast<char>(std::toupper(what[0])), what.substr(1))
                   : "Whether " + what + " is allowed is unknown",
        m->reason_shown(), cite(m->provenance),
        !restricted              ? " --exclude-restricted leaves out restricted options only."
        : !in.exclude_restricted ? fmt::format(" --exclude-restricted leaves {} out.", names.size() > 1 ? "them" : "it")
                                 : ""));
  }
  // Cards off CUDA that can run the job at all: their MFU default is a guess.
  std::vector<std::string> other_stack;
  for (const PlanSource& src : r.sources)
    if (src.gpu->software != "cuda" && src.gpu->dense_tflops.contains(in.job.precision) &&
        std::find(other_stack.begin(), other_stack.end(), src.gpu->id) == other_stack.end())
      other_stack.push_back(src.gpu->id);
  if (!other_stack.empty() && !in.job.mfu)
    r.notes.push_back(
        trf("Not CUDA: {}; the MFU default is not calibrated there (its low end is set to half "
            "the value): measure a trial run and give --mfu.",
            fmt::join(other_stack, ", ")));
  if (!left_out.empty())
    r.notes.push_back(
        trf("Left out as restricted in {} (--exclude-restricted): {}.", in.market, fmt::join(left_out, ", ")));
  if (r.recommended && r.recommended->source->availability) {
    const PlanSource& src = *r.recommended->source;
    r.warnings.push_back(trf("the recommendation {} {}, {} in {}: {}", src.offer ? "rents" : "buys",
                             src.offer ? src.offer->id : src.gpu->id, to_string(src.availability->status), in.market,
                             src.availability->reason));
  }
  // A recommendation that joins instances over a link the catalog does not state rests on that guess.
  if (r.recommended && r.recommended->source->offer && r.recommended->instances > 1 &&
      !r.recommended->source->shape_assumed.empty())
    r.warnings.push_back(
        trf("the recommendation joins {} instances of {} over a network the catalog does not state "
            "({:g} Gb/s each assumed): its time, cost and P(on time) rest on that assumption. Check "
            "the offer's network, or give it in a catalog (network: 400Gbps).",
            r.recommended->instances, r.recommended->source->offer->id, kAssumedOfferNetwork.value() * 8 / 1e9));
}

}  // namespace

PlanResult plan(const PlanInputs& in, const Catalog& catalog, const CurrencyConverter& fx) {
  validate(in);
  const TrainingModel model(in.job), several(job_on(in, 2));
  PlanResult r;
  std::vector<std::string> left_out;
  r.sources = build_sources(in, catalog, fx, left_out);
  const Search s{in,
                 model,
                 several,
                 catalog,
                 fx.display(),
                 in.deadline ? in.deadline->count() / 3600.0 : std::numeric_limits<double>::infinity(),
                 in.budget ? in.budget->micros() : std::numeric_limits<std::int64_t>::max()};
  search(s, r);
  r.frontier = pareto_frontier(r.feasible);
  if (!r.feasible.empty()) {
    // The frontier runs from the fastest plan to the cheapest.
    r.cheapest = describe(in, r, r.frontier.back());
    r.fastest = describe(in, r, r.frontier.front());
  }
  const std::optional<PlanDetail> risky = recommend(s, r);
  const CheapestCard cheap = cheapest_card(s, r);
  r.recommendation = recommendation(s, r, risky, cheap);
  if (r.feasible.empty() && !r.valid.empty()) r.near_misses = near_misses(s, r);
  explain(s, cheap, r);
  availability_notes(in, r, left_out);
  residency_note(in, catalog, r);
  if (in.scaling)
    r.notes.push_back(
        trf("Scaling measured ({}): σ = {:.4g}, κ = {:.3g} replace the analytic communication "
            "model; step on n GPUs = one GPU's step × (1 + σ(n−1) + κn(n−1)) / n.",
            in.scaling->source, in.scaling->sigma, in.scaling->kappa));
  return r;
}

}  // namespace gpuplan
