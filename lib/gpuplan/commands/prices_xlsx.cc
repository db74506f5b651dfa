// `gpuplan prices --format xlsx`: the offers with the exchange rates, today's
// date and the stale threshold as named, editable assumptions; each converted
// price, price per GPU-hour, age and stale flag is a formula over them.
#include <fmt/format.h>
#include <set>

#include "gpuplan/commands/prices.h"
#include "gpuplan/i18n.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {

std::string prices_workbook(const Table& t, Currency display, Date today, double stale_after_days,
                            const std::map<std::string, double>& rates) {
  using xlsx::Style;
  xlsx::Workbook wb(display);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& p = wb.add_sheet("Prices");
  const std::string CUR(display.code());
  xlsx::Assumptions in(wb, a, xlsx::assumptions_header(a, trf("GPU rental prices in {}", CUR), false));
  const auto col = [&](const std::string& key) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].key == key) return i;
    throw std::logic_error("prices table has no column " + key);
  };
  const std::size_t c_list = col("list_price"), c_cur = col("list_currency");
  // One editable rate per currency the offers are listed in.
  std::set<std::string> currencies;
  for (const auto& row : t.rows)
    if (const auto* c = std::get_if<std::string>(&row[c_cur]); c && *c != CUR) currencies.insert(*c);
  for (const std::string& c : currencies)
    in.input("fx_" + c, trf("1 {} in {}", c, CUR), rates.at(c), Style::kInputNumber, CUR,
             "the catalog's dated rate; see the notes of gpuplan prices");
  const auto ymd = std::chrono::year_month_day(today);
  const xlsx::Value today_v =
      in.input("today", tr_noop("today (for the stale check)"),
               xlsx::date_serial(static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                                 static_cast<unsigned>(ymd.day())),
               Style::kInputDate, tr_noop("date"));
  in.input("stale_after_days", tr_noop("stale after"), stale_after_days, Style::kInputNumber, tr_noop("days"));
  in.input("hours_per_month", tr_noop("hours in a month (SPEC: 730)"), 730, Style::kNumber, tr_noop("hours"));
  (void)today_v;

  const std::vector<std::pair<std::string, std::string>> heads = {{"offer", tr_noop("offer")},
                                                                  {"provider", tr_noop("provider")},
                                                                  {"region", tr_noop("region")},
                                                                  {"instance", tr_noop("instance")},
                                                                  {"gpu", tr_noop("gpu")},
                                                                  {"gpus", tr_noop("GPUs")},
                                                                  {"mode", tr_noop("mode")},
                                                                  {"term", tr_noop("term")},
                                                                  {"list_price", tr_noop("list price")},
                                                                  {"list_currency", tr_noop("list currency")},
                                                                  {"fx_rate", tr_noop("fx rate")},
                                                                  {tr_noop("price"), trf("price {}", CUR)},
                                                                  {"per", tr_noop("per")},
                                                                  {tr_noop("gpu_hour"), trf("{} per GPU-hour", CUR)},
                                                                  {"billing_granularity", tr_noop("billing")},
                                                                  {"as_of", tr_noop("as_of")},
                                                                  {"age_days", tr_noop("age (days)")},
                                                                  {"stale", tr_noop("stale")},
                                                                  {"confidence", tr_noop("confidence")},
                                                                  {"source", tr_noop("source")}};
  for (std::size_t j = 0; j < heads.size(); ++j) p.label(0, static_cast<int>(j), heads[j].second, Style::kHeader);
  p.freeze(1, 1);
  const double widths[] = {34, 12, 14, 34, 14, 6, 9, 6, 12, 9, 10, 14, 7, 14, 9, 12, 10, 7, 11, 80};
  for (std::size_t j = 0; j < heads.size(); ++j) p.width(static_cast<int>(j), widths[j]);
  const auto text_of = [](const Cell& c) -> std::string {
    if (const auto* s = std::get_if<std::string>(&c)) return *s;
    return "";
  };
  int r = 1;
  for (const auto& row : t.rows) {
    const auto ref = [&](int c) { return xlsx::cell_ref(r, c); };
    p.text(r, 0, text_of(row[col("offer")]));
    p.text(r, 1, text_of(row[col("provider")]));
    p.text(r, 2, text_of(row[col("region")]));
    p.text(r, 3, text_of(row[col("instance")]));
    p.text(r, 4, text_of(row[col("gpu")]));
    p.number(r, 5, static_cast<double>(std::get<std::int64_t>(row[col("gpus")])), Style::kInteger);
    p.text(r, 6, text_of(row[col("mode")]));
    p.text(r, 7, text_of(row[col("term")]));
    const Money list = std::get<Money>(row[c_list]);
    p.number(r, 8, list.units(), Style::kPrecise);
    const std::string lc = text_of(row[c_cur]);
    p.text(r, 9, lc);
    const double rate = std::get<double>(row[col("fx_rate")]);
    if (lc == CUR) p.number(r, 10, 1, Style::kPrecise);
    else p.formula(r, 10, "fx_" + lc, rate, Style::kPrecise);
    // Converted: list × rate. Per GPU-hour: ÷ GPUs, and ÷ 730 h for a monthly price.
    p.formula(r, 11, fmt::format("{}*{}", ref(8), ref(10)), std::get<Money>(row[col("price")]).units(), Style::kMoney);
    p.text(r, 12, text_of(row[col("per")]));
    p.formula(r, 13, fmt::format("{}/({}*IF({}=\"month\",hours_per_month,1))", ref(11), ref(5), ref(12)),
              std::get<Money>(row[col("gpu_hour")]).units(), Style::kPrecise);
    p.text(r, 14, text_of(row[col("billing_granularity")]));
    if (const std::string as_of = text_of(row[col("as_of")]); as_of == "unknown") {
      // An undated source: no date to age from, stale by definition.
      p.text(r, 15, as_of);
      p.text(r, 16, "");
      p.text(r, 17, "yes");  // a flag like the formulas' "yes"/"no" below, not a label
    } else {
      const auto d = std::chrono::year_month_day(parse_date(as_of));
      p.number(r, 15,
               xlsx::date_serial(static_cast<int>(d.year()), static_cast<unsigned>(d.month()),
                                 static_cast<unsigned>(d.day())),
               Style::kDate);
      const auto age = static_cast<double>(std::get<std::int64_t>(row[col("age_days")]));
      p.formula(r, 16, fmt::format("today-{}", ref(15)), age, Style::kInteger);
      p.formula_text(r, 17, fmt::format("IF({}>stale_after_days,\"yes\",\"no\")", ref(16)),
                     age > stale_after_days ? "yes" : "no");
    }
    p.text(r, 18, text_of(row[col("confidence")]));
    p.text(r, 19, text_of(row[col("source")]));
    ++r;
  }
  return wb.bytes();
}

}  // namespace gpuplan
