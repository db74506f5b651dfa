// Capacity planning: every catalog offer × card count × billing mode (and
// buying, with its lead time) is a configuration with a time to finish and a
// full cost, from the same training model and run costs as `estimate`. The
// search drops what does not fit in memory (trying ZeRO stages upwards from the
// job's), misses the deadline or exceeds the budget, and returns the cheapest,
// the fastest, the Pareto frontier of time against cost and one
// recommendation. "Nothing feasible" is a normal result (empty `feasible`),
// with the nearest misses and what would have to change.
//
// Invariants (tested against brute force): the frontier holds every
// non-dominated feasible configuration and no dominated one; raising the budget
// never removes a feasible configuration; loosening the deadline never raises
// the cheapest cost.
#pragma once

#include <array>
#include <cstdint>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/context.h"
#include "gpuplan/cost/run.h"
#include "gpuplan/cost/spot.h"
#include "gpuplan/job.h"
#include "gpuplan/training.h"

namespace gpuplan {

enum class PlanMode : std::uint8_t { kHourly, kMonthly, kSpot, kBuy };
std::string_view to_string(PlanMode m);
/// The catalog billing mode a rental plan mode is priced by (kBuy: none; kHourly is returned).
BillingMode billing(PlanMode m);

/// Everything a search needs, resolved (job.h reads it from files and flags).
struct PlanInputs {
  Job job{};
  /// The job on several instances or servers, when its checkpoint defaults
  /// differ there (a parallel file system, as estimate takes for several
  /// nodes); nullopt: `job` on any count.
  std::optional<Job> job_on_several{};
  /// Overlap and usable memory; when buying, the servers' size (`gpus_per_node`)
  /// and the network between them (a rental's is its offer's, else assumed).
  Cluster cluster{};
  LayoutPin layout{};                      ///< parts of the layout the user fixed
  Bytes dataset{};                         ///< uploaded before a rental starts, kept in storage during the run
  BytesPerSecond upload_bandwidth{100e6};  ///< to the provider
  Seconds provisioning{15 * 60};           ///< order to a usable rental instance (the article: within 15 minutes)
  double spot_interruptions_per_day = 1;   ///< per instance
  std::optional<Seconds> deadline{};       ///< from now, start delay included
  std::string deadline_text{};             ///< as the user wrote it (a date, or a duration), for titles
  std::optional<Money> budget{};           ///< in the display currency
  bool allow_spot = false;
  bool include_buy = false;
  bool exclude_restricted = false;       ///< leave out offers and cards restricted in `market`
  std::vector<std::string> gpus{};       ///< GPU filters (prefix match, as `prices --gpu`); empty: all
  std::vector<std::string> providers{};  ///< empty: all
  std::vector<std::string> regions{};    ///< empty: all
  std::string market = "CN";             ///< region preferred for purchase prices and operating costs
  int max_gpus = 1024;
  Objective objective = Objective::kCost;
  double confidence = 0.9;  ///< a spot plan is recommended only if it meets the deadline this often
  int trials = 1000;        ///< Monte Carlo trials per spot plan shown
  std::uint64_t seed = 1;
  std::optional<MeasuredScaling> scaling{};  ///< replaces the analytic communication model
  // Sensitivity analysis moves these (1 = as the catalog and the job say).
  double price_factor = 1.0;  ///< × every rental and purchase price
  double mfu_factor = 1.0;    ///< × the MFU (given or default), at most 100%
};

/// What the search enumerates: a rental offer, or buying cards of one GPU.
struct PlanSource {
  const Gpu* gpu = nullptr;
  /// The instance (a server of cluster.gpus_per_node when buying): its GPUs, the
  /// link inside, what joins instances and how many one job may use.
  InstanceShape shape{};
  std::string shape_assumed{};  ///< what of the shape the catalog does not state
  // Rental
  const Offer* offer = nullptr;
  OfferPrices prices{};
  // Buying
  const Purchase* card = nullptr;
  Money card_price = Money::zero(kCny);
  Money server_base = Money::zero(kCny);  ///< per server of gpus_per_node cards
  Seconds lead_time{};
  Money electricity_per_kwh = Money::zero(kCny);
  double pue = 1.5;
  Watts server_power{1500};
  double residual_share = 0;  ///< resale value at the end of the useful life
  Seconds useful_life = Years(3);
  std::vector<std::string> notes{};  ///< where the buying figures came from
  /// The offer's (renting) or the card record's (buying) status in the market, when not plainly available.
  const MarketStatus* availability = nullptr;
};

/// One evaluated configuration, compact (a search holds many).
struct PlanConfig {
  double finish_hours = 0;       ///< start delay + wall time (spot: expected)
  std::int64_t cost_micros = 0;  ///< full cost in the display currency
  std::uint16_t source = 0;      ///< index into PlanResult::sources
  PlanMode mode = PlanMode::kHourly;
  std::int8_t zero_stage = 0;
  std::int32_t gpus = 0;
  std::uint8_t tp = 1, pp = 1;  ///< the layout (data parallel: the rest)
  Recompute recompute = Recompute::kSelective;
  std::uint8_t vp = 1;   ///< virtual pipeline stages
  std::uint16_t ep = 1;  ///< expert parallel (MoE)
  std::uint8_t cp = 1;   ///< context parallel
  Layout layout() const { return Layout{tp, pp, gpus / (tp * pp * cp), zero_stage, recompute, 0, vp, ep, cp}; }
};

enum class Rejection : std::uint8_t {
  kPrecision,  ///< the GPU has no tensor rate for the job's precision
  kMemory,     ///< does not fit with any layout (TP, PP, ZeRO-3, full recompute)
  kBatch,      ///< no layout gives every data-parallel rank a micro-batch
  kJoin,       ///< more instances than the offer lets one job join
  kRange,      ///< the cost is beyond a trillion
  kDeadline,
  kBudget,
};
inline constexpr int kRejectionCount = 7;
std::string_view to_string(Rejection r);

/// The chance of finishing by the deadline. The MFU is the largest
/// uncertainty a user has: a default one is taken as lognormal around its
/// value on each side, its band's ends (efficiency.h) the 16th and 84th
/// percentiles, so a lopsided band keeps its shape; a given MFU (measured:
/// `fit mfu`) as exact. Spot reclaims add their own chance.
struct OnTime {
  double probability = 1;             ///< MFU and spot together
  double mfu_only = 1;                ///< MFU uncertainty alone (no reclaims)
  std::optional<double> spot_only{};  ///< reclaims alone, at the MFU used (spot plans)
  /// Log-space σ of the MFU below and above its value: ln(value ÷ low), ln(high ÷ value) (0: given, exact).
  double mfu_sigma_low = 0, mfu_sigma_high = 0;
  /// The MFU factor at standard normal z: e^(σz), σ the side's.
  double mfu_factor(double z) const { return std::exp((z < 0 ? mfu_sigma_low : mfu_sigma_high) * z); }
  bool mfu_uncertain() const { return mfu_sigma_low > 0 && mfu_sigma_high > 0; }
  /// "MFU", "spot" or "neither": which makes the plan more likely to be late.
  std::string_view dominant() const;
};

/// Everything about one configuration, for the rows a report shows.
struct PlanDetail {
  PlanConfig config{};
  const PlanSource* source = nullptr;
  int instances = 0;
  StepBreakdown step{};
  double work_hours = 0;   ///< wall time without spot interruptions
  double wall_hours = 0;   ///< expected, interruptions included
  double start_hours = 0;  ///< provisioning + upload, or the purchase lead time
  double finish_hours = 0;
  Money cost = Money::zero(kCny);
  RunCost run{};                           ///< rentals
  Money hardware = Money::zero(kCny);      ///< buying: cards + servers
  Money power = Money::zero(kCny);         ///< buying: energy for the run
  Money resale_after = Money::zero(kCny);  ///< buying: what the hardware is worth when the run ends
  std::optional<SpotOverhead> spot{};
  std::optional<SpotSimulation> simulation{};  ///< spot plans with a deadline
  std::optional<OnTime> on_time{};             ///< plans with a deadline
  std::vector<std::string> notes{};
};

struct NearMiss {
  PlanDetail plan{};
  std::optional<Money> budget_needed{};           ///< when over budget
  std::optional<double> deadline_needed_hours{};  ///< when late
};

/// A notable rejected configuration (--explain): the best one for a GPU, or
/// the cheapest offer per GPU-hour, and why it was not chosen.
struct Rejected {
  std::string what{};                ///< "cheapest per GPU-hour", "best on H800"
  std::optional<PlanDetail> plan{};  ///< none when nothing about it fits at all
  std::string why{};
};

struct PlanResult {
  std::vector<PlanSource> sources{};
  std::int64_t evaluated = 0;          ///< configurations looked at (offer × count × mode)
  std::int64_t layouts_evaluated = 0;  ///< layouts whose memory (and, when it fits, step) was computed
  std::int64_t layout_cache_hits = 0;  ///< GPU × shape × count searches answered from an earlier offer
  std::array<std::int64_t, kRejectionCount> rejected{};
  std::vector<PlanConfig> valid{};     ///< fit in memory and batch, priced: before deadline and budget
  std::vector<PlanConfig> feasible{};  ///< meet the deadline and the budget, in search order
  std::vector<PlanConfig> frontier{};  ///< Pareto frontier of (finish time, cost), fastest first
  std::optional<PlanDetail> cheapest{}, fastest{}, recommended{};
  std::string recommendation{};         ///< one sentence with the reason
  std::vector<NearMiss> near_misses{};  ///< when nothing is feasible
  std::vector<Rejected> explained{};
  std::vector<std::string> notes{};
  std::vector<std::string> warnings{};  ///< the recommendation buys a restricted card
  bool feasible_any() const { return !feasible.empty(); }
};

/// Runs the search. `fx` converts catalog prices into the display currency.
/// Throws std::invalid_argument for inputs no model can use.
PlanResult plan(const PlanInputs& in, const Catalog& catalog, const CurrencyConverter& fx);

/// Copies what a job file says (the job, the cluster, the cost inputs and the
/// plan: section) into `in`, leaving the rest (trials, seed, scaling, factors).
void apply_job(const ResolvedJob& rj, PlanInputs& in);

/// The full evaluation of one configuration (the same formulas the search used).
/// `simulate`: the chance of meeting the deadline (plans with a deadline only;
/// spot plans by Monte Carlo).
PlanDetail describe(const PlanInputs& in, const PlanResult& result, const PlanConfig& config, bool simulate = true);

/// The Pareto frontier of `points` in (finish_hours, cost_micros), both minimised:
/// every point no other point beats in one and matches or beats in the other,
/// fastest first (ties in both kept). O(n log n).
std::vector<PlanConfig> pareto_frontier(std::vector<PlanConfig> points);

}  // namespace gpuplan
