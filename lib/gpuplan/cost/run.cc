#include "gpuplan/cost/run.h"

#include <cmath>

#include "gpuplan/cost/rent.h"

namespace gpuplan {
namespace {}

const std::optional<Money>& OfferPrices::price(BillingMode mode) const {
  switch (mode) {
    case BillingMode::kHourly:
      return hourly;
    case BillingMode::kMonthly:
      return monthly;
    case BillingMode::kSpot:
      return spot;
  }
  return hourly;
}

OfferPrices offer_prices(const Offer& o, const Catalog& catalog, const CurrencyConverter& fx) {
  OfferPrices p;
  p.offer = &o;
  p.provider = catalog.find_provider(o.provider);
  p.granularity = o.billing_granularity;
  p.minimum_billing = o.minimum_billing;
  p.storage_per_gb_month = Money::zero(fx.display());
  if (o.hourly) p.hourly = fx.convert(o.hourly->amount);
  if (o.monthly) p.monthly = fx.convert(o.monthly->amount);
  if (o.spot) p.spot = fx.convert(o.spot->amount);
  if (p.provider) {
    for (const StorageTier t : {StorageTier::kCloudDisk, StorageTier::kLocalNvme, StorageTier::kObject})
      if (auto it = p.provider->storage_per_gb_month.find(t); it != p.provider->storage_per_gb_month.end()) {
        p.storage_per_gb_month = fx.convert(it->second.amount);
        p.storage_priced = true;
        break;
      }
    p.support_share = p.provider->support_share.value_or(0.0);
  }
  return p;
}

std::optional<RunCost> run_cost(const OfferPrices& p, BillingMode mode, double wall_hours, int instances,
                                double dataset_gb) {
  const std::optional<Money>& price = p.price(mode);
  if (!price) return std::nullopt;
  RunCost r;
  double factor = 0;
  if (mode == BillingMode::kMonthly) {
    r.months = std::ceil(wall_hours / kHoursPerMonth - 1e-9);
    r.billed_instance_hours = r.months * kHoursPerMonth * instances;
    factor = r.months * instances;
  } else {
    r.billed_instance_hours = billed_run_hours(wall_hours, p.granularity, p.minimum_billing) * instances;
    factor = r.billed_instance_hours;
  }
  const double storage_factor = dataset_gb * wall_hours / kHoursPerMonth;
  const double biggest = std::abs(price->units()) * factor + std::abs(p.storage_per_gb_month.units()) * storage_factor;
  if (!std::isfinite(biggest) || biggest * (1.0 + p.support_share) >= kMaxRunCostUnits) return std::nullopt;
  r.compute = price->scaled(factor).rounded();
  // Add-ons that are zero are left at zero without the arithmetic (plan prices millions of runs).
  r.storage = r.support = Money::zero(price->currency());
  if (storage_factor > 0 && p.storage_priced) r.storage = p.storage_per_gb_month.scaled(storage_factor).rounded();
  if (p.support_share > 0) r.support = (r.compute + r.storage).scaled(p.support_share).rounded();
  r.total = r.compute + r.storage + r.support;
  return r;
}

}  // namespace gpuplan
