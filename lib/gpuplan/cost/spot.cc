#include "gpuplan/cost/spot.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpuplan {

Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf) {
  return Seconds(std::sqrt(2.0 * checkpoint_write.count() * mtbf.count()));
}

SpotOverhead spot_overhead(const SpotParams& p) {
  if (p.interruptions_per_hour < 0 || p.checkpoint_write < Seconds(0) || p.restart < Seconds(0))
    throw std::invalid_argument("spot parameters must not be negative");
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
  const double c = p.checkpoint_write.count();
  const double r = p.restart.count();
  double tau = p.interval ? p.interval->count() : young_daly_interval(p.checkpoint_write, Seconds(1.0 / lambda)).count();
  out.optimal = !p.interval.has_value();
  if (!(tau > 0)) {
    // C = 0: checkpoints are free, so take them continuously; only restarts are lost.
    tau = 0.0;
  }
  out.interval = Seconds(tau);
  const double write = tau > 0 ? c / tau : 0.0;
  const double lost_rate = lambda * (r + (tau + c) / 2.0);
  if (lost_rate >= 1.0) {
    out.feasible = false;
    out.wall_per_work = std::numeric_limits<double>::infinity();
    return out;
  }
  out.wall_per_work = (1.0 + write) / (1.0 - lost_rate);
  out.lost_share = lost_rate;
  out.checkpoint_share = write / out.wall_per_work;
  return out;
}

}  // namespace gpuplan
