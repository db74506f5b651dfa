#include <catch2/catch.hpp>

#include "gpuplan/catalog.h"
#include "gpuplan/io.h"
#include "gpuplan/training.h"

#include <set>

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
const std::string kData = GPUPLAN_TEST_DATA;

Catalog small() { return load_catalog_file(kData + "/small.yaml"); }

// The problems of one file validated on top of small.yaml, as "LINE:COL: field: message".
std::vector<std::string> problems(const std::string& name) {
  const Catalog base = small();
  std::vector<std::string> out;
  for (const InputError& e : validate_catalog_file(kData + "/" + name, &base))
    out.push_back(std::string(e.what()).substr(kData.size() + 1));
  return out;
}
}  // namespace

TEST_CASE("a complete catalog loads with exact prices and normalised instance prices", "[catalog]") {
  const Catalog c = small();
  REQUIRE(c.offers.size() == 3);
  const Offer* o = c.find_offer("cheap-4090");
  REQUIRE(o != nullptr);
  CHECK(o->hourly->amount == Money::parse("2.19", kCny));
  // spot_discount 40%: 2.19 × 0.6 = 1.314 CNY.
  CHECK(o->spot->amount == Money::parse("1.314", kCny));
  const Offer* big = c.find_offer("big-a100x8");
  REQUIRE(big != nullptr);
  CHECK(big->currency == kUsd);
  CHECK(big->billing_granularity.count() == Approx(60));  // inherited from the provider
  CHECK(big->spot->provenance.source == "older fixture");
  CHECK(format_date(big->spot->provenance.as_of) == "2025-05-31");
  CHECK(big->hourly->provenance.source == "test fixture");
  REQUIRE(big->commitments.size() == 1);
  CHECK(std::chrono::duration_cast<Years>(big->commitments[0].term).count() == Approx(1));
  CHECK(c.stale_after.count() == Approx(90 * 86400));
  CHECK(c.find_gpu("a100-80g") != nullptr);  // ids match without case
  CHECK(c.find_gpu("A100-80G")->dense_tflops.at(Precision::kBf16) == Approx(312));
  CHECK(c.find_provider("bigcloud")->support_share == Approx(0.10));
}

TEST_CASE("prices quoted per GPU are stored per instance", "[catalog]") {
  const Catalog base = small();
  const Catalog c = parse_catalog(R"(schema_version: 1
offers:
  - id: per-gpu
    provider: bigcloud
    region: us
    gpu: A100-80G
    gpus: 8
    price_per: gpu
    hourly: 2.79
    source: x
    as_of: 2026-09-20
)",
                                  "x.yaml", &base);
  // 2.79 USD per GPU-hour × 8 GPUs = 22.32 USD per instance-hour.
  CHECK(c.offers.at(0).hourly->amount == Money::parse("22.32", kUsd));
}

TEST_CASE("as_of: unknown marks an undated source: no date, older than any dated record", "[catalog][stale]") {
  const Catalog base = small();
  const Catalog c = parse_catalog(R"(schema_version: 1
fx_rates:
  - id: usd-cny-dated
    from: USD
    to: CNY
    rate: 7.1
    source: a dated table
    as_of: 2020-01-01
  - id: usd-cny-undated
    from: USD
    to: CNY
    rate: 9.99
    source: an undated table
    as_of: unknown
offers:
  - id: undated
    provider: bigcloud
    region: us
    gpu: A100-80G
    gpus: 1
    hourly: 1.5
    source: a listing with no date
    as_of: unknown
)",
                                  "x.yaml", &base);
  const Offer& o = c.offers.at(0);
  CHECK_FALSE(o.provenance.as_of.has_value());
  CHECK_FALSE(o.hourly->provenance.as_of.has_value());  // the bare price inherits it
  CHECK(format_date(o.provenance.as_of) == "unknown");
  CHECK_FALSE(age_days(o.provenance, Date{std::chrono::days(20000)}).has_value());
  CHECK(is_stale(o.provenance, Date{std::chrono::days(20000)}, std::chrono::days(180)));
  // Never "in the future": on the dated rate's own day nothing is.
  CHECK(future_dates(c, Date{std::chrono::year{2020} / 1 / 1}).empty());
  CHECK(future_dates(c, Date{std::chrono::year{2019} / 12 / 31}).size() == 1);
  // A dated rate beats an undated one for the same pair, whichever is listed later.
  const auto conv = find_conversion(c, kUsd, kCny);
  REQUIRE(conv);
  REQUIRE(conv->via);
  CHECK(conv->via->id == "usd-cny-dated");
  // A date that is not one, or a word other than unknown, is still refused.
  CHECK_THROWS_WITH(parse_catalog(R"(schema_version: 1
offers:
  - id: typo
    provider: bigcloud
    region: us
    gpu: A100-80G
    gpus: 1
    hourly: 1.5
    source: x
    as_of: unkown
)",
                                  "t.yaml", &base),
                    Contains("t.yaml:10:") && Contains("as_of"));
}

TEST_CASE("catalog errors name file, line, column and field: negative price", "[catalog]") {
  CHECK(problems("bad_negative_price.yaml") ==
        std::vector<std::string>{"bad_negative_price.yaml:8:13: offers[0].hourly: must be a positive amount"});
}

TEST_CASE("catalog errors name file, line, column and field: unknown GPU id", "[catalog]") {
  CHECK(problems("bad_unknown_gpu.yaml") ==
        std::vector<std::string>{"bad_unknown_gpu.yaml:6:10: offers[0].gpu: unknown GPU id 'RTX9090'"});
}

TEST_CASE("catalog errors name file, line, column and field: duration and size without a unit", "[catalog]") {
  CHECK(problems("bad_no_unit.yaml") ==
        std::vector<std::string>{
            "bad_no_unit.yaml:6:26: providers[0].billing_granularity: a duration needs a unit (ms, s, min, h, d, w, "
            "mo, y)",
            "bad_no_unit.yaml:12:13: gpus[0].memory: a size needs a unit (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB)"});
}

TEST_CASE("catalog errors name file, line, column and field: missing source", "[catalog]") {
  CHECK(problems("bad_missing_source.yaml") ==
        std::vector<std::string>{"bad_missing_source.yaml:3:5: offers[0].source: is required"});
}

TEST_CASE("catalog errors name file, line, column and field: duplicate id", "[catalog]") {
  CHECK(problems("bad_duplicate_id.yaml") ==
        std::vector<std::string>{"bad_duplicate_id.yaml:11:9: offers[1].id: duplicate id 'twice' (first on line 3)"});
}

TEST_CASE("catalog errors name file, line, column and field: malformed YAML", "[catalog]") {
  const auto p = problems("bad_malformed.yaml");
  REQUIRE(p.size() == 1);
  CHECK_THAT(p[0], Catch::Matchers::StartsWith("bad_malformed.yaml:"));
  CHECK_THAT(p[0], Contains("malformed YAML"));
}

TEST_CASE("every problem in a file is reported, in file order, including unknown and repeated keys", "[catalog]") {
  CHECK(problems("bad_many.yaml") ==
        std::vector<std::string>{
            "bad_many.yaml:7:11: offers[0].gpus: 1.5 is not a whole number",
            "bad_many.yaml:8:5: offers[0].hourley: is not a known field; did you mean 'offers[0].hourly'?",
            "bad_many.yaml:9:14: offers[0].monthly: '1,052' is not a decimal amount (write it without thousands "
            "separators: 1200, not 1,200)",
            "bad_many.yaml:11:12: offers[0].as_of: '2026-13-01' is not a real calendar day",
            "bad_many.yaml:18:5: offers[1].hourly: is given twice (first on line 17)"});
}

TEST_CASE("merging replaces records by id and appends new ones — later files win", "[catalog]") {
  const Catalog base = small();
  const Catalog over = parse_catalog(R"(schema_version: 1
offers:
  - id: cheap-a100
    provider: cheapcloud
    region: cn-north
    gpu: A100-80G
    gpus: 1
    hourly: 4.99
    source: newer quote
    as_of: 2026-12-01
  - id: new-one
    provider: bigcloud
    region: eu
    gpu: RTX4090
    gpus: 1
    hourly: 0.5
    source: x
    as_of: 2026-12-01
)",
                                     "over.yaml", &base);
  const Catalog m = merge(base, over);
  CHECK(m.offers.size() == 4);
  CHECK(m.find_offer("cheap-a100")->hourly->amount == Money::parse("4.99", kCny));
  CHECK(m.find_offer("new-one") != nullptr);
  CHECK(m.stale_after == base.stale_after);
}

TEST_CASE("the built-in catalog has a source and date on every record and price", "[catalog]") {
  const Catalog& c = builtin_catalog();
  // A date, or unknown (an undated source), never a placeholder day.
  const auto dated_or_unknown = [](const Provenance& p) { return !p.as_of || *p.as_of > Date{}; };
  for (const Gpu& g : c.gpus) {
    INFO(g.id);
    CHECK_FALSE(g.provenance.source.empty());
    CHECK(dated_or_unknown(g.provenance));
  }
  for (const Offer& o : c.offers) {
    INFO(o.id);
    CHECK_FALSE(o.provenance.source.empty());
    for (const BillingMode m : kAllModes)
      if (o.price(m)) {
        CHECK_FALSE(o.price(m)->provenance.source.empty());
        CHECK(dated_or_unknown(o.price(m)->provenance));
      }
  }
  for (const Purchase& p : c.purchases) CHECK_FALSE(p.provenance.source.empty());
  for (const OperatingCost& p : c.operating) CHECK_FALSE(p.provenance.source.empty());
  for (const FxRate& r : c.fx_rates) CHECK_FALSE(r.provenance.source.empty());
}

TEST_CASE("the built-in catalog covers the GPUs and providers the foundation asks for", "[catalog]") {
  const Catalog& c = builtin_catalog();
  for (const char* id : {"RTX4090", "A100-40G", "A100-80G", "H800", "H100", "H20", "L40S", "V100-32G"}) {
    INFO(id);
    CHECK(c.find_gpu(id) != nullptr);
  }
  int cny = 0, usd = 0;
  for (const Provider& p : c.providers) {
    const bool has_offer =
        std::any_of(c.offers.begin(), c.offers.end(), [&](const Offer& o) { return o.provider == p.id; });
    if (has_offer && p.currency == kCny) ++cny;
    if (has_offer && p.currency == kUsd) ++usd;
  }
  CHECK(cny >= 4);
  CHECK(usd >= 4);
  CHECK(std::any_of(c.offers.begin(), c.offers.end(), [](const Offer& o) { return o.spot.has_value(); }));
}

TEST_CASE("the built-in catalog equals pricing/default.yaml parsed at run time", "[catalog]") {
  // The build turns the YAML into C++; this checks the generated data against a fresh parse.
  const Catalog parsed = load_catalog_file(std::string(GPUPLAN_SOURCE_DIR) + "/pricing/default.yaml");
  const Catalog& built = builtin_catalog();
  REQUIRE(parsed.offers.size() == built.offers.size());
  REQUIRE(parsed.gpus.size() == built.gpus.size());
  CHECK(parsed.purchases.size() == built.purchases.size());
  CHECK(parsed.operating.size() == built.operating.size());
  for (std::size_t i = 0; i < parsed.offers.size(); ++i) {
    INFO(parsed.offers[i].id);
    CHECK(parsed.offers[i].id == built.offers[i].id);
    for (const BillingMode m : kAllModes) {
      REQUIRE(parsed.offers[i].price(m).has_value() == built.offers[i].price(m).has_value());
      if (parsed.offers[i].price(m)) CHECK(parsed.offers[i].price(m)->amount == built.offers[i].price(m)->amount);
    }
  }
}

TEST_CASE("gpu filters match ids and families without case", "[catalog]") {
  CHECK(gpu_matches("A100-80G", "A100-80G"));
  CHECK(gpu_matches("a100-80g", "A100-80G-PCIe"));
  CHECK(gpu_matches("A100", "A100-40G"));
  CHECK_FALSE(gpu_matches("A10", "A100-40G"));
  CHECK_FALSE(gpu_matches("H100", "H1000"));
}

TEST_CASE("fx conversion uses the newest rate, or the inverse of the reverse pair", "[catalog]") {
  const Catalog c = small();
  const auto to_cny = find_conversion(c, kUsd, kCny);
  REQUIRE(to_cny);
  CHECK(to_cny->rate == Approx(7.1));
  const auto to_usd = find_conversion(c, kCny, kUsd);
  REQUIRE(to_usd);
  CHECK(to_usd->inverse);
  CHECK(to_usd->rate == Approx(1 / 7.1));
  CHECK_FALSE(find_conversion(c, kUsd, Currency("EUR")));
}

TEST_CASE("unreadable catalog paths are input errors, not hangs or crashes", "[catalog]") {
  CHECK_THROWS_WITH(load_catalog_file(kData), Contains("is a directory"));
  CHECK_THROWS_WITH(load_catalog_file(kData + "/does-not-exist.yaml"), Contains("no such file"));
  CHECK_THROWS_AS(parse_catalog("", "empty.yaml"), InputErrors);
  CHECK_THROWS_WITH(parse_catalog(std::string("a\0b", 3), "bin.yaml"), Contains("not a text file"));
}

TEST_CASE("an operating record is checked by the scenario field it stands for", "[catalog]") {
  // pue → buy.pue (1..5), useful_life → buy.useful_life (longer than zero),
  // residual_value → buy.residual_value (0%..100%): one range per value, in scenario_fields.cc.
  CHECK(problems("bad_operating.yaml") ==
        std::vector<std::string>{"bad_operating.yaml:5:12: operating[0].value: 7 is outside 1..5",
                                 "bad_operating.yaml:10:12: operating[1].value: 0y must be longer than zero",
                                 "bad_operating.yaml:15:12: operating[2].value: 120% is outside 0%..100%"});
}

// A multi-GPU offer with no stated network is timed at an assumed 25 Gb/s per
// instance, which can make its rows 10× slower than the same GPUs on the
// fabric they are sold with. Every built-in one states it (with its source),
// except where the provider states none (the catalog's comment says why).
TEST_CASE("built-in multi-GPU cloud offers state the network between instances", "[catalog][network]") {
  const Catalog& cat = builtin_catalog();
  // Lambda: no figure for on-demand instances (old docs measured 3.7-200 Gb/s); gongjiyun's
  // 8x RTX 4090 bare-metal package: a machine sold on its own.
  const std::set<std::string> unstated = {"lambda", "gongjiyun"};
  int stated = 0;
  for (const Offer& o : cat.offers) {
    const Gpu* g = cat.find_gpu(o.gpu);
    REQUIRE(g);
    if (o.gpus == 1) continue;
    const OfferShape s = offer_shape(o, *g, cat);
    INFO(o.id);
    if (!s.assumed.empty()) CHECK(unstated.contains(o.provider));
    else ++stated;
  }
  CHECK(stated >= 14);
}

// AWS reserves Capacity Blocks in whole days: a 9-hour run on one is billed 24 hours.
TEST_CASE("built-in EC2 Capacity Block offers bill by the day", "[catalog]") {
  int blocks = 0;
  for (const Offer& o : builtin_catalog().offers) {
    if (o.id.find("capacity-block") == std::string::npos) continue;
    ++blocks;
    INFO(o.id);
    CHECK(o.billing_granularity == Seconds(86400));
  }
  CHECK(blocks == 2);
}
