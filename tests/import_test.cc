// catalog import: SkyPilot's catalog CSV and the quote CSV, on committed
// excerpts of the real files (tests/data/import/skypilot/README.md) and the
// fixture catalog, so that a change to the built-in catalog does not move them.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "gpuplan/catalog_import.h"
#include "gpuplan/scenario.h"
#include "gpuplan/commands/catalog_import.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/error.h"
#include "gpuplan/io.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {

const std::string kData = std::string(GPUPLAN_TEST_DATA);
const std::string kLambda = kData + "/import/skypilot/lambda/vms.csv";
const std::string kRunpod = kData + "/import/skypilot/runpod/vms.csv";

Context fixture_context(std::vector<std::string> extra = {}) {
  GlobalOptions o;
  o.no_default_catalog = true;
  o.catalog_files = {kData + "/catalog-fixture.yaml"};
  for (std::string& f : extra) o.catalog_files.push_back(std::move(f));
  o.today = "2026-12-02";
  return make_context(o);
}

ImportOptions options(const Context& ctx) {
  ImportOptions o;
  o.today = ctx.today;
  o.as_of = parse_date("2026-11-30");
  return o;
}

const ImportedOffer* find(const ImportResult& r, std::string_view id) {
  for (const ImportedOffer& o : r.offers)
    if (o.id == id) return &o;
  return nullptr;
}

std::string price_of(const ImportedOffer& o, BillingMode m) {
  for (const ImportedPrice& p : o.prices)
    if (p.mode == m) return p.amount;
  return "";
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  const std::string text = read_input_file(path);
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    out.push_back(text.substr(at, end - at));
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("skypilot: instances keep their shape, zones fold into their region, spot only where given", "[import]") {
  const Context ctx = fixture_context();
  const ImportResult r = import_skypilot({kLambda, kRunpod}, options(ctx), ctx.catalog());
  CHECK(r.rows == 22);
  const ImportedOffer* h100 = find(r, "lambda-us-east-1-gpu_8x_h100_sxm5");
  REQUIRE(h100);
  CHECK(h100->gpu == "H100");
  CHECK(h100->gpus == 8);
  CHECK(price_of(*h100, BillingMode::kHourly) == "23.92");  // per instance, as SkyPilot gives it
  CHECK(price_of(*h100, BillingMode::kSpot).empty());       // Lambda's SpotPrice column is empty
  const ImportedOffer* pcie = find(r, "lambda-us-east-1-gpu_1x_h100_pcie");
  REQUIRE(pcie);
  CHECK(pcie->gpu == "H100-PCIe");  // same AcceleratorName "H100": the instance type decides
  // RunPod's CA rows are two zones with one price: one offer naming both zones.
  const ImportedOffer* ca = find(r, "runpod-CA-1x_A100-80GB_SECURE");
  REQUIRE(ca);
  CHECK(ca->zones == std::vector<std::string>{"CA-MTL-1", "CA-MTL-2"});
  CHECK(ca->gpu == "A100-80G-PCIe");
  CHECK(price_of(*ca, BillingMode::kSpot) == "1.19");
  CHECK(find(r, "runpod-US-8x_A100-80GB-SXM_SECURE")->gpu == "A100-80G");
  for (const ImportedOffer& o : r.offers) {
    CHECK(o.currency == "USD");
    CHECK(o.prices.front().as_of == parse_date("2026-11-30"));
  }
}

TEST_CASE("skypilot: every imported price is the file's row, per instance (closed form against the CSV)", "[import]") {
  const Context ctx = fixture_context();
  const ImportResult r = import_skypilot({kLambda, kRunpod}, options(ctx), ctx.catalog());
  // Each offer's first row, read back from the file by hand: its Price column is the hourly price.
  for (const ImportedOffer& o : r.offers) {
    const std::vector<std::string> lines = lines_of(o.where.file);
    const std::string& row = lines.at(static_cast<std::size_t>(o.where.line - 1));
    const std::string price = price_of(o, BillingMode::kHourly);
    INFO(o.id << ": " << row);
    CHECK(row.find("," + price + ",") != std::string::npos);
    CHECK(row.rfind(o.instance + ",", 0) == 0);
    CHECK(row.find("," + std::to_string(o.gpus) + ".0,") != std::string::npos);
  }
}

TEST_CASE("skypilot: names that are no catalog card, or could be two, are reported by name and left out", "[import]") {
  const Context ctx = fixture_context();
  const ImportResult r = import_skypilot({kLambda, kRunpod}, options(ctx), ctx.catalog());
  std::map<std::string, SkippedName> skipped;
  for (const SkippedName& s : r.skipped) skipped[s.provider + "/" + s.name] = s;
  // V100 with 16 GiB: the fixture's only V100 has 32 GB, so it is not that card.
  REQUIRE(skipped.count("lambda/V100"));
  CHECK_THAT(skipped["lambda/V100"].reason, Contains("16 GiB") && Contains("V100-32G"));
  CHECK(skipped["lambda/V100"].rows == 2);
  CHECK(skipped["lambda/V100"].first.line == 2);
  CHECK(skipped.count("lambda/A6000"));
  CHECK(skipped.count("lambda/A10"));  // the fixture catalog has no A10
  CHECK(skipped.count("runpod/L4"));
  CHECK(skipped.count("runpod/L40"));  // not L40S: a name is never a prefix match
  // "A100" with 40 GiB: the fixture's A100s are 80 GB cards, so none of them.
  CHECK_THAT(skipped["lambda/A100"].reason, Contains("no A100 of the catalog"));
  for (const ImportedOffer& o : r.offers) {
    CHECK(o.gpu != "L40S");
    CHECK(o.instance.find("v100") == std::string::npos);
  }
}

TEST_CASE("skypilot: a name that could be two cards is ambiguous until mapped, and a map must fit the memory",
          "[import]") {
  const Context builtin = [] {
    GlobalOptions o;
    o.today = "2026-12-02";
    return make_context(o);
  }();
  ImportOptions o = options(builtin);
  ImportResult r = import_skypilot({kLambda}, o, builtin.catalog());
  bool ambiguous = false;
  for (const SkippedName& s : r.skipped)
    if (s.name == "A100") {
      ambiguous = true;
      CHECK_THAT(s.reason, Contains("could be A100-40G or A100-40G-PCIe"));
    }
  CHECK(ambiguous);
  o.map = load_gpu_mappings(kData + "/import/skypilot/map.yaml", builtin.catalog());
  r = import_skypilot({kLambda}, o, builtin.catalog());
  REQUIRE(find(r, "lambda-us-east-1-gpu_8x_a100"));
  CHECK(find(r, "lambda-us-east-1-gpu_8x_a100")->gpu == "A100-40G");
  // Mapped to a card of another memory: refused, with the reason.
  const Context ctx = fixture_context();
  ImportOptions f = options(ctx);
  f.map = load_gpu_mappings(kData + "/import/skypilot/map-fixture.yaml", ctx.catalog());
  r = import_skypilot({kLambda, kRunpod}, f, ctx.catalog());
  CHECK_FALSE(find(r, "lambda-us-east-1-gpu_8x_a100"));
  bool refused = false;
  for (const SkippedName& s : r.skipped)
    if (s.name == "A100") refused = s.reason.find("40 GiB a card; A100-80G") != std::string::npos;
  CHECK(refused);
  // A mapping of a 24 GB name to a 24 GB card is the team's call: taken.
  CHECK(find(r, "runpod-US-1x_RTX3090_SECURE")->gpu == "RTX4090");
}

TEST_CASE("mapping files: unknown GPU ids and entries naming neither or both are errors at their line", "[import]") {
  const Context ctx = fixture_context();
  const std::string bad = kData + "/../hostile/files/import_map_bad.yaml";
  try {
    load_gpu_mappings(bad, ctx.catalog());
    FAIL("no error");
  } catch (const InputErrors& e) {
    REQUIRE(e.problems().size() == 3);
    CHECK_THAT(e.problems()[0].what(), Contains(":3:23") && Contains("unknown GPU id 'A100-40G'"));
    CHECK_THAT(e.problems()[1].what(), Contains(":4:") && Contains("exactly one of name"));
    CHECK_THAT(e.problems()[2].what(), Contains(":5:") && Contains("exactly one of name"));
  }
}

TEST_CASE("skypilot: the provider comes from --provider or the directory, never a guess", "[import]") {
  const Context ctx = fixture_context();
  ImportOptions o = options(ctx);
  o.provider = "nocloud";
  CHECK_THROWS_WITH(import_skypilot({kLambda}, o, ctx.catalog()),
                    Contains("'nocloud' is not a provider of the catalog") && Contains("lambda"));
  o.provider = "";
  CHECK_THROWS_WITH(import_skypilot({kData + "/small.yaml"}, o, ctx.catalog()),
                    Contains("give --provider") && Contains("'data'"));
  o.provider = "runpod";  // the lambda file read as RunPod's: allowed, the user said so
  const ImportResult r = import_skypilot({kLambda}, o, ctx.catalog());
  CHECK(r.offers.front().provider == "runpod");
}

TEST_CASE("quotes: per gpu is scaled to the instance, ids stay apart, older prices become history", "[import]") {
  const Context ctx = fixture_context();
  const ImportResult r = import_quotes({kData + "/import/quotes/collide.csv"}, options(ctx), ctx.catalog());
  REQUIRE(r.offers.size() == 3);
  // "RTX 4090 按量" and "RTX 4090 包月" differ only in what an id drops: two offers all the same.
  CHECK(r.offers[0].id == "autodl-cn-RTX-4090");
  CHECK(r.offers[1].id == "autodl-cn-RTX-4090-2");
  CHECK(price_of(r.offers[1], BillingMode::kMonthly) == "1052.00");
  const ImportedOffer& eight = r.offers[2];
  CHECK(eight.gpus == 8);
  REQUIRE(eight.prices.size() == 2);
  CHECK(eight.prices[0].amount == "16.00");  // 2.0 a GPU × 8, the newest: the price
  CHECK(eight.prices[1].amount == "17.50");  // per instance, 2025: its history
  const std::string yaml = to_catalog_yaml(r, "test");
  const Catalog c = parse_catalog(yaml, "<import>", &ctx.catalog());
  REQUIRE(c.offers.size() == 3);
  CHECK(c.offers[2].hourly->amount == Money::parse("16", kCny));
  REQUIRE(c.offers[2].history.size() == 1);
  CHECK(c.offers[2].history[0].price.amount == Money::parse("17.5", kCny));
  CHECK(format_date(c.offers[2].history[0].price.provenance.as_of) == "2025-10-04");
}

TEST_CASE("quotes: every bad cell is reported at its line and column, nothing written", "[import]") {
  const Context ctx = fixture_context();
  try {
    import_quotes({kData + "/import/quotes/bad.csv"}, options(ctx), ctx.catalog());
    FAIL("no error");
  } catch (const InputErrors& e) {
    std::string all;
    for (const InputError& p : e.problems()) all += std::string(p.what()) + "\n";
    INFO(all);
    CHECK_THAT(all, Contains("bad.csv:2:1: provider: 'nocloud' is not a provider of the catalog"));
    CHECK_THAT(all, Contains("bad.csv:3:") && Contains("gpu: 'RTX5090'"));
    CHECK_THAT(all, Contains("bad.csv:4:") && Contains("gpus: '1.5'"));
    CHECK_THAT(all, Contains("mode: 'weekly'"));
    CHECK_THAT(all, Contains("per: 'card' is not instance or gpu"));
    CHECK_THAT(all, Contains("bad.csv:4:") && Contains("as_of"));
    CHECK_THAT(all, Contains("bad.csv:5:") && Contains("source: is empty"));
    CHECK_THAT(all, Contains("bad.csv:6:") && Contains("EUR has no exchange rate"));
    CHECK_THAT(all, Contains("bad.csv:7:") && Contains("2027-01-01 is after today"));
  }
}

TEST_CASE("catalog import: the YAML it writes loads over the catalog and prices lists it with shapes and dates",
          "[import]") {
  const Context ctx = fixture_context();
  ImportQuery q;
  q.format = "skypilot";
  q.files = {kLambda, kRunpod};
  q.as_of = "2026-11-30";
  const Report rep = catalog_import_report(ctx, q);
  const Catalog imported = parse_catalog(rep.yaml, "<import>", &ctx.catalog());
  CHECK(imported.offers.size() == rep.tables.at(0).rows.size());
  CHECK(rep.warnings.size() == 7);  // V100, A6000, A10, A100 (lambda); L4, L40, RTX3090 (runpod)
  // The merged catalog prices an 8-GPU instance per GPU-hour as its price / 8.
  const Catalog merged = merge(ctx.catalog(), imported);
  const Offer* h100 = merged.find_offer("lambda-us-east-1-gpu_8x_h100_sxm5");
  REQUIRE(h100);
  CHECK(h100->gpus == 8);
  CHECK(h100->hourly->amount == Money::parse("23.92", kUsd));
  CHECK(format_date(h100->hourly->provenance.as_of) == "2026-11-30");
  CHECK(h100->billing_granularity == Seconds(60));  // the provider's, from the catalog
}

TEST_CASE("catalog import: dates: a future --as-of is refused — without one, the file's date is said", "[import]") {
  const Context ctx = fixture_context();
  ImportQuery q;
  q.format = "skypilot";
  q.files = {kLambda};
  q.as_of = "2026-12-03";  // ctx.today is 2026-12-02
  CHECK_THROWS_WITH(catalog_import_report(ctx, q), Contains("--as-of") && Contains("after today"));
  q.as_of = "2026-11-31";
  CHECK_THROWS_AS(catalog_import_report(ctx, q), InputError);
}

TEST_CASE("offers keep history: older than the current price, scaled per GPU, never priced", "[import][catalog]") {
  const Context ctx = fixture_context();
  const std::string ok = R"(schema_version: 1
offers:
  - id: h
    provider: autodl
    region: cn
    gpu: RTX4090
    gpus: 2
    price_per: gpu
    hourly: 2.0
    history:
      - {mode: hourly, price: 2.5, source: old quote, as_of: 2025-10-01}
      - {mode: spot, price: 1.0, source: old spot, as_of: unknown}
    source: new quote
    as_of: 2026-10-01
)";
  const Catalog c = parse_catalog(ok, "h.yaml", &ctx.catalog());
  REQUIRE(c.offers.at(0).history.size() == 2);
  CHECK(c.offers[0].history[0].price.amount == Money::parse("5", kCny));  // 2.5 a GPU × 2
  CHECK_FALSE(c.offers[0].spot);                                          // a past spot price is no spot offer
  std::string newer = ok;
  newer.replace(newer.find("2025-10-01"), 10, "2026-10-01");
  CHECK_THROWS_WITH(parse_catalog(newer, "h.yaml", &ctx.catalog()),
                    Contains("h.yaml:11:") && Contains("history[0].as_of") && Contains("is not older than"));
  std::string bad_mode = ok;
  bad_mode.replace(bad_mode.find("mode: spot"), 10, "mode: week");
  CHECK_THROWS_WITH(parse_catalog(bad_mode, "h.yaml", &ctx.catalog()), Contains("'week' is not hourly"));
}

TEST_CASE("prices --history: oldest first, change against the price before, yearly trend in closed form",
          "[import][prices]") {
  const Context ctx = fixture_context();
  const std::string yaml = R"(schema_version: 1
offers:
  - id: t
    provider: autodl
    region: cn
    gpu: RTX4090
    gpus: 1
    hourly: 81
    history:
      - {mode: hourly, price: 100, source: a, as_of: 2024-10-01}
      - {mode: hourly, price: 90, source: b, as_of: 2025-10-01}
    source: c
    as_of: 2026-10-01
)";
  Catalog merged = merge(ctx.catalog(), parse_catalog(yaml, "t.yaml", &ctx.catalog()));
  Context c2 = ctx;
  c2.catalog_ptr = std::make_shared<const Catalog>(std::move(merged));
  PricesQuery q;
  q.history = true;
  q.providers = {"autodl"};
  const Report r = prices_report(c2, q);
  const Table& t = r.tables.at(0);
  REQUIRE(t.rows.size() == 3);
  const auto at = [&](std::size_t row, std::string_view key) {
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].key == key) return t.rows[row][i];
    FAIL("no column");
    return Cell{};
  };
  CHECK(std::get<std::string>(at(0, "as_of")) == "2024-10-01");
  CHECK(std::get<bool>(at(2, "current")));
  CHECK(std::get<double>(at(1, "change")) == Approx(-0.1));
  CHECK(std::get<double>(at(2, "change")) == Approx(-0.1));
  // 100 → 81 over 730 days: (0.81)^(365/730) − 1 = 0.9 − 1 = −10% a year.
  CHECK(std::get<double>(at(2, "yearly_trend")) == Approx(-0.1).epsilon(1e-9));
  CHECK(std::holds_alternative<std::monostate>(at(1, "yearly_trend")));
}

TEST_CASE("quotes: a misspelt column, two prices of one date, an undated price that must not inherit a rating",
          "[import]") {
  const Context ctx = fixture_context();
  CHECK_THROWS_WITH(import_quotes({kData + "/import/quotes/misspelt.csv"}, options(ctx), ctx.catalog()),
                    Contains("misspelt.csv:1: confidnce: is not a column of the quote CSV"));
  const ImportResult r = import_quotes({kData + "/import/quotes/undated.csv"}, options(ctx), ctx.catalog());
  const Catalog c = parse_catalog(to_catalog_yaml(r, "test"), "<import>", &ctx.catalog());
  REQUIRE(c.offers.size() == 1);
  CHECK(c.offers[0].hourly->provenance.confidence == "high");
  CHECK(c.offers[0].monthly->provenance.confidence.empty());  // unrated, not the hourly quote's "high"
  CHECK_FALSE(c.offers[0].monthly->provenance.as_of);
  // The same quote twice: which is the price cannot be told.
  CHECK_THROWS_WITH(import_quotes({kData + "/import/quotes/collide.csv", kData + "/import/quotes/collide.csv"},
                                  options(ctx), ctx.catalog()),
                    Contains("collide.csv:2:1: as_of: a second hourly price of RTX 4090 按量 dated 2026-10-04"));
}

TEST_CASE("skypilot: shared cards and unpriced rows are counted and said — a zone listed twice is named once",
          "[import]") {
  const Context ctx = fixture_context();
  ImportOptions o = options(ctx);
  o.provider = "aws";
  const ImportResult r = import_skypilot({kData + "/../hostile/files/import_sky_fraction.csv"}, o, ctx.catalog());
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Contains("1 rows with a fraction of a GPU (a shared card) left out"));
  const ImportResult twice = import_skypilot({kRunpod, kRunpod}, options(ctx), ctx.catalog());
  for (const ImportedOffer& offer : twice.offers) {
    std::set<std::string> zones(offer.zones.begin(), offer.zones.end());
    CHECK(zones.size() == offer.zones.size());
  }
}

TEST_CASE("mapping files: a name mapped twice and a provider the catalog lacks are errors", "[import]") {
  const Context ctx = fixture_context();
  try {
    load_gpu_mappings(kData + "/../hostile/files/import_map_twice.yaml", ctx.catalog());
    FAIL("no error");
  } catch (const InputErrors& e) {
    REQUIRE(e.problems().size() == 2);
    CHECK_THAT(e.problems()[0].what(), Contains(":3:") && Contains("maps a100 a second time (first at line 2)"));
    CHECK_THAT(e.problems()[1].what(), Contains(":4:") && Contains("'lamda' is not a provider"));
  }
}

TEST_CASE("price trend: closed form, 180 days at least, and named (never applied) where compare rents the offer",
          "[import][prices][compare]") {
  const Context ctx = fixture_context();
  const std::string yaml = R"(schema_version: 1
offers:
  - id: t
    provider: autodl
    region: cn
    gpu: RTX4090
    gpus: 1
    hourly: 81
    history:
      - {mode: hourly, price: 100, source: a, as_of: 2024-10-01}
      - {mode: hourly, price: 95, source: b, as_of: unknown}
    source: c
    as_of: 2026-10-01
)";
  const Catalog own = parse_catalog(yaml, "t.yaml", &ctx.catalog());
  const std::optional<PriceTrend> t = price_trend(own.offers.at(0), BillingMode::kHourly);
  REQUIRE(t);
  CHECK(t->yearly == Approx(-0.1).epsilon(1e-9));  // (81/100)^(365/730) − 1; the undated price has no place in time
  CHECK(format_date(t->from) == "2024-10-01");
  CHECK_FALSE(price_trend(own.offers[0], BillingMode::kMonthly));
  std::string close = yaml;
  close.replace(close.find("2024-10-01"), 10, "2026-06-01");  // 122 days: noise, raised to a year
  CHECK_FALSE(price_trend(parse_catalog(close, "t.yaml", &ctx.catalog()).offers.at(0), BillingMode::kHourly));

  Context c2 = ctx;
  c2.catalog_ptr = std::make_shared<const Catalog>(merge(ctx.catalog(), own));
  const auto trend_line = [&](const std::vector<std::string>& sets) {
    const ResolvedScenario rs = load_scenario("", sets, c2);
    for (const std::string& line : rs.defaults_used)
      if (line.starts_with("rent.price_trend")) return std::make_pair(line, rs.scenario.rent_price_trend);
    return std::make_pair(std::string(), rs.scenario.rent_price_trend);
  };
  const auto [line, applied] = trend_line({"buy.gpu=RTX4090", "rent.hourly.offer=t"});
  CHECK_THAT(line,
             Contains("the rented offer's own: t hourly -10.0% a year from 2024-10-01 to 2026-10-01, not applied"));
  CHECK(applied == 0.0);
  const auto [given, value] = trend_line({"buy.gpu=RTX4090", "rent.hourly.offer=t", "rent.price_trend=-5%"});
  CHECK(given.empty());  // given: no default line
  CHECK(value == Approx(-0.05));
}
