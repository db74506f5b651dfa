// The field tables: one definition per input field, from which reading,
// defaults, the echo and the published schemas come.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "gpuplan/context.h"
#include "gpuplan/error.h"
#include "gpuplan/job_fields.h"
#include "gpuplan/scenario.h"
#include "gpuplan/scenario_fields.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/suggest.h"

using namespace gpuplan;

namespace {

Context context(bool fixture = false) {
  GlobalOptions g;
  g.today = "2026-12-02";
  if (fixture) {
    g.no_default_catalog = true;
    g.catalog_files = {GPUPLAN_TEST_DATA "/catalog-fixture.yaml"};
  }
  return make_context(g);
}

// JSON (a YAML subset) read back for structural comparison.
YAML::Node parse(const std::string& json) { return YAML::Load(json); }

std::string canonical(const YAML::Node& n) {
  YAML::Emitter out;
  out << YAML::Flow << n;
  return out.c_str();
}

YAML::Node schema_inputs(const std::string& command) {
  return YAML::LoadFile(
      fmt::format("{}/lib/gpuplan/schemas/{}.schema.json", GPUPLAN_SOURCE_DIR, command))["properties"]["inputs"];
}

// Keys every command's inputs carry besides the file's fields (Context::echo).
const std::set<std::string> kContextKeys = {"catalogs", "currency", "today", "stale_after_days"};

// The published schema of `command`'s inputs holds exactly the generated
// properties (plus the context's), each equal to what the rows say.
void check_schema(const std::string& command, const Json& generated, std::set<std::string> more = {}) {
  const YAML::Node file = schema_inputs(command);
  const YAML::Node gen = parse(generated.dump());
  // What the rows say, for a reviewer (and for updating the file after a change to the rows).
  std::ofstream(fmt::format("inputs-{}.schema.json", command)) << generated.dump();
  INFO("lib/gpuplan/schemas/" << command << ".schema.json, inputs; generated from the rows:\n" << generated.dump());
  REQUIRE(file["properties"]);
  std::set<std::string> file_keys, gen_keys;
  for (const auto& kv : file["properties"]) file_keys.insert(kv.first.as<std::string>());
  for (const auto& kv : gen["properties"]) {
    const std::string key = kv.first.as<std::string>();
    gen_keys.insert(key);
    INFO("property " << key);
    REQUIRE(file["properties"][key]);
    if (key != "currency") CHECK(canonical(file["properties"][key]) == canonical(kv.second));
  }
  std::set<std::string> expected = gen_keys;
  expected.insert(kContextKeys.begin(), kContextKeys.end());
  expected.insert(more.begin(), more.end());
  CHECK(file_keys == expected);
  CHECK(file["additionalProperties"].as<bool>() == false);
}

}  // namespace

TEST_CASE("edit distance counts insertions, deletions and substitutions", "[fields]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("plan", "plan") == 0);
  CHECK(edit_distance("plann", "plan") == 1);              // one deletion
  CHECK(edit_distance("utilisaton", "utilisation") == 1);  // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);          // the textbook case: k→s, e→i, +g
  const std::string_view names[] = {"workload.gpus", "workload.utilisation", "workload.runs_per_month"};
  CHECK(nearest("workload.utilisaton", names) == "workload.utilisation");
  CHECK(nearest("workload.gpu", names) == "workload.gpus");
  CHECK(nearest("buy.card_price", names).empty());  // nothing within two edits
}

// The textbook table, unbounded: the reference the bounded search must agree with.
static std::size_t reference_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j)
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
  return d[a.size()][b.size()];
}

TEST_CASE("the bounded nearest-name search agrees with the full edit-distance table", "[fields]") {
  // Random words over a small alphabet (so near misses are common), lengths
  // 0..80 (past the stack buffer of 64), against random candidate lists.
  std::mt19937 rng(17);
  const auto word = [&](std::size_t max_len) {
    std::string w(std::uniform_int_distribution<std::size_t>(0, max_len)(rng), 'a');
    for (char& c : w) c = static_cast<char>('a' + std::uniform_int_distribution<int>(0, 3)(rng));
    return w;
  };
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t len = trial % 10 == 0 ? 80 : 12;
    const std::string w = word(len);
    std::vector<std::string> names;
    for (int k = 0; k < 8; ++k) names.push_back(k % 3 == 0 ? word(len) : w.substr(0, w.size() / 2) + word(3));
    std::vector<std::string_view> views(names.begin(), names.end());
    for (const std::size_t max : {0u, 1u, 2u, 3u}) {
      std::string_view expected;  // the first of the closest within max
      std::size_t best = max + 1;
      for (const std::string& n : names)
        if (const std::size_t d = reference_distance(w, n); d < best) expected = n, best = d;
      INFO("word " << w << ", max " << max);
      CHECK(nearest(w, views, max) == expected);
      if (!expected.empty()) CHECK(nearest(w, views, max).data() == expected.data());  // the first of equals
    }
    CHECK(edit_distance(w, names[0]) == reference_distance(w, names[0]));
  }
}

TEST_CASE("an unknown scenario field is refused with the nearest known one", "[fields]") {
  const Context ctx = context();
  try {
    load_scenario("", {"workload.utilisaton=50%"}, ctx);
    FAIL("no error");
  } catch (const InputErrors& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(std::string(e.problems()[0].what()) ==
          "--set workload.utilisaton=50%: workload.utilisaton: is not a known field; did you mean "
          "'workload.utilisation'?");
  }
}

TEST_CASE("a scenario built in C++ with no file gets the same defaults as the CLI", "[fields]") {
  for (const bool fixture : {false, true}) {
    INFO((fixture ? "fixture catalog" : "built-in catalog"));
    const Context ctx = context(fixture);
    const ResolvedScenario built = default_scenario(ctx);
    const ResolvedScenario loaded = load_scenario("", {}, ctx);
    CHECK(built.inputs.dump() == loaded.inputs.dump());
    CHECK(built.defaults_used == loaded.defaults_used);
    // The model agrees to the cent: the same Scenario, field by field.
    const Comparison a = compare(built.scenario), b = compare(loaded.scenario);
    REQUIRE(a.options.size() == b.options.size());
    for (std::size_t i = 0; i < a.options.size(); ++i) CHECK(a.options[i].total == b.options[i].total);
    // Model structs are neutral: the defaults come from the rows, not from the struct.
    CHECK(Scenario{}.workload.utilisation == 0.0);
    CHECK(built.scenario.workload.utilisation == 0.5);
  }
}

TEST_CASE("every fixed default parses with its own field's parser and lies in its range", "[fields]") {
  const Context ctx = context();
  const CurrencyConverter fx(ctx.catalog(), kCny);
  FieldContext fc;
  fc.catalog = &ctx.catalog();
  fc.fx = &fx;
  fc.now = ctx.now;
  int checked = 0;
  const auto check_rows = [&](const auto& sections) {
    for (const auto& section : sections) {
      std::set<std::string_view> keys;
      for (const auto& row : section.rows) {
        INFO(field_path(section.name, row.key));
        CHECK(keys.insert(row.key).second);  // one row per key
        CHECK(!row.label.empty());           // every field is described for people
        if (row.fallback.empty()) continue;
        CHECK_NOTHROW(parse_field(row, std::string(row.fallback), fc));
        ++checked;
      }
    }
  };
  check_rows(scenario_sections());
  check_rows(job_sections());
  CHECK(checked > 40);
}

TEST_CASE("setting a field to its default with --set changes nothing", "[fields]") {
  // For every scenario field with a fixed default: the echo with `--set path=<default>`
  // equals the echo with nothing set (the default's line leaves Defaults used).
  const Context ctx = context(true);
  const ResolvedScenario base = load_scenario("", {}, ctx);
  int checked = 0;
  for (const Section<Scenario>& section : scenario_sections()) {
    for (const Field<Scenario>& row : section.rows) {
      // Fixed defaults only (a derived one, from the catalog, wins over the fallback); hybrid.*
      // would add the hybrid option; a delay cost given is refused unless the lead time is priced.
      const std::string path = field_path(section.name, row.key);
      if (row.fallback.empty() || row.derive || !row.at.set || section.name == "hybrid" ||
          path == "buy.delay_cost_per_month")
        continue;
      INFO("--set " << path << "=" << row.fallback);
      const ResolvedScenario set = load_scenario("", {path + "=" + std::string(row.fallback)}, ctx);
      Json a = set.inputs, b = base.inputs;
      a["defaults_used"] = Json();
      b["defaults_used"] = Json();
      CHECK(a.dump() == b.dump());
      ++checked;
    }
  }
  CHECK(checked > 15);
}

TEST_CASE("the compare schema describes the echoed inputs exactly as the scenario's field tables do", "[fields]") {
  check_schema("compare", scenario_echo_schema(), {"set"});
}

TEST_CASE("the estimate schema describes the echoed inputs exactly as the job's field tables do", "[fields]") {
  check_schema("estimate", job_echo_schema(false));
}

TEST_CASE("the plan schema describes the echoed inputs exactly as the job's field tables do", "[fields]") {
  check_schema("plan", job_echo_schema(true));
}

TEST_CASE("the serve schema describes the echoed inputs exactly as the serving file's field tables do", "[fields]") {
  check_schema("serve", serving_echo_schema());
}

TEST_CASE("the echo of the built-in defaults has exactly the schema's keys", "[fields]") {
  const Context ctx = context();
  const YAML::Node echo = parse(load_scenario("", {}, ctx).inputs.dump());
  const YAML::Node gen = parse(scenario_echo_schema().dump());
  for (const char* section : {"workload", "buy"}) {
    std::set<std::string> got, want;
    for (const auto& kv : echo[section]) got.insert(kv.first.as<std::string>());
    for (const auto& kv : gen["properties"][section]["properties"]) want.insert(kv.first.as<std::string>());
    INFO(section);
    CHECK(got == want);
  }
}

namespace {
// The fixture catalog and, over it, an overlay file with `records` as its purchases.
Context fixture_with_purchases(const std::string& records) {
  const std::string path = (std::filesystem::temp_directory_path() / "gpuplan-fields-test-overlay.yaml").string();
  std::ofstream(path) << "schema_version: 1\npurchases:\n" << records;
  GlobalOptions g;
  g.today = "2026-12-02";
  g.no_default_catalog = true;
  g.catalog_files = {GPUPLAN_TEST_DATA "/catalog-fixture.yaml", path};
  return make_context(g);
}
std::string server_base_line(const ResolvedScenario& rs) {
  for (const std::string& d : rs.defaults_used)
    if (d.starts_with("buy.server_base")) return d;
  return "";
}
}  // namespace

TEST_CASE("the server base is priced on the cards' date: a server less cards from months apart is not a chassis",
          "[fields][scenario]") {
  // Fixture: the A800 server is from 2023-10-20 (export-rush prices), its card from 2023-06-29.
  // The base is the non-GPU share of DGX H100 (32,010 of 270,000 USD) on 8 cards at 83,000.
  const double share = 32010.0 / 270000.0;
  const ResolvedScenario rs = load_scenario("", {}, context(true));
  CHECK(std::abs(rs.scenario.own.server_base.units() - 8 * 83000 * share / (1 - share)) < 0.01);
  CHECK(server_base_line(rs).find("113 days apart") != std::string::npos);
  // The server record's price does not leak into the base: a dearer server, the same base.
  const ResolvedScenario dearer = load_scenario(
      "", {},
      fixture_with_purchases("  - {id: a800-8gpu-cn-2023-10, kind: server, gpu: A800-80G, gpus: 8, price: 3000000, "
                             "currency: CNY, region: CN, source: test, as_of: 2023-10-20}\n"));
  CHECK(dearer.scenario.own.server_base == rs.scenario.own.server_base);
  // Fewer cards, fewer card prices: never a chassis dearer than the cards (was 786,000 CNY for any count).
  const ResolvedScenario four = load_scenario("", {"buy.cards=4", "workload.gpus=4"}, context(true));
  CHECK(four.scenario.own.server_base < four.scenario.own.card_price.times(8));
  // A card record on the server's date: cards and base add up to the server's price.
  const ResolvedScenario same_day = load_scenario(
      "", {},
      fixture_with_purchases("  - {id: a800-cn-2023-10, kind: card, gpu: A800-80G, price: 160000, currency: CNY, "
                             "region: CN, source: test, as_of: 2023-10-20}\n"));
  CHECK(same_day.scenario.own.server_base.units() == Approx(1450000 - 8 * 160000));
  CHECK(server_base_line(same_day).find("less 8 × card a800-cn-2023-10") != std::string::npos);
  // The base is a server's: two servers of 4 cost what one of 8 does, and the price is buy.card_price.
  const Money base8 = rs.scenario.own.server_base;
  const ResolvedScenario by4 = load_scenario("", {"buy.cards_per_server=4"}, context(true));
  CHECK(std::abs(by4.scenario.own.server_base.units() * 2 - base8.units()) < 0.02);
  CHECK(server_base_line(by4).find("complete 4-GPU server") != std::string::npos);
  const ResolvedScenario dear = load_scenario("", {"buy.card_price=166000"}, context(true));
  CHECK(std::abs(dear.scenario.own.server_base.units() - 2 * base8.units()) < 0.02);
  CHECK(server_base_line(dear).find("at buy.card_price") != std::string::npos);
  CHECK(server_base_line(dear).find("a800-cn-2023-06") == std::string::npos);  // not the record it did not use
}

TEST_CASE("more than one server: the network default says it is not costed, not 'one server'", "[fields][scenario]") {
  const ResolvedScenario one = load_scenario("", {}, context(true));
  const ResolvedScenario eight = load_scenario("", {"buy.cards=64", "workload.gpus=64"}, context(true));
  const auto line = [](const ResolvedScenario& rs) {
    for (const std::string& d : rs.defaults_used)
      if (d.starts_with("buy.network")) return d;
    return std::string();
  };
  CHECK(line(one).find("one server") != std::string::npos);
  CHECK(line(eight).find("not costed: 8 servers need a switch fabric") != std::string::npos);
  CHECK(line(eight).find("one server") == std::string::npos);
}

TEST_CASE("no monthly offer, but committed terms for the GPU: the default's line names them", "[fields][scenario]") {
  // The fixture rents the A100-80G in the US only by the hour and on AWS's 1- and 3-year terms.
  const ResolvedScenario rs = load_scenario("", {"region=US", "rent.regions=any"}, context(true));
  std::string line;
  for (const std::string& d : rs.defaults_used)
    if (d.starts_with("rent.monthly = none")) line = d;
  INFO(line);
  CHECK(line.find("it has committed terms: rent.monthly.commitment=") != std::string::npos);
  // Each term it names works as written.
  const std::size_t at = line.find("rent.monthly.commitment=");
  const std::string set = line.substr(at, line.find_first_of(",)", at) - at);
  const ResolvedScenario committed = load_scenario("", {"region=US", "rent.regions=any", set}, context(true));
  REQUIRE(committed.scenario.monthly.has_value());
  // The offer it chose, set back as echoed, changes nothing (it has no plain monthly price, only terms).
  const std::string offer = committed.scenario.monthly->offer;
  const ResolvedScenario pinned =
      load_scenario("", {"region=US", "rent.regions=any", set, "rent.monthly.offer=" + offer}, context(true));
  REQUIRE(pinned.scenario.monthly.has_value());
  CHECK(pinned.scenario.monthly->price == committed.scenario.monthly->price);
  CHECK(compare(pinned.scenario).options.back().total == compare(committed.scenario).options.back().total);
}
