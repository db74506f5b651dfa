#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <algorithm>
#include <fmt/format.h>

#include "fixture.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/compare.h"
#include "gpuplan/scenario.h"
#include "gpuplan/error.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
Context builtin_context() {
  GlobalOptions o;
  o.today = "2026-12-02";
  return make_context(o);
}
const std::string kQingdao = std::string(GPUPLAN_SOURCE_DIR) + "/examples/qingdao-8xa100.yaml";

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    REQUIRE(line.ends_with('\r'));  // RFC 4180 line ends
    line.pop_back();
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}
}  // namespace

TEST_CASE("the cash-flow CSV's total row equals the sum of its printed months, to the cent", "[compare]") {
  const Context ctx = builtin_context();
  CompareQuery q;
  q.scenario_file = kQingdao;
  q.monthly = true;
  const auto rows = parse_csv(render(compare_report(ctx, q), Format::kCsv));
  REQUIRE(rows.size() == 1 + 25 + 1);  // header, months 0..24, total
  CHECK(rows[0][0] == "month");
  CHECK(rows[0][1] == "buy");
  CHECK(rows[0].back() == "currency");  // contract v3: the currency in a column of its own
  CHECK(rows[1].back() == "CNY");
  CHECK(rows.back()[0] == "total");
  for (std::size_t col = 1; col + 1 < rows[0].size(); ++col) {
    Money sum = Money::zero(kCny);
    for (std::size_t r = 1; r + 1 < rows.size(); ++r) sum += Money::parse(rows[r][col], kCny);
    INFO(rows[0][col]);
    CHECK(to_plain_string(sum) == rows.back()[col]);
  }
}

TEST_CASE("the article's scenario breaks even against renting within a year", "[compare]") {
  // The article: "单看数字，一年租用成本快赶上买新的" (a year of renting nearly buys a new one).
  const Context ctx = builtin_context();
  CompareQuery q;
  q.scenario_file = kQingdao;
  const Report r = compare_report(ctx, q);
  const Json doc = to_json(r);
  const Json* be = doc.find("break_even");
  REQUIRE(be != nullptr);
  const Json* month = be->find("month");
  REQUIRE(month != nullptr);
  REQUIRE_FALSE(month->is_null());
  CHECK(std::stoi(month->to_text()) <= 12);
  CHECK(doc.find("cash_flow") != nullptr);
  CHECK(doc.find("inputs")->find("buy")->find("card_price")->to_text() == "70000.00");
}

TEST_CASE("compare without a file names every default it used", "[compare]") {
  const Context ctx = builtin_context();
  const Report r = compare_report(ctx, CompareQuery{});
  const std::string text = render(r, Format::kTable);
  CHECK_THAT(text, Contains("Defaults used:"));
  CHECK_THAT(text, Contains("buy.card_price = "));
  CHECK_THAT(text, Contains("workload.utilisation = 50% (assumption"));
}

TEST_CASE("scenario values with the wrong kind or range are refused, naming the field", "[compare]") {
  const Context ctx = builtin_context();
  const auto fails_with = [&](const std::string& set, const std::string& text) {
    CompareQuery q;
    q.scenario_file = kQingdao;
    q.sets = {set};
    CHECK_THROWS_WITH(compare_report(ctx, q), Contains(text));
  };
  fails_with("workload.utilisation=150%", "--set workload.utilisation=150%: workload.utilisation: 150% is outside");
  fails_with("horizon=-6mo", "horizon: -6mo must be longer than zero");
  fails_with("rent.spot.discount=120%", "rent.spot.discount: 120% is outside (0%, 100%)");
  fails_with("buy.lead_time=2GB", "buy.lead_time: 'GB' is not a duration unit");
  fails_with("horizon=1.5mo", "is not a whole number of months");
  fails_with("rent.monthly.commitment=12GB", "rent.monthly.commitment: 'GB' is not a duration unit");
}

// `compare A B C`: each scenario's rows are what `compare FILE` alone gives;
// the cheapest of all is the least of the scenarios' own cheapest.
TEST_CASE("several scenarios side by side: each as compared alone, the cheapest of all, each best against it",
          "[compare]") {
  const Context ctx = builtin_context();
  const std::string dir = std::string(GPUPLAN_SOURCE_DIR) + "/examples/";
  const std::vector<std::string> files = {dir + "qingdao-8xa100.yaml", dir + "qingdao-hybrid.yaml"};
  CompareQuery q;
  q.scenario_files = files;
  q.sets = {"workload.utilisation=30%"};
  const Report r = compare_report(ctx, q);
  const Table& t = r.tables.at(0);
  REQUIRE(t.name == "scenarios");
  const auto col = [&](std::string_view key) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].key == key) return i;
    FAIL("no column " << key);
    return std::size_t{0};
  };
  std::size_t row = 0;
  double best_of_all = 1e300;
  std::vector<double> bests;
  for (const std::string& f : files) {
    CompareQuery one;
    one.scenario_file = f;
    one.sets = q.sets;  // --set applies to every scenario
    const Report alone = compare_report(ctx, one);
    const Table& opts = alone.tables.at(0);
    double best = 1e300;
    for (const auto& o : opts.rows) {
      const auto& mine = t.rows.at(row++);
      INFO(f << " " << std::get<std::string>(o[0]));
      CHECK(std::get<std::string>(mine[col("option")]) == std::get<std::string>(o[0]));
      CHECK(std::get<Money>(mine[col("npv")]) == std::get<Money>(o[8]));
      CHECK(std::get<Money>(mine[col("total")]) == std::get<Money>(o[4]));
      best = std::min(best, std::get<Money>(o[8]).units());
    }
    bests.push_back(best);
    best_of_all = std::min(best_of_all, best);
  }
  CHECK(row == t.rows.size());  // nothing else in the table
  int marked = 0;
  for (const auto& mine : t.rows) {
    const double npv = std::get<Money>(mine[col("npv")]).units();
    CHECK(std::get<Money>(mine[col("over_cheapest")]).units() == Approx(npv - best_of_all).margin(0.01));
    if (std::get<bool>(mine[col("cheapest_overall")])) {
      ++marked;
      CHECK(npv == Approx(best_of_all));
    }
  }
  CHECK(marked == 1);
  // The second table: each scenario's own best, and what it costs beyond the best of all.
  const Table& d = r.tables.at(1);
  REQUIRE(d.rows.size() == files.size());
  for (std::size_t i = 0; i < files.size(); ++i)
    CHECK(std::get<Money>(d.rows[i][4]).units() == Approx(bests[i] - best_of_all).margin(0.01));
}

TEST_CASE("several scenarios: other horizons are ranked by NPV a month, with a warning — other currencies refused",
          "[compare]") {
  const Context ctx = builtin_context();
  const std::string dir = std::string(GPUPLAN_SOURCE_DIR) + "/examples/";
  CompareQuery q;
  q.scenario_files = {dir + "qingdao-8xa100.yaml", dir + "startup-4090-spot.yaml"};  // 24 and 12 months
  const Report r = compare_report(ctx, q);
  CHECK(std::any_of(r.warnings.begin(), r.warnings.end(),
                    [](const std::string& w) { return w.find("ranked by NPV a month") != w.npos; }));
  const Table& d = r.tables.at(1);
  // The spot startup's 12 months cost less a month than the 8×A100's 24: it is the best of all.
  const double a = std::get<Money>(d.rows[0][3]).units(), b = std::get<Money>(d.rows[1][3]).units();
  CHECK(std::get<Money>(d.rows[std::size_t{a < b ? 0u : 1u}][4]).units() == 0);
  CHECK(std::get<Money>(d.rows[std::size_t{a < b ? 1u : 0u}][4]).units() ==
        Approx(std::max(a, b) - std::min(a, b)).margin(0.01));
  // A file in USD beside one in CNY: refused, naming the file.
  const std::string usd = (std::filesystem::temp_directory_path() / "gpuplan-usd-scenario.yaml").string();
  std::ofstream(usd) << "schema_version: 1\ncurrency: USD\n";
  q.scenario_files = {dir + "qingdao-8xa100.yaml", usd};
  try {
    compare_report(ctx, q);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Contains("gpuplan-usd-scenario.yaml"));
    CHECK_THAT(std::string(e.what()), Contains("give --currency"));
  }
  std::filesystem::remove(usd);
}

TEST_CASE("sections left out for the terminal, Markdown and CSV change nothing they print", "[compare]") {
  // The CLI asks for every section only where the format holds them all (JSON,
  // HTML, --field …); the others must print the same bytes without them.
  const Context ctx = builtin_context();
  for (const char* flags : {"", "m", "b", "d", "c", "mb", "mdc"}) {
    CompareQuery q;
    q.scenario_file = kQingdao;
    const std::string f = flags;
    q.monthly = f.find('m') != std::string::npos;
    q.breakdown = f.find('b') != std::string::npos;
    q.defaults = f.find('d') != std::string::npos;
    q.chart = f.find('c') != std::string::npos;
    CompareQuery lean = q;
    lean.every_section = false;
    const Report all = compare_report(ctx, q), some = compare_report(ctx, lean);
    INFO("flags '" << flags << "'");
    for (const Format format : {Format::kTable, Format::kMd, Format::kCsv, Format::kTsv})
      CHECK(render(some, format) == render(all, format));
    CHECK(some.charts.empty());
    CHECK(all.charts.size() == 2);
  }
}

TEST_CASE("a default from another market that decides the answer is a warning — one that does not is not",
          "[compare][defaults]") {
  // A US team's scenario takes the operations cost from the fixture's CN record
  // (a 2020 CN salary). Across utilisations, the warning appears exactly when a
  // third or three times that figure changes the cheapest option, checked here
  // by setting it and comparing again.
  const Context ctx = testing::fixture_context();
  int warned = 0, quiet = 0;
  for (int pct = 10; pct <= 100; pct += 5) {
    CompareQuery q;
    q.sets = {"region=US", "buy.gpu=A100-80G", fmt::format("workload.utilisation={}%", pct)};
    const Report r = compare_report(ctx, q);
    const ResolvedScenario base = load_scenario("", q.sets, ctx);
    const std::string cheapest = compare(base.scenario).cheapest;
    const double ops = base.scenario.own.operations_per_month.units();
    REQUIRE(ops > 0);
    bool flips = false;
    for (const double f : {1.0 / 3, 3.0}) {
      std::vector<std::string> sets = q.sets;
      sets.push_back(fmt::format("buy.operations_per_month={:.6f}", ops * f));
      flips = flips || compare(load_scenario("", sets, ctx).scenario).cheapest != cheapest;
    }
    const bool said = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
      return w.starts_with("buy.operations_per_month was not given") && w.find("region CN, not US") != w.npos;
    });
    INFO("utilisation " << pct << "%, cheapest " << cheapest);
    CHECK(said == flips);
    (flips ? warned : quiet)++;
    // Given, it is the user's figure: no warning about it.
    CompareQuery given = q;
    given.sets.push_back(fmt::format("buy.operations_per_month={:.6f}", ops));
    for (const std::string& w : compare_report(ctx, given).warnings)
      CHECK(!w.starts_with("buy.operations_per_month was not given"));
  }
  CHECK(warned > 0);
  CHECK(quiet > 0);
}
