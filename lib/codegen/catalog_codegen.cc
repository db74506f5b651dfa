// Build-time tool: parses and validates pricing/default.yaml with the
// library's own loader and writes it out as C++ that constructs the same
// Catalog, so the built-in catalog costs no YAML parsing at run time (SPEC
// "Speed and size"). A catalog problem fails the build with the usual
// FILE:LINE:COL message.
//
//   gpuplan_catalog_codegen IN.yaml DISPLAY_NAME OUT.cc
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "codegen/cxx_literal.h"
#include "gpuplan/catalog.h"
#include "gpuplan/io.h"

using namespace gpuplan;

namespace {

std::string lit(std::string_view s) { return codegen::cxx_literal(s); }

std::string money(const Money& m) {
  return fmt::format("Money::from_micros({}LL, Currency({}))", m.micros(), lit(m.currency().code()));
}

std::string date(std::optional<Date> d) {
  return d ? fmt::format("Date(std::chrono::days({}))", d->time_since_epoch().count()) : "std::nullopt";
}

std::string dbl(double d) { return fmt::format("{:.17g}", d); }

std::string where(const SourceLocation& w) { return fmt::format("SourceLocation{{kFile, {}, {}}}", w.line, w.column); }

std::string prov(const Provenance& p) {
  return fmt::format("Provenance{{{}, {}, {}, {}}}", lit(p.source), date(p.as_of), lit(p.confidence), lit(p.note));
}

std::string price(const Price& p) {
  return fmt::format("Price{{{}, {}, {}}}", money(p.amount), prov(p.provenance), where(p.where));
}

std::string opt_price(const std::optional<Price>& p) { return p ? price(*p) : "std::nullopt"; }

// "    g.availability.push_back(MarketStatus{…});" for each stated market of record `var`.
std::string statuses(std::string_view var, const std::vector<MarketStatus>& list) {
  std::string out;
  for (const MarketStatus& m : list)
    out += fmt::format(
        "    {}.availability.push_back(MarketStatus{{{}, static_cast<Availability>({}), {}, {}, {}, {}}});\n", var,
        lit(m.market), static_cast<int>(m.status), lit(m.reason), lit(m.reason_zh), prov(m.provenance), where(m.where));
  return out;
}

void emit(std::ostream& out, const Catalog& c) {
  out << fmt::format("  c.stale_after = Seconds({});\n  c.stale_after_given = {};\n", dbl(c.stale_after.count()),
                     c.stale_after_given);
  // Each list sized once: growing by doubling would leave the heap pages of
  // every smaller copy touched, and every command starts with this catalog.
  out << fmt::format(
      "  c.fx_rates.reserve({});\n  c.gpus.reserve({});\n  c.providers.reserve({});\n  c.offers.reserve({});\n"
      "  c.purchases.reserve({});\n  c.operating.reserve({});\n  c.apis.reserve({});\n",
      c.fx_rates.size(), c.gpus.size(), c.providers.size(), c.offers.size(), c.purchases.size(), c.operating.size(),
      c.apis.size());
  for (const FxRate& r : c.fx_rates)
    out << fmt::format("  c.fx_rates.push_back(FxRate{{{}, Currency({}), Currency({}), {}, {}, {}, {}}});\n", lit(r.id),
                       lit(r.from.code()), lit(r.to.code()), dbl(r.rate), lit(r.rate_text), prov(r.provenance),
                       where(r.where));
  for (const Gpu& g : c.gpus) {
    out << "  {\n    Gpu g;\n";
    out << fmt::format("    g.id = {};\n    g.name = {};\n    g.form_factor = {};\n", lit(g.id), lit(g.name),
                       lit(g.form_factor));
    out << fmt::format("    g.memory = Bytes({});\n    g.software = {};\n", dbl(g.memory.value()), lit(g.software));
    if (g.memory_bandwidth)
      out << fmt::format("    g.memory_bandwidth = BytesPerSecond({});\n", dbl(g.memory_bandwidth->value()));
    out << statuses("g", g.availability);
    for (const auto& [p, v] : g.dense_tflops)
      out << fmt::format("    g.dense_tflops[static_cast<Precision>({})] = {};\n", static_cast<int>(p), dbl(v));
    out << fmt::format("    g.tdp = Watts({});\n", dbl(g.tdp.value()));
    if (g.nvlink) out << fmt::format("    g.nvlink = BytesPerSecond({});\n", dbl(g.nvlink->value()));
    out << fmt::format("    g.pcie_gen = {};\n    g.provenance = {};\n    g.where = {};\n", g.pcie_gen,
                       prov(g.provenance), where(g.where));
    out << "    c.gpus.push_back(std::move(g));\n  }\n";
  }
  for (const Provider& p : c.providers) {
    out << "  {\n    Provider p;\n";
    out << fmt::format("    p.id = {};\n    p.name = {};\n    p.kind = {};\n    p.country = {};\n", lit(p.id),
                       lit(p.name), lit(p.kind), lit(p.country));
    out << fmt::format("    p.currency = Currency({});\n", lit(p.currency.code()));
    out << fmt::format("    p.billing_granularity = Seconds({});\n    p.minimum_billing = Seconds({});\n",
                       dbl(p.billing_granularity.count()), dbl(p.minimum_billing.count()));
    for (const auto& [t, pr] : p.storage_per_gb_month)
      out << fmt::format("    p.storage_per_gb_month[static_cast<StorageTier>({})] = {};\n", static_cast<int>(t),
                         price(pr));
    out << fmt::format("    p.egress_per_gb = {};\n", opt_price(p.egress_per_gb));
    out << fmt::format("    p.bandwidth_per_mbps_month = {};\n", opt_price(p.bandwidth_per_mbps_month));
    if (p.support_share) out << fmt::format("    p.support_share = {};\n", dbl(*p.support_share));
    if (p.support_provenance) out << fmt::format("    p.support_provenance = {};\n", prov(*p.support_provenance));
    out << fmt::format("    p.support_minimum_monthly = {};\n", opt_price(p.support_minimum_monthly));
    out << fmt::format("    p.fabric = {};\n", lit(p.fabric));
    if (p.max_instances) out << fmt::format("    p.max_instances = {};\n", *p.max_instances);
    out << fmt::format("    p.provenance = {};\n    p.where = {};\n", prov(p.provenance), where(p.where));
    out << "    c.providers.push_back(std::move(p));\n  }\n";
  }
  for (const Offer& o : c.offers) {
    out << "  {\n    Offer o;\n";
    out << fmt::format("    o.id = {};\n    o.provider = {};\n    o.region = {};\n    o.instance = {};\n", lit(o.id),
                       lit(o.provider), lit(o.region), lit(o.instance));
    out << fmt::format("    o.gpu = {};\n    o.gpus = {};\n    o.currency = Currency({});\n", lit(o.gpu), o.gpus,
                       lit(o.currency.code()));
    out << fmt::format("    o.hourly = {};\n    o.monthly = {};\n    o.spot = {};\n", opt_price(o.hourly),
                       opt_price(o.monthly), opt_price(o.spot));
    if (o.spot_discount) out << fmt::format("    o.spot_discount = {};\n", dbl(*o.spot_discount));
    for (const Commitment& cm : o.commitments)
      out << fmt::format("    o.commitments.push_back(Commitment{{Seconds({}), static_cast<BillingMode>({}), {}}});\n",
                         dbl(cm.term.count()), static_cast<int>(cm.basis), price(cm.price));
    for (const PastPrice& h : o.history)
      out << fmt::format("    o.history.push_back(PastPrice{{static_cast<BillingMode>({}), {}}});\n",
                         static_cast<int>(h.mode), price(h.price));
    out << fmt::format("    o.billing_granularity = Seconds({});\n    o.minimum_billing = Seconds({});\n",
                       dbl(o.billing_granularity.count()), dbl(o.minimum_billing.count()));
    if (o.minimum_term) out << fmt::format("    o.minimum_term = Seconds({});\n", dbl(o.minimum_term->count()));
    if (o.network) out << fmt::format("    o.network = BytesPerSecond({});\n", dbl(o.network->value()));
    out << fmt::format("    o.fabric = {};\n    o.interconnect = {};\n", lit(o.fabric), lit(o.interconnect));
    if (o.max_instances) out << fmt::format("    o.max_instances = {};\n", *o.max_instances);
    out << statuses("o", o.availability);
    out << fmt::format("    o.provenance = {};\n    o.where = {};\n", prov(o.provenance), where(o.where));
    out << "    c.offers.push_back(std::move(o));\n  }\n";
  }
  for (const Purchase& p : c.purchases) {
    out << fmt::format("  {{\n    Purchase p{{{}, static_cast<PurchaseKind>({}), {}, {}, {}, {}, {}, {}, {}}};\n",
                       lit(p.id), static_cast<int>(p.kind), lit(p.gpu), p.gpus, price(p.price), lit(p.region),
                       lit(p.description), prov(p.provenance), where(p.where));
    out << statuses("p", p.availability) << "    c.purchases.push_back(std::move(p));\n  }\n";
  }
  for (const OperatingCost& o : c.operating)
    out << fmt::format(
        "  c.operating.push_back(OperatingCost{{{}, static_cast<OperatingKind>({}), {}, {}, {}, {}, {}, {}}});\n",
        lit(o.id), static_cast<int>(o.kind), o.money ? money(*o.money) : "std::nullopt", dbl(o.number), lit(o.region),
        lit(o.description), prov(o.provenance), where(o.where));
  for (const ApiOffer& a : c.apis)
    out << fmt::format(
        "  c.apis.push_back(ApiOffer{{{}, {}, {}, {}, {}, {}, Currency({}), {}, {}, {}, {}, {}, {}}});\n", lit(a.id),
        lit(a.name), lit(a.provider), lit(a.model), dbl(a.parameters), dbl(a.active_parameters), lit(a.currency.code()),
        price(a.input), price(a.output), lit(a.note), prov(a.provenance), where(a.where), where(a.currency_where));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s IN.yaml DISPLAY_NAME OUT.cc\n", argv[0]);
    return 2;
  }
  try {
    const std::string text = read_input_file(argv[1]);
    const Catalog cat = parse_catalog(text, argv[2]);
    std::ostringstream out;
    out << "// Generated from " << argv[2] << " by gpuplan_catalog_codegen. Do not edit.\n"
        << "#include \"gpuplan/catalog.h\"\n\nnamespace gpuplan {\nnamespace {\n"
        << "constexpr const char* kFile = " << lit(argv[2]) << ";\n"
        << "Catalog make() {\n  Catalog c;\n";
    emit(out, cat);
    out << "  return c;\n}\n}  // namespace\n\n"
        // Never destroyed: freeing a few thousand strings at exit is work no one waits for.
        << "const Catalog& builtin_catalog() {\n  static const Catalog& c = *new Catalog(make());\n  return c;\n}\n\n"
        << "}  // namespace gpuplan\n";
    write_output_file(argv[3], out.str(), {argv[1]});
  } catch (const InputErrors& e) {
    for (const InputError& p : e.problems()) std::fprintf(stderr, "%s: error: %s\n", argv[0], p.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", argv[0], e.what());
    return 1;
  }
  return 0;
}
