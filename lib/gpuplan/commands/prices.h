// `gpuplan prices`: the catalog's offers, one row per offer and billing mode,
// converted to the display currency, with the price per GPU-hour normalised
// across instance sizes and modes so that offers compare directly.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace gpuplan {

struct PricesQuery {
  std::vector<std::string> gpus{};       ///< gpu_matches() filters; empty = all
  std::vector<std::string> providers{};  ///< provider ids, case-insensitive
  std::vector<std::string> regions{};    ///< region names, case-insensitive
  std::vector<std::string> modes{};      ///< hourly, monthly, spot
  std::string sort = "gpu_hour";         ///< one of kPriceSortKeys
  bool stale_only = false;
  /// Every dated price of the offers that keep earlier ones, oldest first, with the yearly trend.
  bool history = false;
  /// Fill only the columns a terminal table or Markdown shows (SPEC: nothing is
  /// computed that the command does not print); csv/json need them all.
  bool brief = false;
};

inline const std::vector<std::string> kPriceSortKeys = {"gpu_hour", "price", "provider", "gpu", "as_of"};

/// Throws InputError for an unknown mode, sort key or a filter that matches
/// nothing the catalog knows (a typo must not look like "no offers").
Report prices_report(const Context& ctx, const PricesQuery& query);

/// The offers table (all columns) as a workbook (prices_xlsx.cc).
/// `rates`: 1 unit of each listed currency in the display currency.
std::string prices_workbook(const Table& offers, Currency display, Date today, double stale_after_days,
                            const std::map<std::string, double>& rates);

}  // namespace gpuplan
