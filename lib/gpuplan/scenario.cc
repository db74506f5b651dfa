#include "gpuplan/scenario.h"

#include "gpuplan/i18n.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <functional>

#include "gpuplan/cost/rent.h"
#include "gpuplan/io.h"
#include "gpuplan/scenario_fields.h"
#include "gpuplan/serving_plan.h"
#include "gpuplan/training.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {
namespace {

using detail::Diagnostics;
using detail::Fields;

/// Add-ons: `rent:` sets them for every rental mode at once, a mode for itself.
struct AddOns {
  std::optional<Money> storage{}, egress{}, support_minimum{};
  std::optional<double> support{};
};

/// What the file says about one rental mode; offers are resolved later.
struct RentRequest {
  bool enabled = true;
  std::optional<std::string> offer{};  ///< "none": a price in no catalog
  std::optional<Money> per_instance{}, per_gpu{};
  std::optional<Seconds> commitment{};
  std::optional<int> gpus_per_instance{};
  std::optional<Seconds> granularity{}, minimum{};
  std::optional<double> discount{};  ///< spot only
  AddOns add_ons{};
  bool priced() const { return per_instance || per_gpu; }
  bool no_offer() const { return offer && id_equals(*offer, "none"); }
};

struct RentShared {
  std::vector<std::string> providers{};
  std::optional<double> price_trend{};
  std::optional<std::vector<std::string>> regions{};
  AddOns add_ons{};
  std::optional<Seconds> provisioning{};
};

/// A scenario as read, before defaults: the values given, which rows were
/// given (by section), and the rental requests.
struct Draft {
  Scenario s{};
  std::vector<Given> given{};  ///< one per scenario_sections() entry
  RentRequest hourly{}, monthly{}, spot{};
  RentShared shared{};
};

/// Reports a problem with a field (located by the loader, or thrown for defaults).
using Report = std::function<void(const std::string& field, const std::string& message)>;

// ---- reading (YAML → Draft) ----

std::size_t section_index(std::string_view name) {
  const auto sections = scenario_sections();
  for (std::size_t i = 0; i < sections.size(); ++i)
    if (sections[i].name == name) return i;
  throw std::logic_error(fmt::format("no scenario section '{}'", name));
}

std::vector<std::string_view> known_keys(std::string_view section, std::initializer_list<std::string_view> more = {}) {
  std::vector<std::string_view> keys = keys_of(scenario_section(section).rows);
  keys.insert(keys.end(), more);
  return keys;
}

// A section of the file read through its table.
void read_section(Fields& parent, std::string_view key, std::string_view name, Draft& d, const FieldContext& ctx) {
  Fields f(parent.diagnostics(), detail::section(parent, key), std::string(name), known_keys(name));
  d.given[section_index(name)] = detail::read_fields(f, d.s, scenario_section(name).rows, ctx);
  f.finish();
}

template <class T>
std::optional<T> as(const std::optional<Value>& v) {
  if (!v || std::holds_alternative<std::monostate>(*v)) return std::nullopt;
  return std::get<T>(*v);
}

AddOns read_add_ons(Fields& f, std::span<const Field<Scenario>> rows, const FieldContext& ctx) {
  AddOns a;
  a.storage = as<Money>(detail::read_row(f, rows, "storage_per_gb_month", ctx));
  a.egress = as<Money>(detail::read_row(f, rows, "egress_per_gb", ctx));
  a.support = as<double>(detail::read_row(f, rows, "support", ctx));
  a.support_minimum = as<Money>(detail::read_row(f, rows, "support_minimum_monthly", ctx));
  return a;
}

RentRequest read_rent_request(Fields& rent, std::string_view mode, Draft& d, const FieldContext& ctx) {
  const std::string name = fmt::format("rent.{}", mode);
  const auto rows = scenario_section(name).rows;
  Fields f(rent.diagnostics(), detail::section(rent, mode), name, known_keys(name, {"price"}));
  RentRequest q;
  if (auto e = as<bool>(detail::read_row(f, rows, "enabled", ctx))) q.enabled = *e;
  q.offer = as<std::string>(detail::read_row(f, rows, "offer", ctx));
  const std::string per = mode == "monthly" ? "month" : "hour";
  q.per_instance = as<Money>(detail::read_row(f, rows, "price_per_instance_" + per, ctx));
  q.per_gpu = as<Money>(detail::read_row(f, rows, "price_per_gpu_" + per, ctx));
  // `price` said per instance in the file and read per GPU in reports: it is gone, with a pointer.
  if (const detail::Node old = f.get("price", false); old.defined())
    f.fail(old, f.field("price"),
           trf("was renamed: write price_per_instance_{0} (one instance of gpus_per_instance GPUs) or "
               "price_per_gpu_{0}",
               per));
  q.add_ons = read_add_ons(f, rows, ctx);
  if (mode == "monthly") q.commitment = as<Seconds>(detail::read_row(f, rows, "commitment", ctx));
  if (q.commitment && q.commitment->count() == 0) q.commitment.reset();  // 0: no term, as echoed
  if (mode == "spot") q.discount = as<double>(detail::read_row(f, rows, "discount", ctx));
  q.gpus_per_instance = as<int>(detail::read_row(f, rows, "gpus_per_instance", ctx));
  q.granularity = as<Seconds>(detail::read_row(f, rows, "billing_granularity", ctx));
  q.minimum = as<Seconds>(detail::read_row(f, rows, "minimum_billing", ctx));
  d.given[section_index(name)] = detail::read_fields(f, d.s, rows, ctx);
  f.finish();
  return q;
}

// rent.regions: each a name (a country, a provider region or its prefix, or
// any) and at least one; "[CN" (a YAML list typed into --set) or an empty
// list would silently leave out every rental. A well-formed name no offer has
// (JP) is an answer, not a mistake: no rental there, which the report says.
void check_regions(Fields& f, std::optional<std::vector<std::string>>& regions) {
  if (const detail::Node empty = f.written_empty("regions"); empty.defined()) {
    f.fail(empty, f.field("regions"), std::string(tr("is empty: give a value, or leave the key out for its default")));
    return;
  }
  if (!regions) return;
  const detail::Node n = f.get("regions", false);
  if (regions->empty()) {
    f.fail(n, f.field("regions"), std::string(tr("names no region: give one (CN, cn-northwest-1) or any")));
    regions.reset();
    return;
  }
  for (const std::string& r : *regions) {
    const bool name = std::all_of(r.begin(), r.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
    });
    if (name) continue;
    f.fail(n, f.field("regions"),
           trf("'{}' is not a region name (letters, digits, '-', '_', '.'); give several as CN,US", r));
    regions.reset();
    return;
  }
}

void read_rent(Fields& top, Draft& d, const FieldContext& ctx) {
  const auto rows = scenario_section("rent").rows;
  Fields f(top.diagnostics(), detail::section(top, "rent"), "rent", known_keys("rent"));
  RentShared& sh = d.shared;
  if (auto p = as<std::string>(detail::read_row(f, rows, "provider", ctx))) sh.providers.push_back(*p);
  sh.regions = detail::read_list(f, "regions");
  check_regions(f, sh.regions);
  sh.price_trend = as<double>(detail::read_row(f, rows, "price_trend", ctx));
  sh.add_ons = read_add_ons(f, rows, ctx);
  sh.provisioning = as<Seconds>(detail::read_row(f, rows, "provisioning", ctx));
  d.hourly = read_rent_request(f, "hourly", d, ctx);
  d.monthly = read_rent_request(f, "monthly", d, ctx);
  d.spot = read_rent_request(f, "spot", d, ctx);
  f.finish();
}

// Sections that may be absent exist in the draft so that given values land;
// resolution drops the ones that end up without a price.
Draft empty_draft(Currency currency) {
  Draft d;
  d.given.assign(scenario_sections().size(), Given{});
  d.s.currency = currency;
  d.s.hourly.emplace();
  d.s.monthly.emplace();
  d.s.spot.emplace();
  return d;
}

Draft read_draft(const detail::Node& root, Diagnostics& diag, const FieldContext& ctx) {
  Draft d = empty_draft(ctx.fx->display());
  Fields top(diag, root, "", known_keys("", {"workload", "buy", "rent", "hybrid", "tax"}));
  if (!top.is_map()) throw InputErrors(std::move(diag.problems()));
  d.given[section_index("")] = detail::read_fields(top, d.s, scenario_section("").rows, ctx);
  if (auto v = top.text("schema_version", false); v && *v != "1")
    top.fail(top.get("schema_version", false), "schema_version", trf("{} is not supported (1 is)", *v));
  top.get("currency", false);  // read with the header
  read_section(top, "workload", "workload", d, ctx);
  read_section(top, "buy", "buy", d, ctx);
  read_rent(top, d, ctx);
  if (top.get("hybrid", false).defined()) {
    d.s.hybrid.emplace();
    read_section(top, "hybrid", "hybrid", d, ctx);
  }
  read_section(top, "tax", "tax", d, ctx);
  top.finish();
  return d;
}

// ---- resolving (Draft + catalog → Scenario); no YAML below ----

class Resolver {
 public:
  Resolver(Draft& d, const FieldContext& ctx, DefaultNotes& notes, Report report)
      : d_(d), s_(d.s), ctx_(ctx), notes_(notes), report_(std::move(report)) {}

  void defaults(std::string_view section) {
    const Section<Scenario>& sec = scenario_section(section);
    for (const MissingField& m : apply_defaults(s_, sec, d_.given[section_index(section)], ctx_, notes_))
      report_(m.field, m.message);
  }
  /// A default named with its reason, `why()` built in the reader's language
  /// (and in English, which its quality is read from).
  template <class Build>
  void note(const std::string& field, const std::string& value, Build&& why) {
    notes_.add(field, value, why(), in_english(why));
  }
  /// A default named with a field row's reason.
  void note(const std::string& field, const std::string& value, const Field<Scenario>& row) {
    notes_.add(field, value, std::string(tr(row.why)), row.why);
  }
  void fail(const std::string& field, const std::string& message) { report_(field, message); }
  Money convert(Money m) const { return ctx_.fx->convert(m); }
  const Catalog& catalog() const { return *ctx_.catalog; }
  const FieldContext& context() const { return ctx_; }
  Scenario& scenario() { return s_; }
  const Scenario& scenario() const { return s_; }
  /// Whether the file gave `section.key`.
  bool given(std::string_view section, std::string_view key) const {
    const auto rows = scenario_section(section).rows;
    const Given& g = d_.given[section_index(section)];
    for (std::size_t i = 0; i < rows.size() && i < g.size(); ++i)
      if (rows[i].key == key) return g[i];
    return false;
  }
  Draft& draft() { return d_; }

 private:
  Draft& d_;
  Scenario& s_;
  const FieldContext& ctx_;
  DefaultNotes& notes_;
  Report report_;
};

void check_buy(Resolver& rv) {
  const Scenario& s = rv.scenario();
  const OwnInputs& o = s.own;
  // Owned cards must be able to do the work the rentals are compared on.
  if (o.cards < s.workload.gpus)
    rv.fail("buy.cards", trf("{} card(s) cannot run a workload of {} GPUs (workload.gpus)", o.cards, s.workload.gpus));
  const bool delay_given = rv.given("buy", "delay_cost_per_month");
  // The lead time is a cost too (SPEC): with no training and no bridge it must be priced.
  if (!delay_given && o.cover == LeadTimeCover::kDelayCost && o.lead_time > Seconds(0))
    rv.fail("buy.delay_cost_per_month",
            std::string(tr("is required with lead_time_cover: delay_cost (what a month without training costs)")));
  if (o.resale_share && o.resale_amount)
    rv.fail("buy.resale_amount", std::string(tr("give resale_value or resale_amount, not both")));
  if (o.financing == Financing::kLease && o.lease_upfront + o.lease_buyout > 1)
    rv.fail("buy.lease_buyout", trf("lease_upfront ({:g}%) and lease_buyout ({:g}%) add up to over 100%",
                                    o.lease_upfront * 100, o.lease_buyout * 100));
}

// A committed-use price of `term` as a price per instance-month.
std::optional<Price> commitment_monthly(const Offer& o, Seconds term) {
  for (const Commitment& c : o.commitments) {
    if (std::abs(c.term.count() - term.count()) > 1.0) continue;
    Price p = c.price;
    if (c.basis == BillingMode::kHourly) p.amount = p.amount.scaled(Months(1) / Hours(1));  // every hour is paid
    return p;
  }
  return std::nullopt;
}

// Whether an offer's nodes are where rent.regions allows (offer_in_region), or anywhere.
bool allowed_region(const Catalog& c, const Offer& o, const std::vector<std::string>& regions) {
  return std::any_of(regions.begin(), regions.end(),
                     [&](const std::string& r) { return id_equals(r, "any") || offer_in_region(c, o, r); });
}

std::string regions_text(const std::vector<std::string>& regions) {
  std::string out;
  for (const auto& r : regions) out += (out.empty() ? "" : ", ") + r;
  return out;
}

// The cheapest offer per GPU-hour for `gpu` and `mode` (or a committed term), after conversion.
const Offer* cheapest_offer(const Resolver& rv, const std::string& gpu, BillingMode mode,
                            const std::vector<std::string>& providers, std::optional<Seconds> term) {
  const Offer* best = nullptr;
  double best_rate = 0;
  for (const Offer& o : rv.catalog().offers) {
    if (!id_equals(o.gpu, gpu)) continue;
    const std::optional<Price> committed = term ? commitment_monthly(o, *term) : std::nullopt;
    if (term ? !committed : !o.price(mode)) continue;
    if (!providers.empty() && std::none_of(providers.begin(), providers.end(),
                                           [&](const std::string& p) { return id_equals(p, o.provider); }))
      continue;
    if (!allowed_region(rv.catalog(), o, rv.scenario().rent_regions)) continue;
    const double per = mode == BillingMode::kMonthly ? Months(1) / Hours(1) : 1.0;
    const Money price = committed ? committed->amount : o.price(mode)->amount;
    const double rate = rv.convert(price).units() / (per * o.gpus);
    if (!best || rate < best_rate) {
      best = &o;
      best_rate = rate;
    }
  }
  return best;
}

// The committed terms the catalog sells `gpu` on within the scenario's regions and providers, shortest first.
std::vector<Seconds> committed_terms(const Resolver& rv, const std::string& gpu,
                                     const std::vector<std::string>& providers) {
  std::vector<Seconds> terms;
  for (const Offer& o : rv.catalog().offers)
    for (const Commitment& c : o.commitments)
      if (id_equals(o.gpu, gpu) && std::find(terms.begin(), terms.end(), c.term) == terms.end() &&
          cheapest_offer(rv, gpu, BillingMode::kMonthly, providers, c.term))
        terms.push_back(c.term);
  std::sort(terms.begin(), terms.end());
  return terms;
}

// The provider's storage (cloud disk, else local NVMe, else object storage),
// egress and support, each named in the option's notes.
void provider_add_ons(const Resolver& rv, RentInputs& r, const Provider& p) {
  bool priced = false;
  for (const StorageTier t : {StorageTier::kCloudDisk, StorageTier::kLocalNvme, StorageTier::kObject})
    if (auto it = p.storage_per_gb_month.find(t); !priced && it != p.storage_per_gb_month.end()) {
      r.storage_per_gb_month = rv.convert(it->second.amount);
      r.notes.push_back(trf("storage at {}'s {} price", p.id, to_string(t)));
      priced = true;
    }
  if (!priced)
    r.notes.push_back(
        trf("{} has no storage price in the catalog: storage not costed (set rent.storage_per_gb_month)", p.id));
  if (!p.egress_per_gb)
    r.notes.push_back(trf("{} has no egress price in the catalog: egress not costed (set rent.egress_per_gb)", p.id));
  if (p.egress_per_gb) r.egress_per_gb = rv.convert(p.egress_per_gb->amount);
  // A support plan is a choice, not part of the price: named, not charged,
  // unless the scenario sets rent.support.
  if (p.support_share)
    r.notes.push_back(trf(
        "{} sells support at {:g}% of the bill{}: set rent.support to include it", p.id, *p.support_share * 100,
        p.support_minimum_monthly ? fmt::format(" (at least {} a month)",
                                                to_pretty_string(p.support_minimum_monthly->amount) + " " +
                                                    std::string(p.support_minimum_monthly->amount.currency().code()))
                                  : ""));
}

// A workload over more GPUs than one instance holds, on instances the catalog
// says cannot be joined: right for independent jobs, not for one job over them all.
void unjoined_note(const Resolver& rv, RentInputs& r, const Offer& o, BillingMode mode) {
  const int gpus = rv.scenario().workload.gpus, n = instances_for(gpus, o.gpus);
  const Gpu* g = rv.catalog().find_gpu(o.gpu);
  if (n <= 1 || !g) return;
  const OfferShape shape = offer_shape(o, *g, rv.catalog());
  if (n <= shape.shape.max_instances) return;
  const int joined = std::max(1, shape.shape.max_instances);
  std::string note =
      joined == 1
          ? trf("{} instances of {} GPU(s) that cannot be joined{}: right for independent jobs of up to {} GPU(s); a "
                "run over all {} GPUs needs a larger instance or another offer",
                n, o.gpus, shape.assumed.empty() ? "" : tr(" (assumed: the catalog states no fabric)"), o.gpus, gpus)
          : trf("{} instances of {} GPU(s), more than the {} one job may join: right for jobs of up to {} GPUs; a run "
                "over all {} GPUs needs a larger instance or another offer",
                n, o.gpus, joined, joined * o.gpus, gpus);
  // compare() counts every instance's reclaims against the run, as for one job: the dearer reading.
  if (mode == BillingMode::kSpot) note += trf(" (reclaims counted as for one run over the {} instances)", n);
  r.notes.push_back(std::move(note));
}

void fill_from_offer(const Resolver& rv, RentInputs& r, const Offer& o, BillingMode mode) {
  if (const auto& price = o.price(mode)) {
    // A stale price is flagged wherever it is used, not only by `prices`.
    const auto age = age_days(price->provenance, rv.context().today);
    const double stale_days = std::chrono::duration_cast<Days>(rv.context().stale_after).count();
    if (!age)
      r.notes.push_back(
          trf("the {} price of {} is undated (as_of unknown): its source gives no date", to_string(mode), o.id));
    else if (static_cast<double>(*age) > stale_days)
      r.notes.push_back(trf("the {} price of {} is stale: as_of {}, {} days old", to_string(mode), o.id,
                            format_date(price->provenance.as_of), *age));
  }
  // Another card than the one bought is compared hour for hour: said, not converted.
  if (!id_equals(o.gpu, rv.scenario().own.gpu))
    r.notes.push_back(
        trf("rents {} against the {} bought, hour for hour (no speed adjustment)", o.gpu, rv.scenario().own.gpu));
  r.offer = o.id;
  r.description =
      trf("{} {} ({} GPU{})", o.provider, o.instance.empty() ? o.gpu : o.instance, o.gpus, o.gpus == 1 ? "" : "s");
  if (const auto& p = o.price(mode)) r.price = rv.convert(p->amount);
  r.gpus_per_instance = o.gpus;
  unjoined_note(rv, r, o, mode);
  r.granularity = o.billing_granularity;
  r.minimum_billing = o.minimum_billing;
  if (const Provider* p = rv.catalog().find_provider(o.provider)) provider_add_ons(rv, r, *p);
}

// The offer a request names: its price for `mode`, or its committed term.
void named_offer(Resolver& rv, const RentRequest& q, const std::string& field, BillingMode mode, RentInputs& r) {
  const Offer* o = rv.catalog().find_offer(*q.offer);
  if (!o) return rv.fail(field + ".offer", trf("unknown offer '{}'", *q.offer));
  // An offer named is taken, but a node outside rent.regions is said.
  if (!allowed_region(rv.catalog(), *o, rv.scenario().rent_regions))
    r.notes.push_back(trf("offer {} is in {}, outside rent.regions ({})", o->id, o->region,
                          regions_text(rv.scenario().rent_regions)));
  // A committed term has its own price: an offer sold only by the hour and on terms is rented by the month on one.
  if (!o->price(mode) && mode != BillingMode::kSpot && !q.priced() && !q.commitment)
    return rv.fail(field + ".offer", trf("offer '{}' has no {} price", *q.offer, tr(to_string(mode))));
  if (q.commitment) {
    const auto p = commitment_monthly(*o, *q.commitment);
    if (!p)
      return rv.fail(field + ".commitment",
                     trf("offer '{}' has no {} commitment", *q.offer, format_duration(*q.commitment)));
    fill_from_offer(rv, r, *o, BillingMode::kHourly);
    r.price = rv.convert(p->amount);
  } else {
    // A mode the offer has no price for: its shape and add-ons, priced by the price given
    // (or, for spot, a discount below).
    BillingMode from = mode;
    for (const BillingMode m : {mode, BillingMode::kHourly, BillingMode::kMonthly, BillingMode::kSpot})
      if (o->price(m)) {
        from = m;
        break;
      }
    fill_from_offer(rv, r, *o, from);
  }
}

// No offer and no price: the catalog's cheapest for the GPU, named as a default.
bool cheapest_default(Resolver& rv, const RentRequest& q, const std::string& field, BillingMode mode, RentInputs& r) {
  const std::string& gpu = rv.scenario().own.gpu;
  const Offer* o = cheapest_offer(rv, gpu, mode, rv.draft().shared.providers, q.commitment);
  if (!o) {
    if (q.priced()) return false;  // a price needs no offer: an instance in no catalog
    rv.note(field, "none", [&] {
      const auto& regions = rv.scenario().rent_regions;
      const bool anywhere = std::any_of(regions.begin(), regions.end(),
                                        [](const std::string& region) { return id_equals(region, "any"); });
      const std::string where = anywhere ? std::string(tr(" anywhere (rent.regions: any)"))
                                         : trf(" in {} (rent.regions; any: anywhere)", regions_text(regions));
      if (q.commitment)
        return trf("the catalog has no {} commitment for {}{}", format_duration(*q.commitment), gpu, where);
      std::string terms;
      if (mode == BillingMode::kMonthly)
        for (const Seconds t : committed_terms(rv, gpu, rv.draft().shared.providers))
          terms += (terms.empty() ? "" : ", ") + fmt::format("rent.monthly.commitment={}", format_duration(t));
      return trf("the catalog has no {} offer for {}{}", tr(to_string(mode)), gpu, where) +
             (terms.empty() ? std::string() : trf("; it has committed terms: {}", terms));
    });
    return false;
  }
  if (q.commitment) {
    const auto p = commitment_monthly(*o, *q.commitment);
    fill_from_offer(rv, r, *o, BillingMode::kHourly);
    r.price = rv.convert(p->amount);
    rv.note(field + ".offer", o->id, [&] {
      return trf("cheapest {} commitment per GPU-hour for {} in the catalog: {}", format_duration(*q.commitment), gpu,
                 cite(p->provenance));
    });
  } else {
    fill_from_offer(rv, r, *o, mode);
    rv.note(field + ".offer", o->id, [&] {
      return trf("cheapest {} price per GPU-hour for {} in the catalog: {}", tr(to_string(mode)), gpu,
                 cite(o->price(mode)->provenance));
    });
  }
  return true;
}

// A price given: it reprices the offer (named, or the catalog's cheapest:
// its shape, billing and add-ons stay). With `offer: none`, or no offer for the
// GPU, it is an instance in no catalog: workload.gpus cards unless
// gpus_per_instance says otherwise, billed exactly.
void given_price(Resolver& rv, const RentRequest& q, const std::string& field, BillingMode mode, bool from_catalog,
                 RentInputs& r) {
  const char* per = mode == BillingMode::kMonthly ? "month" : "hour";
  if (q.per_instance && q.per_gpu)
    return rv.fail(trf("{}.price_per_gpu_{}", field, per),
                   trf("give price_per_instance_{0} or price_per_gpu_{0}, not both", per));
  if (!from_catalog) {
    r.offer.clear();
    r.gpus_per_instance = rv.scenario().workload.gpus;
    r.granularity = Seconds(mode == BillingMode::kMonthly ? 0 : 1);
    r.minimum_billing = Seconds(0);
  }
  if (q.gpus_per_instance) r.gpus_per_instance = *q.gpus_per_instance;
  r.price = q.per_instance ? *q.per_instance : q.per_gpu->times(r.gpus_per_instance);
  r.description = from_catalog
                      ? r.description + std::string(tr(", at a given price"))
                      : trf("given price ({} GPU{})", r.gpus_per_instance, r.gpus_per_instance == 1 ? "" : "s");
}

// One rental mode: the offer named (or none), else the catalog's cheapest; a
// price given reprices it. Returns whether the option is compared.
bool resolve_mode(Resolver& rv, const RentRequest& q, std::string_view mode_key, BillingMode mode, RentInputs& r) {
  const std::string field = fmt::format("rent.{}", mode_key);
  // Every amount starts at zero in the report currency.
  const Currency cur = rv.scenario().currency;
  for (Money* m : {&r.price, &r.storage_per_gb_month, &r.egress_per_gb, &r.support_minimum_monthly})
    *m = Money::zero(cur);
  bool enabled = q.enabled;
  bool from_catalog = false;
  if (q.offer && !q.no_offer()) {
    named_offer(rv, q, field, mode, r);
    from_catalog = true;
  } else if (!q.no_offer() && enabled && !(mode == BillingMode::kSpot && q.discount)) {
    from_catalog = cheapest_default(rv, q, field, mode, r);
    if (!from_catalog && !q.priced()) enabled = false;
  }
  if (q.commitment) {
    r.commitment_months = static_cast<int>(std::lround(*q.commitment / Months(1)));
    r.description += fmt::format(", {} commitment", format_duration(*q.commitment));
  }
  if (q.priced()) given_price(rv, q, field, mode, from_catalog, r);
  else if (q.gpus_per_instance) r.gpus_per_instance = *q.gpus_per_instance;
  if (q.no_offer() && !q.priced() && enabled)
    rv.fail(field + ".offer", trf("none needs a price: price_per_instance_{0} or price_per_gpu_{0}",
                                  mode == BillingMode::kMonthly ? "month" : "hour"));
  if (q.granularity) r.granularity = *q.granularity;
  if (q.minimum) r.minimum_billing = *q.minimum;
  return enabled;
}

// Add-ons given in the file: `rent:` for every option, then the option's own.
void apply_add_ons(const AddOns& a, RentInputs& r) {
  if (a.storage) r.storage_per_gb_month = *a.storage;
  if (a.egress) r.egress_per_gb = *a.egress;
  if (a.support) r.support_share = *a.support;
  if (a.support_minimum) r.support_minimum_monthly = *a.support_minimum;
}

// rent.provisioning: given, else its row's default (named once for every mode).
Seconds provisioning(Resolver& rv) {
  const RentShared& sh = rv.draft().shared;
  if (sh.provisioning) return *sh.provisioning;
  const Field<Scenario>& row = *find_field(scenario_section("rent").rows, "provisioning");
  const Value v = parse_field(row, std::string(row.fallback), rv.context());
  rv.note("rent.provisioning", std::string(row.fallback), row);
  return std::get<Seconds>(v);
}

// Spot priced as a discount off the hourly price: spot = hourly × (1 − discount).
bool spot_from_discount(Resolver& rv, const RentRequest& q) {
  Scenario& s = rv.scenario();
  if (q.offer || q.priced()) {
    rv.fail("rent.spot.discount",
            std::string(tr("give a spot offer or price, or a discount off the hourly price, not both")));
    return false;
  }
  if (!s.hourly) {
    rv.fail("rent.spot.discount", std::string(tr("needs an hourly price to discount")));
    return false;
  }
  // The hourly instance, shape and add-ons, at the discount; what spot gives for itself stays.
  s.spot->rent = s.hourly->rent;
  s.spot->rent.price = s.hourly->rent.price.scaled(1.0 - *q.discount);
  s.spot->rent.description = trf("{:g}% off {}", *q.discount * 100, s.hourly->rent.description);
  s.spot->discount = q.discount;
  std::vector<std::string>& own = s.spot->own_keys;
  if (q.gpus_per_instance) s.spot->rent.gpus_per_instance = *q.gpus_per_instance, own.push_back("gpus_per_instance");
  if (q.granularity) s.spot->rent.granularity = *q.granularity, own.push_back("billing_granularity");
  if (q.minimum) s.spot->rent.minimum_billing = *q.minimum, own.push_back("minimum_billing");
  const AddOns& a = q.add_ons;
  for (const auto& [given, key] : {std::pair{a.storage.has_value(), "storage_per_gb_month"},
                                   {a.egress.has_value(), "egress_per_gb"},
                                   {a.support.has_value(), "support"},
                                   {a.support_minimum.has_value(), "support_minimum_monthly"}})
    if (given) own.push_back(key);
  return true;
}

// rent.regions: given, else the scenario's region (named with its reason).
std::vector<std::string> rent_regions(Resolver& rv) {
  const RentShared& sh = rv.draft().shared;
  if (sh.regions) return *sh.regions;
  const Field<Scenario>& row = *find_field(scenario_section("rent").rows, "regions");
  rv.note("rent.regions", rv.scenario().region, row);
  return {rv.scenario().region};
}

// rent.price_trend not given: none assumed, with the rented offers' own dated
// prices named as evidence (never applied: a past cut need not repeat).
void price_trend_default(Resolver& rv, const RentInputs* hourly, const RentInputs* monthly) {
  const Field<Scenario>& row = *find_field(scenario_section("rent").rows, "price_trend");
  rv.note("rent.price_trend", std::string(row.fallback), [&] {
    std::string why(tr(row.why));
    for (const auto& [rent, mode] :
         {std::pair{hourly, BillingMode::kHourly}, std::pair{monthly, BillingMode::kMonthly}}) {
      const Offer* o = rent && !rent->offer.empty() ? rv.catalog().find_offer(rent->offer) : nullptr;
      if (const std::optional<PriceTrend> t = o ? price_trend(*o, mode) : std::nullopt)
        why += trf("; the rented offer's own: {} {} {:+.1f}% a year from {} to {}, not applied", o->id,
                   tr(to_string(mode)), t->yearly * 100, format_date(t->from), format_date(t->to));
    }
    return why;
  });
}

void resolve_rent(Resolver& rv) {
  Scenario& s = rv.scenario();
  Draft& d = rv.draft();
  s.rent_regions = rent_regions(rv);
  const bool hourly = resolve_mode(rv, d.hourly, "hourly", BillingMode::kHourly, s.hourly->rent);
  const bool monthly = resolve_mode(rv, d.monthly, "monthly", BillingMode::kMonthly, *s.monthly);
  if (d.shared.price_trend) s.rent_price_trend = *d.shared.price_trend;
  else price_trend_default(rv, hourly ? &s.hourly->rent : nullptr, monthly ? &*s.monthly : nullptr);
  bool spot = resolve_mode(rv, d.spot, "spot", BillingMode::kSpot, s.spot->rent);
  const Seconds ready = provisioning(rv);
  for (RentInputs* r : {&s.hourly->rent, &*s.monthly, &s.spot->rent}) {
    apply_add_ons(d.shared.add_ons, *r);
    r->provisioning = ready;
  }
  apply_add_ons(d.hourly.add_ons, s.hourly->rent);
  apply_add_ons(d.monthly.add_ons, *s.monthly);
  if (!hourly) s.hourly.reset();
  if (!monthly) s.monthly.reset();
  if (spot && d.spot.discount) spot = spot_from_discount(rv, d.spot);
  if (spot) apply_add_ons(d.spot.add_ons, s.spot->rent);
  if (spot && s.spot->rent.offer.empty() && s.spot->rent.price.micros() == 0) {
    rv.note("rent.spot", "none", [&] { return trf("the catalog has no spot offer for {}", s.own.gpu); });
    spot = false;
  }
  if (!spot) s.spot.reset();
  for (const char* mode : {"rent.hourly", "rent.monthly", "rent.spot"}) rv.defaults(mode);
  if (s.monthly && s.monthly->upfront_share > 0 && s.monthly->commitment_months == 0)
    rv.fail("rent.monthly.upfront", std::string(tr("needs rent.monthly.commitment (a term to pay upfront for)")));
}

void resolve_hybrid(Resolver& rv) {
  Scenario& s = rv.scenario();
  if (!s.hybrid) return;
  rv.defaults("hybrid");
  if (!s.hourly)
    rv.fail("hybrid", rv.draft().hourly.enabled
                          ? trf("needs rent.hourly for the rented part, and the catalog has no hourly offer for "
                                "{} in {} (rent.regions; any: anywhere)",
                                s.own.gpu, regions_text(s.rent_regions))
                          : "needs rent.hourly for the rented part");
}

// Options the catalog restricts in the region: said in their notes, or with
// exclude_restricted left out of the decision.
void market_caveats(Scenario& s, const Catalog& c) {
  for (const AvailabilityCaveat& x : availability_caveats(c, s)) {
    if (s.exclude_restricted && x.status == Availability::kRestricted)
      s.excluded.push_back({x.option, x.detail + " (exclude_restricted)"});
    else s.caveats.push_back({x.option, x.detail});
  }
}

void resolve(Resolver& rv) {
  for (const char* section : {"", "workload", "buy", "tax"}) rv.defaults(section);
  check_buy(rv);
  resolve_rent(rv);
  resolve_hybrid(rv);
  market_caveats(rv.scenario(), rv.catalog());
  if (!rv.given("buy", "server_base"))
    rv.scenario().own.server_base_factor = server_base_share_factor(rv.scenario(), rv.context()).value_or(0.0);
}

// ---- a served model (workload.serving) ----

// The serving file's load on the cards bought: their busy share beside
// training, and the cheapest way to rent the same serving, which every rental
// option then pays (serving_plan.h). A relative path is read from the
// scenario file's directory, as the file's author sees it.
void resolve_serving(Resolver& rv, const Context& ctx, const std::string& scenario_path) {
  Workload& w = rv.scenario().workload;
  if (w.serving.empty()) return;
  std::filesystem::path file(w.serving);
  if (file.is_relative() && !scenario_path.empty() && scenario_path != "-")
    file = std::filesystem::path(scenario_path).parent_path() / file;
  const ResolvedServing served = load_serving(file.string(), {}, ctx);  // its own problems, at its own lines
  const Serving& sv = served.serving;
  const OwnInputs& o = rv.scenario().own;
  const Gpu* gpu = rv.catalog().find_gpu(o.gpu);
  const std::optional<OwnedServing> owned = gpu ? serve_on_owned(sv, *gpu, o.cards, o.cards_per_server) : std::nullopt;
  if (!owned)
    return rv.fail("workload.serving", trf("{}: {} card(s) of {} cannot serve it within its targets (gpuplan "
                                           "serve {} --set serve.gpus={} says why)",
                                           file.string(), o.cards, o.gpu, file.string(), o.gpu));
  w.serving_share = owned->busy_share;
  const double peak = sv.traffic.requests_per_second * sv.traffic.peak_to_average;
  if (!owned->carries_peak)
    w.serving_overload = fmt::format(
        "the {} bought {} carry {:.3g} requests/s, the busiest hour of {} needs {:.3g} at serve.peak_load {:.0f}%",
        o.cards, o.gpu, owned->capacity_rps, file.string(), peak / sv.efficiency.peak_load,
        sv.efficiency.peak_load * 100);
  else if (w.utilisation + owned->busy_share > 1.0 + 1e-9)
    w.serving_overload = fmt::format(
        "training ({:.0f}% of the month) and serving ({:.1f}%) keep the {} bought {} busy more than a month holds",
        w.utilisation * 100, owned->busy_share * 100, o.cards, o.gpu);
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const RentalQuote* cheapest = nullptr;
  const std::vector<RentalQuote> quotes = rental_quotes(ctx.catalog(), fx, sv);
  for (const RentalQuote& q : quotes)
    if (q.monthly && (!cheapest || *q.monthly < *cheapest->monthly)) cheapest = &q;
  if (!cheapest)
    return rv.fail("workload.serving", trf("{}: no rental offer of its search serves it within its targets, "
                                           "so renting cannot be compared with owning",
                                           file.string()));
  w.serving_rented = *cheapest->monthly;
  w.serving_notes.push_back(
      trf("serves {} ({}): {} replica(s) on the {} bought {} carry {:.3g} requests/s, busy {:.1f}% of the month at the "
          "average {:g}/s (added to utilisation for their power){}",
          sv.name, file.string(), owned->plan.replicas, o.cards, o.gpu, owned->capacity_rps, owned->busy_share * 100,
          sv.traffic.requests_per_second,
          w.serving_overload.empty() ? "" : "; " + w.serving_overload + ": add cards (buy.cards)"));
  w.serving_notes.push_back(
      trf("renting the same serving costs {} {} a month ({} {}: {}): every rental option pays it as \"serving "
          "(rented)\", and buying until its cards arrive",
          to_pretty_string(cheapest->monthly->rounded()), cheapest->monthly->currency().code(), cheapest->offer->id,
          cheapest->mode_name(), cheapest->how()));
}

// ---- echo ----

Json echo_mode(const Scenario& s, const RentInputs& r, std::string_view section) {
  Json j = echo_rental(r, section == "rent.monthly");
  append(j, echo_fields(s, scenario_section(section).rows, s.currency));
  return j;
}

Json echo_scenario(const ResolvedScenario& out) {
  const Scenario& s = out.scenario;
  Json in = Json::object();
  in["scenario"] = out.source;
  append(in, echo_fields(s, scenario_section("").rows, s.currency));
  in["workload"] = echo_fields(s, scenario_section("workload").rows, s.currency);
  in["buy"] = echo_fields(s, scenario_section("buy").rows, s.currency);
  Json r = Json::object();
  r["regions"] = Json::strings(s.rent_regions);
  r["price_trend"] = s.rent_price_trend;
  if (s.hourly) r["hourly"] = echo_mode(s, s.hourly->rent, "rent.hourly");
  if (s.monthly) r["monthly"] = echo_mode(s, *s.monthly, "rent.monthly");
  if (s.spot) r["spot"] = echo_mode(s, s.spot->rent, "rent.spot");
  in["rent"] = std::move(r);
  if (s.hybrid) in["hybrid"] = echo_fields(s, scenario_section("hybrid").rows, s.currency);
  in["tax"] = echo_fields(s, scenario_section("tax").rows, s.currency);
  in["defaults_used"] = Json::strings(out.defaults_used);
  return in;
}

// ---- the header: the file's currency decides how bare amounts read ----

struct Header {
  Context local;
  Currency file_currency = kCny;
};

Header read_header(const detail::Node& root, const Context& ctx, Diagnostics& diag) {
  Header h{ctx, kCny};
  if (root.is_map() && root.child("currency").is_scalar()) {
    try {
      h.file_currency = Currency(root.child("currency").scalar());
    } catch (const std::invalid_argument& e) {
      diag.fail(root.child("currency"), "currency", e.what());
      throw InputErrors(std::move(diag.problems()));
    }
  }
  // The report is in --currency when given, else in the scenario's currency.
  if (!ctx.currency_given) h.local.currency = h.file_currency;
  try {
    require_conversion(ctx.catalog(), kCny, h.local.currency);  // the defaults' amounts
    require_conversion(ctx.catalog(), h.file_currency, h.local.currency);
  } catch (const std::invalid_argument& e) {
    diag.fail(root.child("currency"), "currency", e.what());
    throw InputErrors(std::move(diag.problems()));
  }
  return h;
}

FieldContext field_context(const Context& ctx, const CurrencyConverter& fx, Currency file_currency) {
  FieldContext f;
  f.catalog = &ctx.catalog();
  f.fx = &fx;
  f.file_currency = file_currency;
  f.now = ctx.now;
  f.today = ctx.today;
  f.stale_after = ctx.stale_after;
  return f;
}

ResolvedScenario finish(Draft& d, const std::string& source, const CurrencyConverter& fx, DefaultNotes& notes) {
  ResolvedScenario out;
  out.scenario = std::move(d.s);
  out.source = source;
  out.defaults_used = std::move(notes.lines);
  out.defaults = std::move(notes.entries);
  out.defaulted = std::move(notes.defaulted);
  out.inputs = echo_scenario(out);
  out.fx_notes = fx.notes();
  out.fx_used = fx.used_json();
  return out;
}

// Keys that say one thing two ways: a --set of one replaces the other, from
// the file or from an earlier --set (the later wins).
void drop_replaced(detail::Node& root, const std::vector<std::string>& sets) {
  static constexpr std::pair<std::string_view, std::string_view> kTwins[] = {
      {"price_per_instance_hour", "price_per_gpu_hour"},
      {"price_per_instance_month", "price_per_gpu_month"},
      {"resale_value", "resale_amount"}};
  std::vector<std::string> paths;
  for (const std::string& set : sets) paths.push_back(set.substr(0, set.find('=')));
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    if (sets[i].ends_with("=null") && sets[i].size() == path.size() + 5) continue;  // unsetting one keeps its twin
    const std::size_t dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    const std::string key = path.substr(dot == std::string::npos ? 0 : dot + 1);
    for (const auto& [a, b] : kTwins) {
      const std::string_view other = key == a ? b : key == b ? a : std::string_view();
      if (other.empty()) continue;
      const std::string other_path = (parent.empty() ? "" : parent + ".") + std::string(other);
      if (std::find(paths.begin() + static_cast<std::ptrdiff_t>(i) + 1, paths.end(), other_path) != paths.end())
        continue;  // a later --set of the twin wins over this one
      detail::Node n = root;
      for (std::size_t start = 0; !parent.empty() && n.is_map();) {
        const std::size_t end = parent.find('.', start);
        n = n.child(parent.substr(start, end - start));
        if (end == std::string::npos) break;
        start = end + 1;
      }
      if (n.is_map()) n.remove(other);
    }
  }
}

constexpr const char* kDefaultSource = tr_noop("built-in defaults (an 8-card A100-class team in Qingdao)");
constexpr const char* kDefaultName = tr_noop("8-card A100-class team in Qingdao (built-in defaults)");

}  // namespace

ResolvedScenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const Context& ctx,
                               const std::string* text) {
  Diagnostics diag(path.empty() ? "<defaults>" : path);
  const std::vector<std::string> given = echo_keys_as_sets(sets, scenario_sections());
  detail::Node root = detail::load_with_sets(path, given, diag, text, &sets);
  detail::check_unsets(diag, scenario_sections());
  diag.throw_if_any();
  drop_replaced(root, given);
  const Header h = read_header(root, ctx, diag);
  const CurrencyConverter fx(h.local.catalog(), h.local.currency);
  const FieldContext fctx = field_context(h.local, fx, h.file_currency);
  Draft d = read_draft(root, diag, fctx);
  if (d.s.name.empty()) d.s.name = path.empty() ? std::string(tr(kDefaultName)) : path;
  // A section with a bad value is not checked again as a whole: "-1 cards"
  // must not also be "0 cards cannot run the workload".
  std::set<std::string> bad_sections;
  for (const InputError& p : diag.problems()) bad_sections.insert(p.field().substr(0, p.field().rfind('.')));
  DefaultNotes notes;
  Resolver rv(d, fctx, notes, [&](const std::string& field, const std::string& message) {
    if (!bad_sections.contains(field.substr(0, field.rfind('.'))))
      diag.fail(detail::node_at(root, field), field, message);
  });
  resolve(rv);
  if (diag.count() == 0) resolve_serving(rv, h.local, path);
  diag.throw_if_any();
  return finish(d, path.empty() ? std::string(tr(kDefaultSource)) : path, fx, notes);
}

ResolvedScenario default_scenario(const Context& ctx) {
  const CurrencyConverter fx(ctx.catalog(), ctx.currency);
  const FieldContext fctx = field_context(ctx, fx, ctx.currency);
  Draft d = empty_draft(ctx.currency);
  d.s.name = tr(kDefaultName);
  DefaultNotes notes;
  std::vector<InputError> problems;
  Resolver rv(d, fctx, notes, [&](const std::string& field, const std::string& message) {
    problems.emplace_back(SourceLocation{"<defaults>"}, field, message);
  });
  resolve(rv);
  if (!problems.empty()) throw InputErrors(std::move(problems));
  return finish(d, std::string(tr(kDefaultSource)), fx, notes);
}

std::vector<AvailabilityCaveat> availability_caveats(const Catalog& c, const Scenario& s) {
  std::vector<AvailabilityCaveat> out;
  const auto add = [&](std::optional<AvailabilityCaveat> x) {
    if (x) out.push_back(std::move(*x));
  };
  add(purchase_caveat(c, s.own.gpu, s.region));
  if (s.hourly) add(rental_caveat(c, "rent_hourly", s.hourly->rent.offer, s.region));
  if (s.monthly) add(rental_caveat(c, "rent_monthly", s.monthly->offer, s.region));
  if (s.spot) add(rental_caveat(c, "spot", s.spot->rent.offer, s.region));
  return out;
}

}  // namespace gpuplan
