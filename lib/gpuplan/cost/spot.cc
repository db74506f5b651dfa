#include "gpuplan/cost/spot.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpuplan {

Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf) {
  return Seconds(std::sqrt(2.0 * checkpoint_write.count() * mtbf.count()));
}

Seconds daly_interval(Seconds checkpoint_write, Seconds mtbf) {
  const double c = checkpoint_write.count(), m = mtbf.count();
  if (c >= 2 * m) return mtbf;
  const double x = c / (2 * m);
  return Seconds(std::sqrt(2 * c * m) * (1 + std::sqrt(x) / 3 + x / 9) - c);
}

SpotOverhead spot_overhead(const SpotParams& p) {
  if (p.interruptions_per_hour < 0 || p.checkpoint_write < Seconds(0) || p.restart < Seconds(0))
    throw std::invalid_argument(std::string(tr("spot parameters must not be negative")));
  SpotOverhead out;
  const double lambda = p.interruptions_per_hour / 3600.0;  // per second
  if (lambda == 0.0) {
    // Never interrupted: no checkpoints are needed for spot's sake.
    out.interval = p.interval.value_or(Seconds(std::numeric_limits<double>::infinity()));
    out.optimal = !p.interval.has_value();
    if (p.interval) out.wall_per_work = 1.0 + p.checkpoint_write / *p.interval;
    out.checkpoint_share = 1.0 - 1.0 / out.wall_per_work;
    return out;
  }
  const double m = 1.0 / lambda, c = p.checkpoint_write.count(), r = p.restart.count();
  double tau = p.interval ? p.interval->count() : daly_interval(p.checkpoint_write, Seconds(m)).count();
  out.optimal = !p.interval.has_value();
  // C = 0: checkpoints are free; take them every second of work (the limit τ → 0 loses only restarts).
  if (!(tau > 0)) tau = 1.0;
  out.interval = Seconds(tau);
  // Daly's complete model, per unit of work: M·e^(R/M)·(e^((τ+C)/M) − 1)/τ (expm1 keeps precision at small λ).
  out.wall_per_work = m * std::exp(r / m) * std::expm1((tau + c) / m) / tau;
  out.checkpoint_share = (c / tau) / out.wall_per_work;
  out.lost_share = std::max(0.0, 1.0 - (1.0 + c / tau) / out.wall_per_work);
  return out;
}

}  // namespace gpuplan

namespace gpuplan {

SpotSimulation simulate_spot(Seconds work, const SpotParams& p, Seconds available, int trials, std::uint64_t seed) {
  if (trials < 1) throw std::invalid_argument(std::string(tr("trials must be at least 1")));
  if (work < Seconds(0) || available < Seconds(0))
    throw std::invalid_argument(std::string(tr("times must not be negative")));
  const SpotOverhead ov = spot_overhead(p);  // validates p; gives τ
  const double w = work.count();
  const double lambda = p.interruptions_per_hour / 3600.0;
  const double c = p.checkpoint_write.count();
  const double r = p.restart.count();
  // τ = ∞ (never interrupted): one segment.
  double tau = ov.interval.count();
  if (!std::isfinite(tau)) tau = std::max(w, 1.0);
  // Ten times the expected time: a trial that long is hopeless for any deadline.
  const double cap = 10.0 * w * ov.wall_per_work + available.count();
  std::mt19937_64 gen(seed);
  // Uniform in (0, 1] from the top 53 bits; then an exponential gap by inversion.
  const auto gap = [&] {
    const double u = static_cast<double>((gen() >> 11) + 1) * 0x1.0p-53;
    return lambda > 0 ? -std::log(u) / lambda : std::numeric_limits<double>::infinity();
  };
  std::vector<double> times(static_cast<std::size_t>(trials));
  SpotSimulation out;
  out.trials = trials;
  int met = 0;
  double sum = 0;
  for (double& t_out : times) {
    double t = 0, done = 0;
    double next = gap();  // time until the next interruption (memoryless, so it carries over)
    while (done < w && t < cap) {
      // Whole segments (τ of work + C of writing) that end before the next
      // interruption, all at once: a trial costs O(interruptions), not O(segments).
      const double full = tau + c;
      const double whole = std::floor((w - done) / tau - 1e-9);  // segments before the last one
      if (whole >= 1 && next >= full) {
        const double k = std::min(whole, std::floor(next / full));
        t += k * full;
        next -= k * full;
        done += k * tau;
        continue;
      }
      const double seg = std::min(tau, w - done);
      const double need = seg + (done + seg < w ? c : 0.0);
      if (next >= need) {
        t += need;
        next -= need;
        done += seg;
      } else {
        // The segment in flight is lost; the restart starts over if interrupted too.
        t += next;
        next = gap();
        while (next < r && t < cap) {
          t += next;
          next = gap();
        }
        t += r;
        next -= r;
      }
    }
    if (t >= cap) {
      t = cap;
      out.capped = true;
    }
    if (t <= available.count()) ++met;
    sum += t;
    t_out = t;
  }
  std::sort(times.begin(), times.end());
  const auto quantile = [&](double q) {
    const auto i = static_cast<std::size_t>(std::ceil(q * trials)) - 1;
    return Seconds(times[std::min(i, times.size() - 1)]);
  };
  out.probability = static_cast<double>(met) / trials;
  out.p50 = quantile(0.5);
  out.p90 = quantile(0.9);
  out.mean = Seconds(sum / trials);
  return out;
}

}  // namespace gpuplan
