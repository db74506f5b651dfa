// Serving plans: the replica a card (or a few, tensor parallel inside one
// instance) runs at the batch the targets allow, the replicas the busiest hour
// needs, what renting them costs through the day, and how busy owned cards are when
// they carry the load. `serve` prints these; `compare` uses them for a
// scenario that serves a model on the cards it buys (workload.serving).
#pragma once

#include <optional>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/money.h"
#include "gpuplan/serving.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/training.h"

namespace gpuplan {

class CurrencyConverter;

/// Whether the catalog has what the serving model needs of a card: its memory bandwidth and a bf16 (or fp16) rate.
bool card_can_serve(const Gpu& g);

/// Whether serve.gpus (empty: every card) lets `g` in.
bool gpu_considered(const Serving& s, const Gpu& g);

/// The share of the month the cards of `replicas` replicas are busy (drawing
/// their busy power), hour by hour over the day (hourly_rates). A replica
/// works whenever it holds a request, so at a light load it is busy far more
/// than load ÷ capacity: with Poisson arrivals of λ_h a replica in hour h and
/// requests that take W alone (first token + output × a batch-1 step), it
/// holds one 1 − e^(−λ_h·W) of the hour (the M/G/∞ queue's chance of being
/// non-empty); never less than the hour's load ÷ capacity, at most 1; the
/// mean of the 24 hours.
double busy_share(const Serving& s, const ReplicaShape& shape, const ReplicaRun& run, int replicas);

/// A replica shape at its batch, and what the busiest hour needs of it.
struct ReplicaPlan {
  ReplicaShape shape{};
  ReplicaRun run{};
  int replicas = 0;
  int instances = 0;    ///< of the instance's cards
  bool beyond = false;  ///< meets the targets, but the load needs more than kMaxReplicas
  /// Meets the targets with a number of replicas: what cost rows price.
  bool sized() const { return run.meets_targets && !beyond; }
};

/// The replica that needs the fewest instances of `per_instance` cards (then
/// the fewest cards): tensor parallel 1, 2, 4 or 8 inside one instance. When
/// none meets the targets, the first that fits, shown as missing them.
ReplicaPlan best_replica(const Serving& s, const Gpu& g, int per_instance, const InstanceShape& inst);

/// Instances of `plan` each hour of the day needs (replicas at that hour's
/// rate, at least serve.min_replicas, `per_instance` to an instance): what an
/// hourly rental that follows the day runs. Empty beyond kMaxReplicas.
std::vector<int> instances_by_hour(const Serving& s, const ReplicaPlan& plan, int per_instance);

/// One rental offer in one billing mode, sized for the load (filters of the serve section applied).
struct RentalQuote {
  const Offer* offer = nullptr;
  BillingMode mode = BillingMode::kHourly;
  ReplicaPlan plan{};
  Money price = Money::zero(kCny);  ///< per instance-hour (monthly: instance-month), display currency
  /// Hourly: the instances each hour of the day runs (started and stopped
  /// with the load); monthly: the busiest hour's, all day.
  std::vector<int> by_hour{};
  /// Hourly: price × instance-hours a day × 730 ÷ 24; monthly: price ×
  /// instances; nullopt when the plan does not meet the targets or the month
  /// costs a trillion or more.
  std::optional<Money> monthly{};
  /// Monthly + hourly (an offer with both prices): `base` instances by the
  /// month, the hours above it by the hour at `rise_price`; 0 = one mode only.
  int base = 0;
  Money rise_price = Money::zero(kCny);
  /// A committed term (months; 0 = none): the price per instance-month, owed for the whole term.
  int commitment_months = 0;
  /// The catalog prices it uses, the first the one shown: their dates flag staleness.
  std::vector<const Provenance*> priced{};
  int instance_hours() const;  ///< a day
  bool mixed() const { return base > 0; }
  std::string mode_name() const;  ///< "hourly", "monthly", "monthly+hourly", "monthly 1y", "monthly 1y+hourly"
  std::string_view how() const;   ///< how it runs through the day, for a note
};
std::vector<RentalQuote> rental_quotes(const Catalog& c, const CurrencyConverter& fx, const Serving& s);

/// Instance-hours a day above `base` (monthly + hourly: what the hourly price pays).
int rise_hours(const std::vector<int>& by_hour, int base);

/// The average requests/s from which `q` (re-sized for each load, the day's
/// shape kept) costs less than an API charging `api_per_rps` a month for each
/// request/s, at every higher load; nullopt when the API stays cheaper as the
/// load grows. In the quote's price units.
std::optional<double> api_break_even(const Serving& s, const RentalQuote& q, double api_per_rps);

/// What a request/s more on average adds to `q`'s month with its instances full (the slope the break-even weighs).
double month_per_rps(const Serving& s, const RentalQuote& q);

/// Serving the load on `cards` owned cards of `g` (servers of `per_server`):
/// the tensor parallel that carries most, its replicas, and the share of the
/// month they are busy at the day's average load.
struct OwnedServing {
  ReplicaPlan plan{};         ///< replicas: what the owned cards hold
  double capacity_rps = 0;    ///< requests/s the replicas carry, full
  double busy_share = 0;      ///< of the month (busy_share)
  bool carries_peak = false;  ///< the busiest hour fits within peak_load of the capacity
};
std::optional<OwnedServing> serve_on_owned(const Serving& s, const Gpu& g, int cards, int per_server);

}  // namespace gpuplan
