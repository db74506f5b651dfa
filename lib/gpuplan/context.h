// What every command runs against: the merged catalog (built-in, then each
// --catalog file in order, later wins), the display currency with the FX
// rates it needs, and "today" for the stale check. Built once in main from
// the global flags; commands take it by const reference.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/json.h"
#include "gpuplan/money.h"
#include "gpuplan/units.h"

namespace gpuplan {

struct GlobalOptions {
  std::vector<std::string> catalog_files{};
  bool no_default_catalog = false;
  std::optional<std::string> currency{};     ///< default: the scenario's, else CNY
  std::optional<std::string> today{};        ///< YYYY-MM-DD; default: the system date (UTC)
  std::optional<std::string> stale_after{};  ///< a duration; default: the catalog's setting (180d)
};

/// Converts catalog money into the display currency and remembers which
/// rates it used, so every report can say which rate and date it applied.
class CurrencyConverter {
 public:
  CurrencyConverter(const Catalog& catalog, Currency display) : catalog_(&catalog), display_(display) {}
  Currency display() const { return display_; }
  /// Throws InputError when the catalog has no rate between the currencies.
  Money convert(Money m) const;
  /// The factor applied to `from` (1 for the display currency).
  double rate(Currency from) const;
  /// Rates used so far, as sentences ("1 USD = 7.1 CNY (usd-cny, as_of 2026-10-04; source: ...)").
  std::vector<std::string> notes() const;
  /// Rates used so far, as JSON objects {from, to, rate, via, as_of, source}.
  Json used_json() const;

 private:
  Conversion lookup(Currency from) const;
  const Catalog* catalog_;
  Currency display_;
  mutable std::vector<std::pair<Currency, Conversion>> used_{};
};

/// Throws std::invalid_argument naming both currencies when the catalog has no
/// rate to show amounts in `from` in `to` (gpuplan's own defaults are in CNY).
void require_conversion(const Catalog& catalog, Currency from, Currency to);

struct Context {
  /// The merged catalog. Shared, not copied: with no --catalog file it is the
  /// built-in catalog itself (no copy at start-up).
  std::shared_ptr<const Catalog> catalog_ptr{};
  const Catalog& catalog() const { return *catalog_ptr; }
  bool builtin = true;
  std::vector<std::string> catalog_files{};
  Currency currency = kCny;
  bool currency_given = false;  ///< --currency was given (it wins over a scenario's currency)
  Date today{};
  /// The moment plans count from: the system clock, or, when --today (or
  /// GPUPLAN_TODAY) pins the date, the start of that day in local time, so that
  /// a pinned run is reproducible.
  std::chrono::sys_seconds now{};
  Seconds stale_after = Days(180);

  /// {"catalogs": [...], "currency": ..., "today": ..., "stale_after": ...}
  Json echo() const;
  /// "catalog: built-in pricing/default.yaml + my.yaml"
  std::string catalog_note() const;
};

/// Loads and merges the catalogs; problems from all files are reported together.
Context make_context(const GlobalOptions& options);

/// Today's date in UTC.
Date system_today();

/// The start of `day` (00:00) in the local time zone (TZ), as a moment.
std::chrono::sys_seconds local_midnight(Date day);

}  // namespace gpuplan
