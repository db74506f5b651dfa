// pricing/*.yaml -> Catalog. The schema is documented in pricing/README.md;
// this file is its only reader, and the build runs it on default.yaml.
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "gpuplan/catalog.h"
#include "gpuplan/i18n.h"
#include "gpuplan/io.h"
#include "gpuplan/scenario_fields.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {
namespace {

using detail::Diagnostics;
using detail::Fields;
using detail::item_path;

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (const char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

std::string read_id(Fields& f) {
  const auto id = f.text("id", true);
  if (!id) return {};
  if (!valid_id(*id)) {
    f.fail(f.get("id", false), f.field("id"), trf("'{}' is not an id (letters, digits, '.', '_', '-')", *id));
    return {};
  }
  return *id;
}

// `source` is text or a list of texts (joined with "; ").
std::optional<std::string> read_source(Fields& f, bool required) {
  const detail::Node n = f.get("source", required);
  if (!n.defined()) return std::nullopt;
  std::string out;
  if (n.is_scalar()) {
    out = n.scalar();
  } else if (n.is_sequence()) {
    for (std::size_t i = 0; i < n.size(); ++i) {
      if (!n[i].is_scalar()) {
        f.fail(n[i], f.field("source"), std::string(tr("each source must be text")));
        return std::nullopt;
      }
      if (!out.empty()) out += "; ";
      out += n[i].scalar();
    }
  } else {
    f.fail(n, f.field("source"), std::string(tr("must be text or a list of texts")));
    return std::nullopt;
  }
  if (out.find_first_not_of(" \t") == std::string::npos) {
    f.fail(n, f.field("source"), std::string(tr("is empty; say where the number comes from")));
    return std::nullopt;
  }
  return out;
}

// source + as_of (+ confidence, note). `inherited` supplies what is missing.
Provenance read_provenance(Fields& f, const Provenance* inherited) {
  Provenance p = inherited ? *inherited : Provenance{};
  if (auto s = read_source(f, inherited == nullptr)) p.source = intern(*s);
  // "unknown": the source gives no date (never the day it was read: that would look fresh).
  const auto as_of = [](const std::string& s) -> std::optional<Date> {
    if (s == "unknown") return std::nullopt;
    return parse_date(s);
  };
  if (auto d = f.value("as_of", inherited == nullptr, as_of)) p.as_of = *d;
  if (auto c = f.text("confidence", false)) {
    if (*c != "low" && *c != "medium" && *c != "high")
      f.fail(f.get("confidence", false), f.field("confidence"), std::string(tr("must be low, medium or high")));
    else p.confidence = intern(*c);
  }
  if (auto n = f.text("note", false)) p.note = intern(*n);
  return p;
}

enum class Sign { kPositive, kNonNegative };

Money check_sign(Money m, Sign sign) {
  if (sign == Sign::kPositive && m.micros() <= 0)
    throw std::invalid_argument(std::string(tr("must be a positive amount")));
  if (m.micros() < 0) throw std::invalid_argument(std::string(tr("must not be negative")));
  return m;
}

// A price: a bare decimal (inherits the record's provenance) or a map
// {price, source, as_of, confidence, note}.
std::optional<Price> read_price(Fields& f, std::string_view key, bool required, Currency currency,
                                const Provenance& record, Sign sign) {
  Diagnostics& diag = f.diagnostics();
  const detail::Node n = f.get(key, required);
  // `hourly:` with nothing after it would silently drop the price.
  if (const detail::Node empty = f.written_empty(key); !required && empty.defined()) {
    diag.fail(empty, f.field(key), std::string(tr("is empty: give a price, or leave the key out")));
    return std::nullopt;
  }
  if (!n.defined()) return std::nullopt;
  const auto parse = [&](const std::string& s) { return check_sign(Money::parse(s, currency), sign); };
  if (n.is_map()) {
    Fields pf(diag, n, f.field(key));
    const auto amount = pf.value("price", true, parse);
    const Provenance prov = read_provenance(pf, &record);
    pf.finish();
    if (!amount || !pf.ok()) return std::nullopt;
    return Price{*amount, prov, diag.at(n)};
  }
  const auto amount = f.parse_node(n, f.field(key), parse);
  if (!amount) return std::nullopt;
  return Price{*amount, record, diag.at(n)};
}

// A share within its range, parsed as a kShare field is (one message for every share).
std::optional<double> read_share(Fields& f, std::string_view key, bool required, double lo, double hi,
                                 bool lo_open = false, bool hi_open = false) {
  const Range range{lo, hi, lo_open, hi_open};
  return f.value(key, required, [&](const std::string& s) {
    return std::get<double>(parse_kind(ValueKind::kShare, range, {}, s, FieldContext{}));
  });
}

template <class Q>
auto positive(Q (*parse)(std::string_view)) {
  return [parse](const std::string& s) {
    const Q q = parse(s);
    if (!(q > Q{})) throw std::invalid_argument(trf("{} must be greater than zero", s));
    return q;
  };
}

// `where` when it was set, else `fallback` (a value inherited from elsewhere).
const SourceLocation& where_or(const SourceLocation& where, const SourceLocation& fallback) {
  return where.file.empty() ? fallback : where;
}

// The currency, and where its value is written (for "no exchange rate" later).
std::optional<Currency> read_currency(Fields& f, bool required, SourceLocation& where) {
  const auto c = f.value("currency", required, [](const std::string& s) { return Currency(s); });
  if (const detail::Node n = f.get("currency", false); n.defined()) where = f.diagnostics().at(n);
  return c;
}

// Each list section: iterate items, build records, report duplicate ids.
template <class Record, class Read>
void read_list(Diagnostics& diag, const detail::Node& root, std::string_view section, std::vector<Record>& out,
               Read read) {
  const detail::Node list = root.child(section);
  if (!list.defined() || list.is_null()) return;
  if (!list.is_sequence()) {
    diag.fail(list, std::string(section), std::string(tr("must be a list")));
    return;
  }
  std::map<std::string, int> first_line;
  for (std::size_t i = 0; i < list.size(); ++i) {
    Fields f(diag, list[i], item_path(std::string(section), i));
    if (!f.is_map()) continue;
    std::optional<Record> rec = read(f);
    f.finish();
    if (!rec || !f.ok()) continue;
    std::string key = rec->id;
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto [pos, fresh] = first_line.emplace(key, rec->where.line);
    if (!fresh) {
      diag.fail(f.get("id", false), f.field("id"), trf("duplicate id '{}' (first on line {})", rec->id, pos->second));
      continue;
    }
    out.push_back(std::move(*rec));
  }
}

std::optional<FxRate> read_fx(Fields& f) {
  FxRate r;
  r.where = f.diagnostics().at(f.node());
  r.id = read_id(f);
  const auto cur = [](const std::string& s) { return Currency(s); };
  if (auto c = f.value("from", true, cur)) r.from = *c;
  if (auto c = f.value("to", true, cur)) r.to = *c;
  if (auto v = f.value("rate", true, [](const std::string& s) {
        const double x = parse_number(s);
        if (!(x > 0)) throw std::invalid_argument(std::string(tr("must be a positive rate")));
        return std::pair(x, s);
      })) {
    r.rate = v->first;
    r.rate_text = v->second;
  }
  r.provenance = read_provenance(f, nullptr);
  if (f.ok() && r.from == r.to) f.fail(f.node(), f.field("to"), std::string(tr("must differ from `from`")));
  return r;
}

// A hosted API's prices per million tokens; its model's size when public.
std::optional<ApiOffer> read_api(Fields& f) {
  ApiOffer a;
  a.where = f.diagnostics().at(f.node());
  a.id = read_id(f);
  if (auto s = f.text("name", true)) a.name = *s;
  if (auto s = f.text("provider", true)) a.provider = *s;
  if (auto s = f.text("model", true)) a.model = *s;
  const auto count = [](const std::string& s) {
    const double n = parse_count(s);
    if (!(n > 0 && n < 1e15)) throw std::invalid_argument(std::string(tr("must be a positive count (7B, 671B)")));
    return n;
  };
  if (auto n = f.value("parameters", false, count)) a.parameters = *n;
  if (auto n = f.value("active_parameters", false, count)) a.active_parameters = *n;
  if (auto s = f.text("note", false)) a.note = *s;
  const auto cur = read_currency(f, true, a.currency_where);
  a.currency = cur.value_or(kUsd);
  a.provenance = read_provenance(f, nullptr);
  if (auto p = read_price(f, "input_per_million", true, a.currency, a.provenance, Sign::kNonNegative)) a.input = *p;
  if (auto p = read_price(f, "output_per_million", true, a.currency, a.provenance, Sign::kNonNegative)) a.output = *p;
  if (f.ok() && a.active_parameters > 0 && a.parameters > 0 && a.active_parameters >= a.parameters)
    f.fail(f.get("active_parameters", false), f.field("active_parameters"),
           std::string(tr("must be fewer than parameters")));
  return a;
}

// availability: [{market: CN, status: restricted, reason: …, source: …, as_of: …}]
void read_availability(Fields& f, std::vector<MarketStatus>& out) {
  const detail::Node list = f.get("availability", false);
  if (!list.defined()) return;
  if (!list.is_sequence()) {
    f.fail(list, f.field("availability"), std::string(tr("must be a list of {market, status, reason, source, as_of}")));
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    Fields af(f.diagnostics(), list[i], item_path(f.field("availability"), i));
    if (!af.is_map()) {
      af.fail(list[i], af.path(), std::string(tr("must be a map {market, status, reason, source, as_of}")));
      continue;
    }
    MarketStatus m;
    m.where = f.diagnostics().at(list[i]);
    if (auto s = af.text("market", true)) {
      m.market = *s;
      // A typo ("China") would match no market and silently lift the restriction.
      if (s->size() != 2 || !std::isalpha(static_cast<unsigned char>((*s)[0])) ||
          !std::isalpha(static_cast<unsigned char>((*s)[1])))
        af.fail(af.get("market", false), af.field("market"), trf("'{}' is not an ISO 3166 code like CN or US", *s));
    }
    if (auto s = af.text("status", true)) {
      if (*s == "available") m.status = Availability::kAvailable;
      else if (*s == "restricted") m.status = Availability::kRestricted;
      else if (*s == "unknown") m.status = Availability::kUnknown;
      else
        af.fail(af.get("status", false), af.field("status"), trf("'{}' is not available, restricted or unknown", *s));
    }
    if (auto s = af.text("reason", m.status != Availability::kAvailable)) {
      m.reason = *s;
      if (m.reason.find_first_not_of(" \t") == std::string::npos)
        af.fail(af.get("reason", false), af.field("reason"),
                std::string(tr("is empty: say why (the rule, the licence, the stock)")));
    }
    if (auto s = af.text("reason_zh", false)) m.reason_zh = *s;
    m.provenance = read_provenance(af, nullptr);
    af.finish();
    for (const MarketStatus& before : out)
      if (id_equals(before.market, m.market)) af.fail(list[i], af.path(), trf("market {} is stated twice", m.market));
    if (af.ok()) out.push_back(std::move(m));
  }
}

std::optional<Gpu> read_gpu(Fields& f) {
  Gpu g;
  g.where = f.diagnostics().at(f.node());
  g.id = read_id(f);
  if (auto s = f.text("name", true)) g.name = *s;
  if (auto s = f.text("form_factor", false)) {
    if (*s != "sxm" && *s != "pcie" && *s != "consumer")
      f.fail(f.get("form_factor", false), f.field("form_factor"), std::string(tr("must be sxm, pcie or consumer")));
    g.form_factor = *s;
  }
  if (auto v = f.value("memory", true, positive(parse_size))) g.memory = *v;
  if (auto v = f.value("memory_bandwidth", false, positive(parse_rate))) g.memory_bandwidth = *v;
  if (auto s = f.text("software", false)) g.software = *s;
  if (auto v = f.value("tdp", true, positive(parse_power))) g.tdp = *v;
  if (auto v = f.value("nvlink", false, positive(parse_rate))) g.nvlink = *v;
  if (auto v = detail::read_whole_in(f, "pcie_gen", 1, 6)) g.pcie_gen = *v;
  const detail::Node tf = f.get("tflops", true);
  if (tf.defined()) {
    Fields tff(f.diagnostics(), tf, f.field("tflops"));
    for (const Precision p : kAllPrecisions) {
      if (auto v = tff.value(to_string(p), false, [](const std::string& s) {
            const double x = parse_number(s);
            if (!(x > 0)) throw std::invalid_argument(std::string(tr("must be greater than zero")));
            return x;
          }))
        g.dense_tflops[p] = *v;
    }
    tff.finish();
    if (tff.ok() && g.dense_tflops.empty())
      tff.fail(tf, f.field("tflops"), std::string(tr("needs at least one precision")));
  }
  g.provenance = read_provenance(f, nullptr);
  read_availability(f, g.availability);
  return g;
}

// What joins instances into one job: a fabric (or none: single machines) and
// the most instances one job may use; "none" with more than one is a contradiction.
void read_fabric(Fields& f, std::string& fabric, std::optional<int>& max_instances) {
  static const std::vector<std::string> kFabrics = {"infiniband", "roce", "ethernet", "none"};
  if (auto s = f.text("fabric", false)) {
    if (std::find(kFabrics.begin(), kFabrics.end(), *s) == kFabrics.end())
      f.fail(f.get("fabric", false), f.field("fabric"), trf("{} not in {{infiniband, roce, ethernet, none}}", *s));
    else fabric = *s;
  }
  if (auto n = detail::read_whole_in(f, "max_instances", 1, 1000000)) max_instances = *n;
  if (fabric == "none" && max_instances && *max_instances > 1)
    f.fail(f.get("max_instances", false), f.field("max_instances"),
           std::string(tr("fabric none joins no instances: at most 1")));
}

std::optional<Provider> read_provider(Fields& f) {
  Provider p;
  p.where = f.diagnostics().at(f.node());
  p.id = read_id(f);
  if (auto s = f.text("name", true)) p.name = *s;
  if (auto s = f.text("kind", false)) {
    if (*s != "cloud" && *s != "gpu_cloud" && *s != "marketplace")
      f.fail(f.get("kind", false), f.field("kind"), std::string(tr("must be cloud, gpu_cloud or marketplace")));
    p.kind = *s;
  }
  if (auto s = f.text("country", false)) {
    if (s->size() != 2 || !std::isupper(static_cast<unsigned char>((*s)[0])) ||
        !std::isupper(static_cast<unsigned char>((*s)[1])))
      f.fail(f.get("country", false), f.field("country"), trf("'{}' is not an ISO 3166 code like CN or US", *s));
    p.country = *s;
  }
  if (auto c = read_currency(f, true, p.currency_where)) p.currency = *c;
  if (auto d = f.value("billing_granularity", true, positive(parse_duration))) p.billing_granularity = *d;
  if (auto d = f.value("minimum_billing", false, parse_duration)) p.minimum_billing = *d;
  p.provenance = read_provenance(f, nullptr);
  const detail::Node st = f.get("storage", false);
  if (st.defined()) {
    Fields sf(f.diagnostics(), st, f.field("storage"));
    for (const StorageTier t : {StorageTier::kCloudDisk, StorageTier::kLocalNvme, StorageTier::kObject})
      if (auto pr = read_price(sf, to_string(t), false, p.currency, p.provenance, Sign::kNonNegative))
        p.storage_per_gb_month[t] = *pr;
    sf.finish();
  }
  p.egress_per_gb = read_price(f, "egress_per_gb", false, p.currency, p.provenance, Sign::kNonNegative);
  p.bandwidth_per_mbps_month =
      read_price(f, "bandwidth_per_mbps_month", false, p.currency, p.provenance, Sign::kNonNegative);
  // support_percent: a share, or {value, source, as_of} when its source is not the record's.
  if (const detail::Node sp = f.get("support_percent", false); sp.defined() && sp.is_map()) {
    Fields sf(f.diagnostics(), sp, f.field("support_percent"));
    p.support_share = read_share(sf, "value", true, 0.0, 1.0);
    p.support_provenance = read_provenance(sf, &p.provenance);
    sf.finish();
  } else {
    p.support_share = read_share(f, "support_percent", false, 0.0, 1.0);
    if (p.support_share) p.support_provenance = p.provenance;
  }
  p.support_minimum_monthly =
      read_price(f, "support_minimum_monthly", false, p.currency, p.provenance, Sign::kNonNegative);
  read_fabric(f, p.fabric, p.max_instances);
  return p;
}

struct Refs {
  const Catalog* base;
  const std::vector<Gpu>* gpus;
  const std::vector<Provider>* providers;
  bool has_gpu(std::string_view id) const {
    for (const Gpu& g : *gpus)
      if (g.id == id) return true;
    return base && base->find_gpu(id);
  }
  const Provider* provider(std::string_view id) const {
    for (const Provider& p : *providers)
      if (p.id == id) return &p;
    return base ? base->find_provider(id) : nullptr;
  }
};

// history: [{mode, price, source, as_of, ...}]: earlier prices, each older than
// the current price of its mode (a newer one would be the price itself).
template <class PerInstance>
void read_history(Fields& f, Offer& o, PerInstance per_instance) {
  const detail::Node list = f.get("history", false);
  if (!list.defined()) return;
  if (!list.is_sequence()) {
    f.fail(list, f.field("history"), std::string(tr("must be a list of {mode, price, source, as_of}")));
    return;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    Fields hf(f.diagnostics(), list[i], item_path(f.field("history"), i));
    if (!hf.is_map()) {
      hf.fail(list[i], hf.path(), std::string(tr("must be a map {mode, price, source, as_of}")));
      continue;
    }
    const auto mode = hf.value("mode", true, [](const std::string& s) {
      if (auto m = parse_billing_mode(s)) return *m;
      throw std::invalid_argument(trf("'{}' is not hourly, monthly or spot", s));
    });
    const auto amount = hf.value(
        "price", true, [&](const std::string& s) { return check_sign(Money::parse(s, o.currency), Sign::kPositive); });
    const Provenance prov = read_provenance(hf, nullptr);
    hf.finish();
    if (!mode || !amount || !hf.ok()) continue;
    const std::optional<Price> past = per_instance(Price{*amount, prov, f.diagnostics().at(list[i])});
    if (const std::optional<Price>& now = o.price(*mode);
        now && now->provenance.as_of && prov.as_of && *prov.as_of >= *now->provenance.as_of) {
      hf.fail(hf.get("as_of", false), hf.field("as_of"),
              trf("{} is not older than the current {} price ({}): make it the price, and this one history",
                  format_date(prov.as_of), to_string(*mode), format_date(now->provenance.as_of)));
      continue;
    }
    o.history.push_back(PastPrice{*mode, *past});
  }
}

std::optional<Offer> read_offer(Fields& f, const Refs& refs) {
  Offer o;
  o.where = f.diagnostics().at(f.node());
  o.id = read_id(f);
  const Provider* provider = nullptr;
  if (auto s = f.text("provider", true)) {
    o.provider = *s;
    provider = refs.provider(*s);
    if (!provider) f.fail(f.get("provider", false), f.field("provider"), trf("unknown provider '{}'", *s));
  }
  if (auto s = f.text("region", true)) o.region = *s;
  if (auto s = f.text("instance", false)) o.instance = *s;
  if (auto s = f.text("gpu", true)) {
    o.gpu = *s;
    if (!refs.has_gpu(*s)) f.fail(f.get("gpu", false), f.field("gpu"), trf("unknown GPU id '{}'", *s));
  }
  if (auto n = detail::read_whole_in(f, "gpus", 1, 1024, true)) o.gpus = *n;
  if (auto c = read_currency(f, false, o.currency_where)) o.currency = *c;
  else if (provider) o.currency = provider->currency;
  bool per_gpu = false;
  if (auto s = f.text("price_per", false)) {
    if (*s == "gpu") per_gpu = true;
    else if (*s != "instance")
      f.fail(f.get("price_per", false), f.field("price_per"), std::string(tr("must be instance or gpu")));
  }
  o.provenance = read_provenance(f, nullptr);
  o.billing_granularity = provider ? provider->billing_granularity : Seconds(3600);
  o.minimum_billing = provider ? provider->minimum_billing : Seconds(0);
  if (auto d = f.value("billing_granularity", false, positive(parse_duration))) o.billing_granularity = *d;
  if (auto d = f.value("minimum_term", false, positive(parse_duration))) o.minimum_term = *d;
  if (auto r = f.value("network", false, positive(parse_rate))) o.network = *r;
  read_fabric(f, o.fabric, o.max_instances);
  read_availability(f, o.availability);
  if (o.fabric.empty() && provider) o.fabric = provider->fabric;
  if (!o.max_instances && provider && o.fabric == provider->fabric) o.max_instances = provider->max_instances;
  if (o.fabric == "none" && o.network)
    f.fail(f.get("network", false), f.field("network"),
           std::string(tr("a network joins instances, and fabric none joins none")));
  if (auto s = f.text("interconnect", false)) {
    if (*s != "nvlink" && *s != "pcie")
      f.fail(f.get("interconnect", false), f.field("interconnect"), trf("{} not in {{nvlink, pcie}}", *s));
    else o.interconnect = *s;
  }
  const auto per_instance = [&](std::optional<Price> p) {
    if (p && per_gpu) p->amount = p->amount.times(o.gpus);
    return p;
  };
  o.hourly = per_instance(read_price(f, "hourly", false, o.currency, o.provenance, Sign::kPositive));
  o.monthly = per_instance(read_price(f, "monthly", false, o.currency, o.provenance, Sign::kPositive));
  if (auto period = f.value("monthly_period", false, positive(parse_duration))) {
    // A "month" quoted for another period (a 30-day package): scale to 730 h.
    if (!o.monthly)
      f.fail(f.get("monthly_period", false), f.field("monthly_period"), std::string(tr("needs a monthly price")));
    else o.monthly->amount = o.monthly->amount.scaled(Months(1) / *period);
  }
  o.spot = per_instance(read_price(f, "spot", false, o.currency, o.provenance, Sign::kPositive));
  o.spot_discount = read_share(f, "spot_discount", false, 0.0, 1.0, true, true);
  if (o.spot_discount) {
    if (o.spot) {
      f.fail(f.get("spot_discount", false), f.field("spot_discount"),
             std::string(tr("give either spot or spot_discount, not both")));
    } else if (!o.hourly) {
      f.fail(f.get("spot_discount", false), f.field("spot_discount"),
             std::string(tr("needs an hourly price to discount")));
    } else {
      // spot = hourly × (1 − discount): the provider's rule, priced as of the hourly price.
      Price derived = *o.hourly;
      derived.amount = o.hourly->amount.scaled(1.0 - *o.spot_discount);
      o.spot = derived;
    }
  }
  const detail::Node cm = f.get("commitments", false);
  if (cm.defined()) {
    if (!cm.is_sequence()) {
      f.fail(cm, f.field("commitments"), std::string(tr("must be a list")));
    } else {
      for (std::size_t i = 0; i < cm.size(); ++i) {
        Fields cf(f.diagnostics(), cm[i], item_path(f.field("commitments"), i));
        if (!cf.is_map()) continue;
        Commitment c;
        if (auto d = cf.value("term", true, positive(parse_duration))) c.term = *d;
        auto h = per_instance(read_price(cf, "hourly", false, o.currency, o.provenance, Sign::kPositive));
        auto m = per_instance(read_price(cf, "monthly", false, o.currency, o.provenance, Sign::kPositive));
        cf.finish();
        if (h.has_value() == m.has_value()) {
          cf.fail(cm[i], cf.path(), std::string(tr("give exactly one of hourly or monthly")));
          continue;
        }
        c.basis = h ? BillingMode::kHourly : BillingMode::kMonthly;
        c.price = h ? *h : *m;
        if (cf.ok()) o.commitments.push_back(c);
      }
    }
  }
  read_history(f, o, per_instance);
  if (f.ok() && !o.hourly && !o.monthly && !o.spot)
    f.fail(f.node(), f.path(), std::string(tr("needs at least one of hourly, monthly, spot")));
  return o;
}

std::optional<Purchase> read_purchase(Fields& f, const Refs& refs) {
  Purchase p;
  p.where = f.diagnostics().at(f.node());
  p.id = read_id(f);
  if (auto s = f.text("kind", true)) {
    if (*s == "card") p.kind = PurchaseKind::kCard;
    else if (*s == "server") p.kind = PurchaseKind::kServer;
    else if (*s == "server_base") p.kind = PurchaseKind::kServerBase;
    else if (*s == "network") p.kind = PurchaseKind::kNetwork;
    else f.fail(f.get("kind", false), f.field("kind"), std::string(tr("must be card, server, server_base or network")));
  }
  const bool has_gpu = p.kind == PurchaseKind::kCard || p.kind == PurchaseKind::kServer;
  if (auto s = f.text("gpu", has_gpu)) {
    p.gpu = *s;
    if (!refs.has_gpu(*s)) f.fail(f.get("gpu", false), f.field("gpu"), trf("unknown GPU id '{}'", *s));
  }
  if (auto n = detail::read_whole_in(f, "gpus", 0, 1024, p.kind == PurchaseKind::kServer)) p.gpus = *n;
  if (p.kind == PurchaseKind::kCard) p.gpus = 1;
  if (auto s = f.text("region", false)) p.region = *s;
  if (auto s = f.text("description", false)) p.description = *s;
  const Currency cur = read_currency(f, true, p.currency_where).value_or(kCny);
  p.provenance = read_provenance(f, nullptr);
  read_availability(f, p.availability);
  if (auto pr = read_price(f, "price", true, cur, p.provenance, Sign::kPositive)) p.price = *pr;
  return p;
}

// An operating record's number, parsed and range-checked by the scenario field it stands for.
double scenario_value(OperatingKind kind, const std::string& text) {
  const Field<Scenario>& row = operating_field(kind);
  const Value v = parse_kind(row.kind, row.range, row.choices, text, FieldContext{});
  return as_number(v);
}

std::optional<OperatingCost> read_operating(Fields& f) {
  OperatingCost c;
  c.where = f.diagnostics().at(f.node());
  c.id = read_id(f);
  static const std::pair<std::string_view, OperatingKind> kKinds[] = {
      {"electricity_per_kwh", OperatingKind::kElectricityPerKwh},
      {"pue", OperatingKind::kPue},
      {"colocation_per_month", OperatingKind::kColocationPerMonth},
      {"colocation_per_kw_month", OperatingKind::kColocationPerKwMonth},
      {"operations_per_month", OperatingKind::kOperationsPerMonth},
      {"lead_time", OperatingKind::kLeadTime},
      {"useful_life", OperatingKind::kUsefulLife},
      {"residual_value", OperatingKind::kResidualValue},
      {"discount_rate", OperatingKind::kDiscountRate}};
  std::optional<OperatingKind> kind;
  if (auto s = f.text("kind", true)) {
    for (const auto& [name, k] : kKinds)
      if (name == *s) kind = k;
    if (!kind)
      f.fail(f.get("kind", false), f.field("kind"),
             trf("'{}' is not a kind (electricity_per_kwh, pue, colocation_per_month, "
                 "colocation_per_kw_month, operations_per_month, lead_time, useful_life, "
                 "residual_value, discount_rate)",
                 *s));
  }
  if (auto s = f.text("region", false)) c.region = *s;
  if (auto s = f.text("description", false)) c.description = *s;
  const auto cur = read_currency(f, false, c.currency_where);
  c.provenance = read_provenance(f, nullptr);
  if (!kind) {
    f.get("value", false);
    return c;
  }
  c.kind = *kind;
  switch (*kind) {
    case OperatingKind::kElectricityPerKwh:
    case OperatingKind::kColocationPerMonth:
    case OperatingKind::kColocationPerKwMonth:
    case OperatingKind::kOperationsPerMonth:
      if (!cur) f.fail(f.node(), f.field("currency"), std::string(tr("is required for a money value")));
      if (auto pr = read_price(f, "value", true, cur.value_or(kCny), c.provenance, Sign::kNonNegative))
        c.money = pr->amount;
      break;
    case OperatingKind::kPue:
    case OperatingKind::kLeadTime:
    case OperatingKind::kUsefulLife:
    case OperatingKind::kResidualValue:
    case OperatingKind::kDiscountRate:
      // The value a scenario field takes: read by that field's row, so its range is written once.
      if (auto v = f.value("value", true, [&](const std::string& s) { return scenario_value(*kind, s); }))
        c.number = *v;
      break;
  }
  return c;
}

}  // namespace

// Values that parse but cannot be right, most often a unit slip: each
// range is wide enough for every card and price in the sources (pricing/
// README.md), so a value outside it is refused with what it probably is.
//   memory per card            1 GB – 1 TB        (81920GB: MiB written as GB)
//   a GPU-hour, any mode       0.05 – 2,000 CNY   (H100 on demand: 15–100 CNY)
//   monthly ÷ hourly           100 – 1,000 hours  (a month is 730 h; packages 50–90% of it)
//   commitments                one price per term
constexpr double kMinGpuHourCny = 0.05, kMaxGpuHourCny = 2000;
constexpr double kMinMonthHours = 100, kMaxMonthHours = 1000;

void check_gpu_hour(const Offer& o, const Price& p, double hours, const Catalog& rates, const std::string& field,
                    Diagnostics& diag) {
  const auto to_cny = find_conversion(rates, p.amount.currency(), kCny);
  if (!to_cny) return;  // reported with the currency
  const double cny = p.amount.units() * to_cny->rate / hours / o.gpus;
  if (cny < kMinGpuHourCny || cny > kMaxGpuHourCny)
    diag.fail(p.where, field,
              trf("{:.4g} CNY a GPU-hour is outside {:g}–{:g}: a price per month written as per hour, per "
                  "instance as per GPU, or a unit slip?",
                  cny, kMinGpuHourCny, kMaxGpuHourCny));
}

void check_offer(const Offer& o, const Catalog& rates, const std::string& path, Diagnostics& diag) {
  if (o.hourly) check_gpu_hour(o, *o.hourly, 1, rates, path + ".hourly", diag);
  if (o.spot) check_gpu_hour(o, *o.spot, 1, rates, path + ".spot", diag);
  if (o.monthly) check_gpu_hour(o, *o.monthly, 730, rates, path + ".monthly", diag);
  if (o.hourly && o.monthly && o.hourly->amount.currency() == o.monthly->amount.currency()) {
    const double hours = o.monthly->amount.units() / o.hourly->amount.units();
    if (hours < kMinMonthHours || hours > kMaxMonthHours)
      diag.fail(o.monthly->where, path + ".monthly",
                trf("is {:.3g} hours of this offer's hourly price; a month has 730 (packages: 50–90% of "
                    "it): an hourly figure, or a yearly one?",
                    hours));
  }
  for (std::size_t i = 0; i < o.commitments.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (o.commitments[k].term == o.commitments[i].term)
        diag.fail(o.commitments[i].price.where, item_path(path + ".commitments", i),
                  std::string(tr("a second price for the same term: one price per commitment term")));
}

void check_plausible(const Catalog& cat, const Catalog* base, Diagnostics& diag) {
  for (std::size_t i = 0; i < cat.gpus.size(); ++i) {
    const double gb = cat.gpus[i].memory.value() / 1e9;
    if (gb < 1 || gb > 1024)
      diag.fail(cat.gpus[i].where, item_path("gpus", i) + ".memory",
                trf("{:g} GB a card is outside 1–1024 GB: MiB written as GB?", gb));
  }
  Catalog rates;
  if (base) rates.fx_rates = base->fx_rates;
  rates.fx_rates.insert(rates.fx_rates.end(), cat.fx_rates.begin(), cat.fx_rates.end());
  for (std::size_t i = 0; i < cat.offers.size(); ++i) check_offer(cat.offers[i], rates, item_path("offers", i), diag);
}

Catalog parse_catalog(std::string_view yaml, const std::string& file, const Catalog* base) {
  Diagnostics diag(file);
  Catalog cat;
  const std::optional<detail::Node> doc = detail::load_document(yaml, diag);
  if (doc) {
    detail::check_one_line(*doc, yaml, diag);
    Fields root(diag, *doc, "");
    if (root.is_map()) {
      if (auto v = root.text("schema_version", true); v && *v != "1")
        root.fail(root.get("schema_version", false), "schema_version", trf("{} is not supported (1 is)", *v));
      const detail::Node settings = root.get("settings", false);
      if (settings.defined()) {
        Fields sf(diag, settings, "settings");
        if (auto d = sf.value("stale_after", false, positive(parse_duration))) {
          cat.stale_after = *d;
          cat.stale_after_given = true;
        }
        sf.finish();
      }
      for (const char* section : {"fx_rates", "gpus", "providers", "offers", "purchases", "operating", "apis"})
        root.get(section, false);
      read_list(diag, *doc, "fx_rates", cat.fx_rates, read_fx);
      read_list(diag, *doc, "gpus", cat.gpus, read_gpu);
      read_list(diag, *doc, "providers", cat.providers, read_provider);
      const Refs refs{base, &cat.gpus, &cat.providers};
      read_list(diag, *doc, "offers", cat.offers, [&](Fields& f) { return read_offer(f, refs); });
      read_list(diag, *doc, "purchases", cat.purchases, [&](Fields& f) { return read_purchase(f, refs); });
      read_list(diag, *doc, "operating", cat.operating, read_operating);
      read_list(diag, *doc, "apis", cat.apis, read_api);
      root.finish();
    }
  }
  // Every currency must convert to CNY (the default display currency) with the
  // rates of this file and the catalogs below it, or reports would fail later.
  if (diag.count() == 0) {
    Catalog rates;
    if (base) rates.fx_rates = base->fx_rates;
    rates.fx_rates.insert(rates.fx_rates.end(), cat.fx_rates.begin(), cat.fx_rates.end());
    const auto check_currency = [&](Currency c, const SourceLocation& where, const std::string& field) {
      if (!find_conversion(rates, c, kCny))
        diag.fail(where, field,
                  trf("{} has no exchange rate to CNY in the catalog (add one under fx_rates)", c.code()));
    };
    for (std::size_t i = 0; i < cat.providers.size(); ++i)
      check_currency(cat.providers[i].currency, cat.providers[i].currency_where,
                     item_path("providers", i) + ".currency");
    for (std::size_t i = 0; i < cat.offers.size(); ++i)
      check_currency(cat.offers[i].currency, where_or(cat.offers[i].currency_where, cat.offers[i].where),
                     item_path("offers", i) + ".currency");
    for (std::size_t i = 0; i < cat.purchases.size(); ++i)
      check_currency(cat.purchases[i].price.amount.currency(), cat.purchases[i].currency_where,
                     item_path("purchases", i) + ".currency");
    for (std::size_t i = 0; i < cat.operating.size(); ++i)
      if (cat.operating[i].money)
        check_currency(cat.operating[i].money->currency(),
                       where_or(cat.operating[i].currency_where, cat.operating[i].where),
                       item_path("operating", i) + ".currency");
    for (std::size_t i = 0; i < cat.apis.size(); ++i)
      check_currency(cat.apis[i].currency, cat.apis[i].currency_where, item_path("apis", i) + ".currency");
  }
  if (diag.count() == 0) check_plausible(cat, base, diag);
  diag.throw_if_any();
  return cat;
}

Catalog load_catalog_file(const std::string& path, const Catalog* base) {
  const std::string text = read_input_file(path);
  return parse_catalog(text, path, base);
}

std::vector<InputError> validate_catalog_file(const std::string& path, const Catalog* base) {
  try {
    load_catalog_file(path, base);
  } catch (const InputErrors& e) {
    return e.problems();
  } catch (const InputError& e) {
    return {e};
  }
  return {};
}

}  // namespace gpuplan
