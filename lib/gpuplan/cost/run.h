// What one training run costs on one rental offer in one billing mode: the
// billed compute, the dataset's storage for the length of the run, and the
// provider's support plan as a share of the bill. `estimate` prices its cost
// rows with it and `plan` prices every configuration it searches, so the two
// always agree. Prices are converted to the display currency once per offer
// (OfferPrices); run_cost() is plain arithmetic, cheap enough for a search.
#pragma once

#include <optional>

#include "gpuplan/catalog.h"
#include "gpuplan/context.h"
#include "gpuplan/money.h"

namespace gpuplan {

/// An offer's prices and add-ons in the display currency.
struct OfferPrices {
  const Offer* offer = nullptr;
  const Provider* provider = nullptr;
  std::optional<Money> hourly{}, monthly{}, spot{};  ///< per instance (monthly: per 730 h)
  Money storage_per_gb_month = Money::zero(kCny);    ///< the provider's cloud disk, else NVMe, else object storage
  bool storage_priced = false;
  double support_share = 0.0;  ///< the provider's support plan, 0–1
  Seconds granularity{};
  Seconds minimum_billing{};

  const std::optional<Money>& price(BillingMode mode) const;
};

/// Throws InputError when the catalog has no exchange rate for the offer's currency.
OfferPrices offer_prices(const Offer& offer, const Catalog& catalog, const CurrencyConverter& fx);

struct RunCost {
  double billed_instance_hours = 0;  ///< all instances together
  double months = 0;                 ///< monthly mode: whole months paid per instance
  Money compute = Money::zero(kCny);
  Money storage = Money::zero(kCny);
  Money support = Money::zero(kCny);
  Money total = Money::zero(kCny);  ///< compute + storage + support, each rounded to the minor unit
};

/// Run costs from Money::kMaxPlausibleUnits up are left out: run_cost() returns nullopt.
inline constexpr double kMaxRunCostUnits = Money::kMaxPlausibleUnits;

/// One run of `wall_hours` on `instances` instances of the offer in `mode`:
///   hourly/spot: price × billed hours, each instance's run rounded up to the
///                billing granularity and at least the minimum billing;
///   monthly:     price × ⌈wall / 730 h⌉ months × instances, used or not;
///   storage:     dataset GB × price per GB-month × wall / 730 h;
///   support:     (compute + storage) × the provider's support share.
/// nullopt when the offer has no price for the mode or the amount is out of range.
std::optional<RunCost> run_cost(const OfferPrices& prices, BillingMode mode, double wall_hours, int instances,
                                double dataset_gb);

}  // namespace gpuplan
