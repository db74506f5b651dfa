#include <catch2/catch.hpp>
#include <sstream>

#include "gpuplan/commands/compare.h"
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
