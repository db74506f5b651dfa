#include "gpuplan/i18n.h"
#include "gpuplan/commands/catalog_check.h"

#include <fmt/format.h>

#include <map>

namespace gpuplan {

namespace {

// Prices of one provider: how many, how old.
struct Tally {
  std::int64_t offers = 0, prices = 0, stale = 0, undated = 0;
  std::optional<Date> oldest{}, newest{};
  void add(const Provenance& p, Date today, std::chrono::days stale_after) {
    ++prices;
    if (is_stale(p, today, stale_after)) ++stale;
    if (!p.as_of) {
      ++undated;
      return;
    }
    if (!oldest || *p.as_of < *oldest) oldest = p.as_of;
    if (!newest || *p.as_of > *newest) newest = p.as_of;
  }
  void add(const Tally& t) {
    offers += t.offers, prices += t.prices, stale += t.stale, undated += t.undated;
    if (t.oldest && (!oldest || *t.oldest < *oldest)) oldest = t.oldest;
    if (t.newest && (!newest || *t.newest > *newest)) newest = t.newest;
  }
};

Cell date_cell(const std::optional<Date>& d) { return d ? Cell{format_date(*d)} : Cell{}; }
Cell share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? Cell{static_cast<double>(part) / static_cast<double>(whole)} : Cell{};
}

Table providers_table(const std::map<std::string, Tally>& by, const Tally& all) {
  Table t;
  t.name = "providers";
  t.title = tr_noop("Prices per provider");
  t.columns = {{"provider", tr_noop("provider")},   {"offers", tr_noop("offers")},
               {"prices", tr_noop("prices")},       {"stale", tr_noop("stale")},
               {"undated", tr_noop("undated")},     {"stale_share", tr_noop("stale share"), 2},
               {"oldest", tr_noop("oldest as_of")}, {"newest", tr_noop("newest as_of")}};
  const auto row = [&](const std::string& name, const Tally& x) {
    t.add_row({name, x.offers, x.prices, x.stale, x.undated, share(x.stale, x.prices), date_cell(x.oldest),
               date_cell(x.newest)});
  };
  for (const auto& [name, x] : by) row(name, x);
  row(std::string(tr("all")), all);
  return t;
}

// Every record that carries a source, by how it rates itself.
Table quality_table(const Catalog& c) {
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> n;  // confidence → records, undated
  const auto add = [&](const Provenance& p) {
    auto& [records, undated] = n[p.confidence.empty() ? "unrated" : std::string(p.confidence)];
    ++records;
    if (!p.as_of) ++undated;
  };
  for (const Gpu& g : c.gpus) add(g.provenance);
  for (const Provider& p : c.providers) add(p.provenance);
  for (const Offer& o : c.offers) add(o.provenance);
  for (const Purchase& p : c.purchases) add(p.provenance);
  for (const OperatingCost& p : c.operating) add(p.provenance);
  for (const FxRate& r : c.fx_rates) add(r.provenance);
  Table t;
  t.name = "sources";
  t.title = tr_noop("Records by how their source rates itself");
  t.columns = {{.key = "confidence", .label = tr_noop("confidence"), .words = true, .context = kConfidenceContext},
               {"records", tr_noop("records")},
               {"undated", tr_noop("undated")}};
  for (const char* level : {"high", "medium", "low", "unrated"})
    if (const auto it = n.find(level); it != n.end())
      t.add_row({std::string(level), it->second.first, it->second.second});
  return t;
}

}  // namespace

Report catalog_check_report(const Context& ctx) {
  const Catalog& c = ctx.catalog();
  const auto stale_after = std::chrono::duration_cast<std::chrono::days>(ctx.stale_after);
  std::map<std::string, Tally> by;
  for (const Offer& o : c.offers) {
    Tally& t = by[o.provider];
    ++t.offers;
    for (const BillingMode m : kAllModes)
      if (const auto& p = o.price(m)) t.add(p->provenance, ctx.today, stale_after);
    for (const Commitment& k : o.commitments) t.add(k.price.provenance, ctx.today, stale_after);
  }
  Tally all;
  for (const auto& [name, t] : by) all.add(t);
  Report rep;
  rep.command = "catalog check";
  rep.title = trf("Catalog check: {} offers from {} providers, {} prices; {} stale, {} undated", all.offers, by.size(),
                  all.prices, all.stale, all.undated);
  rep.inputs = ctx.echo();
  rep.tables.push_back(providers_table(by, all));
  rep.tables.push_back(quality_table(c));
  rep.notes.push_back(ctx.catalog_note() + std::string(tr(".")));
  rep.notes.push_back(
      trf("Stale: priced more than {} days before {} (--stale-after), or undated (as_of unknown: the source gives no "
          "date). `gpuplan prices --stale` lists them.",
          stale_after.count(), format_date(ctx.today)));
  return rep;
}

}  // namespace gpuplan
