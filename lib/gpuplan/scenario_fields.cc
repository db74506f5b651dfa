#include "gpuplan/scenario_fields.h"
#include "gpuplan/i18n.h"

#include <array>
#include <fmt/format.h>
#include <stdexcept>

#include "gpuplan/context.h"
#include "gpuplan/cost/spot.h"

namespace gpuplan {
namespace {

using F = Field<Scenario>;
using K = ValueKind;

constexpr double kMonthSeconds = kHoursPerMonth * 3600.0;

template <auto... Ms>
constexpr Access<Scenario> in = member<Ms...>();
template <auto M>
constexpr Access<Scenario> workload = member<&Scenario::workload, M>();
template <auto M>
constexpr Access<Scenario> buy = member<&Scenario::own, M>();
template <auto M>
constexpr Access<Scenario> hybrid = member<&Scenario::hybrid, M>();

bool never(const Scenario&, const FieldContext&) { return false; }

// ---- top level ----

// A term in whole months ("24mo", "3y", "730h"), 1 to 240 of them.
Value parse_months(const std::string& t, const FieldContext&) {
  const double months = parse_duration(t) / Months(1);
  if (months <= 0) throw std::invalid_argument(trf("{} must be longer than zero", t));
  if (std::abs(months - std::round(months)) > 1e-6)
    throw std::invalid_argument(trf("{} is not a whole number of months (a month is 730 h)", t));
  if (months > 240) throw std::invalid_argument(trf("{} is longer than 240 months", t));
  return static_cast<int>(std::lround(months));
}

Value currency_code(const Scenario& s) { return std::string(s.currency.code()); }

constexpr F kTop[] = {
    {.key = "schema_version", .kind = K::kText, .echo = {.skip = true}, .label = tr_noop("scenario file version (1)")},
    {.key = "name", .kind = K::kText, .at = in<&Scenario::name>, .label = tr_noop("title of the scenario")},
    {.key = "currency",
     .kind = K::kText,
     .at = {&currency_code, nullptr},
     .label = tr_noop("currency of bare amounts in the file (and of the report, unless --currency)")},
    {.key = "region",
     .kind = K::kText,
     .at = in<&Scenario::region>,
     .fallback = "CN",
     .why = tr_noop("default market for catalog defaults: the first users are in Qingdao"),
     .parse = &parse_market,
     .echo = {.skip = true},
     .label = tr_noop("market for catalog purchase prices and operating costs")},
    {.key = "exclude_restricted",
     .kind = K::kBool,
     .at = in<&Scenario::exclude_restricted>,
     .fallback = "false",
     .noted = &never,
     .label = tr_noop(
         "leave out of the decision the options the catalog says are restricted in the region (export controls)")},
    {.key = "horizon",
     .kind = K::kWhole,
     .at = in<&Scenario::horizon_months>,
     .range = {1, 240},
     .fallback = "24mo",
     .why = tr_noop("default"),
     .parse = &parse_months,
     .echo = {.key = "horizon_months"},
     .vary = true,
     .whole = true,
     .label = tr_noop("months compared")},
    {.key = "discount_rate",
     .kind = K::kShare,
     .at = in<&Scenario::discount_rate>,
     .range = {0, 1},
     .fallback = "0%",
     .why = tr_noop("default: no cost of capital; set yours to discount the cash flows"),
     .vary = true,
     .label = tr_noop("discount rate (annual)")},
};

// ---- workload ----

constexpr F kWorkload[] = {
    {.key = "gpus",
     .kind = K::kWhole,
     .at = workload<&Workload::gpus>,
     .range = {1, 100000},
     .fallback = "8",
     .why = tr_noop("default: the article's 8-card A100 server"),
     .label = tr_noop("GPUs busy while training")},
    {.key = "utilisation",
     .kind = K::kShare,
     .at = workload<&Workload::utilisation>,
     .range = {0, 1},
     .fallback = "50%",
     .why = tr_noop("assumption: cards busy half of the time; the decision turns on it"),
     .vary = true,
     .label = tr_noop("utilisation (busy share of each month)")},
    {.key = "runs_per_month",
     .kind = K::kWhole,
     .at = workload<&Workload::runs_per_month>,
     .range = {1, 100000},
     .fallback = "10",
     .why = tr_noop("assumption"),
     .vary = true,
     .whole = true,
     .label = tr_noop("training runs a month")},
    {.key = "dataset",
     .kind = K::kBytes,
     .at = workload<&Workload::dataset>,
     .range = {0},
     .fallback = "500GB",
     .why = tr_noop("assumption: the article's \"几百GB\" (hundreds of GB) of data"),
     .echo = {.key = "dataset_gb", .divisor = kGB},
     .vary = true,
     .label = tr_noop("dataset kept in storage while renting")},
    {.key = "egress_per_month",
     .kind = K::kBytes,
     .at = workload<&Workload::egress_per_month>,
     .range = {0},
     .fallback = "100GB",
     .why = tr_noop("assumption: checkpoints and results downloaded"),
     .echo = {.key = "egress_per_month_gb", .divisor = kGB},
     .vary = true,
     .label = tr_noop("downloaded a month")},
    {.key = "upload_bandwidth",
     .kind = K::kRate,
     .at = workload<&Workload::upload_bandwidth>,
     .range = {0, std::numeric_limits<double>::infinity(), true},
     .fallback = "100MB/s",
     .why = tr_noop("the article's minimum acceptable upload rate (百兆每秒)"),
     .echo = {.key = "upload_bandwidth_mb_s", .divisor = 1e6},
     .vary = true,
     .label = tr_noop("upload rate to the provider")},
    {.key = "serving",
     .kind = K::kText,
     .at = workload<&Workload::serving>,
     .label = tr_noop("a serving file (gpuplan serve) whose load the bought cards carry beside training; relative to "
                      "the scenario file")},
};

// ---- buy ----

Value parse_gpu_id(const std::string& t, const FieldContext& ctx) {
  const Gpu* g = ctx.catalog->find_gpu(t);
  if (!g) throw std::invalid_argument(trf("unknown GPU id '{}'", t));
  return g->id;
}

// The A100 class, as the scenario's market sells it: in China the A800-80G
// (the A100's China version since the 2022 US export rules), elsewhere the A100-80G.
std::optional<Fallback> default_gpu(const Scenario& s, const FieldContext& ctx) {
  if (id_equals(s.region, "CN"))
    if (const Gpu* g = ctx.catalog->find_gpu("A800-80G"))
      return Fallback{g->id, g->id,
                      tr_noop("default for region CN: the A100's China version (A100 exports to China are restricted "
                              "since 2022; the A800 since 2023-11-17, so new cards come from in-country stock)")};
  if (const Gpu* g = ctx.catalog->find_gpu("A100-80G")) return Fallback{g->id, g->id, tr_noop("default")};
  return std::nullopt;
}

std::optional<Fallback> cards_for_workload(const Scenario& s, const FieldContext&) {
  return Fallback{s.workload.gpus, "", ""};
}

// ", stale: 1,253 days old" when a record is older than the stale limit; ", from
// region US" when it is for another market than the scenario's.
std::string caveats(const FieldContext& ctx, const Provenance& p, std::string_view record_region,
                    std::string_view region) {
  std::string out;
  const auto age = age_days(p, ctx.today);
  if (!age) out += tr(", undated: the source gives no date");
  else if (static_cast<double>(*age) > std::chrono::duration_cast<Days>(ctx.stale_after).count())
    out += trf(", stale: {} days old", *age);
  if (!record_region.empty() && !id_equals(record_region, region))
    out += trf(", from region {}, not {}", record_region, region);
  return out;
}

std::optional<Fallback> purchase(const Scenario& s, const FieldContext& ctx, PurchaseKind kind, std::string_view gpu) {
  const Purchase* p = find_purchase(*ctx.catalog, kind, gpu, s.region);
  if (!p) return std::nullopt;
  const Money m = ctx.fx->convert(p->price.amount);
  return Fallback{
      m, fmt::format("{}", m),
      trf("catalog purchase {}: {}{}", p->id, cite(p->provenance), caveats(ctx, p->provenance, p->region, s.region))};
}
std::optional<Fallback> card_price(const Scenario& s, const FieldContext& ctx) {
  return purchase(s, ctx, PurchaseKind::kCard, s.own.gpu);
}
// The share of a complete server's price that is not GPUs: a server_base record
// with the same source, date, region and currency as a server record is that
// server's non-GPU part (the catalog's DGX H100 bill of materials, SemiAnalysis via
// Epoch: 32,010 of 270,000 USD).
struct NonGpuShare {
  double share = 0;
  const Purchase* base = nullptr;
  const Purchase* server = nullptr;
};
std::optional<NonGpuShare> non_gpu_share(const Catalog& c) {
  for (const Purchase& b : c.purchases) {
    if (b.kind != PurchaseKind::kServerBase || !b.provenance.as_of) continue;
    for (const Purchase& sv : c.purchases)
      if (sv.kind == PurchaseKind::kServer && sv.provenance.as_of == b.provenance.as_of &&
          sv.provenance.source == b.provenance.source && id_equals(sv.region, b.region) &&
          sv.price.amount.currency() == b.price.amount.currency() && b.price.amount < sv.price.amount)
        return NonGpuShare{b.price.amount.units() / sv.price.amount.units(), &b, &sv};
  }
  return std::nullopt;
}

double share_factor(const NonGpuShare& share) { return share.share / (1 - share.share); }

// Records further apart than this are not one price list: a server less its cards
// would load the price change between the two dates onto the base.
constexpr long long kSameListDays = 92;

// A complete server less its cards, so that cards and base add up to the server's price.
Fallback base_by_subtraction(const Scenario& s, const FieldContext& ctx, const Purchase& server, const Purchase& card,
                             Money whole, Money cards, std::string_view apart) {
  const Money base = whole - cards;
  return Fallback{base, fmt::format("{}", base),
                  trf("complete {}-GPU server {} at {} less {} × card {}, so that cards and base add up to "
                      "the server's price{}: {}{}; {}{}",
                      server.gpus, server.id, to_pretty_string(whole), server.gpus, card.id,
                      apart.empty() ? std::string() : trf(" (the records are {}: no catalog record gives a non-GPU "
                                                          "share to price the base on the cards' date)",
                                                          apart),
                      cite(server.provenance), caveats(ctx, server.provenance, "", s.region), cite(card.provenance),
                      caveats(ctx, card.provenance, "", s.region))};
}

// The non-GPU share of a server of buy.cards_per_server cards at buy.card_price
// (given, or the card record's): base = share × (cards + base). A server is
// bought whole: one card in a server of 8 pays an 8-card chassis.
Fallback base_by_share(const Scenario& s, const FieldContext& ctx, const NonGpuShare& share, const Purchase& server,
                       const Purchase& card, std::string_view apart) {
  const int n = std::max(1, s.own.cards_per_server);
  const Money base = s.own.card_price.times(n).scaled(share_factor(share));
  const bool card_record = s.own.card_price == ctx.fx->convert(card.price.amount);
  const std::string price = card_record ? trf("card {}'s price", card.id) : std::string(tr("buy.card_price"));
  const std::string card_source =
      card_record ? cite(card.provenance) + caveats(ctx, card.provenance, "", s.region) + "; " : std::string();
  return Fallback{base, fmt::format("{}", base),
                  trf("{:.1f}% of a complete {}-GPU server at {}, the non-GPU share of {} ({} of {}); not server "
                      "{} less its cards, the two records being {}: {}{}",
                      share.share * 100, n, price, share.server->id, share.base->price.amount,
                      share.server->price.amount, server.id, apart, card_source, cite(share.base->provenance))};
}

// The region's server and card records the base is read from, how many days
// apart they are (-1: one undated), and the share when that is the way.
struct BaseRecords {
  const Purchase* server = nullptr;
  const Purchase* card = nullptr;
  long long days = -1;
  std::optional<NonGpuShare> share{};
};
std::optional<BaseRecords> base_records(const Scenario& s, const FieldContext& ctx) {
  BaseRecords r;
  r.server = find_purchase(*ctx.catalog, PurchaseKind::kServer, s.own.gpu, s.region);
  r.card = find_purchase(*ctx.catalog, PurchaseKind::kCard, s.own.gpu, s.region);
  if (!r.server || !r.card || r.server->gpus < 1 || !id_equals(r.server->region, s.region) ||
      !id_equals(r.card->region, s.region))
    return std::nullopt;
  const auto& sd = r.server->provenance.as_of;
  const auto& cd = r.card->provenance.as_of;
  r.days = sd && cd ? std::abs((*sd - *cd).count()) : -1;
  if (r.days < 0 || r.days > kSameListDays) r.share = non_gpu_share(*ctx.catalog);
  return r;
}

// Cards and base priced on one date. A complete server for the GPU in the
// scenario's region dated with its card record: the server less its cards.
// Otherwise (the October 2023 export-rush A800 server less June 2023 cards gave a
// 786,000 CNY chassis, so 4 cards cost 1.1M): the non-GPU share of a server of
// buy.cards_per_server cards at buy.card_price, where the catalog gives the share.
std::optional<Fallback> complete_server_base(const Scenario& s, const FieldContext& ctx) {
  const auto r = base_records(s, ctx);
  if (!r) return std::nullopt;
  const bool one_list = r->days >= 0 && r->days <= kSameListDays;
  const std::string apart = one_list      ? std::string()
                            : r->days >= 0 ? trf("{} days apart", r->days)
                                           : std::string(tr("one of them undated"));
  if (r->share) return base_by_share(s, ctx, *r->share, *r->server, *r->card, apart);
  const Money whole = ctx.fx->convert(r->server->price.amount);
  const Money cards = ctx.fx->convert(r->card->price.amount).times(r->server->gpus);
  if (!(cards < whole)) return std::nullopt;
  return base_by_subtraction(s, ctx, *r->server, *r->card, whole, cards, apart);
}

// No fabric is priced by default; with more than one server the default says
// so instead of "one server", with the catalog's switch price to set one by.
std::optional<Fallback> network(const Scenario& s, const FieldContext& ctx) {
  const int servers = servers_for(s.own);
  if (servers <= 1) return std::nullopt;
  const Purchase* sw = find_purchase(*ctx.catalog, PurchaseKind::kNetwork, "", s.region);
  const std::string hint = sw ? trf(" (a switch is {} in catalog {}: {}{})", ctx.fx->convert(sw->price.amount), sw->id,
                                    cite(sw->provenance), caveats(ctx, sw->provenance, sw->region, s.region))
                              : std::string();
  const Money none = Money::zero(s.currency);
  return Fallback{none, fmt::format("{}", none),
                  trf("assumption: not costed: {} servers need a switch fabric, cables and NICs; set buy.network{}",
                      servers, hint)};
}

std::optional<Fallback> server_base(const Scenario& s, const FieldContext& ctx) {
  if (auto whole = complete_server_base(s, ctx)) return whole;
  return purchase(s, ctx, PurchaseKind::kServerBase, "");
}

// Operating records: a number (PUE, a share, a duration in seconds) or money.
const OperatingCost* operating(const Scenario& s, const FieldContext& ctx, OperatingKind kind) {
  return find_operating(*ctx.catalog, kind, s.region);
}
std::string from_record(const OperatingCost& c, std::string_view extra = "", std::string_view converted = "",
                        std::string_view region = "") {
  const std::string other = !region.empty() && !c.region.empty() && !id_equals(c.region, region)
                                ? trf(", from region {}, not {}", c.region, region)
                                : "";
  return trf("catalog {}{}{}: {}{}", c.id, extra, converted, cite(c.provenance), other);
}
std::optional<Fallback> duration_record(const Scenario& s, const FieldContext& ctx, OperatingKind kind) {
  const OperatingCost* c = operating(s, ctx, kind);
  if (!c) return std::nullopt;
  return Fallback{Seconds(c->number), format_duration(Seconds(c->number)), from_record(*c, "", "", s.region)};
}
std::optional<Fallback> lead_time(const Scenario& s, const FieldContext& ctx) {
  return duration_record(s, ctx, OperatingKind::kLeadTime);
}
std::optional<Fallback> useful_life(const Scenario& s, const FieldContext& ctx) {
  return duration_record(s, ctx, OperatingKind::kUsefulLife);
}
std::optional<Fallback> residual_value(const Scenario& s, const FieldContext& ctx) {
  const OperatingCost* c = operating(s, ctx, OperatingKind::kResidualValue);
  if (!c) return std::nullopt;
  return Fallback{c->number, fmt::format("{:g}%", c->number * 100), from_record(*c, "", "", s.region)};
}
std::optional<Fallback> pue(const Scenario& s, const FieldContext& ctx) {
  const OperatingCost* c = operating(s, ctx, OperatingKind::kPue);
  if (!c) return std::nullopt;
  return Fallback{c->number, fmt::format("{:g}", c->number), from_record(*c, "", "", s.region)};
}
// A money record in the report currency, × factor (with its reason).
std::optional<Fallback> money_record(const Scenario& s, const FieldContext& ctx, OperatingKind kind, double factor,
                                     std::string_view extra) {
  const OperatingCost* c = operating(s, ctx, kind);
  if (!c || !c->money) return std::nullopt;
  const Money m = ctx.fx->convert(*c->money).scaled(factor);
  const std::string converted =
      c->money->currency() == m.currency()
          ? ""
          : trf(", converted from {} {}", to_plain_string(*c->money, -1), c->money->currency().code());
  return Fallback{m, fmt::format("{} {}", to_plain_string(m, -1), m.currency().code()),
                  from_record(*c, extra, converted, s.region)};
}
std::optional<Fallback> electricity(const Scenario& s, const FieldContext& ctx) {
  return money_record(s, ctx, OperatingKind::kElectricityPerKwh, 1.0, "");
}
std::optional<Fallback> operations(const Scenario& s, const FieldContext& ctx) {
  return money_record(s, ctx, OperatingKind::kOperationsPerMonth, 0.5,
                      tr(" × 0.5 (assumption: half an engineer's time)"));
}
std::optional<Fallback> gpu_tdp(const Scenario& s, const FieldContext& ctx) {
  const Gpu* g = ctx.catalog->find_gpu(s.own.gpu);
  if (!g) return std::nullopt;
  return Fallback{g->tdp, fmt::format("{:g}W", g->tdp.value()), trf("{} TDP: {}", g->id, cite(g->provenance))};
}
std::optional<Fallback> idle_power(const Scenario& s, const FieldContext&) {
  const Watts idle = s.own.gpu_busy * 0.15;
  return Fallback{idle, fmt::format("{:g}W", idle.value()), tr_noop("assumption: 15% of TDP when idle")};
}

constexpr Choice kFinancing[] = {{"cash", static_cast<int>(Financing::kCash)},
                                 {"loan", static_cast<int>(Financing::kLoan)},
                                 {"lease", static_cast<int>(Financing::kLease)}};
bool by_loan(const Scenario& s, const FieldContext&) { return s.own.financing == Financing::kLoan; }
bool by_lease(const Scenario& s, const FieldContext&) { return s.own.financing == Financing::kLease; }

constexpr Choice kCovers[] = {{"rent", static_cast<int>(LeadTimeCover::kRent)},
                              {"delay_cost", static_cast<int>(LeadTimeCover::kDelayCost)}};

constexpr F kBuy[] = {
    {.key = "gpu",
     .kind = K::kText,
     .at = buy<&OwnInputs::gpu>,
     .derive = &default_gpu,
     .missing = "is required: the catalog has no A100-80G (the default)",
     .parse = &parse_gpu_id,
     .label = tr_noop("GPU bought")},
    {.key = "cards",
     .kind = K::kWhole,
     .at = buy<&OwnInputs::cards>,
     .range = {1, 100000},
     .derive = &cards_for_workload,
     .noted = &never,
     .label = tr_noop("cards bought")},
    {.key = "cards_per_server",
     .kind = K::kWhole,
     .at = buy<&OwnInputs::cards_per_server>,
     .range = {1, 64},
     .fallback = "8",
     .why = tr_noop("the article's 8-card server (HGX/DGX and most Chinese AI servers hold 8)"),
     .label = tr_noop("cards per server (server base, power, operations and colocation are per server)")},
    {.key = "card_price",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::card_price>,
     .range = {0},
     .derive = &card_price,
     .missing = "is required: the catalog has no card price for this GPU",
     .vary = true,
     .label = tr_noop("price per card")},
    {.key = "server_base",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::server_base>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("no server_base price in the catalog: set buy.server_base"),
     .derive = &server_base,
     .vary = true,
     .label = tr_noop("server without GPUs (chassis, CPUs, memory, NVMe), per server")},
    {.key = "network",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::network>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("assumption: one server, no switch fabric"),
     .derive = &network,
     .vary = true,
     .label = tr_noop("switches and NICs")},
    {.key = "facility",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::facility>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("assumption: the room, cooling and power already exist"),
     .vary = true,
     .label = tr_noop("room, cooling and power upgrades (sunk)")},
    {.key = "lead_time",
     .kind = K::kDuration,
     .at = buy<&OwnInputs::lead_time>,
     .range = {0},
     .fallback = "2mo",
     .why = tr_noop("the article: procurement \"拖两个月\" (drags on two months)"),
     .derive = &lead_time,
     .echo = {.key = "lead_time_months", .divisor = kMonthSeconds},
     .vary = true,
     .label = tr_noop("order to first training day")},
    {.key = "lead_time_cover",
     .kind = K::kChoice,
     .at = buy<&OwnInputs::cover>,
     .fallback = "rent",
     .why =
         tr_noop("default: rent until the hardware arrives (by the hour or a monthly package, whichever costs less)"),
     .choices = kCovers,
     .label = tr_noop("the lead time: rent meanwhile, or a delay cost")},
    {.key = "delay_cost_per_month",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::delay_cost_per_month>,
     .range = {0},
     .fallback = "0",
     .noted = &never,
     .label = tr_noop("what a month without training costs")},
    {.key = "useful_life",
     .kind = K::kDuration,
     .at = buy<&OwnInputs::useful_life>,
     .range = {0, std::numeric_limits<double>::infinity(), true},
     .fallback = "3y",
     .why = tr_noop("assumption: three years of straight-line depreciation (the catalog has no useful-life record)"),
     .derive = &useful_life,
     .echo = {.key = "useful_life_months", .divisor = kMonthSeconds},
     .vary = true,
     .label = tr_noop("useful life (straight-line depreciation)")},
    {.key = "residual_value",
     .kind = K::kShare,
     .at = buy<&OwnInputs::residual_share>,
     .range = {0, 1},
     .fallback = "0%",
     .why = tr_noop("assumption: no resale value (the catalog has no residual-value record)"),
     .derive = &residual_value,
     .vary = true,
     .label = tr_noop("resale value at the end of the useful life")},
    {.key = "card_price_trend",
     .kind = K::kShare,
     .at = buy<&OwnInputs::card_price_trend>,
     .range = {-0.9, 1},
     .fallback = "0%",
     .why = tr_noop(
         "default: no change assumed; the catalog's CN H100 card prices fell about 13% a year from 2023-06 to 2025-02 "
         "(the manual shows the records)"),
     .vary = true,
     .spread = 0.1,
     .label = tr_noop("yearly change of new-card prices: moves the hardware's resale value")},
    {.key = "resale_value",
     .kind = K::kShare,
     .at = buy<&OwnInputs::resale_share>,
     .range = {0, 10},
     .vary = true,
     .varies = [](const Scenario& s) { return s.own.resale_share.has_value(); },
     .label = tr_noop("what the hardware sells for at the horizon, share of its price (overrides depreciation)")},
    {.key = "resale_amount",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::resale_amount>,
     .range = {0},
     .label = tr_noop("what the hardware sells for at the horizon (overrides depreciation)")},
    {.key = "gpu_power",
     .kind = K::kWatts,
     .at = buy<&OwnInputs::gpu_busy>,
     .range = {0},
     .derive = &gpu_tdp,
     .echo = {.key = "gpu_power_w"},
     .vary = true,
     .label = tr_noop("power per card, training")},
    {.key = "gpu_idle_power",
     .kind = K::kWatts,
     .at = buy<&OwnInputs::gpu_idle>,
     .range = {0},
     .derive = &idle_power,
     .echo = {.key = "gpu_idle_power_w"},
     .vary = true,
     .label = tr_noop("power per card, idle")},
    {.key = "server_power",
     .kind = K::kWatts,
     .at = buy<&OwnInputs::server>,
     .range = {0},
     .fallback = "1500W",
     .why = tr_noop("assumption: CPUs, memory, fans, NICs and storage of an 8-GPU server"),
     .echo = {.key = "server_power_w"},
     .vary = true,
     .label = tr_noop("power of the rest of a server (per server)")},
    {.key = "pue",
     .kind = K::kNumber,
     .at = buy<&OwnInputs::pue>,
     .range = {1, 5},
     .fallback = "1.5",
     .why = tr_noop("assumption: a typical enterprise server room (the catalog has no PUE record)"),
     .derive = &pue,
     .vary = true,
     .label = tr_noop("PUE (facility power ÷ IT power)")},
    {.key = "electricity_per_kwh",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::electricity_per_kwh>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("not in the catalog"),
     .derive = &electricity,
     .echo = {.money_decimals = -1},
     .vary = true,
     .label = tr_noop("electricity price per kWh")},
    {.key = "operations_per_month",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::operations_per_month>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("not in the catalog"),
     .derive = &operations,
     .vary = true,
     .label = tr_noop("operations (staff) a month, per server")},
    {.key = "colocation_per_month",
     .kind = K::kMoney,
     .at = buy<&OwnInputs::colocation_per_month>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("assumption: the team's own server room"),
     .vary = true,
     .label = tr_noop("colocation a month, per server")},
    {.key = "financing",
     .kind = K::kChoice,
     .at = buy<&OwnInputs::financing>,
     .fallback = "cash",
     .why = tr_noop("default: the hardware is paid in full at purchase"),
     .choices = kFinancing,
     .label = tr_noop("how the hardware is paid: cash, loan or lease (the facility is paid in cash)")},
    {.key = "loan_rate",
     .kind = K::kShare,
     .at = buy<&OwnInputs::loan_rate>,
     .range = {0, 1},
     .fallback = "3%",
     .why = tr_noop(
         "China's one-year loan prime rate (LPR), 3.0% since 2025-05 (National Interbank Funding Center, "
         "reported by Xinhua 2025-09-22, en.people.cn/n3/2025/0922/c90000-20369329.html); a bank lends to a firm "
         "at the LPR plus its margin: confidence medium"),
     .noted = &by_loan,
     .vary = true,
     .varies = [](const Scenario& s) { return s.own.financing == Financing::kLoan; },
     .label = tr_noop("loan: nominal yearly interest rate (monthly payments)")},
    {.key = "loan_term",
     .kind = K::kWhole,
     .at = buy<&OwnInputs::loan_term_months>,
     .range = {1, 240},
     .fallback = "3y",
     .why = tr_noop("assumption: repaid over three years, the default useful life"),
     .noted = &by_loan,
     .parse = &parse_months,
     .echo = {.key = "loan_term_months"},
     .label = tr_noop("loan: months of equal payments")},
    {.key = "down_payment",
     .kind = K::kShare,
     .at = buy<&OwnInputs::down_payment>,
     .range = {0, 1},
     .fallback = "30%",
     .why = tr_noop("assumption: banks commonly lend up to 70% of the equipment's price"),
     .noted = &by_loan,
     .label = tr_noop("loan: share of the hardware paid at purchase")},
    {.key = "lease_rate",
     .kind = K::kShare,
     .at = buy<&OwnInputs::lease_rate>,
     .range = {0, 1},
     .fallback = "6%",
     .why = tr_noop(
         "assumption: the loan prime rate plus about 3 points, a finance lessor's margin; ask the lessor for the "
         "rate implicit in its quote"),
     .noted = &by_lease,
     .vary = true,
     .varies = [](const Scenario& s) { return s.own.financing == Financing::kLease; },
     .label = tr_noop("lease: the rate implicit in the payments (nominal yearly)")},
    {.key = "lease_term",
     .kind = K::kWhole,
     .at = buy<&OwnInputs::lease_term_months>,
     .range = {1, 240},
     .fallback = "3y",
     .why = tr_noop("assumption: three years, the default useful life"),
     .noted = &by_lease,
     .parse = &parse_months,
     .echo = {.key = "lease_term_months"},
     .label = tr_noop("lease: months of equal payments")},
    {.key = "lease_upfront",
     .kind = K::kShare,
     .at = buy<&OwnInputs::lease_upfront>,
     .range = {0, 1},
     .fallback = "10%",
     .why = tr_noop("assumption: a first payment (首付) of about a tenth"),
     .noted = &by_lease,
     .label = tr_noop("lease: share of the hardware paid at signing")},
    {.key = "lease_buyout",
     .kind = K::kShare,
     .at = buy<&OwnInputs::lease_buyout>,
     .range = {0, 1},
     .fallback = "0%",
     .why = tr_noop("assumption: a nominal buyout price (名义货价) at the end of the term"),
     .noted = &by_lease,
     .label = tr_noop("lease: share of the hardware paid at the end of the term to own it")},
};

// ---- rent ----
// Offers and prices are resolved by hand beside these tables (scenario.cc):
// rows without a member declare the keys, their kinds and ranges.

constexpr F kRent[] = {
    {.key = "provider", .kind = K::kText, .label = tr_noop("only this provider's offers")},
    {.key = "price_trend",
     .kind = K::kShare,
     .at = in<&Scenario::rent_price_trend>,
     .range = {-0.9, 1},
     .fallback = "0%",
     .why = tr_noop("default: no change assumed (gpuplan prices --history shows the catalog's dated prices)"),
     .vary = true,
     .spread = 0.1,
     .by_hand = true,
     .label = tr_noop("yearly change of rental prices (committed prices do not move)")},
    {.key = "regions",
     .kind = K::kList,
     .fallback = "the scenario's region",
     .why = tr_noop("default for data residency: the article's teams often may not move their data out of the country; "
                    "rent.regions: any compares every offer"),
     .label = tr_noop("where rented nodes may be: countries (CN) or provider regions (cn-northwest-1); any: anywhere")},
    {.key = "storage_per_gb_month",
     .kind = K::kMoney,
     .range = {0},
     .vary = true,
     .label = tr_noop("storage per GB-month")},
    {.key = "egress_per_gb", .kind = K::kMoney, .range = {0}, .vary = true, .label = tr_noop("egress per GB")},
    {.key = "support",
     .kind = K::kShare,
     .range = {0, 1},
     .vary = true,
     .label = tr_noop("support, share of the bill")},
    {.key = "support_minimum_monthly", .kind = K::kMoney, .range = {0}, .label = tr_noop("support minimum a month")},
    {.key = "provisioning",
     .kind = K::kDuration,
     .range = {0},
     .fallback = "15min",
     .why = tr_noop("the article: a rented instance is ready within 15 minutes"),
     .label = tr_noop("order to a usable instance")},
    {.key = "hourly", .kind = K::kText, .label = tr_noop("on-demand (by the hour)")},
    {.key = "monthly", .kind = K::kText, .label = tr_noop("monthly package")},
    {.key = "spot", .kind = K::kText, .label = tr_noop("spot (preemptible)")},
};

// The keys every rental mode takes (read by hand: offer resolution). A price
// carries its basis in its key: per instance (of gpus_per_instance GPUs) or per
// GPU, per hour (monthly: per month); the echo uses the same keys.
constexpr Range kPositive{0, std::numeric_limits<double>::infinity(), true};
constexpr F kModeKeys[] = {
    {.key = "enabled", .kind = K::kBool, .label = tr_noop("compare this option")},
    {.key = "offer",
     .kind = K::kText,
     .label = tr_noop("catalog offer id (default: the cheapest per GPU-hour; none: a price in no catalog)")},
    {.key = "gpus_per_instance", .kind = K::kWhole, .range = {1, 1024}, .label = tr_noop("GPUs per instance")},
    {.key = "billing_granularity",
     .kind = K::kDuration,
     .range = {0},
     .label = tr_noop("billing step (0: billed exactly)")},
    {.key = "minimum_billing", .kind = K::kDuration, .range = {0}, .label = tr_noop("minimum billed per run")},
    {.key = "storage_per_gb_month",
     .kind = K::kMoney,
     .range = {0},
     .label = tr_noop("storage per GB-month (this option)")},
    {.key = "egress_per_gb", .kind = K::kMoney, .range = {0}, .label = tr_noop("egress per GB (this option)")},
    {.key = "support",
     .kind = K::kShare,
     .range = {0, 1},
     .label = tr_noop("support, share of the bill (this option)")},
    {.key = "support_minimum_monthly",
     .kind = K::kMoney,
     .range = {0},
     .label = tr_noop("support minimum a month (this option)")},
};

constexpr F kHourPrices[] = {
    {.key = "price_per_instance_hour",
     .kind = K::kMoney,
     .range = kPositive,
     .label = tr_noop("price of one instance an hour (reprices the offer)")},
    {.key = "price_per_gpu_hour",
     .kind = K::kMoney,
     .range = kPositive,
     .label = tr_noop("price of one GPU an hour (reprices the offer)")},
};

constexpr F kMonthPrices[] = {
    {.key = "price_per_instance_month",
     .kind = K::kMoney,
     .range = kPositive,
     .label = tr_noop("price of one instance a month (reprices the offer)")},
    {.key = "price_per_gpu_month",
     .kind = K::kMoney,
     .range = kPositive,
     .label = tr_noop("price of one GPU a month (reprices the offer)")},
};

template <std::size_t N, std::size_t M, std::size_t L>
constexpr std::array<F, N + M + L> join(const F (&a)[N], const F (&b)[M], const F (&c)[L]) {
  std::array<F, N + M + L> out{};
  for (std::size_t i = 0; i < N; ++i) out[i] = a[i];
  for (std::size_t i = 0; i < M; ++i) out[N + i] = b[i];
  for (std::size_t i = 0; i < L; ++i) out[N + M + i] = c[i];
  return out;
}

template <auto M>
constexpr Access<Scenario> hourly = member<&Scenario::hourly, M>();

constexpr F kHourlyOwn[] = {
    {.key = "idle_per_run",
     .kind = K::kDuration,
     .at = hourly<&HourlyInputs::idle_per_run>,
     .range = {0},
     .fallback = "0.5h",
     .why = tr_noop("assumption: the forgotten instance (set auto_release: true)"),
     .noted = [](const Scenario& s, const FieldContext&) { return !s.hourly->auto_release; },
     .echo = {.key = "idle_per_run_h", .divisor = 3600},
     .vary = true,
     .label = tr_noop("left running after each run")},
    {.key = "auto_release",
     .kind = K::kBool,
     .at = hourly<&HourlyInputs::auto_release>,
     .fallback = "false",
     .noted = &never,
     .label = tr_noop("released when a run ends")},
};

constexpr F kMonthlyOwn[] = {
    {.key = "commitment",
     .kind = K::kDuration,
     .range = {0, std::numeric_limits<double>::infinity()},
     .label = tr_noop("committed-use term (1y, 3y; 0: none, as the echo writes it)")},
    {.key = "upfront",
     .kind = K::kShare,
     .at = member<&Scenario::monthly, &RentInputs::upfront_share>(),
     .range = {0, 1},
     .fallback = "0%",
     .why = tr_noop("default: committed months paid month by month"),
     .noted = &never,
     .label = tr_noop("share of the committed term's compute paid in month 0 (100%: all upfront)")},
};

Value per_day(const Scenario& s) { return s.spot ? Value(s.spot->interruptions.interruptions_per_hour * 24) : Value(); }
void set_per_day(Scenario& s, const Value& v) {
  s.spot->interruptions.interruptions_per_hour = std::get<double>(v) / 24;
}

Value parse_interval(const std::string& t, const FieldContext&) {
  if (t == "auto") return Value();
  const Seconds d = parse_duration(t);
  if (!(d > Seconds(0))) throw std::invalid_argument(std::string(tr("must be longer than zero")));
  return d;
}

constexpr F kSpotOwn[] = {
    {.key = "discount",
     .kind = K::kShare,
     .range = {0, 1, true, true},
     .label = tr_noop("spot as a discount off the hourly price")},
    {.key = "interruptions_per_day",
     .kind = K::kNumber,
     .at = {&per_day, &set_per_day},
     .range = {0, 1000},
     .fallback = "1",
     .why = kSpotRateAssumption,
     .vary = true,
     .label = tr_noop("interruptions per instance a day")},
    {.key = "checkpoint_write",
     .kind = K::kDuration,
     .at = member<&Scenario::spot, &SpotInputs::interruptions, &SpotParams::checkpoint_write>(),
     .range = {0},
     .fallback = "5min",
     .why = tr_noop("assumption"),
     .echo = {.key = "checkpoint_write_s"},
     .label = tr_noop("time to write a checkpoint")},
    {.key = "restart",
     .kind = K::kDuration,
     .at = member<&Scenario::spot, &SpotInputs::interruptions, &SpotParams::restart>(),
     .range = {0},
     .fallback = "10min",
     .why = tr_noop("assumption"),
     .echo = {.key = "restart_s"},
     .label = tr_noop("time to restart after an interruption")},
    {.key = "checkpoint_interval",
     .kind = K::kDuration,
     .at = member<&Scenario::spot, &SpotInputs::interruptions, &SpotParams::interval>(),
     .parse = &parse_interval,
     .echo = {.skip = true},
     .label = tr_noop("checkpoint interval (auto: Daly's optimum)")},
};

constexpr auto kHourly = join(kModeKeys, kHourPrices, kHourlyOwn);
constexpr auto kMonthly = join(kModeKeys, kMonthPrices, kMonthlyOwn);
constexpr auto kSpot = join(kModeKeys, kHourPrices, kSpotOwn);

// ---- tax ----

template <auto M>
constexpr Access<Scenario> vat = member<&Scenario::vat, M>();

constexpr const char* kVatLaw = tr_noop(
    "VAT Law of the PRC, in force 2026-01-01, keeps the 13%/9%/6% rates (vatupdate.com/2024/12/29, citing Yicai; "
    "avalara.com China VAT rates, 2025-12-24)");

// China's rate for the class in the scenario's region; elsewhere none is assumed, and said.
std::optional<Fallback> china_rate(const Scenario& s, double rate, std::string_view why) {
  if (!id_equals(s.region, "CN"))
    return Fallback{0.0, "0%",
                    trf("default: no VAT rate known for region {}; set tax.vat_* to yours (a sales tax is "
                        "not VAT)",
                        s.region)};
  return Fallback{rate, fmt::format("{:g}%", rate * 100), trf("{}; {}", tr(why), tr(kVatLaw))};
}
std::optional<Fallback> vat_goods(const Scenario& s, const FieldContext&) {
  return china_rate(s, 0.13,
                    tr_noop("China: goods, electricity and leasing of tangible movables (finance leases too) 13% since "
                            "2019-04-01 (MOF/STA/GACC Announcement 2019 No. 39)"));
}
std::optional<Fallback> vat_rent(const Scenario& s, const FieldContext&) {
  return china_rate(
      s, 0.06,
      tr_noop("China: cloud GPU rental invoiced as an information-technology service 6% (Caishui [2016] No. "
              "36); a provider invoicing bare servers as leasing of tangible movables charges 13%: confidence "
              "medium"));
}
std::optional<Fallback> vat_services(const Scenario& s, const FieldContext&) {
  return china_rate(
      s, 0.06,
      tr_noop("China: IDC colocation (value-added telecom) and contracted operations (modern services) 6% "
              "(Caishui [2016] No. 36); in-house staff carry none (tax.operations_in_house)"));
}

// Whether operations are staff or a service moves a total only where VAT is a cost or is taken out of prices.
bool operations_vat_matters(const Scenario& s, const FieldContext&) {
  return s.own.operations_per_month.micros() != 0 && (!s.vat.recoverable || s.vat.prices_include_vat);
}

constexpr F kTax[] = {
    {.key = "vat_goods",
     .kind = K::kShare,
     .at = vat<&VatInputs::goods>,
     .range = {0, 1},
     .derive = &vat_goods,
     .vary = true,
     .varies = [](const Scenario& s) { return !s.vat.recoverable; },
     .label = tr_noop("VAT on hardware, facility, electricity and lease payments")},
    {.key = "vat_rent",
     .kind = K::kShare,
     .at = vat<&VatInputs::rent>,
     .range = {0, 1},
     .derive = &vat_rent,
     .vary = true,
     .varies = [](const Scenario& s) { return !s.vat.recoverable; },
     .label = tr_noop("VAT on rented compute and its add-ons")},
    {.key = "vat_services",
     .kind = K::kShare,
     .at = vat<&VatInputs::services>,
     .range = {0, 1},
     .derive = &vat_services,
     .vary = true,
     .varies = [](const Scenario& s) { return !s.vat.recoverable; },
     .label = tr_noop("VAT on colocation and contracted operations")},
    {.key = "prices_include_vat",
     .kind = K::kBool,
     .at = vat<&VatInputs::prices_include_vat>,
     .fallback = "false",
     .why = tr_noop(
         "default: every price (given or from the catalog) is taken as excluding VAT; set true when yours include "
         "it (含税)"),
     .label = tr_noop("the prices given include VAT (the model takes them less it)")},
    {.key = "vat_recoverable",
     .kind = K::kBool,
     .at = vat<&VatInputs::recoverable>,
     .fallback = "true",
     .why = tr_noop(
         "default: a general VAT taxpayer (一般纳税人) deducts input VAT, so it is paid and recovered, not a cost; "
         "a small-scale taxpayer (小规模纳税人) cannot: set false"),
     .label = tr_noop("input VAT is deducted (false: VAT is a cost, added to every total as its own line)")},
    {.key = "operations_in_house",
     .kind = K::kBool,
     .at = vat<&VatInputs::operations_in_house>,
     .fallback = "true",
     .why = tr_noop(
         "default: buy.operations_per_month is the team's own staff, whose salaries carry no VAT; set false for a "
         "contracted service (tax.vat_services)"),
     .noted = &operations_vat_matters,
     .label = tr_noop("operations is in-house staff (false: a contracted service, which carries VAT)")},
};

// ---- hybrid ----

std::optional<Fallback> local_gpu(const Scenario& s, const FieldContext&) {
  return Fallback{s.own.gpu, s.own.gpu, tr_noop("default: buy.gpu")};
}

std::optional<Fallback> local_tdp(const Scenario& s, const FieldContext& ctx) {
  const Gpu* g = ctx.catalog->find_gpu(s.hybrid->local_gpu);
  if (!g) return std::nullopt;
  return Fallback{g->tdp, fmt::format("{:g}W", g->tdp.value()), trf("{} TDP: {}", g->id, cite(g->provenance))};
}
std::optional<Fallback> local_idle(const Scenario& s, const FieldContext&) {
  const Watts idle = s.hybrid->local_gpu_busy * 0.15;
  return Fallback{idle, fmt::format("{:g}W", idle.value()), tr_noop("assumption: 15% of TDP when idle")};
}

// The rented card of the hybrid's hourly part: its offer's GPU, else buy.gpu.
const Gpu* rented_gpu(const Scenario& s, const FieldContext& ctx) {
  if (s.hourly && !s.hourly->rent.offer.empty())
    if (const Offer* o = ctx.catalog->find_offer(s.hourly->rent.offer)) return ctx.catalog->find_gpu(o->gpu);
  return ctx.catalog->find_gpu(s.own.gpu);
}

// The first training precision both cards have a dense rate for: BF16, FP16, TF32, FP32.
std::optional<Precision> common_precision(const Gpu& a, const Gpu& b) {
  for (const Precision p : {Precision::kBf16, Precision::kFp16, Precision::kTf32, Precision::kFp32}) {
    const auto ia = a.dense_tflops.find(p), ib = b.dense_tflops.find(p);
    if (ia != a.dense_tflops.end() && ib != b.dense_tflops.end() && ia->second > 0 && ib->second > 0) return p;
  }
  return std::nullopt;
}

// Local speed: the ratio of the two cards' dense peak rates at one precision.
std::optional<Fallback> local_speed(const Scenario& s, const FieldContext& ctx) {
  const Gpu* local = ctx.catalog->find_gpu(s.hybrid->local_gpu);
  const Gpu* rented = rented_gpu(s, ctx);
  if (!local || !rented) return std::nullopt;
  const auto p = common_precision(*local, *rented);
  if (!p) return std::nullopt;
  const double l = local->dense_tflops.at(*p), r = rented->dense_tflops.at(*p);
  return Fallback{l / r, fmt::format("{:.3g}", l / r),
                  trf("catalog dense {} peaks: {} {:g} ÷ {} {:g} TFLOP/s (peaks, not measured speed: measure "
                      "both cards on your job and set hybrid.local_speed)",
                      to_string(*p), local->id, l, rented->id, r)};
}

constexpr F kHybrid[] = {
    {.key = "local_share",
     .kind = K::kShare,
     .at = hybrid<&HybridInputs::local_share>,
     .range = {0, 1},
     .fallback = "30%",
     .why = tr_noop("default"),
     .vary = true,
     .label = tr_noop("share of the work on local cards (in rented-card GPU-hours; capped by their capacity)")},
    {.key = "local_cards",
     .kind = K::kWhole,
     .at = hybrid<&HybridInputs::local_cards>,
     .range = {1, 100000},
     .fallback = "2",
     .why = tr_noop("default"),
     .label = tr_noop("local cards")},
    {.key = "local_capex",
     .kind = K::kMoney,
     .at = hybrid<&HybridInputs::local_capex>,
     .range = {0},
     .fallback = "0",
     .why = tr_noop("default: the local cards are already owned"),
     .label = tr_noop("price of the local cards (0: already owned)")},
    {.key = "local_gpu",
     .kind = K::kText,
     .at = hybrid<&HybridInputs::local_gpu>,
     .derive = &local_gpu,
     .parse = &parse_gpu_id,
     .echo = {.skip = true},
     .label = tr_noop("local GPU")},
    {.key = "local_speed",
     .kind = K::kNumber,
     .at = hybrid<&HybridInputs::local_speed>,
     .range = {0, 100, true},
     .fallback = "1",
     .why = tr_noop("assumption: as fast as the rented card (the catalog has no common precision for both)"),
     .derive = &local_speed,
     .vary = true,
     .label = tr_noop("work a local card does in an hour, relative to a rented card")},
    {.key = "local_gpu_power",
     .kind = K::kWatts,
     .at = hybrid<&HybridInputs::local_gpu_busy>,
     .range = {0},
     .derive = &local_tdp,
     .echo = {.key = "local_gpu_power_w"},
     .label = tr_noop("power per local card, training")},
    {.key = "local_gpu_idle_power",
     .kind = K::kWatts,
     .at = hybrid<&HybridInputs::local_gpu_idle>,
     .range = {0},
     .derive = &local_idle,
     .echo = {.key = "local_gpu_idle_power_w"},
     .label = tr_noop("power per local card, idle")},
};

bool has_hourly(const Scenario& s) { return s.hourly.has_value(); }
bool has_monthly(const Scenario& s) { return s.monthly.has_value(); }
bool has_spot(const Scenario& s) { return s.spot.has_value(); }
bool has_hybrid(const Scenario& s) { return s.hybrid.has_value(); }

constexpr Section<Scenario> kSections[] = {
    {"", kTop},
    {"workload", kWorkload},
    {"buy", kBuy},
    {"rent", kRent},
    {"rent.hourly", kHourly, &has_hourly},
    {"rent.monthly", kMonthly, &has_monthly},
    {"rent.spot", kSpot, &has_spot},
    {"hybrid", kHybrid, &has_hybrid},
    {"tax", kTax},
};

}  // namespace

std::span<const Section<Scenario>> scenario_sections() { return kSections; }

std::optional<double> server_base_share_factor(const Scenario& s, const FieldContext& ctx) {
  const auto r = base_records(s, ctx);
  if (!r || !r->share) return std::nullopt;
  return share_factor(*r->share);
}

const Section<Scenario>& scenario_section(std::string_view name) {
  for (const Section<Scenario>& s : kSections)
    if (s.name == name) return s;
  throw std::logic_error(fmt::format("no scenario section '{}'", name));
}

const Field<Scenario>& operating_field(OperatingKind kind) {
  const auto row = [](std::string_view section, std::string_view key) -> const Field<Scenario>& {
    return *find_field(scenario_section(section).rows, key);
  };
  switch (kind) {
    case OperatingKind::kPue:
      return row("buy", "pue");
    case OperatingKind::kLeadTime:
      return row("buy", "lead_time");
    case OperatingKind::kUsefulLife:
      return row("buy", "useful_life");
    case OperatingKind::kResidualValue:
      return row("buy", "residual_value");
    case OperatingKind::kDiscountRate:
      return row("", "discount_rate");
    default:
      throw std::logic_error("operating_field: a money kind is read as a price");
  }
}

Json echo_rental(const RentInputs& r, bool monthly) {
  const char* per = monthly ? "month" : "hour";
  Json j = Json::object();
  j["offer"] = r.offer.empty() ? Json() : Json(r.offer);
  j["description"] = r.description;
  j[fmt::format("price_per_instance_{}", per)] = Json::money(r.price, -1);
  j[fmt::format("price_per_gpu_{}", per)] = Json::money(r.price.scaled(1.0 / r.gpus_per_instance), -1);
  j["gpus_per_instance"] = r.gpus_per_instance;
  j["billing_granularity_s"] = r.granularity.count();
  j["minimum_billing_s"] = r.minimum_billing.count();
  j["storage_per_gb_month"] = Json::money(r.storage_per_gb_month, -1);
  j["egress_per_gb"] = Json::money(r.egress_per_gb, -1);
  j["support"] = r.support_share;
  j["support_minimum_monthly"] = Json::money(r.support_minimum_monthly, -1);
  // Only a monthly rental has a term to commit to: hourly and spot echo none,
  // as --set takes none (an echoed 0 there was a key --set refused).
  if (monthly) j["commitment_months"] = r.commitment_months;
  return j;
}

namespace {

Json rental_properties(std::string_view section) {
  const std::string per = section == "rent.monthly" ? "month" : "hour";
  Json p = Json::object();
  p["offer"] = value_schema(K::kText, {}, "the catalog offer (null: a price in no catalog)", true);
  p["description"] = value_schema(K::kText, {}, "provider, instance and GPUs", false);
  p["price_per_instance_" + per] = value_schema(K::kMoney, {}, "price of one instance per " + per, false);
  p["price_per_gpu_" + per] = value_schema(K::kMoney, {}, "price of one GPU per " + per, false);
  p["gpus_per_instance"] = value_schema(K::kWhole, {}, "GPUs per instance", false);
  p["billing_granularity_s"] = value_schema(K::kNumber, {}, "billing step, seconds", false);
  p["minimum_billing_s"] = value_schema(K::kNumber, {}, "minimum billed per run, seconds", false);
  p["storage_per_gb_month"] = value_schema(K::kMoney, {}, "storage per GB-month", false);
  p["egress_per_gb"] = value_schema(K::kMoney, {}, "egress per GB", false);
  p["support"] = value_schema(K::kShare, {}, "support, share of the bill", false);
  p["support_minimum_monthly"] = value_schema(K::kMoney, {}, "support minimum a month", false);
  if (section == "rent.monthly")
    p["commitment_months"] = value_schema(K::kWhole, {}, "committed-use term, months (0: none)", false);
  append(p, echo_properties(scenario_section(section).rows));
  return object_schema(std::move(p));
}

}  // namespace

Json scenario_echo_schema() {
  Json p = Json::object();
  p["scenario"] = value_schema(K::kText, {}, "the scenario file, or the built-in defaults", false);
  append(p, echo_properties(scenario_section("").rows));
  p["workload"] = object_schema(echo_properties(scenario_section("workload").rows));
  p["buy"] = object_schema(echo_properties(scenario_section("buy").rows));
  Json rent = Json::object();
  rent["hourly"] = rental_properties("rent.hourly");
  rent["monthly"] = rental_properties("rent.monthly");
  rent["spot"] = rental_properties("rent.spot");
  rent["regions"] = value_schema(K::kList, {}, find_field(scenario_section("rent").rows, "regions")->label, false);
  rent["price_trend"] =
      value_schema(K::kShare, {}, find_field(scenario_section("rent").rows, "price_trend")->label, false);
  p["rent"] = object_schema(std::move(rent), {"hourly", "monthly", "spot"});
  p["hybrid"] = object_schema(echo_properties(scenario_section("hybrid").rows));
  p["tax"] = object_schema(echo_properties(scenario_section("tax").rows));
  Json lines = value_schema(K::kList, {}, "every default used, with its reason and source", false);
  p["defaults_used"] = std::move(lines);
  return object_schema(std::move(p), {"hybrid"});
}

}  // namespace gpuplan
