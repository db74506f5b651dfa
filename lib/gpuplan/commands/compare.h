// `gpuplan compare [SCENARIO]`: buy against renting by the hour, by the month,
// spot and hybrid over a horizon. compare() computes; this builds the report:
// the options side by side, their cost breakdown, the month-by-month cash
// flow (--monthly), and a cumulative-cost chart that fits 80 columns (--chart).
#pragma once

#include <string>
#include <vector>

#include "gpuplan/compare.h"
#include "gpuplan/context.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"

namespace gpuplan {

struct CompareQuery {
  std::string scenario_file{};  ///< empty: built-in defaults
  /// Several: compared side by side (compare_scenarios_report); one: as scenario_file.
  std::vector<std::string> scenario_files{};
  std::vector<std::string> sets{};  ///< --set path=value
  bool monthly = false;             ///< show (and CSV-export) the monthly cash flow
  bool chart = false;               ///< add the cumulative-cost chart
  bool breakdown = false;           ///< show (and CSV-export) every item of every month, long form
  bool defaults = false;            ///< show (and CSV-export) the defaults used, with their quality
  /// false: the sections the terminal table, Markdown, CSV and TSV do not print
  /// (and the HTML charts) are left empty, not computed: the CLI's choice for those formats.
  bool every_section = true;
};

Report compare_report(const Context& ctx, const CompareQuery& query);

/// `compare A B C` (compare_scenarios.cc): every scenario's options in one
/// table, the cheapest overall, and each scenario's best against it; --set
/// applies to every scenario. Throws InputError when their currencies differ.
Report compare_scenarios_report(const Context& ctx, const CompareQuery& query);

/// The warnings of one comparison (restricted cards, a buy that cannot be
/// bridged) on stderr, their sources as notes.
void compare_warnings(Report& rep, const Comparison& c, const Catalog& catalog);

/// The scenario as a workbook (compare_xlsx.cc): named, editable assumptions,
/// the monthly cash flow and the summary as formulas with cached values.
std::string compare_workbook(const ResolvedScenario& scenario, const Comparison& comparison);

/// The cumulative cost of each option by month (owning net of its book value), the break-even marked.
Chart cumulative_cost_chart(const Comparison& c);

/// Each option's cost over the horizon as a stacked bar of its items (a resale below zero).
Chart breakdown_chart(const Comparison& c);

/// The cumulative cost of each option by month as text, at most `width` columns.
std::string cumulative_chart(const Comparison& c, int width = 80, int height = 16);

}  // namespace gpuplan
