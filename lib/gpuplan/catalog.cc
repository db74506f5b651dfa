#include "gpuplan/catalog.h"

#include "gpuplan/i18n.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <set>

namespace gpuplan {

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp16:
      return "fp16";
    case Precision::kFp8:
      return "fp8";
  }
  return "?";
}

std::optional<Precision> parse_precision(std::string_view s) {
  for (const Precision p : kAllPrecisions)
    if (to_string(p) == s) return p;
  return std::nullopt;
}

std::string_view to_string(StorageTier t) {
  switch (t) {
    case StorageTier::kCloudDisk:
      return "cloud_disk";
    case StorageTier::kLocalNvme:
      return "local_nvme";
    case StorageTier::kObject:
      return "object";
  }
  return "?";
}

std::string_view to_string(BillingMode m) {
  switch (m) {
    case BillingMode::kHourly:
      return "hourly";
    case BillingMode::kMonthly:
      return "monthly";
    case BillingMode::kSpot:
      return "spot";
  }
  return "?";
}

std::optional<BillingMode> parse_billing_mode(std::string_view s) {
  for (const BillingMode m : kAllModes)
    if (to_string(m) == s) return m;
  return std::nullopt;
}

std::string_view to_string(Availability a) {
  switch (a) {
    case Availability::kAvailable:
      return "available";
    case Availability::kRestricted:
      return "restricted";
    case Availability::kUnknown:
      return "unknown";
  }
  return "unknown";
}

const MarketStatus* status_in(const std::vector<MarketStatus>& list, std::string_view market) {
  for (const MarketStatus& m : list)
    if (id_equals(m.market, market)) return &m;
  return nullptr;
}

const MarketStatus* Gpu::availability_in(std::string_view market) const { return status_in(availability, market); }

bool offer_in_region(const Catalog& c, const Offer& o, std::string_view region) {
  const Provider* p = c.find_provider(o.provider);
  if ((p && id_equals(p->country, region)) || id_equals(o.region, region)) return true;
  return o.region.size() > region.size() && o.region[region.size()] == '-' &&
         id_equals(std::string_view(o.region).substr(0, region.size()), region);
}

std::optional<PriceTrend> price_trend(const Offer& o, BillingMode mode) {
  const std::optional<Price>& last = o.price(mode);
  if (!last || !last->provenance.as_of) return std::nullopt;
  const Price* first = nullptr;
  for (const PastPrice& h : o.history)
    if (h.mode == mode && h.price.provenance.as_of && (!first || *h.price.provenance.as_of < *first->provenance.as_of))
      first = &h.price;
  if (!first || first->amount.currency() != last->amount.currency()) return std::nullopt;
  const auto days = (*last->provenance.as_of - *first->provenance.as_of).count();
  if (days < 180) return std::nullopt;
  return PriceTrend{std::pow(last->amount.units() / first->amount.units(), 365.0 / static_cast<double>(days)) - 1.0,
                    *first->provenance.as_of, *last->provenance.as_of};
}

const MarketStatus* purchase_status(const Gpu& g, const Purchase* record, std::string_view market) {
  if (const MarketStatus* m = record ? status_in(record->availability, market) : nullptr) return m;
  return g.availability_in(market);
}

const std::string& MarketStatus::reason_shown() const {
  return language() == Language::kChinese && !reason_zh.empty() ? reason_zh : reason;
}

namespace {
std::optional<AvailabilityCaveat> caveat(std::string_view option, std::string_view what, const MarketStatus* m,
                                         std::string_view market) {
  if (!m || m->status == Availability::kAvailable) return std::nullopt;
  // "H20 is unknown in CN" reads as if the card were; the question is what is unknown.
  const std::string status = m->status == Availability::kUnknown
                                 ? trf("whether {} can be had in {} is unknown", what, market)
                                 : trf("{} is restricted in {}", what, market);
  std::string detail = trf("{}: {}", status, m->reason_shown());  // the reason is the catalog's own words
  std::string warning = trf("{}: {}", tr(option), detail);
  return AvailabilityCaveat{std::string(option), m->status, std::move(detail), std::move(warning),
                            trf("{}: {}: {}.", tr(option), status, cite(m->provenance))};
}
}  // namespace

std::optional<AvailabilityCaveat> purchase_caveat(const Catalog& c, std::string_view gpu, std::string_view market) {
  const Gpu* g = c.find_gpu(gpu);
  if (!g) return std::nullopt;
  const Purchase* record = find_purchase(c, PurchaseKind::kCard, g->id, market);
  if (!record) record = find_purchase(c, PurchaseKind::kServer, g->id, market);
  return caveat("buy", g->id, purchase_status(*g, record, market), market);
}

std::optional<AvailabilityCaveat> rental_caveat(const Catalog& c, std::string_view option, std::string_view offer,
                                                std::string_view market) {
  const Offer* o = offer.empty() ? nullptr : c.find_offer(offer);
  return o ? caveat(option, trf("offer {}", o->id), status_in(o->availability, market), market) : std::nullopt;
}

std::string_view to_string(PurchaseKind k) {
  switch (k) {
    case PurchaseKind::kCard:
      return "card";
    case PurchaseKind::kServer:
      return "server";
    case PurchaseKind::kServerBase:
      return "server_base";
    case PurchaseKind::kNetwork:
      return "network";
  }
  return "?";
}

std::string_view to_string(OperatingKind k) {
  switch (k) {
    case OperatingKind::kElectricityPerKwh:
      return "electricity_per_kwh";
    case OperatingKind::kPue:
      return "pue";
    case OperatingKind::kColocationPerMonth:
      return "colocation_per_month";
    case OperatingKind::kColocationPerKwMonth:
      return "colocation_per_kw_month";
    case OperatingKind::kOperationsPerMonth:
      return "operations_per_month";
    case OperatingKind::kLeadTime:
      return "lead_time";
    case OperatingKind::kUsefulLife:
      return "useful_life";
    case OperatingKind::kResidualValue:
      return "residual_value";
    case OperatingKind::kDiscountRate:
      return "discount_rate";
  }
  return "?";
}

const std::optional<Price>& Offer::price(BillingMode mode) const {
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

std::optional<long long> age_days(const Provenance& p, Date today) {
  if (!p.as_of) return std::nullopt;
  return (today - *p.as_of).count();
}

bool is_stale(const Provenance& p, Date today, std::chrono::days stale_after) {
  return !p.as_of || *p.as_of + stale_after < today;
}

std::string cite(const Provenance& p) {
  const std::string date = p.as_of ? format_date(p.as_of) : std::string(tr("unknown"));
  if (p.confidence.empty()) return trf("{}, as_of {}", p.source, date);
  // One message a rating: "confidence low" reads as a whole in every language.
  std::string rating = p.confidence == "low"      ? std::string(tr("confidence low"))
                       : p.confidence == "medium" ? std::string(tr("confidence medium"))
                       : p.confidence == "high"   ? std::string(tr("confidence high"))
                                                  : fmt::format("confidence {}", p.confidence);
  return trf("{}, as_of {}, {}", p.source, date, rating);
}

std::string_view intern(std::string_view text) {
  // Never freed: catalog texts live as long as the process, like the built-in ones.
  static auto* pool = new std::set<std::string, std::less<>>();
  auto it = pool->find(text);
  if (it == pool->end()) it = pool->emplace(text).first;
  return *it;
}

bool id_equals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool gpu_matches(std::string_view filter, std::string_view gpu_id) {
  if (id_equals(filter, gpu_id)) return true;
  return gpu_id.size() > filter.size() && gpu_id[filter.size()] == '-' &&
         id_equals(filter, gpu_id.substr(0, filter.size()));
}

namespace {
template <class T>
const T* find_by_id(const std::vector<T>& v, std::string_view id) {
  for (const T& x : v)
    if (x.id == id) return &x;
  for (const T& x : v)
    if (id_equals(x.id, id)) return &x;
  return nullptr;
}

template <class T>
void overlay_records(std::vector<T>& base, const std::vector<T>& over) {
  for (const T& rec : over) {
    // Ids match without case everywhere else, so they merge that way too.
    auto it = std::find_if(base.begin(), base.end(), [&](const T& b) { return id_equals(b.id, rec.id); });
    if (it != base.end()) *it = rec;
    else base.push_back(rec);
  }
}
}  // namespace

const Gpu* Catalog::find_gpu(std::string_view id) const { return find_by_id(gpus, id); }
const Provider* Catalog::find_provider(std::string_view id) const { return find_by_id(providers, id); }
const Offer* Catalog::find_offer(std::string_view id) const { return find_by_id(offers, id); }
const ApiOffer* Catalog::find_api(std::string_view id) const { return find_by_id(apis, id); }

std::string Catalog::instance_if_ambiguous(const Offer& o) const {
  for (const Offer& other : offers)
    if (other.id != o.id && other.provider == o.provider && other.region == o.region && other.gpu == o.gpu)
      return o.instance.empty() ? o.id : o.instance;
  return {};
}

Catalog merge(Catalog base, const Catalog& overlay) {
  overlay_records(base.fx_rates, overlay.fx_rates);
  overlay_records(base.gpus, overlay.gpus);
  overlay_records(base.providers, overlay.providers);
  overlay_records(base.offers, overlay.offers);
  overlay_records(base.purchases, overlay.purchases);
  overlay_records(base.operating, overlay.operating);
  overlay_records(base.apis, overlay.apis);
  if (overlay.stale_after_given) {
    base.stale_after = overlay.stale_after;
    base.stale_after_given = true;
  }
  return base;
}

std::optional<Conversion> find_conversion(const Catalog& catalog, Currency from, Currency to) {
  if (from == to) return Conversion{1.0, nullptr, false};
  const FxRate* best = nullptr;
  bool inverse = false;
  for (const FxRate& r : catalog.fx_rates) {
    const bool direct = r.from == from && r.to == to;
    const bool reverse = r.from == to && r.to == from;
    if (!direct && !reverse) continue;
    // Newest wins; on the same date a direct quote beats an inverted one.
    if (!best || r.provenance.as_of > best->provenance.as_of ||
        (r.provenance.as_of == best->provenance.as_of && direct && inverse)) {
      best = &r;
      inverse = reverse;
    }
  }
  if (!best) return std::nullopt;
  return Conversion{inverse ? 1.0 / best->rate : best->rate, best, inverse};
}

const Purchase* find_purchase(const Catalog& c, PurchaseKind kind, std::string_view gpu, std::string_view region) {
  const Purchase* best = nullptr;
  const auto better = [&](const Purchase& p) {
    if (!best) return true;
    const bool pr = p.region == region, br = best->region == region;
    if (pr != br) return pr;
    return p.provenance.as_of > best->provenance.as_of;
  };
  for (const Purchase& p : c.purchases) {
    if (p.kind != kind) continue;
    if (!gpu.empty() && !id_equals(p.gpu, gpu)) continue;
    if (better(p)) best = &p;
  }
  return best;
}

const OperatingCost* find_operating(const Catalog& c, OperatingKind kind, std::string_view region) {
  const OperatingCost* any = nullptr;
  for (const OperatingCost& o : c.operating) {
    if (o.kind != kind) continue;
    if (id_equals(o.region, region)) return &o;
    if (!any) any = &o;
  }
  return any;
}

namespace {
template <class Range, class Get>
std::optional<FilterProblem> filter_problem(const std::vector<std::string>& filters, const Range& records, Get get,
                                            bool prefix) {
  for (std::size_t i = 0; i < filters.size(); ++i) {
    const std::string& f = filters[i];
    const bool known = std::any_of(records.begin(), records.end(), [&](const auto& r) {
      return prefix ? gpu_matches(f, get(r)) : id_equals(f, get(r));
    });
    if (known) continue;
    std::vector<std::string> names;
    for (const auto& r : records)
      if (std::find(names.begin(), names.end(), get(r)) == names.end()) names.push_back(get(r));
    std::sort(names.begin(), names.end());
    return FilterProblem{i, trf("'{}' matches nothing in the catalog (known: {})", f, fmt::join(names, ", "))};
  }
  return std::nullopt;
}
}  // namespace

std::optional<FilterProblem> filter_problem(const Catalog& c, FilterKind kind,
                                            const std::vector<std::string>& filters) {
  switch (kind) {
    case FilterKind::kGpu:
      return filter_problem(
          filters, c.gpus, [](const Gpu& g) { return g.id; }, true);
    case FilterKind::kProvider:
      return filter_problem(
          filters, c.providers, [](const Provider& p) { return p.id; }, false);
    case FilterKind::kRegion:
      return filter_problem(
          filters, c.offers, [](const Offer& o) { return o.region; }, false);
  }
  return std::nullopt;
}

void check_filters(const Catalog& c, const std::vector<std::string>& gpus, const std::vector<std::string>& providers,
                   const std::vector<std::string>& regions, const std::array<const char*, 3>& flags) {
  const std::array<const std::vector<std::string>*, 3> lists{&gpus, &providers, &regions};
  for (std::size_t i = 0; i < 3; ++i)
    if (const auto problem = filter_problem(c, static_cast<FilterKind>(i), *lists[i]))
      throw InputError(SourceLocation{flags[i]}, "", problem->message);
}

std::vector<InputError> future_dates(const Catalog& c, Date today) {
  std::vector<InputError> out;
  const auto check = [&](const Provenance& p, const SourceLocation& where, const std::string& what) {
    if (p.as_of > today)
      out.emplace_back(where, what + ".as_of",
                       fmt::format("{} is after today ({}): a price cannot be dated in the future",
                                   format_date(p.as_of), format_date(today)));
  };
  // A market status cannot have been seen yet either.
  const auto statuses = [&](const std::vector<MarketStatus>& list, const std::string& what) {
    for (const MarketStatus& m : list)
      if (m.provenance.as_of > today)
        out.emplace_back(m.where, what + ".availability " + m.market + ".as_of",
                         fmt::format("{} is after today ({}): a status cannot be dated in the future",
                                     format_date(m.provenance.as_of), format_date(today)));
  };
  for (const Gpu& g : c.gpus) {
    check(g.provenance, g.where, "gpu " + g.id);
    statuses(g.availability, "gpu " + g.id);
  }
  for (const Provider& p : c.providers) check(p.provenance, p.where, "provider " + p.id);
  for (const Offer& o : c.offers) {
    check(o.provenance, o.where, "offer " + o.id);
    statuses(o.availability, "offer " + o.id);
    for (const auto* price : {&o.hourly, &o.monthly, &o.spot})
      if (*price) check((*price)->provenance, (*price)->where, "offer " + o.id);
  }
  for (const Purchase& p : c.purchases) {
    check(p.price.provenance, p.where, "purchase " + p.id);
    statuses(p.availability, "purchase " + p.id);
  }
  for (const FxRate& r : c.fx_rates) check(r.provenance, r.where, "fx rate " + r.id);
  for (const ApiOffer& a : c.apis) {
    check(a.provenance, a.where, "api " + a.id);
    for (const Price* p : {&a.input, &a.output})  // a price with a date of its own
      if (p->provenance.as_of != a.provenance.as_of) check(p->provenance, p->where, "api " + a.id);
  }
  return out;
}

}  // namespace gpuplan
