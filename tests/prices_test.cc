#include <catch2/catch.hpp>

#include "gpuplan/commands/catalog_check.h"
#include "gpuplan/commands/gpus.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/error.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
Context small_context(const std::string& currency = "CNY") {
  GlobalOptions o;
  o.no_default_catalog = true;
  o.catalog_files = {std::string(GPUPLAN_TEST_DATA) + "/small.yaml"};
  o.currency = currency;
  o.today = "2026-12-02";
  return make_context(o);
}

std::size_t col(const Table& t, std::string_view key) {
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].key == key) return i;
  FAIL("no column " << key);
  return 0;
}

template <class T>
T cell(const Table& t, std::size_t row, std::string_view key) {
  return std::get<T>(t.rows.at(row).at(col(t, key)));
}
}  // namespace

TEST_CASE("prices normalise every mode to a price per GPU-hour in the display currency", "[prices]") {
  const Report r = prices_report(small_context(), PricesQuery{});
  const Table& t = r.tables.at(0);
  // Rows: cheap-4090 hourly/monthly/spot, big-a100x8 hourly/spot/1y, cheap-a100 hourly = 7 prices.
  REQUIRE(t.rows.size() == 7);
  // Cheapest per GPU-hour first: 4090 monthly 1052 / 730 = 1.441 CNY/GPU-h? No: spot 2.19 × 0.6 = 1.314 is lower.
  CHECK(cell<std::string>(t, 0, "offer") == "cheap-4090");
  CHECK(cell<std::string>(t, 0, "mode") == "spot");
  CHECK(cell<Money>(t, 0, "gpu_hour") == Money::parse("1.314", kCny));
  CHECK(cell<std::string>(t, 1, "mode") == "monthly");
  // 1052 / 730 = 1.441096 CNY/GPU-h (micro-units, half-even).
  CHECK(cell<Money>(t, 1, "gpu_hour") == Money::parse("1.441096", kCny));
  // The 8×A100 hourly: 27.44705 USD × 7.1 = 194.874055 CNY per instance-hour; / 8 = 24.359257 CNY/GPU-h.
  bool found = false;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (cell<std::string>(t, i, "offer") != "big-a100x8" || cell<std::string>(t, i, "mode") != "hourly") continue;
    if (std::holds_alternative<std::string>(t.rows[i][col(t, "term")])) continue;  // the 1y commitment row
    found = true;
    CHECK(cell<Money>(t, i, "price") == Money::parse("194.874055", kCny));
    CHECK(cell<Money>(t, i, "gpu_hour") == Money::parse("24.359257", kCny));
    CHECK(cell<Money>(t, i, "list_price") == Money::parse("27.44705", kUsd));
    CHECK(cell<double>(t, i, "fx_rate") == Approx(7.1));
  }
  CHECK(found);
  CHECK_THAT(r.notes.at(1), Contains("1 USD = 7.1 CNY") && Contains("as_of 2026-10-04"));
}

TEST_CASE("prices flag entries older than the stale threshold", "[prices]") {
  // small.yaml sets stale_after 90d; today 2026-12-02. The spot price dated 2025-05-31 is 550 days old.
  const Report r = prices_report(small_context(), PricesQuery{.stale_only = true});
  const Table& t = r.tables.at(0);
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    CHECK(cell<bool>(t, i, "stale"));
    CHECK(cell<std::int64_t>(t, i, "age_days") > 90);
  }
  // big-a100x8 hourly, spot and 1y (2026-01-21: 315 days; 2025-05-31: 550 days).
  CHECK(t.rows.size() == 3);
}

TEST_CASE("an undated price (as_of: unknown) shows no date and no age, and is always stale", "[prices][stale]") {
  GlobalOptions o;
  o.no_default_catalog = true;
  o.catalog_files = {std::string(GPUPLAN_TEST_DATA) + "/small.yaml", std::string(GPUPLAN_TEST_DATA) + "/undated.yaml"};
  o.today = "2026-12-02";
  o.stale_after = "100000d";  // no dated price is stale at this threshold
  const Context ctx = make_context(o);
  const Report r = prices_report(ctx, PricesQuery{.stale_only = true});
  const Table& t = r.tables.at(0);
  REQUIRE(t.rows.size() == 1);
  CHECK(cell<std::string>(t, 0, "offer") == "undated-a100");
  CHECK(cell<std::string>(t, 0, "as_of") == "unknown");
  CHECK(std::holds_alternative<std::monostate>(t.rows.at(0).at(col(t, "age_days"))));
  CHECK(cell<bool>(t, 0, "stale"));
  // Sorted by date, newest first, it comes last.
  const Report all = prices_report(ctx, PricesQuery{.sort = "as_of"});
  const Table& a = all.tables.at(0);
  CHECK(cell<std::string>(a, a.rows.size() - 1, "offer") == "undated-a100");
}

TEST_CASE("catalog check counts prices per provider by hand — a shorter stale limit never lowers the count",
          "[prices][stale]") {
  const auto check = [](const char* stale_after) {
    GlobalOptions o;
    o.no_default_catalog = true;
    o.catalog_files = {std::string(GPUPLAN_TEST_DATA) + "/small.yaml",
                       std::string(GPUPLAN_TEST_DATA) + "/undated.yaml"};
    o.today = "2026-12-02";
    if (stale_after) o.stale_after = stale_after;
    return catalog_check_report(make_context(o));
  };
  const Report r = check(nullptr);  // small.yaml's 90 days
  const Table& t = r.tables.at(0);
  REQUIRE(t.rows.size() == 3);
  // bigcloud: big-a100x8 hourly, spot and its 1y commitment (dated 2026-01-21 and 2025-05-31: over 90 days), and
  // the undated offer; cheapcloud: cheap-4090 hourly, monthly, spot and cheap-a100 hourly, all within 90 days.
  CHECK(cell<std::string>(t, 0, "provider") == "bigcloud");
  CHECK(cell<std::int64_t>(t, 0, "prices") == 4);
  CHECK(cell<std::int64_t>(t, 0, "stale") == 4);
  CHECK(cell<std::int64_t>(t, 0, "undated") == 1);
  CHECK(cell<std::string>(t, 0, "oldest") == "2025-05-31");
  CHECK(cell<std::int64_t>(t, 1, "stale") == 0);
  CHECK(cell<std::string>(t, 2, "provider") == "all");
  CHECK(cell<std::int64_t>(t, 2, "prices") == 8);
  CHECK(cell<double>(t, 2, "stale_share") == Approx(0.5));
  std::int64_t before = 0;
  for (const char* limit : {"100000d", "365d", "90d", "30d", "1d"}) {
    const std::int64_t stale = cell<std::int64_t>(check(limit).tables.at(0), 2, "stale");
    INFO(limit);
    CHECK(stale >= before);
    CHECK(stale >= 1);  // the undated price, at any limit
    before = stale;
  }
}

TEST_CASE("price filters select by GPU family, provider and mode, and reject typos", "[prices]") {
  const Context ctx = small_context();
  PricesQuery q;
  q.gpus = {"a100"};
  q.modes = {"hourly"};
  const Report r = prices_report(ctx, q);
  CHECK(r.tables[0].rows.size() == 3);  // big hourly, big 1y committed hourly, cheap-a100 hourly
  q = PricesQuery{};
  q.providers = {"nosuch"};
  CHECK_THROWS_WITH(prices_report(ctx, q),
                    "--provider: 'nosuch' matches nothing in the catalog (known: bigcloud, cheapcloud)");
  q = PricesQuery{};
  q.sort = "colour";
  CHECK_THROWS_WITH(prices_report(ctx, q), Contains("--sort: colour not in"));
}

TEST_CASE("prices convert to any currency the catalog has a rate for", "[prices]") {
  const Report r = prices_report(small_context("USD"), PricesQuery{});
  const Table& t = r.tables[0];
  CHECK(t.currency == kUsd);
  CHECK(r.currency == kUsd);
  CHECK(render(r, Format::kCsv).find(",USD\r\n") != std::string::npos);
  CHECK_THROWS_WITH(prices_report(small_context("EUR"), PricesQuery{}),
                    Contains("no exchange rate between CNY and EUR"));
}

TEST_CASE("the gpus report lists dense TFLOPS per precision and leaves unknown ones empty", "[prices]") {
  const Report r = gpus_report(small_context(), {});
  const Table& t = r.tables[0];
  REQUIRE(t.rows.size() == 2);
  CHECK(cell<double>(t, 0, "bf16_tflops") == Approx(312));
  CHECK(std::holds_alternative<std::monostate>(t.rows[0][col(t, "fp8_tflops")]));
  CHECK(cell<double>(t, 1, "fp8_tflops") == Approx(330.3));
  CHECK_THROWS_WITH(gpus_report(small_context(), {"B300"}), Contains("'B300' matches no GPU"));
}
