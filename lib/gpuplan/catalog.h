// The price catalog: GPUs, providers, rentable offers, purchase prices,
// operating costs and FX rates, each with its provenance (source, as_of).
// Prices are Money (exact); offers hold them per *instance*, whatever basis
// the file used. Catalogs merge record by record, by id, later wins. The
// built-in catalog is pricing/default.yaml, validated and turned into C++
// data at build time, so loading it costs nothing at run time.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/error.h"
#include "gpuplan/money.h"
#include "gpuplan/units.h"

namespace gpuplan {

/// Where a number comes from. The texts are interned (see intern()): many
/// prices share one source, and the built-in catalog's point at static data,
/// so that loading it allocates nothing for them.
struct Provenance {
  std::string_view source{};
  /// The day the number applies to; nullopt: the source is undated (`as_of:
  /// unknown`), older than anything dated and always stale.
  std::optional<Date> as_of{};
  std::string_view confidence{};  ///< "", "low", "medium", "high"
  std::string_view note{};
};

/// Days from `as_of` to `today`; nullopt when the source is undated.
std::optional<long long> age_days(const Provenance& p, Date today);
/// Older than `stale_after` (or undated): worth a note wherever the number is used.
bool is_stale(const Provenance& p, Date today, std::chrono::days stale_after);

/// A copy of `text` that lives until the process ends, shared by equal texts.
std::string_view intern(std::string_view text);

/// "source, as_of 2025-02-21" and, when the record rates itself, ", confidence low":
/// how a default names the record it came from.
std::string cite(const Provenance& p);

/// One price with where it came from.
struct Price {
  Money amount = Money::zero(kCny);
  Provenance provenance{};
  SourceLocation where{};
};

enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8 };
inline constexpr Precision kAllPrecisions[] = {Precision::kFp32, Precision::kTf32, Precision::kBf16, Precision::kFp16,
                                               Precision::kFp8};
std::string_view to_string(Precision p);
std::optional<Precision> parse_precision(std::string_view s);

/// Whether a card can be bought in a market: new supply under export
/// controls is "restricted"; where the sources leave it open, "unknown".
enum class Availability { kAvailable, kRestricted, kUnknown };
std::string_view to_string(Availability a);

struct MarketStatus {
  std::string market{};  ///< "CN": matched against plan.market, a purchase's region
  Availability status = Availability::kUnknown;
  std::string reason{};
  std::string reason_zh{};  ///< the same in Chinese (optional): shown when the reader's language is Chinese
  Provenance provenance{};
  SourceLocation where{};
  /// The reason in the reader's language: the catalog's own words, in Chinese when it gives them.
  const std::string& reason_shown() const;
};

struct Gpu {
  std::string id{};
  std::string name{};
  std::string form_factor{};  ///< "sxm", "pcie", "consumer"
  /// The software stack the card runs: "cuda", or another ("cann" for Ascend),
  /// on which no MFU default of gpuplan is calibrated.
  std::string software = "cuda";
  Bytes memory{};
  std::optional<BytesPerSecond> memory_bandwidth{};  ///< nullopt: no source agrees
  std::map<Precision, double> dense_tflops{};        ///< only the precisions the card supports
  Watts tdp{};
  std::optional<BytesPerSecond> nvlink{};    ///< total bidirectional per GPU
  int pcie_gen = 0;                          ///< 0 = unknown
  std::vector<MarketStatus> availability{};  ///< per market; none stated: not known to be restricted
  Provenance provenance{};
  SourceLocation where{};

  /// The stated status in `market` (case-insensitive), or nullptr.
  const MarketStatus* availability_in(std::string_view market) const;
};

enum class StorageTier { kCloudDisk, kLocalNvme, kObject };
std::string_view to_string(StorageTier t);

struct Provider {
  std::string id{};
  std::string name{};
  std::string kind{};     ///< "cloud", "gpu_cloud", "marketplace"
  std::string country{};  ///< "CN", "US"
  Currency currency = kCny;
  Seconds billing_granularity = Seconds(3600);
  Seconds minimum_billing = Seconds(0);
  std::map<StorageTier, Price> storage_per_gb_month{};
  std::optional<Price> egress_per_gb{};
  std::optional<Price> bandwidth_per_mbps_month{};
  std::optional<double> support_share{};  ///< share of the bill, 0–1
  std::optional<Provenance> support_provenance{};
  std::optional<Price> support_minimum_monthly{};
  /// What joins this provider's instances into one job, unless an offer says:
  /// "infiniband", "roce", "ethernet" or "none" (single machines); "" = not stated.
  std::string fabric{};
  std::optional<int> max_instances{};  ///< the most instances one job may use, when stated
  Provenance provenance{};
  SourceLocation where{};
  SourceLocation currency_where{};  ///< the currency's value (messages)
};

enum class BillingMode { kHourly, kMonthly, kSpot };
inline constexpr BillingMode kAllModes[] = {BillingMode::kHourly, BillingMode::kMonthly, BillingMode::kSpot};
std::string_view to_string(BillingMode m);
std::optional<BillingMode> parse_billing_mode(std::string_view s);

struct Commitment {
  Seconds term{};
  BillingMode basis = BillingMode::kMonthly;  ///< the price is per hour or per month
  Price price{};                              ///< per instance
};

/// An earlier price of an offer: what it cost before its current price.
struct PastPrice {
  BillingMode mode = BillingMode::kHourly;
  Price price{};  ///< per instance, with its own source and date
};

struct Offer {
  std::string id{};
  std::string provider{};
  std::string region{};
  std::string instance{};
  std::string gpu{};
  int gpus = 1;
  Currency currency = kCny;
  std::optional<Price> hourly{};          ///< per instance-hour
  std::optional<Price> monthly{};         ///< per instance-month (730 h)
  std::optional<Price> spot{};            ///< per instance-hour, stated or derived from spot_discount
  std::optional<double> spot_discount{};  ///< when the catalog gives a rule, not a price
  std::vector<Commitment> commitments{};
  /// Earlier prices, kept for the trend (prices --history); never priced with.
  std::vector<PastPrice> history{};
  Seconds billing_granularity{};
  Seconds minimum_billing{};
  std::optional<Seconds> minimum_term{};
  std::optional<BytesPerSecond> network{};  ///< between instances, per instance
  std::string fabric{};                     ///< as Provider::fabric (inherited when the offer says none)
  std::optional<int> max_instances{};       ///< inherited from the provider when the offer states none
  std::string interconnect{};               ///< inside the instance: "nvlink", "pcie"; "" = by the GPU
  Provenance provenance{};
  SourceLocation where{};
  SourceLocation currency_where{};  ///< the currency's value, or the record when inherited

  /// The price of one instance for `mode` (per hour, or per month for kMonthly).
  const std::optional<Price>& price(BillingMode mode) const;

  /// Whether it can be rented from a market ("CN"), where the catalog says.
  std::vector<MarketStatus> availability{};
};

enum class PurchaseKind { kCard, kServer, kServerBase, kNetwork };
std::string_view to_string(PurchaseKind k);

struct Purchase {
  std::string id{};
  PurchaseKind kind = PurchaseKind::kCard;
  std::string gpu{};
  int gpus = 0;
  Price price{};
  std::string region{};
  std::string description{};
  Provenance provenance{};
  SourceLocation where{};
  SourceLocation currency_where{};  ///< the currency's value
  /// This record's own status in a market (in-country stock of a restricted card), over the GPU's.
  std::vector<MarketStatus> availability{};
};

/// The status stated for `market` (case-insensitive) in `list`, or nullptr.
const MarketStatus* status_in(const std::vector<MarketStatus>& list, std::string_view market);

enum class OperatingKind {
  kElectricityPerKwh,
  kPue,
  kColocationPerMonth,
  kColocationPerKwMonth,
  kOperationsPerMonth,
  kLeadTime,
  kUsefulLife,
  kResidualValue,
  kDiscountRate,
};
std::string_view to_string(OperatingKind k);

struct OperatingCost {
  std::string id{};
  OperatingKind kind = OperatingKind::kPue;
  std::optional<Money> money{};  ///< money kinds
  double number = 0.0;           ///< pue, shares; durations in seconds
  std::string region{};
  std::string description{};
  Provenance provenance{};
  SourceLocation where{};
  SourceLocation currency_where{};  ///< the currency's value, when written
};

struct FxRate {
  std::string id{};
  Currency from = kUsd;
  Currency to = kCny;
  double rate = 1.0;  ///< 1 `from` = rate `to`
  std::string rate_text{};
  Provenance provenance{};
  SourceLocation where{};
};

/// A hosted model's API, priced per token: what serving a model yourself is
/// weighed against (`serve` api.offer). Prices are per million tokens, in
/// `currency`; each may carry its own source and date.
struct ApiOffer {
  std::string id{};
  std::string name{};            ///< as the provider lists it ("deepseek-chat")
  std::string provider{};        ///< who hosts it (not a GPU provider of this catalog)
  std::string model{};           ///< the model served ("DeepSeek-V3")
  double parameters = 0;         ///< of the model served, when public; 0 = not stated
  double active_parameters = 0;  ///< MoE: a token's; 0 = dense or not stated
  Currency currency = kUsd;
  Price input{};   ///< a million prompt tokens (cache misses where the provider prices cache hits apart)
  Price output{};  ///< a million output tokens
  std::string note{};
  Provenance provenance{};
  SourceLocation where{};
  SourceLocation currency_where{};
};

struct Catalog {
  Seconds stale_after = Days(180);  ///< offers priced longer ago are flagged stale
  bool stale_after_given = false;   ///< set by the file, so a merge carries it over
  std::vector<FxRate> fx_rates{};
  std::vector<Gpu> gpus{};
  std::vector<Provider> providers{};
  std::vector<Offer> offers{};
  std::vector<Purchase> purchases{};
  std::vector<OperatingCost> operating{};
  std::vector<ApiOffer> apis{};

  const Gpu* find_gpu(std::string_view id) const;
  const ApiOffer* find_api(std::string_view id) const;
  const Provider* find_provider(std::string_view id) const;
  const Offer* find_offer(std::string_view id) const;
  /// The offer's instance (its id when it names none) when another offer sells
  /// the same GPU from the same provider and region, so that a row showing
  /// provider, region and GPU would not say which it is (p5 on demand or a
  /// Capacity Block); "" when those identify it.
  std::string instance_if_ambiguous(const Offer& o) const;
};

/// The catalog compiled from pricing/default.yaml.
const Catalog& builtin_catalog();

/// Parses one catalog file. Every problem is collected (not just the first);
/// references to ids (an offer's gpu, provider) are checked against `base`
/// plus this file. Throws InputErrors when there is any problem.
Catalog parse_catalog(std::string_view yaml, const std::string& file, const Catalog* base = nullptr);

/// Reads a file (size-capped, refuses directories and FIFOs) and parses it.
Catalog load_catalog_file(const std::string& path, const Catalog* base = nullptr);

/// `overlay` over `base`: records with the same id are replaced, new ones appended.
Catalog merge(Catalog base, const Catalog& overlay);

/// All problems of a catalog file, in file order (catalog validate).
std::vector<InputError> validate_catalog_file(const std::string& path, const Catalog* base);

/// The newest purchase of `kind` (for `gpu` when not empty), preferring `region`; nullptr when none.
const Purchase* find_purchase(const Catalog& c, PurchaseKind kind, std::string_view gpu, std::string_view region);
/// The first operating record of `kind`, preferring `region`; nullptr when none.
const OperatingCost* find_operating(const Catalog& c, OperatingKind kind, std::string_view region);

/// Matches a GPU filter: case-insensitive equal, or a prefix ending at '-'
/// ("A100" matches "A100-80G"; "a100-80g" matches "A100-80G-PCIe").
bool gpu_matches(std::string_view filter, std::string_view gpu_id);
enum class FilterKind { kGpu, kProvider, kRegion };
struct FilterProblem {
  std::size_t index = 0;  ///< of the filter in its list
  std::string message{};  ///< "'X' matches nothing in the catalog (known: …)"
};
/// The first filter of that kind that matches no GPU id, provider or region.
std::optional<FilterProblem> filter_problem(const Catalog& c, FilterKind kind, const std::vector<std::string>& filters);
/// Throws InputError at `flags[0..2]` for a GPU, provider or region filter
/// that matches nothing in the catalog (a typo must not look like "no offers"),
/// listing what is known.
void check_filters(const Catalog& c, const std::vector<std::string>& gpus, const std::vector<std::string>& providers,
                   const std::vector<std::string>& regions, const std::array<const char*, 3>& flags);

/// Records of `c` dated after `today` (as_of in the future: a typo, or a
/// price that cannot have been seen yet), one problem each at its place.
std::vector<InputError> future_dates(const Catalog& c, Date today);

/// Whether an offer's nodes are in `region`: its provider's country, or its
/// own region (exactly, or as a prefix: cn matches cn-north-1).
bool offer_in_region(const Catalog& c, const Offer& o, std::string_view region);

/// An offer's yearly price change in one billing mode, from its dated prices
/// (history and current, in one currency): (newest / oldest)^(365 / days) − 1.
/// nullopt without a current price, with fewer than two dates or under 180
/// days apart (a jump within weeks, raised to a year, is noise). Evidence for a
/// price-drift input, never applied by itself.
struct PriceTrend {
  double yearly = 0.0;
  Date from{};
  Date to{};
};
std::optional<PriceTrend> price_trend(const Offer& o, BillingMode mode);

/// The status of buying `g` in `market`: the purchase record's own (stock
/// already in the country) over the card's; nullptr when neither says.
const MarketStatus* purchase_status(const Gpu& g, const Purchase* record, std::string_view market);

/// An option the catalog says is not plainly available in `market` (export
/// controls): the warning ("buy: A100-80G is restricted in CN: …") and the
/// note that names its source.
struct AvailabilityCaveat {
  std::string option{};  ///< "buy", "rent_hourly", …
  Availability status = Availability::kUnknown;
  std::string detail{};   ///< "A100-80G is restricted in CN: …"
  std::string warning{};  ///< option: detail
  std::string source_note{};
};
/// Buying `gpu` in `market`, judged on the card record a scenario would price
/// it from (purchase_status). nullopt for an available card or one not stated.
std::optional<AvailabilityCaveat> purchase_caveat(const Catalog& c, std::string_view gpu, std::string_view market);
/// Renting offer `offer` from `market`, as `option` ("rent_hourly"). nullopt
/// for an available offer, one not stated, or an offer not in the catalog.
std::optional<AvailabilityCaveat> rental_caveat(const Catalog& c, std::string_view option, std::string_view offer,
                                                std::string_view market);

/// Case-insensitive equality of ids.
bool id_equals(std::string_view a, std::string_view b);

/// The conversion from `from` to `to`: the newest rate for the pair, or the
/// inverse of the newest reverse rate. nullopt when the catalog has neither.
struct Conversion {
  double rate = 1.0;
  const FxRate* via = nullptr;  ///< nullptr when from == to
  bool inverse = false;
};
std::optional<Conversion> find_conversion(const Catalog& catalog, Currency from, Currency to);

}  // namespace gpuplan
