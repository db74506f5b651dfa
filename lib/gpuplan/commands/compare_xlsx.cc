// `gpuplan compare --format xlsx`: the buy-vs-rent model as a live workbook.
//
//   Assumptions  every input as a named, editable (yellow) cell, then the
//                quantities of one month derived from them (formulas), each
//                mirroring a function of compare.cc
//   Cash flow    month 0..H per option: formulas over the named cells
//   Summary      totals, NPV, used GPU-hours, cost per used GPU-hour,
//                break-even months and the cheapest option: formulas
//
// Every formula carries the value gpuplan computed (cached), so viewers that
// do not recalculate still show the right numbers; the tests recalculate the
// workbook in LibreOffice and check that both agree, and that changing an
// assumption matches `gpuplan compare --set`. The horizon is the number of
// rows, so it is shown but not editable. Amounts are rounded with ROUND (half
// away from zero) where gpuplan rounds half to even: they differ only on an
// exact half cent.
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/commands/compare.h"
#include "gpuplan/i18n.h"
#include "gpuplan/cost/rent.h"
#include "gpuplan/scenario_fields.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {
namespace {

using xlsx::Style;

using V = xlsx::Value;
using Inputs = xlsx::Assumptions;

// billed_run_hours() (cost/rent.cc): each run rounded up to the granularity, at least the minimum.
std::string billed_formula(const std::string& hours, const V& g, const V& min) {
  return fmt::format("IF({0}<=0,0,MAX(IF({1}>0,ROUNDUP({0}/{1}-1E-9,0)*{1},{0}),{2}))", hours, g.ref, min.ref);
}

// The unit --set takes for a value the workbook shows in `scale` base units.
std::string set_unit(ValueKind kind, double scale) {
  switch (kind) {
    case ValueKind::kDuration:
      return scale >= kHoursPerMonth * 3600 * 0.99 ? "mo" : scale >= 3600 ? "h" : "s";
    case ValueKind::kBytes:
      return "GB";
    case ValueKind::kRate:
      return "MB/s";
    case ValueKind::kWatts:
      return "W";
    default:
      return "";
  }
}

// The last input takes its field's range (in the workbook's unit) as data
// validation, and names its --set: both come from the field's row.
void bind_field(Inputs& in, std::string_view section, std::string_view key, double scale = 1) {
  const Field<Scenario>* row = find_field(scenario_section(section).rows, key);
  if (!row) throw std::logic_error(fmt::format("compare workbook: no field {}.{}", section, key));
  const double eps = 1e-6;  // an open bound: the nearest value a cell can hold
  in.limit(row->range.lo / scale + (row->range.lo_open ? eps : 0),
           row->range.hi / scale - (row->range.hi_open ? eps : 0), row->kind == ValueKind::kWhole);
  in.set_as(fmt::format("{}={{}}{}", field_path(section, key), set_unit(row->kind, scale)));
}

// "hourly: price per instance", in the reader's language ("what" names the rental; it
// also makes field paths, so it stays English in the code).
std::string mode_label(const std::string& what, std::string_view label) { return trf("{}: {}", tr(what), tr(label)); }

struct RentRefs {
  V price, gpi, instances, granularity, minimum, storage, egress, support, support_min;
};

// A rental's price: an input, or, for spot priced as a discount off the hourly
// price, the discount as the input and the price following the hourly one.
V rent_price(Inputs& in, const std::string& p, const RentInputs& r, const std::string& what, const std::string& section,
             const std::optional<double>& discount, const V* hourly_price) {
  const std::string basis = p == "m_" ? "month" : "hour";
  const std::string note = r.description + (r.offer.empty() ? "" : " (catalog " + r.offer + ")");
  if (discount && hourly_price) {
    const V d = in.input(p + "discount", mode_label(what, tr_noop("discount off the hourly price")), *discount,
                         Style::kInputPercent, tr_noop("share"), tr_noop("the spot price follows the hourly price"));
    bind_field(in, section, "discount");
    return in.derived(p + "price", mode_label(what, tr_noop("price per instance")),
                      fmt::format("{}*(1-{})", hourly_price->ref, d.ref), r.price.units(), Style::kMoney,
                      std::string(basis == "month" ? tr_noop("per instance-month") : tr_noop("per instance-hour")));
  }
  const V price =
      in.input(p + "price", mode_label(what, tr_noop("price per instance")), r.price.units(), Style::kInputMoney,
               std::string(basis == "month" ? tr_noop("per instance-month") : tr_noop("per instance-hour")), note);
  bind_field(in, section, "price_per_instance_" + basis);
  return price;
}

Style shown_as_derived(Style input) {
  return input == Style::kInputMoney ? Style::kMoney : input == Style::kInputPercent ? Style::kPercent : Style::kNumber;
}

// A rental's inputs. Spot priced as a discount off the hourly price follows the
// hourly cells for what it does not give itself (`own_keys`), as gpuplan does.
RentRefs rent_inputs(Inputs& in, const std::string& p, const RentInputs& r, const Workload& w, const std::string& what,
                     const std::optional<double>& discount = std::nullopt, const V* hourly_price = nullptr,
                     const std::vector<std::string>* own_keys = nullptr) {
  const std::string section = "rent." + what;
  const bool follows = discount && hourly_price && own_keys;
  const auto cell = [&](const std::string& suffix, const std::string& label, double value, Style style,
                        const std::string& unit, const char* key, double scale, const std::string& note = "") {
    if (follows && std::find(own_keys->begin(), own_keys->end(), key) == own_keys->end())
      return in.derived(p + suffix, trf("{}: {} (as hourly)", tr(what), tr(label)), "h_" + suffix, value,
                        shown_as_derived(style), unit);
    const V v = in.input(p + suffix, mode_label(what, label), value, style, unit, note);
    bind_field(in, section, key, scale);
    return v;
  };
  RentRefs x;
  x.price = rent_price(in, p, r, what, section, discount, hourly_price);
  x.gpi = cell("gpus_per_instance", tr_noop("GPUs per instance"), r.gpus_per_instance, Style::kInputNumber,
               tr_noop("GPUs"), "gpus_per_instance", 1);
  x.granularity =
      cell("granularity_h", tr_noop("billing granularity"), r.granularity.count() / 3600.0, Style::kInputNumber,
           tr_noop("hours"), "billing_granularity", 3600, tr_noop("0 = billed exactly"));
  x.minimum = cell("minimum_h", tr_noop("minimum billed per run"), r.minimum_billing.count() / 3600.0,
                   Style::kInputNumber, tr_noop("hours"), "minimum_billing", 3600);
  x.storage = cell("storage_per_gb_month", tr_noop("storage"), r.storage_per_gb_month.units(), Style::kInputMoney,
                   tr_noop("per GB-month"), "storage_per_gb_month", 1);
  x.egress = cell("egress_per_gb", tr_noop("egress"), r.egress_per_gb.units(), Style::kInputMoney, tr_noop("per GB"),
                  "egress_per_gb", 1);
  x.support = cell("support", tr_noop("support"), r.support_share, Style::kInputPercent, tr_noop("share of the bill"),
                   "support", 1);
  x.support_min = cell("support_minimum", tr_noop("support minimum"), r.support_minimum_monthly.units(),
                       Style::kInputMoney, tr_noop("per month"), "support_minimum_monthly", 1);
  const double n = instances_for(w.gpus, r.gpus_per_instance);
  x.instances = in.derived(p + "instances", mode_label(what, tr_noop("instances")),
                           fmt::format("ROUNDUP(gpus/{},0)", x.gpi.ref), n, Style::kInteger);
  return x;
}

// One month of on-demand billing (compare.cc hourly_month + add_markups):
// returns the month's total; `idle_h` is "" for no forgotten-instance hours.
struct HourlyParts {
  V compute, idle, storage, egress, support, total;
};
HourlyParts hourly_parts(Inputs& in, const std::string& p, const RentRefs& r, const V& u, const V& runs,
                         const V& factor, const V& idle_per_run, const V& auto_release, const std::string& what,
                         const RentInputs& ri, const Workload& w) {
  const double u_value = u.v, idle_h_value = idle_per_run.v;
  const int runs_value = static_cast<int>(runs.v);
  HourlyParts h;
  const double busy = kHoursPerMonth * u_value * factor.v;
  const int nruns = std::max(1, runs_value);
  const double run = busy / nruns;
  // Idle hours fit between runs (compare.cc hourly_month): at most (730 − busy) / runs each.
  const double idle =
      (busy > 0 && auto_release.v == 0) ? std::min(idle_h_value, std::max(0.0, 730 - busy) / nruns) : 0.0;
  const V busy_v = in.derived(p + "busy_h", mode_label(what, tr_noop("busy hours a month")),
                              fmt::format("730*{}*{}", u.ref, factor.ref), busy, Style::kNumber, tr_noop("hours"));
  const V run_v = in.derived(p + "run_h", mode_label(what, tr_noop("hours per run")),
                             fmt::format("{}/MAX(1,{})", busy_v.ref, runs.ref), run, Style::kNumber, tr_noop("hours"));
  const V idle_v = in.derived(p + "idle_h", mode_label(what, tr_noop("left running per run")),
                              fmt::format("IF(AND({0}>0,{1}=0),MIN({2},MAX(0,730-{0})/MAX(1,{3})),0)", busy_v.ref,
                                          auto_release.ref, idle_per_run.ref, runs.ref),
                              idle, Style::kNumber, tr_noop("hours"));
  // At most a month's 730 h an instance (compare.cc hourly_month): kept all month costs no more.
  const double bw =
      std::min(billed_run_hours(run, ri.granularity, ri.minimum_billing) * nruns, kHoursPerMonth) * r.instances.v;
  const double ba =
      std::min(billed_run_hours(run + idle, ri.granularity, ri.minimum_billing) * nruns, kHoursPerMonth) *
      r.instances.v;
  const V work = in.derived(p + "billed_work_h", mode_label(what, tr_noop("billed instance-hours (work)")),
                            fmt::format("MIN({}*MAX(1,{}),730)*{}", billed_formula(run_v.ref, r.granularity, r.minimum),
                                        runs.ref, r.instances.ref),
                            bw, Style::kNumber, tr_noop("instance-hours"));
  const V all =
      in.derived(p + "billed_all_h", mode_label(what, tr_noop("billed instance-hours (with idle)")),
                 fmt::format("MIN({}*MAX(1,{}),730)*{}",
                             billed_formula(fmt::format("({}+{})", run_v.ref, idle_v.ref), r.granularity, r.minimum),
                             runs.ref, r.instances.ref),
                 ba, Style::kNumber, tr_noop("instance-hours"));
  h.compute = in.derived(p + "compute", mode_label(what, tr_noop("compute a month")),
                         fmt::format("{}*{}", r.price.ref, work.ref), r.price.v * bw, Style::kMoney);
  h.idle = in.derived(p + "idle", mode_label(what, tr_noop("idle hours billed a month")),
                      fmt::format("{}*({}-{})", r.price.ref, all.ref, work.ref), r.price.v * (ba - bw), Style::kMoney);
  const double dataset = w.dataset.value() / kGB, egress = w.egress_per_month.value() / kGB;
  h.storage = in.derived(p + "storage", mode_label(what, tr_noop("storage a month")),
                         fmt::format("{}*dataset_gb", r.storage.ref), r.storage.v * dataset, Style::kMoney);
  h.egress = in.derived(p + "egress", mode_label(what, tr_noop("egress a month")),
                        fmt::format("{}*egress_gb_per_month", r.egress.ref), r.egress.v * egress, Style::kMoney);
  const double bill = h.compute.v + h.idle.v + h.storage.v + h.egress.v;
  h.support = in.derived(p + "support_month", mode_label(what, tr_noop("support a month")),
                         fmt::format("IF({0}>0,MAX(({1}+{2}+{3}+{4})*{0},{5}),0)", r.support.ref, h.compute.ref,
                                     h.idle.ref, h.storage.ref, h.egress.ref, r.support_min.ref),
                         r.support.v > 0 ? std::max(bill * r.support.v, r.support_min.v) : 0.0, Style::kMoney);
  return h;
}

}  // namespace

namespace {

// The named cells the cash flow refers to, filled section by section.
struct Refs {
  V rate, u, runs;
  V lead, cover, delay, hardware, facility, tariff, pue, kwh, ops, coloc, servers;
  V life, residual, resale_mode, resale_share, resale_amount;
  const std::vector<std::string>* defaulted = nullptr;  ///< fields filled by their row's default
  bool monthly_bridges_committed = false;               ///< no hourly option: a committed monthly package bridges too
  std::optional<RentRefs> hr, mr, sr;
  V h_idle_per_run{"0", 0}, h_auto{"1", 1};
  std::optional<HourlyParts> hp, sp_work, sp_wall, yp;
  std::optional<V> m_commit, m_compute, m_storage, m_egress, m_support;
  std::optional<V> y_power, y_capex;
  V financing, fin_rate, fin_term, hw_r, fin_upfront, financed, balloon, payment;
  V vat_goods, vat_rent, vat_services, vat_recoverable, ops_in_house;
  std::optional<V> m_upfront;
};

// Whether a field took its row's default: a default that follows another input
// is a formula here, so editing that input moves it as --set does.
bool defaulted(const Refs& x, std::string_view path) {
  return x.defaulted && std::find(x.defaulted->begin(), x.defaulted->end(), path) != x.defaulted->end();
}

// An input row of the Assumptions sheet described by its field row (scenario_fields.cc).
V field(Inputs& in, std::string_view section, std::string_view key, std::string name, double value, Style style,
        std::string unit) {
  const Field<Scenario>* row = find_field(scenario_section(section).rows, key);
  const V v = in.input(std::move(name), std::string(row->label), value, style, std::move(unit));
  bind_field(in, section, key, row->echo.divisor);
  return v;
}

void workload_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  x.rate = field(gen, "", "discount_rate", "discount_rate", s.discount_rate, Style::kInputPercent, tr_noop("per year"));
  gen.heading(tr_noop("Workload"));
  field(gen, "workload", "gpus", "gpus", w.gpus, Style::kInputNumber, tr_noop("GPUs"));
  x.u = field(gen, "workload", "utilisation", "utilisation", w.utilisation, Style::kInputPercent, tr_noop("share"));
  x.runs = field(gen, "workload", "runs_per_month", "runs_per_month", w.runs_per_month, Style::kInputNumber,
                 tr_noop("runs"));
  field(gen, "workload", "dataset", "dataset_gb", w.dataset.value() / kGB, Style::kInputNumber, "GB");
  field(gen, "workload", "egress_per_month", "egress_gb_per_month", w.egress_per_month.value() / kGB,
        Style::kInputNumber, "GB");
  field(gen, "rent", "price_trend", "rent_price_trend", s.rent_price_trend, Style::kInputPercent, tr_noop("per year"));
}

// Servers, hardware in month 0 and energy a month in service (compare.cc).
void buy_derived(Inputs& gen, const Scenario& s, const V& cards, const V& per_server, const V& card_price,
                 const V& base, const V& net, const V& busy_w, const V& idle_w, const V& server_w, Refs& x) {
  const OwnInputs& o = s.own;
  const int servers = servers_for(o);
  x.servers = gen.derived("servers", tr_noop("servers (cards ÷ cards per server, rounded up)"),
                          fmt::format("ROUNDUP({}/{},0)", cards.ref, per_server.ref), servers, Style::kInteger);
  x.hardware = gen.derived("hardware", tr_noop("hardware (paid in month 0)"),
                           fmt::format("{}*{}+{}*{}+{}", card_price.ref, cards.ref, base.ref, x.servers.ref, net.ref),
                           hardware_capex(o).units(), Style::kMoney);
  // Power = (busy W × cards × u + idle W × cards × (1 − u) + server W × servers) × PUE × 730 h / 1000 (compare.cc).
  const double u = s.workload.utilisation;
  const double kwh_v =
      (o.gpu_busy.value() * o.cards * u + o.gpu_idle.value() * o.cards * (1 - u) + o.server.value() * servers) * o.pue *
      kHoursPerMonth / 1000.0;
  x.kwh = gen.derived("buy_kwh_per_month", tr_noop("energy a month in service"),
                      fmt::format("({0}*{1}*{2}+{3}*{1}*(1-{2})+{4}*{6})*{5}*730/1000", busy_w.ref, cards.ref, x.u.ref,
                                  idle_w.ref, server_w.ref, x.pue.ref, x.servers.ref),
                      kwh_v, Style::kNumber, "kWh");
}

// What the hardware sells for at the horizon: by depreciation, or a share or an amount given.
void resale_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const OwnInputs& o = s.own;
  x.resale_mode = gen.input("resale_mode", tr_noop("resale at the horizon: 0 by depreciation, 1 a share, 2 an amount"),
                            o.resale_amount  ? 2
                            : o.resale_share ? 1
                                             : 0,
                            Style::kInputNumber, tr_noop("0, 1 or 2"));
  gen.limit(0, 2, true);
  gen.set_as(std::string(tr("0: neither; 1: buy.resale_value; 2: buy.resale_amount")));
  x.resale_share = field(gen, "buy", "resale_value", "resale_value", o.resale_share.value_or(0), Style::kInputPercent,
                         tr_noop("share of hardware (resale_mode 1)"));
  x.resale_amount =
      field(gen, "buy", "resale_amount", "resale_amount", o.resale_amount ? o.resale_amount->units() : 0.0,
            Style::kInputMoney, tr_noop("resale_mode 2"));
}

void buy_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const OwnInputs& o = s.own;
  const std::string CUR(s.currency.code());
  gen.heading(tr_noop("Buy"));
  V cards;
  if (defaulted(x, "buy.cards")) {
    cards = gen.derived("cards", trf("cards ({}): workload.gpus (default)", o.gpu), "gpus", o.cards, Style::kInteger,
                        tr_noop("cards"));
  } else {
    cards = gen.input("cards", trf("cards ({})", o.gpu), o.cards, Style::kInputNumber, tr_noop("cards"));
    bind_field(gen, "buy", "cards");
  }
  const V per_server = field(gen, "buy", "cards_per_server", "cards_per_server", o.cards_per_server,
                             Style::kInputNumber, tr_noop("cards"));
  const V card_price = field(gen, "buy", "card_price", "card_price", o.card_price.units(), Style::kInputMoney, CUR);
  // A default base that is a share of the server follows the cards' price and count, as gpuplan's default does.
  const V base = o.server_base_factor > 0 && defaulted(x, "buy.server_base")
                     ? gen.derived("server_base",
                                   trf("server base: card_price × cards_per_server × {:.6g}, the non-GPU share of a "
                                       "server (default)",
                                       o.server_base_factor),
                                   fmt::format("card_price*cards_per_server*{:.17g}", o.server_base_factor),
                                   o.server_base.units(), Style::kMoney, CUR)
                     : field(gen, "buy", "server_base", "server_base", o.server_base.units(), Style::kInputMoney, CUR);
  const V net = field(gen, "buy", "network", "network", o.network.units(), Style::kInputMoney, CUR);
  x.facility = field(gen, "buy", "facility", "facility", o.facility.units(), Style::kInputMoney, CUR);
  x.lead = field(gen, "buy", "lead_time", "lead_time_months", o.lead_time / Months(1), Style::kInputNumber,
                 tr_noop("months"));
  const bool bridge_possible = s.hourly || s.monthly;
  x.cover =
      gen.input("cover_by_renting", tr_noop("bridge the lead time by renting (1) or pay the delay cost (0)"),
                o.cover == LeadTimeCover::kRent && bridge_possible ? 1 : 0, Style::kInputNumber, tr_noop("1 or 0"));
  gen.limit(0, 1, true);
  gen.set_as(fmt::format("buy.lead_time_cover={}", tr("rent (1) or delay_cost (0)")));
  x.delay = field(gen, "buy", "delay_cost_per_month", "delay_cost_per_month", o.delay_cost_per_month.units(),
                  Style::kInputMoney, CUR);
  x.life = field(gen, "buy", "useful_life", "useful_life_months", o.useful_life / Months(1), Style::kInputNumber,
                 tr_noop("months"));
  x.residual = field(gen, "buy", "residual_value", "residual_value", o.residual_share, Style::kInputPercent,
                     tr_noop("share of hardware"));
  field(gen, "buy", "card_price_trend", "card_price_trend", o.card_price_trend, Style::kInputPercent,
        tr_noop("per year"));
  resale_inputs(gen, s, x);
  const V busy_w = field(gen, "buy", "gpu_power", "gpu_power_w", o.gpu_busy.value(), Style::kInputNumber, "W");
  const V idle_w =
      defaulted(x, "buy.gpu_idle_power")
          ? gen.derived("gpu_idle_power_w", tr_noop("power per card, idle: 15% of TDP (default)"), "0.15*gpu_power_w",
                        o.gpu_idle.value(), Style::kNumber, "W")
          : field(gen, "buy", "gpu_idle_power", "gpu_idle_power_w", o.gpu_idle.value(), Style::kInputNumber, "W");
  const V server_w = field(gen, "buy", "server_power", "server_power_w", o.server.value(), Style::kInputNumber, "W");
  x.pue = field(gen, "buy", "pue", "pue", o.pue, Style::kInputNumber, tr_noop("ratio"));
  x.tariff = field(gen, "buy", "electricity_per_kwh", "electricity_per_kwh", o.electricity_per_kwh.units(),
                   Style::kInputMoney, tr_noop("per kWh"));
  x.ops = field(gen, "buy", "operations_per_month", "operations_per_month", o.operations_per_month.units(),
                Style::kInputMoney, tr_noop("per server a month"));
  x.coloc = field(gen, "buy", "colocation_per_month", "colocation_per_month", o.colocation_per_month.units(),
                  Style::kInputMoney, tr_noop("per server a month"));
  buy_derived(gen, s, cards, per_server, card_price, base, net, busy_w, idle_w, server_w, x);
  x.monthly_bridges_committed = !s.hourly;
}

// How the hardware is paid (compare.cc pay_for_hardware, financing.cc amortise):
// the upfront share at purchase, then level payments of interest and principal
// on the rest (a lease's buyout beside the last one).
void financing_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const OwnInputs& o = s.own;
  gen.heading(tr_noop("Buy: financing"));
  x.financing = gen.input("financing", tr_noop("how the hardware is paid: 0 cash, 1 loan, 2 lease"),
                          static_cast<int>(o.financing), Style::kInputNumber, tr_noop("0, 1 or 2"));
  gen.limit(0, 2, true);
  gen.set_as(fmt::format("buy.financing={}", tr("cash (0), loan (1) or lease (2)")));
  const V loan_rate =
      field(gen, "buy", "loan_rate", "loan_rate", o.loan_rate, Style::kInputPercent, tr_noop("per year"));
  const V loan_term =
      field(gen, "buy", "loan_term", "loan_term_months", o.loan_term_months, Style::kInputNumber, tr_noop("months"));
  gen.set_as("buy.loan_term={}mo");
  const V down =
      field(gen, "buy", "down_payment", "down_payment", o.down_payment, Style::kInputPercent, tr_noop("share"));
  const V lease_rate =
      field(gen, "buy", "lease_rate", "lease_rate", o.lease_rate, Style::kInputPercent, tr_noop("per year"));
  const V lease_term =
      field(gen, "buy", "lease_term", "lease_term_months", o.lease_term_months, Style::kInputNumber, tr_noop("months"));
  gen.set_as("buy.lease_term={}mo");
  const V lease_up =
      field(gen, "buy", "lease_upfront", "lease_upfront", o.lease_upfront, Style::kInputPercent, tr_noop("share"));
  const V buyout =
      field(gen, "buy", "lease_buyout", "lease_buyout", o.lease_buyout, Style::kInputPercent, tr_noop("share"));
  const bool financed = o.financing != Financing::kCash;
  const FinancingTerms t = financed ? financing_terms(o) : FinancingTerms{};
  const Schedule plan = financed ? amortise(hardware_capex(o), t) : Schedule{};
  const auto pick = [&](const V& loan, const V& lease) {
    return fmt::format("CHOOSE({}+1,0,{},{})", x.financing.ref, loan.ref, lease.ref);
  };
  x.fin_rate = gen.derived("fin_rate", tr_noop("financing: yearly rate"), pick(loan_rate, lease_rate), t.annual_rate,
                           Style::kPercent);
  x.fin_term = gen.derived("fin_term", tr_noop("financing: months of payments"), pick(loan_term, lease_term), t.months,
                           Style::kInteger, tr_noop("months"));
  const V up_share = gen.derived("fin_upfront_share", tr_noop("financing: share paid upfront"), pick(down, lease_up),
                                 t.upfront_share, Style::kPercent);
  x.hw_r = gen.derived("hardware_rounded", tr_noop("hardware, to the cent"), fmt::format("ROUND({},2)", x.hardware.ref),
                       hardware_capex(o).rounded().units(), Style::kMoney);
  x.fin_upfront = gen.derived("fin_upfront", tr_noop("paid for the hardware in month 0"),
                              fmt::format("IF({0}=0,{1},ROUND({1}*{2},2))", x.financing.ref, x.hw_r.ref, up_share.ref),
                              financed ? plan.upfront.units() : hardware_capex(o).rounded().units(), Style::kMoney);
  x.financed = gen.derived("financed", tr_noop("financed (owed after month 0)"),
                           fmt::format("{}-{}", x.hw_r.ref, x.fin_upfront.ref),
                           financed ? plan.balance[0].units() : 0.0, Style::kMoney);
  x.balloon = gen.derived("fin_buyout", tr_noop("lease buyout, with the last payment"),
                          fmt::format("IF({}=2,ROUND({}*{},2),0)", x.financing.ref, x.hw_r.ref, buyout.ref),
                          plan.balloon.units(), Style::kMoney);
  // A = (P − B·v^n)·i/(1 − v^n), i = rate/12, v = 1/(1 + i); (P − B)/n at a zero rate (financing.h).
  x.payment = gen.derived(
      "fin_payment", tr_noop("level monthly payment"),
      fmt::format("IF({0}=0,0,ROUND(IF({1}=0,({2}-{3})/{4},({2}-{3}*(1+{1}/12)^(-{4}))*({1}/12)/(1-(1+{1}/12)^(-{4}))),"
                  "2))",
                  x.financing.ref, x.fin_rate.ref, x.financed.ref, x.balloon.ref, x.fin_term.ref),
      plan.payment.units(), Style::kMoney);
}

// VAT rates and whether VAT is recovered (vat.h): apart, or a line of every total.
void tax_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  gen.heading(tr_noop("VAT"));
  x.vat_goods = field(gen, "tax", "vat_goods", "vat_goods", s.vat.goods, Style::kInputPercent, tr_noop("share"));
  x.vat_rent = field(gen, "tax", "vat_rent", "vat_rent", s.vat.rent, Style::kInputPercent, tr_noop("share"));
  x.vat_services =
      field(gen, "tax", "vat_services", "vat_services", s.vat.services, Style::kInputPercent, tr_noop("share"));
  x.vat_recoverable = gen.input("vat_recoverable", tr_noop("input VAT is deducted (1) or a cost in every total (0)"),
                                s.vat.recoverable ? 1 : 0, Style::kInputNumber, tr_noop("1 or 0"));
  gen.limit(0, 1, true);
  gen.set_as(fmt::format("tax.vat_recoverable={}", tr("true (1) or false (0)")));
  x.ops_in_house = gen.input("operations_in_house",
                             tr_noop("operations is in-house staff, no VAT (1), or a contracted service (0)"),
                             s.vat.operations_in_house ? 1 : 0, Style::kInputNumber, tr_noop("1 or 0"));
  gen.limit(0, 1, true);
  gen.set_as(fmt::format("tax.operations_in_house={}", tr("true (1) or false (0)")));
}

void hourly_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  gen.heading(tr_noop("Rent by the hour"));
  x.hr = rent_inputs(gen, "h_", s.hourly->rent, s.workload, "hourly");
  x.h_idle_per_run = gen.input("h_idle_per_run_h", tr_noop("hourly: left running after each run"),
                               s.hourly->idle_per_run.count(), Style::kInputNumber, tr_noop("hours"));
  bind_field(gen, "rent.hourly", "idle_per_run", 3600);
  x.h_auto = gen.input("h_auto_release", tr_noop("hourly: released automatically (1) or not (0)"),
                       s.hourly->auto_release ? 1 : 0, Style::kInputNumber, tr_noop("1 or 0"));
  gen.limit(0, 1, true);
  gen.set_as(fmt::format("rent.hourly.auto_release={}", tr("true (1) or false (0)")));
  const V one{"1", 1};
  x.hp = hourly_parts(gen, "h_", *x.hr, x.u, x.runs, one, x.h_idle_per_run, x.h_auto, "hourly", s.hourly->rent,
                      s.workload);
}

void monthly_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  gen.heading(tr_noop("Rent by the month"));
  x.mr = rent_inputs(gen, "m_", *s.monthly, w, "monthly");
  const RentRefs& mr = *x.mr;
  x.m_commit =
      gen.input("m_commitment_months", tr_noop("monthly: committed term (0 = none)"), s.monthly->commitment_months,
                Style::kInputNumber, tr_noop("months"), tr_noop("months past the horizon are still owed"));
  gen.limit(0, 1200, true);
  gen.set_as("rent.monthly.commitment={}mo");
  x.m_upfront = field(gen, "rent.monthly", "upfront", "m_upfront", s.monthly->upfront_share, Style::kInputPercent,
                      tr_noop("share of the committed compute"));
  x.m_compute =
      gen.derived("m_compute", tr_noop("monthly: compute a month"),
                  fmt::format("{}*{}", mr.price.ref, mr.instances.ref), mr.price.v * mr.instances.v, Style::kMoney);
  x.m_storage =
      gen.derived("m_storage", tr_noop("monthly: storage a month"), fmt::format("{}*dataset_gb", mr.storage.ref),
                  mr.storage.v * w.dataset.value() / kGB, Style::kMoney);
  x.m_egress =
      gen.derived("m_egress", tr_noop("monthly: egress a month"), fmt::format("{}*egress_gb_per_month", mr.egress.ref),
                  mr.egress.v * w.egress_per_month.value() / kGB, Style::kMoney);
  const double bill = x.m_compute->v + x.m_storage->v + x.m_egress->v;
  x.m_support = gen.derived("m_support_month", tr_noop("monthly: support a month"),
                            fmt::format("IF({0}>0,MAX(({1}+{2}+{3})*{0},{4}),0)", mr.support.ref, x.m_compute->ref,
                                        x.m_storage->ref, x.m_egress->ref, mr.support_min.ref),
                            mr.support.v > 0 ? std::max(bill * mr.support.v, mr.support_min.v) : 0.0, Style::kMoney);
}

void spot_inputs(Inputs& gen, const Scenario& s, const SpotOverhead& ov, Refs& x) {
  gen.heading(tr_noop("Spot"));
  x.sr = rent_inputs(gen, "s_", s.spot->rent, s.workload, "spot", s.spot->discount, x.hr ? &x.hr->price : nullptr,
                     &s.spot->own_keys);
  const RentRefs& sr = *x.sr;
  const SpotParams& p = s.spot->interruptions;
  const V per_day = gen.input("s_interruptions_per_day", tr_noop("spot: interruptions a day per instance"),
                              p.interruptions_per_hour * 24, Style::kInputNumber, tr_noop("per day"));
  bind_field(gen, "rent.spot", "interruptions_per_day");
  const V cw = gen.input("s_checkpoint_write_h", tr_noop("spot: checkpoint write"), p.checkpoint_write.count() / 3600,
                         Style::kInputNumber, tr_noop("hours"));
  bind_field(gen, "rent.spot", "checkpoint_write", 3600);
  const V rs_ = gen.input("s_restart_h", tr_noop("spot: restart"), p.restart.count() / 3600, Style::kInputNumber,
                          tr_noop("hours"));
  bind_field(gen, "rent.spot", "restart", 3600);
  const V given = gen.input("s_interval_h", tr_noop("spot: checkpoint interval (0 = Daly's optimum)"),
                            p.interval ? p.interval->count() / 3600 : 0.0, Style::kInputNumber, tr_noop("hours"));
  gen.limit(0, std::numeric_limits<double>::infinity());
  gen.set_as(fmt::format("rent.spot.checkpoint_interval={{}}h ({})", tr("0: auto")));
  const double lambda = p.interruptions_per_hour * sr.instances.v;
  const V lam =
      gen.derived("s_lambda_per_h", tr_noop("spot: interruptions an hour of the job (rate × instances)"),
                  fmt::format("{}/24*{}", per_day.ref, sr.instances.ref), lambda, Style::kPrecise, tr_noop("per hour"));
  // τ = sqrt(2·C·MTBF) unless given; C = 0: continuous checkpoints (τ = 0).
  const double tau = std::isfinite(ov.interval.count()) ? ov.interval.count() / 3600 : 0.0;
  // τ: given, else Daly's optimum sqrt(2CM)·[1 + (C/2M)^½/3 + (C/2M)/9] − C (M = 1/λ; C ≥ 2M: τ = M);
  // C = 0: a checkpoint every second of work.
  const V tau_v = gen.derived("s_tau_h", tr_noop("spot: checkpoint interval used"),
                              fmt::format("IF({0}>0,{0},IF({1}>0,IF({2}=0,1/3600,IF({2}>=2/{1},1/{1},"
                                          "SQRT(2*{2}/{1})*(1+SQRT({2}*{1}/2)/3+{2}*{1}/18)-{2})),0))",
                                          given.ref, lam.ref, cw.ref),
                              tau, Style::kPrecise, tr_noop("hours"));
  // Daly's complete model: T/W = M·e^(R/M)·(e^((τ + C)/M) − 1)/τ; never interrupted: 1 + C/τ for a given τ, else 1.
  const V factor =
      gen.derived("s_wall_per_work", tr_noop("spot: wall time per hour of work (Daly's complete model)"),
                  fmt::format("IF({0}=0,IF({1}>0,1+{2}/{1},1),EXP({3}*{0})*(EXP(({1}+{2})*{0})-1)/({0}*{1}))", lam.ref,
                              tau_v.ref, cw.ref, rs_.ref),
                  ov.wall_per_work, Style::kPrecise, tr_noop("ratio"));
  const V one{"1", 1}, zero{"0", 0}, yes{"1", 1};
  x.sp_work =
      hourly_parts(gen, "s_work_", sr, x.u, x.runs, one, zero, yes, tr_noop("spot (work)"), s.spot->rent, s.workload);
  // Billed up to the whole month (compare.cc build_spot): past it spot cannot do the work.
  const double u = s.workload.utilisation;
  const V billed =
      gen.derived("s_wall_billed", tr_noop("spot: wall time billed per hour of work (at most the month)"),
                  fmt::format("IF({0}>0,MIN({1},1/{0}),{1})", x.u.ref, factor.ref),
                  u > 0 ? std::min(ov.wall_per_work, 1 / u) : ov.wall_per_work, Style::kPrecise, tr_noop("ratio"));
  x.sp_wall = hourly_parts(gen, "s_wall_", sr, x.u, x.runs, billed, zero, yes, tr_noop("spot (with interruptions)"),
                           s.spot->rent, s.workload);
}

void hybrid_inputs(Inputs& gen, const Scenario& s, Refs& x) {
  const Workload& w = s.workload;
  const HybridInputs& y = *s.hybrid;
  const std::string CUR(s.currency.code());
  gen.heading(tr_noop("Hybrid (local cards, the rest by the hour)"));
  const V share = gen.input("y_local_share", tr_noop("hybrid: share of the work on local cards"), y.local_share,
                            Style::kInputPercent, tr_noop("share"));
  bind_field(gen, "hybrid", "local_share");
  const V lc = gen.input("y_local_cards", trf("hybrid: local cards ({})", y.local_gpu), y.local_cards,
                         Style::kInputNumber, tr_noop("cards"));
  bind_field(gen, "hybrid", "local_cards");
  const V speed =
      gen.input("y_local_speed", tr_noop("hybrid: work a local card does in an hour, relative to a rented card"),
                y.local_speed, Style::kInputNumber, tr_noop("ratio"));
  bind_field(gen, "hybrid", "local_speed");
  x.y_capex = gen.input("y_local_capex", tr_noop("hybrid: local hardware (month 0)"), y.local_capex.units(),
                        Style::kInputMoney, CUR);
  bind_field(gen, "hybrid", "local_capex");
  const V lb = gen.input("y_gpu_power_w", tr_noop("hybrid: local GPU power busy"), y.local_gpu_busy.value(),
                         Style::kInputNumber, "W");
  bind_field(gen, "hybrid", "local_gpu_power");
  V li;
  if (defaulted(x, "hybrid.local_gpu_idle_power")) {
    li = gen.derived("y_gpu_idle_power_w", tr_noop("hybrid: local GPU power idle: 15% of busy (default)"),
                     "0.15*y_gpu_power_w", y.local_gpu_idle.value(), Style::kNumber, "W");
  } else {
    li = gen.input("y_gpu_idle_power_w", tr_noop("hybrid: local GPU power idle"), y.local_gpu_idle.value(),
                   Style::kInputNumber, "W");
    bind_field(gen, "hybrid", "local_gpu_idle_power");
  }
  // compare.cc build_hybrid: the share is of the work; a local card does `speed` of a rented one's.
  const double ul = std::min(1.0, y.local_share * w.gpus * w.utilisation / (y.local_cards * y.local_speed));
  const V u_local =
      gen.derived("y_u_local", tr_noop("hybrid: local cards' utilisation"),
                  fmt::format("MIN(1,{}*gpus*{}/({}*{}))", share.ref, x.u.ref, lc.ref, speed.ref), ul, Style::kPercent);
  const double eff = w.utilisation > 0 ? ul * y.local_cards * y.local_speed / (w.gpus * w.utilisation) : 0.0;
  const V u_rent =
      gen.derived("y_u_rent", tr_noop("hybrid: rented utilisation"),
                  fmt::format("IF({0}>0,{0}*(1-{1}*{2}*{3}/(gpus*{0})),0)", x.u.ref, u_local.ref, lc.ref, speed.ref),
                  w.utilisation * (1 - eff), Style::kPercent);
  const double ykwh =
      (y.local_gpu_busy.value() * y.local_cards * ul + y.local_gpu_idle.value() * y.local_cards * (1 - ul)) *
      s.own.pue * kHoursPerMonth / 1000.0;
  x.y_power = gen.derived("y_local_power", tr_noop("hybrid: local power a month"),
                          fmt::format("{}*({}*{}*{}+{}*{}*(1-{}))*{}*730/1000", x.tariff.ref, lb.ref, lc.ref,
                                      u_local.ref, li.ref, lc.ref, u_local.ref, x.pue.ref),
                          s.own.electricity_per_kwh.units() * ykwh, Style::kMoney);
  const V one{"1", 1};
  x.yp = hourly_parts(gen, "y_", *x.hr, u_rent, x.runs, one, x.h_idle_per_run, x.h_auto, "hybrid (rented part)",
                      s.hourly->rent, w);
}

// The rental price level of a month (compare.cc rent_drift): today's in month 1.
std::string drift(const std::string& month) { return fmt::format("(1+rent_price_trend)^(({}-1)/12)", month); }

// One item of a month (rounded to the cent, as gpuplan adds it) and its VAT
// rate: a named rate cell, or a formula choosing one.
struct Term {
  std::string amount;
  std::string rate;
};
// An option's items in month 0 and in the running months.
struct MonthTerms {
  std::vector<Term> at0, later;
};

// The cells of one Cash flow row that the buy column reads.
struct Row {
  std::string month, in_service, value, interest, principal, owed, bridge;
};

// A rental's items at its month's price level (each rounded to the cent).
std::vector<Term> rental_terms(const HourlyParts& h, const std::string& month, const Refs& x) {
  const std::string d = drift(month);
  std::vector<Term> t;
  for (const V* v : {&h.compute, &h.idle, &h.storage, &h.egress, &h.support})
    t.push_back({fmt::format("ROUND({}*{},2)", v->ref, d), x.vat_rent.ref});
  return t;
}

// Buy: month 0 the hardware (less a loan drawn against it, or a lease's
// upfront instead) and the facility; later power, operations and colocation
// per server for the share in service, the waiting share bridged by the
// cheaper of renting by the hour (that share) and a whole monthly package, or
// priced as a delay; the loan or lease payments; the hardware's book value at
// the horizon comes back in the last month.
// The waiting share of a month: bridged by the cheaper rental, or a delay cost.
std::string bridge_formula(const Refs& x, const std::string& month, const std::string& in_service) {
  std::string hourly = "9E+99", monthly = "9E+99";
  const std::string d = drift(month);
  if (x.hp)
    hourly = fmt::format("ROUND(({1}*{0}+{2}*{0}+ROUND({3}*{0},2)+ROUND({4}*{0},2)+ROUND({5}*{0},2))*(1-{6}),2)", d,
                         x.hp->compute.ref, x.hp->idle.ref, x.hp->storage.ref, x.hp->egress.ref, x.hp->support.ref,
                         in_service);
  if (x.m_compute) {
    const std::string dm = fmt::format("IF({}>0,1,{})", x.m_commit->ref, d);  // a committed price does not move
    monthly =
        fmt::format("IF({0}{1},ROUND({2}*{6}+ROUND({3}*{6},2)+ROUND({4}*{6},2)+ROUND({5}*{6},2),2),9E+99)",
                    x.monthly_bridges_committed ? "1=1" : x.m_commit->ref, x.monthly_bridges_committed ? "" : "=0",
                    x.m_compute->ref, x.m_storage->ref, x.m_egress->ref, x.m_support->ref, dm);
  }
  return fmt::format("IF(AND({5}>0,{0}<1),IF({1}=1,MIN({2},{3}),ROUND({4}*(1-{0}),2)),0)", in_service, x.cover.ref,
                     hourly, monthly, x.delay.ref, month);
}

MonthTerms buy_terms(const Refs& x, const Row& r) {
  const std::string fin = x.financing.ref, lease_rate = fmt::format("IF({}=2,{},0)", fin, x.vat_goods.ref);
  MonthTerms t;
  t.at0 = {{fmt::format("IF({}<2,{},{})", fin, x.hw_r.ref, x.fin_upfront.ref), x.vat_goods.ref},
           {fmt::format("IF({}=1,-{},0)", fin, x.financed.ref), "0"},
           {fmt::format("ROUND({},2)", x.facility.ref), x.vat_goods.ref}};
  t.later = {{fmt::format("ROUND({}*{}*{},2)", x.tariff.ref, x.kwh.ref, r.in_service), x.vat_goods.ref},
             {fmt::format("ROUND({}*{}*{},2)", x.ops.ref, x.servers.ref, r.in_service),
              fmt::format("IF({}=1,0,{})", x.ops_in_house.ref, x.vat_services.ref)},
             {fmt::format("ROUND({}*{}*{},2)", x.coloc.ref, x.servers.ref, r.in_service), x.vat_services.ref},
             {r.bridge, fmt::format("IF({}=1,{},0)", x.cover.ref, x.vat_rent.ref)},
             {r.interest, lease_rate},
             {r.principal, lease_rate},
             {fmt::format("IF(AND({}=2,{}={}),{},0)", fin, r.month, x.fin_term.ref, x.balloon.ref), x.vat_goods.ref},
             {fmt::format("IF(AND({0}=horizon_months,{0}<{1}),{2},0)", r.month, x.fin_term.ref, r.owed), lease_rate},
             {fmt::format("-IF({}=horizon_months,{},0)", r.month, r.value), "0"}};
  return t;
}

// One option's items, as formulas over the Assumptions sheet.
MonthTerms option_terms(const std::string& key, const Refs& x, const Row& r) {
  if (key == "buy") return buy_terms(x, r);
  MonthTerms t;
  if (key == "rent_hourly") t.later = rental_terms(*x.hp, r.month, x);
  if (key == "rent_monthly") {
    const std::string dm = fmt::format("IF({}>0,1,{})", x.m_commit->ref, drift(r.month));
    const std::string up = fmt::format("IF({0}>0,{1},0)", x.m_commit->ref, x.m_upfront->ref);
    t.at0 = {{fmt::format("ROUND({}*{}*{},2)", x.m_compute->ref, x.m_commit->ref, up), x.vat_rent.ref}};
    t.later = {{fmt::format("ROUND({}*{}*(1-{}),2)", x.m_compute->ref, dm, up), x.vat_rent.ref},
               {fmt::format("ROUND({}*{},2)", x.m_storage->ref, dm), x.vat_rent.ref},
               {fmt::format("ROUND({}*{},2)", x.m_egress->ref, dm), x.vat_rent.ref},
               {fmt::format("ROUND({}*{},2)", x.m_support->ref, dm), x.vat_rent.ref},
               {fmt::format("IF({0}=horizon_months,ROUND({1}*MAX(0,{2}-horizon_months)*(1-{3}),2),0)", r.month,
                            x.m_compute->ref, x.m_commit->ref, up),
                x.vat_rent.ref}};
  }
  if (key == "spot") {
    const std::string d = drift(r.month);
    t.later = {{fmt::format("ROUND({}*{},2)", x.sp_work->compute.ref, d), x.vat_rent.ref},
               {fmt::format("ROUND(({}-{})*{},2)", x.sp_wall->compute.ref, x.sp_work->compute.ref, d), x.vat_rent.ref}};
    for (const V* v : {&x.sp_wall->storage, &x.sp_wall->egress, &x.sp_wall->support})
      t.later.push_back({fmt::format("ROUND({}*{},2)", v->ref, d), x.vat_rent.ref});
  }
  if (key == "hybrid") {
    t.at0 = {{fmt::format("ROUND({},2)", x.y_capex->ref), x.vat_goods.ref}};
    t.later = rental_terms(*x.yp, r.month, x);
    t.later.insert(t.later.begin(), {fmt::format("ROUND({},2)", x.y_power->ref), x.vat_goods.ref});
  }
  if (t.at0.empty() && t.later.empty()) throw std::logic_error("compare workbook: no formula for option " + key);
  return t;
}

std::string sum_of(const std::vector<Term>& terms, bool vat) {
  std::string out;
  for (const Term& t : terms)
    out += (out.empty() ? "" : "+") + (vat ? fmt::format("ROUND(({})*{},2)", t.amount, t.rate) : t.amount);
  return out.empty() ? "0" : out;
}

// The month's VAT (vat.h: each item × its rate, rounded) and its cash flow:
// the items, and the VAT too where it is not recoverable.
std::string vat_formula(const MonthTerms& t, const std::string& month) {
  return fmt::format("IF({}=0,{},{})", month, sum_of(t.at0, true), sum_of(t.later, true));
}
std::string flow_formula(const MonthTerms& t, const Refs& x, const std::string& month, const std::string& vat) {
  return fmt::format("IF({}=0,{},{})+IF({}=1,0,{})", month, sum_of(t.at0, false), sum_of(t.later, false),
                     x.vat_recoverable.ref, vat);
}

// Where the Cash flow sheet's columns are: month, buy's in-service share, the
// hardware's book value, each option, the discount factor, each option's
// cumulative discounted cost, then for every rental k: owning's net gap (net
// of the book value) and cash gap against k, each with its crossing month.
struct Layout {
  int options = 0;
  int in_service = 1, value = 2, first = 3, factor = 0, cumulative = 0, gaps = 0, total_row = 0;
  int interest = 0, principal = 0, owed = 0, bridge = 0, vat = 0;  ///< buy's financing and bridge; each option's VAT
  int net_gap(int k) const { return gaps + 4 * (k - 1); }
  int net_cross(int k) const { return net_gap(k) + 1; }
  int cash_gap(int k) const { return net_gap(k) + 2; }
  int cash_cross(int k) const { return net_gap(k) + 3; }
};

Layout cash_flow_header(xlsx::Sheet& cf, const Comparison& c) {
  Layout l;
  l.options = static_cast<int>(c.options.size());
  l.factor = l.first + l.options;
  l.cumulative = l.factor + 1;
  l.gaps = l.cumulative + l.options;
  l.total_row = c.scenario.horizon_months + 2;
  l.interest = l.gaps + 4 * (l.options - 1);
  l.principal = l.interest + 1;
  l.owed = l.interest + 2;
  l.bridge = l.interest + 3;
  l.vat = l.interest + 4;
  cf.label(0, l.bridge, tr_noop("buy: bridge rental or delay cost"), Style::kHeader);
  cf.label(0, l.interest, tr_noop("buy: financing interest"), Style::kHeader);
  cf.label(0, l.principal, tr_noop("buy: financing principal"), Style::kHeader);
  cf.label(0, l.owed, tr_noop("buy: owed after the payment"), Style::kHeader);
  cf.label(0, 0, tr_noop("month"), Style::kHeader);
  cf.label(0, l.in_service, tr_noop("buy: in service"), Style::kHeader);
  cf.label(0, l.value, tr_noop("buy: book value"), Style::kHeader);
  for (int k = 0; k < l.options; ++k) {
    const std::string& key = c.options[static_cast<std::size_t>(k)].key;
    cf.label(0, l.first + k, key, Style::kHeader);
    cf.text(0, l.cumulative + k, trf("cumulative {} (discounted)", tr(key)), Style::kHeader);
    cf.text(0, l.vat + k, trf("VAT {}", tr(key)), Style::kHeader);
    if (k == 0) continue;
    cf.text(0, l.net_gap(k), trf("buy net of book value − {}", tr(key)), Style::kHeader);
    cf.label(0, l.net_cross(k), tr_noop("crossing"), Style::kHeader);
    cf.text(0, l.cash_gap(k), trf("buy cash − {}", tr(key)), Style::kHeader);
    cf.label(0, l.cash_cross(k), tr_noop("crossing"), Style::kHeader);
  }
  cf.label(0, l.factor, tr_noop("discount factor"), Style::kHeader);
  cf.freeze(1, 1);
  cf.width(0, 8);
  for (int k = 1; k < l.vat + l.options; ++k) cf.width(k, 16);
  return l;
}

// The hardware's book value at a month end (compare.cc hardware_value): straight
// line from delivery over the useful life to the residual share, or to the
// resale given (a share or an amount) at the horizon.
std::string value_formula(const Refs& x, const std::string& month) {
  const std::string served = fmt::format("MAX(0,{}-{})", month, x.lead.ref);
  const std::string served_h = fmt::format("MAX(0,horizon_months-{})", x.lead.ref);
  return fmt::format(
      "ROUND(IF({0}=0,{1}*(1-(1-{2})*IF({3}>0,MIN(1,{4}/{3}),1))*(1+card_price_trend)^({8}/12),{1}+(IF({0}=1,{1}*{5},"
      "{6})-{1})*IF({7}>0,{4}/{7},IF({8}=horizon_months,1,0))),2)",
      x.resale_mode.ref, x.hardware.ref, x.residual.ref, x.life.ref, served, x.resale_share.ref, x.resale_amount.ref,
      served_h, month);
}

// Owning against option k in month row r: the gap (net of the book value or on
// cash) and, where it falls to zero or below, the month it crossed (linear
// between month ends), as stays_at_or_below_from() in compare.cc.
void gap_cells(xlsx::Sheet& cf, const Layout& l, int r, int k, double net, double cash, double prev_net,
               double prev_cash) {
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  const int m = r - 1;
  // The resale credit comes back out (the value is counted instead); what a loan still owes counts as paid.
  const std::string resale_back =
      fmt::format("IF({0}=horizon_months,{1}*{2},{3}*{2})", at(r, 0), at(r, l.value), at(r, l.factor), at(r, l.owed));
  cf.formula(r, l.net_gap(k),
             fmt::format("{}+{}-{}*{}-{}", at(r, l.cumulative), resale_back, at(r, l.value), at(r, l.factor),
                         at(r, l.cumulative + k)),
             net, Style::kMoney);
  cf.formula(r, l.cash_gap(k), fmt::format("{}+{}-{}", at(r, l.cumulative), resale_back, at(r, l.cumulative + k)), cash,
             Style::kMoney);
  for (const auto& [gap, cross, now, before] : {std::tuple{l.net_gap(k), l.net_cross(k), net, prev_net},
                                                std::tuple{l.cash_gap(k), l.cash_cross(k), cash, prev_cash}}) {
    const bool crossed = m >= 1 && before > 1e-6 && now <= 1e-6;
    const std::string f = m == 0 ? "\"\""
                                 : fmt::format("IF(AND({0}>0.000001,{1}<=0.000001),{2}-1+{0}/({0}-{1}),\"\")",
                                               at(r - 1, gap), at(r, gap), at(r, 0));
    if (crossed) cf.formula(r, cross, f, m - 1 + before / (before - now), Style::kPrecise);
    else cf.formula_text(r, cross, f, "");
  }
}

// The loan or lease of one row (financing.cc amortise): interest on what was
// owed, principal up to the level payment (the last clears what is left less
// the buyout), and what is owed after it (before a payoff at the horizon).
void financing_cells(xlsx::Sheet& cf, const Refs& x, const Layout& l, int r, const std::optional<Schedule>& plan) {
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  const auto m = static_cast<std::size_t>(r - 1);
  const bool in_term = plan && m < plan->balance.size();
  const double interest = in_term ? plan->interest[m].units() : 0.0;
  const double principal = in_term ? plan->principal[m].units() : 0.0;
  const double owed = in_term ? plan->balance[m].units() : 0.0;
  if (m == 0) {
    cf.formula(r, l.interest, "0", 0.0, Style::kMoney);
    cf.formula(r, l.principal, "0", 0.0, Style::kMoney);
    cf.formula(r, l.owed, x.financed.ref, owed, Style::kMoney);
    return;
  }
  const std::string month = at(r, 0), prev = at(r - 1, l.owed), fin = x.financing.ref, term = x.fin_term.ref;
  cf.formula(r, l.interest,
             fmt::format("IF(OR({0}=0,{1}>{2}),0,ROUND({3}*{4}/12,2))", fin, month, term, prev, x.fin_rate.ref),
             interest, Style::kMoney);
  cf.formula(r, l.principal,
             fmt::format("IF(OR({0}=0,{1}>{2}),0,MIN({3},MAX(0,IF({1}={2},{3}-{4},{5}-{6}))))", fin, month, term, prev,
                         x.balloon.ref, x.payment.ref, at(r, l.interest)),
             principal, Style::kMoney);
  cf.formula(r, l.owed, fmt::format("IF({0}>={1},0,{2}-{3})", month, term, prev, at(r, l.principal)), owed,
             Style::kMoney);
}

// Returns each option's cumulative discounted cost, month by month (the chart caches it).
std::vector<std::vector<double>> cash_flow_sheet(xlsx::Sheet& cf, const Comparison& c, const Refs& x, const Layout& l) {
  const int H = c.scenario.horizon_months;
  const OwnInputs& o = c.scenario.own;
  std::optional<Schedule> plan;
  if (o.financing != Financing::kCash) plan = amortise(hardware_capex(o), financing_terms(o));
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  std::vector<double> cum(static_cast<std::size_t>(l.options), 0.0), net(cum), cash(cum);
  std::vector<std::vector<double>> cumulative(cum.size());
  const double v = 1.0 / (1.0 + monthly_rate(c.scenario.discount_rate));
  double factor = 1.0;
  for (int m = 0; m <= H; ++m) {
    const int r = m + 1;
    cf.number(r, 0, m, Style::kInteger);
    const double ins = std::clamp(static_cast<double>(m) - x.lead.v, 0.0, 1.0);
    cf.formula(r, l.in_service, fmt::format("IF({0}=0,0,MIN(1,MAX(0,{0}-{1})))", at(r, 0), x.lead.ref),
               m == 0 ? 0 : ins, Style::kPercent);
    const double value = c.own.value[static_cast<std::size_t>(m)].units();
    cf.formula(r, l.value, value_formula(x, at(r, 0)), value, Style::kMoney);
    financing_cells(cf, x, l, r, plan);
    const Row row{at(r, 0),           at(r, l.in_service), at(r, l.value), at(r, l.interest),
                  at(r, l.principal), at(r, l.owed),       at(r, l.bridge)};
    double waiting = 0.0;
    for (const CostLine& item : c.options.front().items_by_month[static_cast<std::size_t>(m)])
      if (item.item == "bridge rental" || item.item == "delay cost") waiting += item.amount.units();
    cf.formula(r, l.bridge, bridge_formula(x, at(r, 0), at(r, l.in_service)), waiting, Style::kMoney);
    for (int k = 0; k < l.options; ++k) {
      const OptionResult& opt = c.options[static_cast<std::size_t>(k)];
      const double flow = opt.cash_flow[static_cast<std::size_t>(m)].units();
      const MonthTerms terms = option_terms(opt.key, x, row);
      cf.formula(r, l.vat + k, vat_formula(terms, at(r, 0)), opt.vat_flow[static_cast<std::size_t>(m)].units(),
                 Style::kMoney);
      cf.formula(r, l.first + k, flow_formula(terms, x, at(r, 0), at(r, l.vat + k)), flow, Style::kMoney);
      cum[static_cast<std::size_t>(k)] += flow * factor;
      cf.formula(r, l.cumulative + k,
                 m == 0 ? fmt::format("{}*{}", at(r, l.first + k), at(r, l.factor))
                        : fmt::format("{}+{}*{}", at(r - 1, l.cumulative + k), at(r, l.first + k), at(r, l.factor)),
                 cum[static_cast<std::size_t>(k)], Style::kMoney);
      cumulative[static_cast<std::size_t>(k)].push_back(cum[static_cast<std::size_t>(k)]);
    }
    cf.formula(r, l.factor, fmt::format("(1+{})^(-{}/12)", x.rate.ref, at(r, 0)), factor, Style::kPrecise);
    const double buy_cash =
        cum[0] + (m == H ? value * factor : c.own.owed[static_cast<std::size_t>(m)].units() * factor);
    for (int k = 1; k < l.options; ++k) {
      const auto kk = static_cast<std::size_t>(k);
      const double n = buy_cash - value * factor - cum[kk], ch = buy_cash - cum[kk];
      gap_cells(cf, l, r, k, n, ch, net[kk], cash[kk]);
      net[kk] = n;
      cash[kk] = ch;
    }
    factor *= v;
  }
  cf.label(l.total_row, 0, tr_noop("total"), Style::kHeader);
  for (int k = 0; k < l.options; ++k)
    cf.formula(l.total_row, l.first + k, fmt::format("SUM({}:{})", at(1, l.first + k), at(H + 1, l.first + k)),
               c.options[static_cast<std::size_t>(k)].total.units(), Style::kMoney);
  return cumulative;
}

// Cumulative discounted cost per option over the months: the Cash flow
// sheet's formula columns, so an edited assumption redraws it. Where two
// lines cross is the break-even (the Summary's months).
xlsx::LineChart cumulative_chart(const Comparison& c, const Layout& l, std::vector<std::vector<double>> cumulative,
                                 int top) {
  xlsx::LineChart ch;
  ch.title = tr_noop("Cumulative discounted cost per option (sheet Cash flow)");
  ch.x_title = tr_noop("month");
  ch.y_title = trf("{}, discounted", c.scenario.currency.code());
  ch.data_sheet = "Cash flow";
  ch.first_row = 1;
  ch.last_row = c.scenario.horizon_months + 1;
  for (int m = 0; m <= c.scenario.horizon_months; ++m) ch.categories.push_back(m);
  for (int k = 0; k < l.options; ++k) {
    const auto kk = static_cast<std::size_t>(k);
    ch.series.push_back({c.options[kk].key, 0, l.first + k, l.cumulative + k, std::move(cumulative[kk])});
  }
  ch.top = top;
  ch.bottom = top + 22;
  ch.right = 6;
  return ch;
}

// Break-even (or payback) month of buy against option k from its gap and
// crossing columns: none when the gap is above zero at the horizon, 0 when it
// never was, else the last crossing, to one decimal.
void month_cell(xlsx::Sheet& sum, int r, int col, int gap, int cross, int H, const std::optional<double>& value) {
  const std::string cfname = "'Cash flow'";
  const std::string g = xlsx::column_letters(gap), x = xlsx::column_letters(cross);
  const std::string f = fmt::format(
      "IF({0}!{1}{2}>0.000001,\"none\",IF(COUNTIF({0}!{1}2:{1}{2},\">0.000001\")=0,0,ROUND(MAX({0}!{3}2:{3}{2}),1)))",
      cfname, g, H + 2, x);
  if (value) sum.formula(r, col, f, *value, Style::kNumber);
  else sum.formula_text(r, col, f, "none");
}

// One row per option: total, NPV, GPU-hours used, cost per used GPU-hour, break-even.
void summary_options(xlsx::Sheet& sum, const Comparison& c, const Layout& l) {
  const int H = c.scenario.horizon_months;
  const auto at = [](int row, int col) { return xlsx::cell_ref(row, col); };
  const std::string cfname = "'Cash flow'";
  for (int k = 0; k < l.options; ++k) {
    const OptionResult& opt = c.options[static_cast<std::size_t>(k)];
    const int r = 3 + k;
    const std::string col = xlsx::column_letters(l.first + k);
    sum.text(r, 0, opt.key);
    sum.text(r, 1, opt.label);
    sum.formula(r, 2, fmt::format("{}!{}", cfname, at(l.total_row, l.first + k)), opt.total.units(), Style::kMoney);
    sum.formula(
        r, 3,
        fmt::format("SUMPRODUCT({0}!{1}2:{1}{2},{0}!{3}2:{3}{2})", cfname, col, H + 2, xlsx::column_letters(l.factor)),
        opt.npv, Style::kMoney);
    // GPU-hours used: every month at the utilisation; buying counts its
    // in-service months, and the waiting months only when bridged by renting.
    std::string used = "gpus*730*utilisation*horizon_months";
    // Spot that cannot fit its stretched runs in a month does the share its billed hours hold.
    if (opt.key == "spot") used = "gpus*730*utilisation*MIN(1,s_wall_billed/s_wall_per_work)*horizon_months";
    if (opt.key == "buy")
      used = fmt::format(
          "gpus*730*utilisation*(SUM({0}!{1}3:{1}{2})+IF(cover_by_renting=1,horizon_months-SUM({0}!{1}3:{1}{2}),0))",
          cfname, xlsx::column_letters(l.in_service), H + 2);
    sum.formula(r, 4, used, opt.used_gpu_hours, Style::kNumber);
    const std::string per_used = fmt::format("IF({0}>0,{1}/{0},\"\")", at(r, 4), at(r, 2));
    if (opt.cost_per_used_gpu_hour) sum.formula(r, 5, per_used, *opt.cost_per_used_gpu_hour, Style::kMoney);
    else sum.formula_text(r, 5, per_used, "");  // nothing used: no cost per hour used
    // Gross and resale: what is paid, and what the hardware brings back at the horizon.
    const std::string resale = k == 0 ? fmt::format("{}!{}", cfname, at(H + 1, l.value)) : std::string("0");
    const double resale_v = k == 0 ? c.own.resale.units() : 0.0;
    sum.formula(r, 8, fmt::format("{}+{}", at(r, 2), resale), opt.total.units() + resale_v, Style::kMoney);
    sum.formula(r, 9, resale, resale_v, Style::kMoney);
    const std::string vcol = xlsx::column_letters(l.vat + k);
    sum.formula(r, 12, fmt::format("SUM({0}!{1}2:{1}{2})", cfname, vcol, H + 2), opt.vat.units(), Style::kMoney);
    // Whether it can deliver within the horizon is gpuplan's finding at the export; only those are candidates.
    sum.text(r, 10, opt.available ? "yes" : "no (as exported)");
    const std::string npv_if = fmt::format("IF(LEFT({},3)=\"yes\",{},\"\")", at(r, 10), at(r, 3));
    if (opt.available) sum.formula(r, 11, npv_if, opt.npv, Style::kMoney);
    else sum.formula_text(r, 11, npv_if, "");
    if (k > 0 && !opt.available) {  // left out of the decision: no break-even against it
      sum.label(r, 6, tr_noop("left out"));
      sum.label(r, 7, tr_noop("left out"));
      continue;
    }
    if (k == 0 || !c.options.front().available) continue;
    month_cell(sum, r, 6, l.net_gap(k), l.net_cross(k), H, opt.break_even_month);
    month_cell(sum, r, 7, l.cash_gap(k), l.cash_cross(k), H, opt.payback_month);
  }
}

// The decision under the options: the cheapest, the cheapest rental and owning's break-even with it.
int summary_decision(xlsx::Sheet& sum, const Comparison& c, const Layout& l) {
  const int last = 3 + l.options - 1;
  int r = last + 2;
  sum.label(r, 0, tr_noop("cheapest (by NPV)"), Style::kHeader);
  // Buying left out (hardware after the horizon) is not a candidate.
  sum.formula_text(r, 1, fmt::format("IFERROR(INDEX(A4:A{0},MATCH(MIN(L4:L{0}),L4:L{0},0)),\"none\")", last + 1),
                   c.cheapest.empty() ? "none" : c.cheapest);
  ++r;
  int first_rent = -1, last_rent = -1;  // rental options, not hybrid
  for (int k = 0; k < l.options; ++k) {
    const std::string& key = c.options[static_cast<std::size_t>(k)].key;
    if (key == "buy" || key == "hybrid") continue;
    if (first_rent < 0) first_rent = 3 + k;
    last_rent = 3 + k;
  }
  if (first_rent >= 0) {
    sum.label(r, 0, tr_noop("cheapest rental"), Style::kHeader);
    const std::string range = fmt::format("{}{}:{}{}", "L", first_rent + 1, "L", last_rent + 1);
    sum.formula_text(
        r, 1,
        fmt::format("IFERROR(INDEX(A{0}:A{1},MATCH(MIN({2}),{2},0)),\"none\")", first_rent + 1, last_rent + 1, range),
        c.break_even_versus.empty() ? "none" : c.break_even_versus);
    ++r;
    const auto decision_month = [&](const char* label, const char* col, const std::optional<double>& v) {
      sum.label(r, 0, label, Style::kHeader);
      const std::string f = fmt::format("IFERROR(INDEX({3}{0}:{3}{1},MATCH(MIN({2}),{2},0)),\"none\")", first_rent + 1,
                                        last_rent + 1, range, col);
      if (v) sum.formula(r, 1, f, *v, Style::kNumber);
      else sum.formula_text(r, 1, f, "none");
      ++r;
    };
    if (c.options.front().available) {
      decision_month(tr_noop("break-even month (net of the hardware's value)"), "G", c.break_even_month);
      decision_month(tr_noop("payback month (cash alone)"), "H", c.payback_month);
    }
  }
  sum.label(r, 0, tr_noop("break-even utilisation"), Style::kHeader);
  if (c.break_even_utilisation) sum.number(r, 1, *c.break_even_utilisation, Style::kPercent);
  else sum.label(r, 1, tr_noop("none in 0-100%"));
  sum.label(r, 2, tr_noop("computed by gpuplan (a search, not a formula): rerun it after changing assumptions"),
            Style::kNote);
  return r + 2;
}

// Returns the first row below it.
int summary_sheet(xlsx::Sheet& sum, const ResolvedScenario& rs, const Comparison& c, const Layout& l) {
  sum.text(0, 0, trf("Buy vs rent over {} months ({})", c.scenario.horizon_months, c.scenario.currency.code()),
           Style::kTitle);
  const std::vector<std::string> heads = {tr_noop("option"),
                                          tr_noop("label"),
                                          tr_noop("total (net)"),
                                          tr_noop("NPV"),
                                          tr_noop("GPU-h used"),
                                          tr_noop("per used GPU-h"),
                                          tr_noop("break-even month (buy vs this, net of the hardware's value)"),
                                          tr_noop("payback month (buy vs this, cash alone)"),
                                          tr_noop("gross (paid)"),
                                          tr_noop("resale (credited at the horizon)"),
                                          tr_noop("in the decision"),
                                          tr_noop("NPV in the decision"),
                                          tr_noop("VAT (in the total only when not recoverable)")};
  for (std::size_t j = 0; j < heads.size(); ++j) sum.label(2, static_cast<int>(j), heads[j], Style::kHeader);
  sum.freeze(3);
  sum.width(0, 16);
  sum.width(1, 60);
  for (int j = 2; j < 13; ++j) sum.width(j, 18);
  summary_options(sum, c, l);
  int r = summary_decision(sum, c, l);
  sum.text(r++, 0, c.recommendation, Style::kNote);
  sum.text(r++, 0,
           trf("Scenario: {}. Generated by gpuplan; the cached values are gpuplan's, and every total is "
               "a formula over the Assumptions sheet.",
               rs.source),
           Style::kNote);
  for (const auto& n : rs.fx_notes) sum.text(r++, 0, n, Style::kNote);
  return r;
}

// Every input as a named, editable cell, section by section, then what the cash flow needs.
Refs assumptions_sheet(xlsx::Workbook& wb, xlsx::Sheet& a, const ResolvedScenario& rs, const Comparison& c) {
  const Scenario& s = rs.scenario;
  const int first = xlsx::assumptions_header(a, trf("Buy vs rent: {} ({})", s.name, s.currency.code()));
  a.label(2, 0, tr_noop("The horizon is the number of rows of Cash flow: change it with gpuplan."), Style::kNote);
  Inputs in(wb, a, first);
  a.label(in.row(), 0, tr_noop("horizon (rows of Cash flow)"));
  a.number(in.row(), 1, s.horizon_months, Style::kInteger);
  a.label(in.row(), 2, tr_noop("months"));
  // Locked by validation: the rows are the horizon, so a typed change would leave them behind.
  a.validate(in.row(), 1, s.horizon_months, s.horizon_months, true,
             trf("The horizon is the number of rows of Cash flow: run gpuplan compare --set horizon=…mo "
                 "(this workbook: {}mo)",
                 s.horizon_months));
  a.label(in.row(), 3, tr_noop("locked: the rows of Cash flow are the months; change it with gpuplan"), Style::kNote);
  a.text(in.row(), 4, "horizon={}mo", Style::kNote);
  wb.define_name("horizon_months", a, in.row(), 1);
  Inputs gen(wb, a, in.row() + 1);
  Refs x;
  x.defaulted = &rs.defaulted;
  workload_inputs(gen, s, x);
  buy_inputs(gen, s, x);
  financing_inputs(gen, s, x);
  if (s.hourly) hourly_inputs(gen, s, x);
  if (s.monthly) monthly_inputs(gen, s, x);
  if (s.spot && c.spot_overhead) spot_inputs(gen, s, *c.spot_overhead, x);
  if (s.hybrid && s.hourly) hybrid_inputs(gen, s, x);
  tax_inputs(gen, s, x);
  return x;
}

// Every item of every option in every month, long form for a pivot table:
// values as exported (the Cash flow sheet recalculates; this sheet does not).
void breakdown_sheet(xlsx::Sheet& b, const Comparison& c) {
  b.label(0, 0,
          tr_noop("Cost breakdown month by month, as exported: edits to Assumptions do not move it (Cash flow does)"),
          Style::kNote);
  const char* heads[] = {tr_noop("option"), tr_noop("item"), tr_noop("month"), tr_noop("amount")};
  for (int j = 0; j < 4; ++j) b.label(1, j, heads[j], Style::kHeader);
  b.freeze(2);
  b.width(0, 16);
  b.width(1, 26);
  int r = 2;
  for (const OptionResult& o : c.options)
    for (std::size_t m = 0; m < o.items_by_month.size(); ++m)
      for (const CostLine& l : o.items_by_month[m]) {
        b.text(r, 0, o.key);
        b.label(r, 1, l.item);
        b.number(r, 2, static_cast<double>(m), Style::kInteger);
        b.money(r, 3, l.amount);
        ++r;
      }
}

// Every default the scenario used, with its source and how far to trust it.
void defaults_sheet(xlsx::Sheet& d, const ResolvedScenario& rs) {
  const char* heads[] = {tr_noop("field"), tr_noop("value"), tr_noop("quality"), tr_noop("why and source")};
  for (int j = 0; j < 4; ++j) d.label(0, j, heads[j], Style::kHeader);
  d.freeze(1);
  d.width(0, 32);
  d.width(1, 22);
  d.width(2, 12);
  d.width(3, 120);
  int r = 1;
  for (const DefaultUsed& u : rs.defaults) {
    d.text(r, 0, u.field);
    d.text(r, 1, u.value);
    d.text(r, 2, translate_word({.key = "quality", .label = "", .words = true, .context = kQualityContext}, u.quality));
    d.text(r, 3, u.why);
    ++r;
  }
}

}  // namespace

std::string compare_workbook(const ResolvedScenario& rs, const Comparison& c) {
  const Scenario& s = rs.scenario;
  // Prices given with VAT are taken less it by gpuplan; the workbook's price cells cannot say which basis they hold.
  if (s.vat.prices_include_vat)
    throw InputError(SourceLocation{rs.source}, "tax.prices_include_vat",
                     "the workbook holds prices excluding VAT: export with tax.prices_include_vat=false and prices "
                     "less VAT, or use --format csv or json");
  // Excel's EXP() stops at e^709 as the model does: the sheet would be #NUM! throughout.
  if (c.spot_overhead && !std::isfinite(c.spot_overhead->wall_per_work))
    throw InputError(SourceLocation{rs.source}, "rent.spot",
                     "spot never finishes the work (its expected wall time is beyond any number), and a workbook "
                     "cannot carry that through its formulas: interrupt less, restart or checkpoint faster, or leave "
                     "rent.spot out (--format csv or json show the rest)");
  xlsx::Workbook wb(rs.scenario.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& cf = wb.add_sheet("Cash flow");
  xlsx::Sheet& sum = wb.add_sheet("Summary");
  const Refs x = assumptions_sheet(wb, a, rs, c);
  const Layout l = cash_flow_header(cf, c);
  auto cumulative = cash_flow_sheet(cf, c, x, l);
  const int below = summary_sheet(sum, rs, c, l);
  sum.chart(cumulative_chart(c, l, std::move(cumulative), below + 1));
  breakdown_sheet(wb.add_sheet("Breakdown"), c);
  defaults_sheet(wb.add_sheet("Defaults"), rs);
  return wb.bytes();
}

}  // namespace gpuplan
