#include "gpuplan/i18n.h"
#include "gpuplan/commands/catalog_import.h"

#include <fmt/format.h>

#include <stdexcept>

#include "gpuplan/catalog_import.h"

namespace gpuplan {

namespace {

Table offers_table(const ImportResult& r) {
  Table t;
  t.name = "offers";
  t.title = tr_noop("Imported offers");
  t.columns = {{"id", tr_noop("id")},
               {"provider", tr_noop("provider")},
               {"region", tr_noop("region")},
               {"gpu", tr_noop("gpu")},
               {"gpus", tr_noop("gpus")},
               {"currency", tr_noop("currency")},
               {"hourly", tr_noop("hourly"), -1},
               {"monthly", tr_noop("monthly"), -1},
               {"spot", tr_noop("spot"), -1},
               {"older_prices", tr_noop("older prices")},
               {"as_of", tr_noop("as_of")}};
  for (const ImportedOffer& o : r.offers) {
    std::array<Cell, 3> now{};
    std::int64_t older = 0;
    for (std::size_t i = 0; i < o.prices.size(); ++i) {
      const ImportedPrice& p = o.prices[i];
      if (i > 0 && o.prices[i - 1].mode == p.mode) ++older;
      else now[static_cast<std::size_t>(p.mode)] = Cell{Money::parse(p.amount, Currency(o.currency))};
    }
    const auto& as_of = o.prices.front().as_of;
    t.add_row({o.id, o.provider, o.region, o.gpu, std::int64_t{o.gpus}, o.currency, now[0], now[1], now[2], older,
               as_of ? Cell{format_date(*as_of)} : Cell{std::string("unknown")}});
  }
  return t;
}

ImportOptions options(const Context& ctx, const ImportQuery& q) {
  ImportOptions o;
  o.provider = q.provider;
  o.source = q.source;
  o.today = ctx.today;
  if (!q.as_of.empty()) {
    try {
      o.as_of = parse_date(q.as_of);
    } catch (const std::invalid_argument& e) {
      throw InputError({}, "--as-of", e.what());
    }
    if (*o.as_of > ctx.today)
      throw InputError({}, "--as-of", trf("{} is after today ({})", q.as_of, format_date(ctx.today)));
  }
  if (!q.map_file.empty()) o.map = load_gpu_mappings(q.map_file, ctx.catalog());
  return o;
}

}  // namespace

Report catalog_import_report(const Context& ctx, const ImportQuery& q) {
  if (q.format != "skypilot" && q.format != "quotes")
    throw UsageError(trf("catalog import: '{}' is not a format (skypilot, quotes)", q.format));
  const ImportOptions o = options(ctx, q);
  const ImportResult r =
      q.format == "skypilot" ? import_skypilot(q.files, o, ctx.catalog()) : import_quotes(q.files, o, ctx.catalog());
  // What is written must load as it will be used, over the same catalog: a
  // price its rules refuse is a problem of the row it came from.
  check_imported(r, ctx.catalog());
  Report report;
  report.command = "catalog import";
  report.title = trf("Catalog import ({}): {} rows read, {} offers", q.format, r.rows, r.offers.size());
  report.inputs = ctx.echo();
  report.inputs["format"] = q.format;
  report.inputs["files"] = Json::strings(q.files);
  report.tables.push_back(offers_table(r));
  report.yaml = to_catalog_yaml(r, fmt::format("gpuplan catalog import {} {}", q.format, fmt::join(q.files, " ")));
  for (const SkippedName& s : r.skipped) report.warnings.push_back("left out: " + describe(s));
  report.notes = r.notes;
  return report;
}

}  // namespace gpuplan
