// Spot (preemptible) capacity and hardware failures: what interruptions
// really cost. With interruptions at rate λ (MTBF M = 1/λ), a checkpoint that
// takes C to write and a restart that takes R, checkpointing every τ of work,
// the expected wall time to finish W of work is Daly's complete model (Daly
// 2006, "A higher order estimate of the optimum checkpoint interval for
// restart dumps", FGCS 22, eq. 10), in which interruptions may also strike
// during a checkpoint or a restart:
//
//   T = M · e^(R/M) · (e^((τ + C)/M) − 1) · W / τ
//
// It is finite for every λ, C and R (the first-order T = W(1 + C/τ) /
// (1 − λ(R + (τ + C)/2)) is not, and is +11.6% at 24 interruptions a day).
// τ defaults to Daly's higher-order optimum (eq. 12, 2006):
// τ = sqrt(2CM)·[1 + (C/2M)^(1/2)/3 + (C/2M)/9] − C for C < 2M, else τ = M.
// λ = 0 gives T = W: capacity that is never interrupted costs exactly its
// price × hours.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "gpuplan/i18n.h"
#include "gpuplan/units.h"

namespace gpuplan {

/// Why one interruption a day per instance is the default rate (named wherever it is used).
inline constexpr std::string_view kSpotRateAssumption = tr_noop(
    "assumption, per instance: GCP preemptible VMs run at most 24 h (gcp_preempt); no source gives GPU spot "
    "interruption rates");

struct SpotParams {
  double interruptions_per_hour = 0.0;  ///< λ
  Seconds checkpoint_write{};           ///< C
  Seconds restart{};                    ///< R: reschedule, reload, warm up
  std::optional<Seconds> interval{};    ///< τ; default: Daly's optimum
};

struct SpotOverhead {
  Seconds interval{};             ///< τ used (infinite when λ = 0: no checkpoints needed)
  bool optimal = true;            ///< τ is Daly's optimum, not a given interval
  double wall_per_work = 1.0;     ///< T / W ≥ 1
  double checkpoint_share = 0.0;  ///< of the wall time, writing checkpoints
  double lost_share = 0.0;        ///< of the wall time, redone work and restarts
};

/// τ = sqrt(2·C·M): Young's first-order optimal checkpoint interval.
Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf);
/// Daly's higher-order optimum (2006, eq. 12): sqrt(2CM)·[1 + (C/2M)^½/3 + (C/2M)/9] − C
/// for C < 2M, else M.
Seconds daly_interval(Seconds checkpoint_write, Seconds mtbf);

/// The expected overhead; throws std::invalid_argument on negative inputs.
SpotOverhead spot_overhead(const SpotParams& p);

}  // namespace gpuplan

namespace gpuplan {

/// Monte Carlo of one run on spot capacity, for the chance of meeting a
/// deadline (the model above gives only the expected time), and a check on
/// it. Interruptions arrive as a Poisson process at rate λ (exponential gaps),
/// also during checkpoints and restarts; work is checkpointed every τ at a
/// cost of C (the last segment needs none); an interruption loses the work
/// since the last checkpoint and costs R.
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
