#include "gpuplan/scenario.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/cost/spot.h"
#include "gpuplan/io.h"
#include "gpuplan/yaml_reader.h"

namespace gpuplan {
namespace {

using detail::Diagnostics;
using detail::Fields;

constexpr double kHoursPerMonth = 730.0;

class Reader {
 public:
  /// Bare amounts in the file are in `file_currency`; results are in ctx.currency.
  Reader(const Context& ctx, Currency file_currency, ResolvedScenario& out, Diagnostics& diag)
      : ctx_(ctx), file_currency_(file_currency), out_(out), diag_(diag), fx_(ctx.catalog(), ctx.currency) {}

  void note(const std::string& field, const std::string& value, const std::string& why) {
    out_.defaults_used.push_back(fmt::format("{} = {} ({})", field, value, why));
  }

  Currency currency() const { return ctx_.currency; }

  // Money in the scenario currency: "1200", "1200 CNY" or "166 USD" (converted).
  std::optional<Money> money(Fields& f, std::string_view key, bool allow_zero = true) {
    return f.value(key, false, [&](const std::string& s) {
      Money m = parse_money(s, file_currency_);
      if (m.micros() < 0 || (!allow_zero && m.micros() == 0))
        throw std::invalid_argument(allow_zero ? "must not be negative" : "must be a positive amount");
      if (m.units() >= Money::kMaxPlausibleUnits)
        throw std::invalid_argument(fmt::format("{} is a trillion or more: not an amount gpuplan can plan with", s));
      if (m.currency() != ctx_.currency) m = convert(m);
      return m;
    });
  }

  Money convert(Money m) {
    try {
      return fx_.convert(m);
    } catch (const InputError& e) {
      throw std::invalid_argument(e.message());
    }
  }
  Money convert_catalog(Money m) { return fx_.convert(m); }

  std::optional<double> share(Fields& f, std::string_view key, double lo, double hi) {
    return f.value(key, false, [&](const std::string& s) {
      const double v = parse_share(s);
      if (v < lo || v > hi)
        throw std::invalid_argument(fmt::format("{} is outside {:g}%..{:g}%", s, lo * 100, hi * 100));
      return v;
    });
  }

  std::optional<int> whole(Fields& f, std::string_view key, int lo, int hi) {
    return f.value(key, false, [&](const std::string& s) {
      const double v = parse_count(s);
      if (v != std::floor(v)) throw std::invalid_argument(fmt::format("{} is not a whole number", s));
      if (v < lo || v > hi) throw std::invalid_argument(fmt::format("{} is outside {}..{}", s, lo, hi));
      return static_cast<int>(v);
    });
  }

  std::optional<Seconds> duration(Fields& f, std::string_view key, bool positive = false) {
    return f.value(key, false, [&](const std::string& s) {
      const Seconds d = parse_duration(s);
      if (d < Seconds(0) || (positive && d == Seconds(0)))
        throw std::invalid_argument(fmt::format("{} must be {}", s, positive ? "longer than zero" : "zero or longer"));
      return d;
    });
  }

  std::optional<Watts> power(Fields& f, std::string_view key) {
    return f.value(key, false, [&](const std::string& s) {
      const Watts w = parse_power(s);
      if (w < Watts(0)) throw std::invalid_argument("must not be negative");
      return w;
    });
  }

  std::optional<bool> boolean(Fields& f, std::string_view key) { return detail::read_bool(f, key); }

  const Context& ctx() const { return ctx_; }
  Diagnostics& diag() { return diag_; }
  CurrencyConverter& fx() { return fx_; }

 private:
  const Context& ctx_;
  Currency file_currency_;
  ResolvedScenario& out_;
  Diagnostics& diag_;
  CurrencyConverter fx_;
};

std::string show(Money m) { return fmt::format("{}", m); }

std::string cite(const Provenance& p) { return fmt::format("{}, as_of {}", p.source, format_date(p.as_of)); }

struct RentChoice {
  RentInputs rent;
  bool enabled = true;
};

// The cheapest offer per GPU-hour for `gpu` and `mode`, after conversion.
// A committed-use price of `term` as a price per instance-month.
std::optional<Price> commitment_monthly(const Offer& o, Seconds term) {
  for (const Commitment& c : o.commitments) {
    if (std::abs(c.term.count() - term.count()) > 1.0) continue;
    Price p = c.price;
    if (c.basis == BillingMode::kHourly) p.amount = p.amount.scaled(kHoursPerMonth);  // every hour is paid
    return p;
  }
  return std::nullopt;
}

const Offer* cheapest_offer(Reader& rd, const std::string& gpu, BillingMode mode,
                            const std::vector<std::string>& providers, std::optional<Seconds> term = std::nullopt) {
  const Offer* best = nullptr;
  double best_rate = 0;
  for (const Offer& o : rd.ctx().catalog().offers) {
    if (!id_equals(o.gpu, gpu)) continue;
    const std::optional<Price> committed = term ? commitment_monthly(o, *term) : std::nullopt;
    if (term ? !committed : !o.price(mode)) continue;
    if (!providers.empty() && std::none_of(providers.begin(), providers.end(),
                                           [&](const std::string& p) { return id_equals(p, o.provider); }))
      continue;
    const double per = mode == BillingMode::kMonthly ? kHoursPerMonth : 1.0;
    const Money price = committed ? committed->amount : o.price(mode)->amount;
    const double rate = rd.convert_catalog(price).units() / (per * o.gpus);
    if (!best || rate < best_rate) {
      best = &o;
      best_rate = rate;
    }
  }
  return best;
}

void fill_from_offer(Reader& rd, RentInputs& r, const Offer& o, BillingMode mode) {
  if (const auto& price = o.price(mode)) {
    // A stale price is flagged wherever it is used, not only by `prices`.
    const long long age = (rd.ctx().today - price->provenance.as_of).count();
    const double stale_days = std::chrono::duration_cast<Days>(rd.ctx().stale_after).count();
    if (static_cast<double>(age) > stale_days)
      r.notes.push_back(fmt::format("the {} price of {} is stale: as_of {}, {} days old", to_string(mode), o.id,
                                    format_date(price->provenance.as_of), age));
  }
  r.offer = o.id;
  r.description = fmt::format("{} {} ({} GPU{})", o.provider, o.instance.empty() ? o.gpu : o.instance, o.gpus,
                              o.gpus == 1 ? "" : "s");
  r.price = rd.convert_catalog(o.price(mode)->amount);
  r.gpus_per_instance = o.gpus;
  r.granularity = o.billing_granularity;
  r.minimum_billing = o.minimum_billing;
  if (const Provider* p = rd.ctx().catalog().find_provider(o.provider)) {
    // Storage: the provider's cloud disk, else its local NVMe, else object storage.
    bool priced = false;
    for (const StorageTier t : {StorageTier::kCloudDisk, StorageTier::kLocalNvme, StorageTier::kObject})
      if (auto it = p->storage_per_gb_month.find(t); !priced && it != p->storage_per_gb_month.end()) {
        r.storage_per_gb_month = rd.convert_catalog(it->second.amount);
        r.notes.push_back(fmt::format("storage at {}'s {} price", p->id, to_string(t)));
        priced = true;
      }
    if (!priced) r.notes.push_back(fmt::format("{} has no storage price in the catalog: storage not costed (set rent.storage_per_gb_month)", p->id));
    if (!p->egress_per_gb) r.notes.push_back(fmt::format("{} has no egress price in the catalog: egress not costed (set rent.egress_per_gb)", p->id));
    if (p->egress_per_gb) r.egress_per_gb = rd.convert_catalog(p->egress_per_gb->amount);
    // A support plan is a choice, not part of the price: named, not charged,
    // unless the scenario sets rent.support.
    if (p->support_share)
      r.notes.push_back(fmt::format("{} sells support at {:g}% of the bill{}: set rent.support to include it", p->id,
                                    *p->support_share * 100,
                                    p->support_minimum_monthly
                                        ? fmt::format(" (at least {} a month)", to_pretty_string(p->support_minimum_monthly->amount) + " " +
                                                                                   std::string(p->support_minimum_monthly->amount.currency().code()))
                                        : ""));
  }
}

// rent.hourly / rent.monthly / rent.spot: an offer id, or a price given
// directly (per instance; the instance holds workload.gpus cards unless
// gpus_per_instance says otherwise); else the catalog's cheapest offer.
RentChoice read_rent_mode(Reader& rd, Fields& rent, std::string_view key, BillingMode mode, const std::string& gpu,
                          int workload_gpus, const std::vector<std::string>& providers) {
  RentChoice out;
  // Every amount starts at zero in the report currency (the struct's defaults are CNY).
  for (Money* m : {&out.rent.price, &out.rent.storage_per_gb_month, &out.rent.egress_per_gb,
                   &out.rent.support_minimum_monthly})
    *m = Money::zero(rd.currency());
  const std::string field = rent.field(key);
  YAML::Node n = rent.get(key, false);
  std::optional<Fields> f;
  if (n.IsDefined()) f.emplace(rd.diag(), n, field);
  if (f && f->is_map()) {
    if (auto e = rd.boolean(*f, "enabled"); e && !*e) {
      out.enabled = false;
    }
  }
  const auto offer_id = f && f->is_map() ? f->text("offer", false) : std::nullopt;
  std::optional<Seconds> term;
  if (mode == BillingMode::kMonthly && f && f->is_map()) term = rd.duration(*f, "commitment", true);
  const auto price = f && f->is_map() ? rd.money(*f, "price", false) : std::nullopt;
  if (offer_id) {
    const Offer* o = rd.ctx().catalog().find_offer(*offer_id);
    if (!o) {
      f->fail(f->get("offer", false), f->field("offer"), fmt::format("unknown offer '{}'", *offer_id));
    } else if (!o->price(mode) && !(mode == BillingMode::kSpot)) {
      f->fail(f->get("offer", false), f->field("offer"), fmt::format("offer '{}' has no {} price", *offer_id,
                                                                     to_string(mode)));
    } else if (term) {
      if (const auto p = commitment_monthly(*o, *term)) {
        fill_from_offer(rd, out.rent, *o, BillingMode::kHourly);
        out.rent.price = rd.convert_catalog(p->amount);
      } else {
        f->fail(f->get("commitment", false), f->field("commitment"),
                fmt::format("offer '{}' has no {} commitment", *offer_id, format_duration(*term)));
      }
    } else if (o->price(mode)) {
      fill_from_offer(rd, out.rent, *o, mode);
    } else {
      fill_from_offer(rd, out.rent, *o, BillingMode::kHourly);  // spot from a discount below
    }
  } else if (!price && out.enabled && !(mode == BillingMode::kSpot && n.IsMap() && n["discount"])) {
    if (const Offer* o = cheapest_offer(rd, gpu, mode, providers, term)) {
      if (term) {
        const auto p = commitment_monthly(*o, *term);
        fill_from_offer(rd, out.rent, *o, BillingMode::kHourly);
        out.rent.price = rd.convert_catalog(p->amount);
        rd.note(field + ".offer", o->id,
                fmt::format("cheapest {} commitment per GPU-hour for {} in the catalog: {}", format_duration(*term),
                            gpu, cite(p->provenance)));
      } else {
        fill_from_offer(rd, out.rent, *o, mode);
        rd.note(field + ".offer", o->id,
                fmt::format("cheapest {} price per GPU-hour for {} in the catalog: {}", to_string(mode), gpu,
                            cite(o->price(mode)->provenance)));
      }
    } else if (mode != BillingMode::kSpot) {
      out.enabled = false;
      rd.note(field, "none",
              term ? fmt::format("the catalog has no {} commitment for {}", format_duration(*term), gpu)
                   : fmt::format("the catalog has no {} offer for {}", to_string(mode), gpu));
    }
  }
  if (term) {
    out.rent.commitment_months = static_cast<int>(std::lround(*term / Months(1)));
    out.rent.description += fmt::format(", {} commitment", format_duration(*term));
  }
  if (price && offer_id) {
    f->fail(f->get("price", false), f->field("price"), "give an offer or a price, not both");
  } else if (price) {
    out.rent.price = *price;
    out.rent.offer.clear();
    out.rent.gpus_per_instance = workload_gpus;
    out.rent.description = fmt::format("given price ({} GPUs)", workload_gpus);
    out.rent.granularity = Seconds(mode == BillingMode::kMonthly ? 0 : 1);
  }
  if (f && f->is_map()) {
    if (auto g = rd.whole(*f, "gpus_per_instance", 1, 1024)) {
      out.rent.gpus_per_instance = *g;
      if (price) out.rent.description = fmt::format("given price ({} GPUs)", *g);
    }
    if (auto d = rd.duration(*f, "billing_granularity", true)) out.rent.granularity = *d;
    if (auto d = rd.duration(*f, "minimum_billing")) out.rent.minimum_billing = *d;
  }
  return out;
}

}  // namespace

ResolvedScenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const Context& ctx,
                               const std::string* text) {
  ResolvedScenario out;
  out.source = path.empty() ? "built-in defaults (8×A100-80G team in Qingdao)" : path;
  Diagnostics diag(path.empty() ? "<defaults>" : path);
  YAML::Node root = detail::load_with_sets(path, sets, diag, text);

  // Bare amounts are in the scenario's currency (CNY when it names none); the
  // report is in --currency when given, else in the scenario's currency.
  Context local = ctx;
  Currency file_currency = kCny;
  bool currency_from_file = false;
  if (root.IsMap() && root["currency"] && root["currency"].IsScalar()) {
    try {
      file_currency = Currency(root["currency"].Scalar());
      currency_from_file = true;
    } catch (const std::invalid_argument& e) {
      diag.fail(root["currency"], "currency", e.what());
      throw InputErrors(std::move(diag.problems()));
    }
  }
  if (!ctx.currency_given) local.currency = file_currency;
  Reader rd(local, file_currency, out, diag);
  Scenario& s = out.scenario;
  s.currency = local.currency;
  Fields top(diag, root, "");
  if (!top.is_map()) throw InputErrors(std::move(diag.problems()));
  if (currency_from_file) top.get("currency", false);
  if (auto v = top.text("schema_version", false); v && *v != "1")
    top.fail(top.get("schema_version", false), "schema_version", fmt::format("{} is not supported (1 is)", *v));
  s.name = top.text("name", false).value_or(path.empty() ? "8×A100-80G team in Qingdao (built-in defaults)" : path);
  std::string region = "CN";
  if (auto r = top.text("region", false)) region = *r;
  else rd.note("region", "CN", "default market for catalog defaults: the first users are in Qingdao");
  if (auto h = top.value("horizon", false, [](const std::string& t) {
        const double months = parse_duration(t) / Months(1);
        if (months <= 0) throw std::invalid_argument(fmt::format("{} must be longer than zero", t));
        if (std::abs(months - std::round(months)) > 1e-6)
          throw std::invalid_argument(fmt::format("{} is not a whole number of months (a month is 730 h)", t));
        if (months > 240) throw std::invalid_argument(fmt::format("{} is longer than 240 months", t));
        return static_cast<int>(std::lround(months));
      }))
    s.horizon_months = *h;
  else
    rd.note("horizon", "24mo", "default");
  if (auto r = rd.share(top, "discount_rate", 0.0, 1.0)) s.discount_rate = *r;
  else rd.note("discount_rate", "0%", "default: no cost of capital; set yours to discount the cash flows");

  // workload
  {
    YAML::Node n = top.get("workload", false);
    Fields f(diag, n.IsDefined() ? n : YAML::Node(YAML::NodeType::Map), "workload");
    Workload& w = s.workload;
    if (auto v = rd.whole(f, "gpus", 1, 100000)) w.gpus = *v;
    else rd.note("workload.gpus", "8", "default: the article's 8-card A100 server");
    if (auto v = rd.share(f, "utilisation", 0.0, 1.0)) w.utilisation = *v;
    else {
      w.utilisation = 0.5;
      rd.note("workload.utilisation", "50%", "assumption: cards busy half of the time; the decision turns on it");
    }
    if (auto v = rd.whole(f, "runs_per_month", 1, 100000)) w.runs_per_month = *v;
    else rd.note("workload.runs_per_month", "10", "assumption");
    if (auto v = f.value("dataset", false, parse_size)) w.dataset = *v;
    else {
      w.dataset = Bytes(500e9);
      rd.note("workload.dataset", "500GB", "assumption: the article's \"几百GB\" (hundreds of GB) of data");
    }
    if (auto v = f.value("egress_per_month", false, parse_size)) w.egress_per_month = *v;
    else {
      w.egress_per_month = Bytes(100e9);
      rd.note("workload.egress_per_month", "100GB", "assumption: checkpoints and results downloaded");
    }
    if (auto v = f.value("upload_bandwidth", false, parse_rate)) w.upload_bandwidth = *v;
    else {
      w.upload_bandwidth = BytesPerSecond(100e6);
      rd.note("workload.upload_bandwidth", "100MB/s", "the article's minimum acceptable upload rate (百兆每秒)");
    }
    if (w.dataset < Bytes(0) || w.egress_per_month < Bytes(0))
      f.fail(n, "workload", "sizes must not be negative");
    if (!(w.upload_bandwidth > BytesPerSecond(0)))
      f.fail(f.get("upload_bandwidth", false), "workload.upload_bandwidth", "must be greater than zero");
    f.finish();
  }

  // buy
  std::string gpu = "A100-80G";
  {
    YAML::Node n = top.get("buy", false);
    Fields f(diag, n.IsDefined() ? n : YAML::Node(YAML::NodeType::Map), "buy");
    OwnInputs& o = s.own;
    const Catalog& cat = ctx.catalog();
    if (auto g = f.text("gpu", false)) {
      if (!cat.find_gpu(*g)) f.fail(f.get("gpu", false), "buy.gpu", fmt::format("unknown GPU id '{}'", *g));
      else gpu = cat.find_gpu(*g)->id;
    } else if (!cat.find_gpu(gpu)) {
      f.fail(f.node(), "buy.gpu", fmt::format("is required: the catalog has no {} (the default)", gpu));
    } else {
      rd.note("buy.gpu", gpu, "default");
    }
    const Gpu* spec = cat.find_gpu(gpu);
    o.gpu = gpu;
    if (auto v = rd.whole(f, "cards", 1, 100000)) {
      o.cards = *v;
      // Owned cards must be able to do the work the rentals are compared on.
      if (o.cards < s.workload.gpus)
        f.fail(f.get("cards", false), "buy.cards",
               fmt::format("{} card(s) cannot run a workload of {} GPUs (workload.gpus)", o.cards, s.workload.gpus));
    } else {
      o.cards = s.workload.gpus;
    }
    const auto from_catalog = [&](std::string_view key, PurchaseKind kind, const std::string& for_gpu, Money& dst,
                                  const char* fallback_why) {
      if (auto m = rd.money(f, key)) {
        dst = *m;
        return;
      }
      if (const Purchase* p = find_purchase(cat, kind, for_gpu, region)) {
        dst = rd.convert_catalog(p->price.amount);
        if (kind == PurchaseKind::kServer) return;
        rd.note(f.field(key), show(dst), fmt::format("catalog purchase {}: {}", p->id, cite(p->provenance)));
      } else if (kind == PurchaseKind::kCard) {
        // Without a card price, buying would look free: refuse rather than mislead.
        dst = Money::zero(s.currency);
        f.fail(f.node(), f.field(key), fallback_why);
      } else {
        dst = Money::zero(s.currency);
        rd.note(f.field(key), show(dst), fallback_why);
      }
    };
    from_catalog("card_price", PurchaseKind::kCard, gpu, o.card_price,
                 "is required: the catalog has no card price for this GPU");
    from_catalog("server_base", PurchaseKind::kServerBase, "", o.server_base,
                 "no server_base price in the catalog: set buy.server_base");
    if (auto m = rd.money(f, "network")) o.network = *m;
    else {
      o.network = Money::zero(s.currency);
      rd.note("buy.network", show(o.network), "assumption: one server, no switch fabric");
    }
    if (auto m = rd.money(f, "facility")) o.facility = *m;
    else {
      o.facility = Money::zero(s.currency);
      rd.note("buy.facility", show(o.facility), "assumption: the room, cooling and power already exist");
    }
    if (auto d = rd.duration(f, "lead_time")) o.lead_time = *d;
    else if (const OperatingCost* c = find_operating(cat, OperatingKind::kLeadTime, region)) {
      o.lead_time = Seconds(c->number);
      rd.note("buy.lead_time", format_duration(o.lead_time), fmt::format("catalog {}: {}", c->id, cite(c->provenance)));
    } else {
      o.lead_time = Months(2);
      rd.note("buy.lead_time", "2mo", "the article: procurement \"拖两个月\" (drags on two months)");
    }
    if (auto c = f.text("lead_time_cover", false)) {
      if (*c == "rent") o.cover = LeadTimeCover::kRent;
      else if (*c == "delay_cost") o.cover = LeadTimeCover::kDelayCost;
      else f.fail(f.get("lead_time_cover", false), "buy.lead_time_cover", "must be rent or delay_cost");
    } else {
      rd.note("buy.lead_time_cover", "rent", "default: rent by the hour until the hardware arrives");
    }
    if (auto m = rd.money(f, "delay_cost_per_month")) {
      o.delay_cost_per_month = *m;
      if (o.cover == LeadTimeCover::kRent)
        f.fail(f.get("delay_cost_per_month", false), "buy.delay_cost_per_month",
               "applies only with lead_time_cover: delay_cost (the lead time is bridged by renting)");
    } else {
      o.delay_cost_per_month = Money::zero(s.currency);
      // The lead time is a cost too (SPEC): with no training and no bridge it must be priced.
      if (o.cover == LeadTimeCover::kDelayCost && o.lead_time > Seconds(0))
        f.fail(f.node(), "buy.delay_cost_per_month",
               "is required with lead_time_cover: delay_cost (what a month without training costs)");
    }
    if (auto d = rd.duration(f, "useful_life", true)) o.useful_life = *d;
    else if (const OperatingCost* c = find_operating(cat, OperatingKind::kUsefulLife, region)) {
      o.useful_life = Seconds(c->number);
      rd.note("buy.useful_life", format_duration(o.useful_life), fmt::format("catalog {}: {}", c->id, cite(c->provenance)));
    }
    if (auto v = rd.share(f, "residual_value", 0.0, 1.0)) o.residual_share = *v;
    else if (const OperatingCost* c = find_operating(cat, OperatingKind::kResidualValue, region)) {
      o.residual_share = c->number;
      rd.note("buy.residual_value", fmt::format("{:g}%", c->number * 100),
              fmt::format("catalog {}: {}", c->id, cite(c->provenance)));
    }
    if (auto w = rd.power(f, "gpu_power")) o.gpu_busy = *w;
    else if (spec) {
      o.gpu_busy = spec->tdp;
      rd.note("buy.gpu_power", fmt::format("{:g}W", spec->tdp.value()), fmt::format("{} TDP: {}", gpu, cite(spec->provenance)));
    }
    if (auto w = rd.power(f, "gpu_idle_power")) o.gpu_idle = *w;
    else {
      o.gpu_idle = o.gpu_busy * 0.15;
      rd.note("buy.gpu_idle_power", fmt::format("{:g}W", o.gpu_idle.value()), "assumption: 15% of TDP when idle");
    }
    if (auto w = rd.power(f, "server_power")) o.server = *w;
    else {
      o.server = Watts(1500);
      rd.note("buy.server_power", "1500W", "assumption: CPUs, memory, fans, NICs and storage of an 8-GPU server");
    }
    if (auto v = f.value("pue", false, [](const std::string& t) {
          const double x = parse_number(t);
          if (x < 1.0 || x > 5.0) throw std::invalid_argument(fmt::format("PUE {} is outside 1..5", t));
          return x;
        }))
      o.pue = *v;
    else if (const OperatingCost* c = find_operating(cat, OperatingKind::kPue, region)) {
      o.pue = c->number;
      rd.note("buy.pue", fmt::format("{:g}", c->number), fmt::format("catalog {}: {}", c->id, cite(c->provenance)));
    }
    const auto op_money = [&](std::string_view key, OperatingKind kind, Money& dst, double factor,
                              const std::string& extra) {
      if (auto m = rd.money(f, key)) {
        dst = *m;
        return;
      }
      if (const OperatingCost* c = find_operating(cat, kind, region); c && c->money) {
        dst = rd.convert_catalog(*c->money).scaled(factor);
        const std::string shown = fmt::format("{} {}", to_plain_string(dst, -1), dst.currency().code());
        const std::string from = c->money->currency() == dst.currency()
                                     ? ""
                                     : fmt::format(", converted from {} {}", to_plain_string(*c->money, -1),
                                                   c->money->currency().code());
        rd.note(f.field(key), shown, fmt::format("catalog {}{}{}: {}", c->id, extra, from, cite(c->provenance)));
      } else {
        dst = Money::zero(s.currency);
        rd.note(f.field(key), show(dst), "not in the catalog");
      }
    };
    op_money("electricity_per_kwh", OperatingKind::kElectricityPerKwh, o.electricity_per_kwh, 1.0, "");
    op_money("operations_per_month", OperatingKind::kOperationsPerMonth, o.operations_per_month, 0.5,
             " × 0.5 (assumption: half an engineer's time)");
    if (auto m = rd.money(f, "colocation_per_month")) o.colocation_per_month = *m;
    else {
      o.colocation_per_month = Money::zero(s.currency);
      rd.note("buy.colocation_per_month", show(o.colocation_per_month), "assumption: the team's own server room");
    }
    f.finish();
  }

  // rent
  {
    YAML::Node n = top.get("rent", false);
    Fields f(diag, n.IsDefined() ? n : YAML::Node(YAML::NodeType::Map), "rent");
    std::vector<std::string> providers;
    if (auto p = f.text("provider", false)) providers.push_back(*p);
    RentChoice h = read_rent_mode(rd, f, "hourly", BillingMode::kHourly, gpu, s.workload.gpus, providers);
    RentChoice m = read_rent_mode(rd, f, "monthly", BillingMode::kMonthly, gpu, s.workload.gpus, providers);
    RentChoice sp = read_rent_mode(rd, f, "spot", BillingMode::kSpot, gpu, s.workload.gpus, providers);
    // Markups shared by every rental option (override the providers' add-ons).
    const auto storage = rd.money(f, "storage_per_gb_month");
    const auto egress = rd.money(f, "egress_per_gb");
    const auto support = rd.share(f, "support", 0.0, 1.0);
    const auto support_min = rd.money(f, "support_minimum_monthly");
    const auto provisioning = rd.duration(f, "provisioning");
    for (RentChoice* c : {&h, &m, &sp}) {
      if (storage) c->rent.storage_per_gb_month = *storage;
      if (egress) c->rent.egress_per_gb = *egress;
      if (support) c->rent.support_share = *support;
      if (support_min) c->rent.support_minimum_monthly = *support_min;
      if (provisioning) c->rent.provisioning = *provisioning;
    }
    // hourly specifics
    YAML::Node hn = f.get("hourly", false);
    if (h.enabled) {
      HourlyInputs hi{h.rent};
      if (hn.IsDefined() && hn.IsMap()) {
        Fields hf(diag, hn, "rent.hourly");
        hf.get("offer", false), hf.get("price", false), hf.get("enabled", false), hf.get("gpus_per_instance", false);
        hf.get("billing_granularity", false), hf.get("minimum_billing", false);
        if (auto d = rd.duration(hf, "idle_per_run")) hi.idle_per_run = Hours(*d);
        if (auto b = rd.boolean(hf, "auto_release")) hi.auto_release = *b;
        hf.finish();
      }
      if (!hi.auto_release && !(hn.IsDefined() && hn.IsMap() && hn["idle_per_run"]))
        rd.note("rent.hourly.idle_per_run", "0.5h", "assumption: the forgotten instance (set auto_release: true)");
      s.hourly = hi;
    }
    if (m.enabled) {
      YAML::Node mn = f.get("monthly", false);
      if (mn.IsDefined() && mn.IsMap()) {
        Fields mf(diag, mn, "rent.monthly");
        for (const char* k :
             {"offer", "price", "enabled", "gpus_per_instance", "billing_granularity", "minimum_billing", "commitment"})
          mf.get(k, false);
        mf.finish();
      }
      s.monthly = m.rent;
    }
    YAML::Node sn = f.get("spot", false);
    if (sp.enabled) {
      SpotInputs si{sp.rent, {}};
      std::optional<double> discount;
      bool have_price = !sp.rent.offer.empty() || sp.rent.price.micros() > 0;
      if (sn.IsDefined() && sn.IsMap()) {
        Fields sf(diag, sn, "rent.spot");
        for (const char* k : {"offer", "price", "enabled", "gpus_per_instance", "billing_granularity", "minimum_billing"})
          sf.get(k, false);
        discount = sf.value("discount", false, [](const std::string& t) {
          const double v = parse_share(t);
          if (!(v > 0 && v < 1)) throw std::invalid_argument(fmt::format("{} is outside (0%, 100%)", t));
          return v;
        });
        if (auto v = sf.value("interruptions_per_day", false, [](const std::string& t) {
              const double x = parse_number(t);
              if (x < 0 || x > 1000) throw std::invalid_argument(fmt::format("{} is outside 0..1000", t));
              return x;
            }))
          si.interruptions.interruptions_per_hour = *v / 24.0;
        else {
          si.interruptions.interruptions_per_hour = 1.0 / 24.0;
          rd.note("rent.spot.interruptions_per_day", "1", std::string(kSpotRateAssumption));
        }
        if (auto d = rd.duration(sf, "checkpoint_write")) si.interruptions.checkpoint_write = *d;
        else si.interruptions.checkpoint_write = Seconds(300);
        if (auto d = rd.duration(sf, "restart")) si.interruptions.restart = *d;
        else si.interruptions.restart = Seconds(600);
        if (auto t = sf.text("checkpoint_interval", false); t && *t != "auto") {
          try {
            const Seconds d = parse_duration(*t);
            if (!(d > Seconds(0))) throw std::invalid_argument("must be longer than zero");
            si.interruptions.interval = d;
          } catch (const std::invalid_argument& e) {
            sf.fail(sf.get("checkpoint_interval", false), "rent.spot.checkpoint_interval", e.what());
          }
        }
        sf.finish();
      } else {
        si.interruptions.interruptions_per_hour = 1.0 / 24.0;
        si.interruptions.checkpoint_write = Seconds(300);
        si.interruptions.restart = Seconds(600);
        rd.note("rent.spot.interruptions_per_day", "1", std::string(kSpotRateAssumption));
      }
      if (!sn.IsDefined() || !sn.IsMap() || !sn["checkpoint_write"])
        rd.note("rent.spot.checkpoint_write", "5min", "assumption");
      if (!sn.IsDefined() || !sn.IsMap() || !sn["restart"]) rd.note("rent.spot.restart", "10min", "assumption");
      if (discount && sn.IsMap() && (sn["offer"] || sn["price"])) {
        f.fail(sn["discount"], "rent.spot.discount",
               "give a spot offer or price, or a discount off the hourly price, not both");
      } else if (discount) {
        if (!s.hourly) {
          f.fail(sn, "rent.spot.discount", "needs an hourly price to discount");
        } else {
          // spot = hourly × (1 − discount), per instance of the hourly option.
          si.rent = s.hourly->rent;
          si.rent.price = s.hourly->rent.price.scaled(1.0 - *discount);
          si.rent.description = fmt::format("{:g}% off {}", *discount * 100, s.hourly->rent.description);
          si.discount = discount;
          have_price = true;
        }
      }
      if (have_price) s.spot = si;
      else rd.note("rent.spot", "none", fmt::format("the catalog has no spot offer for {}", gpu));
    }
    f.get("provider", false);
    f.finish();
  }

  // hybrid (only when configured)
  {
    YAML::Node n = top.get("hybrid", false);
    if (n.IsDefined()) {
      Fields f(diag, n, "hybrid");
      HybridInputs hy;
      if (auto v = rd.share(f, "local_share", 0.0, 1.0)) hy.local_share = *v;
      else rd.note("hybrid.local_share", "30%", "default");
      if (auto v = rd.whole(f, "local_cards", 1, 100000)) hy.local_cards = *v;
      else rd.note("hybrid.local_cards", "2", "default");
      std::string local_gpu = gpu;
      if (auto g = f.text("local_gpu", false)) {
        if (!ctx.catalog().find_gpu(*g)) f.fail(f.get("local_gpu", false), "hybrid.local_gpu", fmt::format("unknown GPU id '{}'", *g));
        else local_gpu = ctx.catalog().find_gpu(*g)->id;
      }
      if (auto m = rd.money(f, "local_capex")) hy.local_capex = *m;
      else {
        hy.local_capex = Money::zero(s.currency);
        rd.note("hybrid.local_capex", "0", "default: the local cards are already owned");
      }
      if (!f.get("local_gpu", false).IsDefined()) rd.note("hybrid.local_gpu", local_gpu, "default: buy.gpu");
      hy.local_gpu = local_gpu;
      const Gpu* spec = ctx.catalog().find_gpu(local_gpu);
      hy.local_gpu_busy = spec ? spec->tdp : s.own.gpu_busy;
      hy.local_gpu_idle = hy.local_gpu_busy * 0.15;
      f.finish();
      if (!s.hourly) f.fail(n, "hybrid", "needs rent.hourly for the rented part");
      s.hybrid = hy;
    }
  }
  top.finish();
  diag.throw_if_any();

  // Echo every resolved input.
  Json in = Json::object();
  in["scenario"] = out.source;
  in["name"] = s.name;
  in["currency"] = std::string(s.currency.code());
  in["horizon_months"] = s.horizon_months;
  in["discount_rate"] = s.discount_rate;
  Json w = Json::object();
  w["gpus"] = s.workload.gpus;
  w["utilisation"] = s.workload.utilisation;
  w["runs_per_month"] = s.workload.runs_per_month;
  w["dataset_gb"] = s.workload.dataset.value() / kGB;
  w["egress_per_month_gb"] = s.workload.egress_per_month.value() / kGB;
  w["upload_bandwidth_mb_s"] = s.workload.upload_bandwidth.value() / 1e6;
  in["workload"] = std::move(w);
  const int cents = s.currency.minor_digits();
  Json b = Json::object();
  const OwnInputs& o = s.own;
  b["gpu"] = gpu;
  b["cards"] = o.cards;
  b["card_price"] = Json::money(o.card_price, cents);
  b["server_base"] = Json::money(o.server_base, cents);
  b["network"] = Json::money(o.network, cents);
  b["facility"] = Json::money(o.facility, cents);
  b["lead_time_months"] = o.lead_time / Months(1);
  b["lead_time_cover"] = o.cover == LeadTimeCover::kRent ? "rent" : "delay_cost";
  b["delay_cost_per_month"] = Json::money(o.delay_cost_per_month, cents);
  b["useful_life_months"] = o.useful_life / Months(1);
  b["residual_value"] = o.residual_share;
  b["gpu_power_w"] = o.gpu_busy.value();
  b["gpu_idle_power_w"] = o.gpu_idle.value();
  b["server_power_w"] = o.server.value();
  b["pue"] = o.pue;
  b["electricity_per_kwh"] = Json::money(o.electricity_per_kwh, -1);
  b["operations_per_month"] = Json::money(o.operations_per_month, cents);
  b["colocation_per_month"] = Json::money(o.colocation_per_month, cents);
  in["buy"] = std::move(b);
  const auto rent_json = [&](const RentInputs& r) {
    Json j = Json::object();
    j["offer"] = r.offer.empty() ? Json() : Json(r.offer);
    j["description"] = r.description;
    j["price"] = Json::money(r.price, -1);
    j["gpus_per_instance"] = r.gpus_per_instance;
    j["billing_granularity_s"] = r.granularity.count();
    j["storage_per_gb_month"] = Json::money(r.storage_per_gb_month, -1);
    j["egress_per_gb"] = Json::money(r.egress_per_gb, -1);
    j["support"] = r.support_share;
    j["commitment_months"] = r.commitment_months;
    return j;
  };
  Json r = Json::object();
  if (s.hourly) {
    r["hourly"] = rent_json(s.hourly->rent);
    r["hourly"]["idle_per_run_h"] = s.hourly->idle_per_run.count();
    r["hourly"]["auto_release"] = s.hourly->auto_release;
  }
  if (s.monthly) r["monthly"] = rent_json(*s.monthly);
  if (s.spot) {
    r["spot"] = rent_json(s.spot->rent);
    r["spot"]["interruptions_per_day"] = s.spot->interruptions.interruptions_per_hour * 24;
    r["spot"]["checkpoint_write_s"] = s.spot->interruptions.checkpoint_write.count();
    r["spot"]["restart_s"] = s.spot->interruptions.restart.count();
  }
  in["rent"] = std::move(r);
  if (s.hybrid) {
    Json h = Json::object();
    h["local_share"] = s.hybrid->local_share;
    h["local_cards"] = s.hybrid->local_cards;
    h["local_capex"] = Json::money(s.hybrid->local_capex, cents);
    in["hybrid"] = std::move(h);
  }
  Json d = Json::array();
  for (const auto& x : out.defaults_used) d.push_back(x);
  in["defaults_used"] = std::move(d);
  out.inputs = std::move(in);
  out.fx_notes = rd.fx().notes();
  out.fx_used = rd.fx().used_json();
  return out;
}

}  // namespace gpuplan
