// Spot (preemptible) capacity: what interruptions really cost. With
// interruptions at rate λ (MTBF M = 1/λ), a checkpoint that takes C to write
// and a restart that takes R, checkpointing every τ (Young's optimum
// τ = sqrt(2·C·M), Young 1974; Daly 2006 eq. 1), the expected wall time to
// finish W hours of work is (Daly 2006, first-order model):
//
//   T = W · (1 + C/τ) / (1 − λ · (R + (τ + C)/2))
//
// checkpoint writes add C every τ; each interruption loses on average half an
// interval plus the checkpoint in flight, and the restart. λ = 0 gives T = W:
// a spot option that is never interrupted costs exactly its price × hours.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "gpuplan/units.h"

namespace gpuplan {

/// Why one interruption a day per instance is the default rate (named wherever it is used).
inline constexpr std::string_view kSpotRateAssumption =
    "assumption, per instance: GCP preemptible VMs run at most 24 h (gcp_preempt); no source gives GPU spot "
    "interruption rates";

struct SpotParams {
  double interruptions_per_hour = 0.0;  ///< λ
  Seconds checkpoint_write{};           ///< C
  Seconds restart{};                    ///< R: reschedule, reload, warm up
  std::optional<Seconds> interval{};    ///< τ; default: Young/Daly optimum
};

struct SpotOverhead {
  Seconds interval{};             ///< τ used (infinite when λ = 0: no checkpoints needed)
  bool optimal = true;            ///< τ is the Young/Daly optimum, not a given interval
  double wall_per_work = 1.0;     ///< T / W ≥ 1
  double checkpoint_share = 0.0;  ///< of the wall time, writing checkpoints
  double lost_share = 0.0;        ///< of the wall time, redone work and restarts
  bool feasible = true;           ///< false when interruptions outpace progress (T would be infinite)
};

/// τ = sqrt(2·C·M): Young's first-order optimal checkpoint interval.
Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf);

/// The expected overhead; throws std::invalid_argument on negative inputs.
SpotOverhead spot_overhead(const SpotParams& p);

}  // namespace gpuplan

namespace gpuplan {

/// Monte Carlo of one run on spot capacity, for the chance of meeting a
/// deadline (the first-order model above gives only the expected time).
/// Interruptions arrive as a Poisson process at rate λ (exponential gaps);
/// work is checkpointed every τ at a cost of C (the last segment needs none);
/// an interruption loses the work since the last checkpoint and costs R.
/// Reproducible: the generator is std::mt19937_64, whose output the C++
/// standard fixes, turned into uniforms and exponentials by gpuplan itself
/// (std::exponential_distribution differs between standard libraries).
struct SpotSimulation {
  int trials = 0;
  double probability = 0;  ///< share of trials finished within `available`
  Seconds p50{}, p90{};    ///< quantiles of the wall time (a trial stopped at the cap counts as the cap)
  Seconds mean{};
  bool capped = false;  ///< some trials ran past the cap (10× the work plus `available`) and were stopped
};

/// `work`: wall time the run needs without interruptions. Throws
/// std::invalid_argument for trials < 1 or negative inputs.
SpotSimulation simulate_spot(Seconds work, const SpotParams& p, Seconds available, int trials, std::uint64_t seed);

}  // namespace gpuplan
