#include "gpuplan/context.h"

#include "gpuplan/i18n.h"

#include <cctype>
#include <ctime>
#include <fmt/format.h>

#include "gpuplan/error.h"

namespace gpuplan {

std::chrono::sys_seconds local_midnight(Date day) {
  const std::chrono::year_month_day ymd(day);
  std::tm tm{};
  tm.tm_year = static_cast<int>(ymd.year()) - 1900;
  tm.tm_mon = static_cast<int>(static_cast<unsigned>(ymd.month())) - 1;
  tm.tm_mday = static_cast<int>(static_cast<unsigned>(ymd.day()));
  tm.tm_isdst = -1;  // let the time zone say whether daylight saving applies
  return std::chrono::sys_seconds(std::chrono::seconds(std::mktime(&tm)));
}

Date system_today() { return std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()); }

Context make_context(const GlobalOptions& options) {
  Context ctx;
  ctx.builtin = !options.no_default_catalog;
  static const Catalog kEmpty{};
  // The built-in catalog lives for the whole process: share it without copying.
  const Catalog& base = ctx.builtin ? builtin_catalog() : kEmpty;
  ctx.catalog_ptr = std::shared_ptr<const Catalog>(&base, [](const Catalog*) {});
  ctx.catalog_files = options.catalog_files;
  try {
    ctx.today = options.today ? parse_date(*options.today) : system_today();
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{"--today"}, "", e.what());
  }
  std::vector<InputError> problems;
  for (const std::string& file : options.catalog_files) {
    try {
      Catalog overlay = load_catalog_file(file, &ctx.catalog());
      for (InputError& p : future_dates(overlay, ctx.today)) problems.push_back(std::move(p));
      ctx.catalog_ptr = std::make_shared<const Catalog>(merge(ctx.catalog(), overlay));
    } catch (const InputErrors& e) {
      problems.insert(problems.end(), e.problems().begin(), e.problems().end());
    } catch (const InputError& e) {
      problems.push_back(e);
    }
  }
  if (!problems.empty()) throw InputErrors(std::move(problems));
  try {
    std::string code = options.currency.value_or("CNY");
    for (char& ch : code) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    ctx.currency = Currency(code);
    ctx.currency_given = options.currency.has_value();
    // Checked here, for every command: the built-in defaults are CNY amounts.
    if (ctx.currency_given) require_conversion(ctx.catalog(), kCny, ctx.currency);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{"--currency"}, "", e.what());
  }
  ctx.now = options.today ? local_midnight(ctx.today)
                          : std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  ctx.stale_after = ctx.catalog().stale_after;
  if (options.stale_after) {
    try {
      ctx.stale_after = parse_duration(*options.stale_after);
      if (!(ctx.stale_after > Seconds(0))) throw std::invalid_argument(std::string(tr("must be longer than zero")));
    } catch (const std::invalid_argument& e) {
      throw InputError(SourceLocation{"--stale-after"}, "", e.what());
    }
  }
  return ctx;
}

Json Context::echo() const {
  Json o = Json::object();
  Json cats = Json::array();
  if (builtin) cats.push_back("builtin:pricing/default.yaml");
  for (const auto& f : catalog_files) cats.push_back(f);
  o["catalogs"] = std::move(cats);
  o["currency"] = std::string(currency.code());
  o["today"] = format_date(today);
  o["stale_after_days"] = std::chrono::duration_cast<Days>(stale_after).count();
  return o;
}

std::string Context::catalog_note() const {
  std::string out(tr("Catalog: "));
  out += builtin ? tr("built-in (pricing/default.yaml)") : tr("none built-in");
  for (const auto& f : catalog_files) out += " + " + f;
  return out;
}

}  // namespace gpuplan
