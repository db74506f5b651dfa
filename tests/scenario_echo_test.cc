// One key, one meaning: every number a scenario echoes can be given back with
// --set under the same key and changes nothing (issue: a price echoed per GPU
// and set per 8-GPU server made a total 8× off). The --set text is built as a
// user would from the echo: the number as printed, and the unit its key names
// (lead_time_months: 2 → buy.lead_time=2mo).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "fixture.h"
#include "gpuplan/compare.h"
#include "gpuplan/scenario.h"
#include "gpuplan/scenario_fields.h"

using namespace gpuplan;

namespace {

using testing::fixture_context;

bool is_number(const Json& j) {
  const std::string t = j.dump_compact();
  return !t.empty() && (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-');
}

// The unit a user reads off an echoed key's suffix (a price per GB is money).
std::string unit_of(std::string_view echo_key) {
  if (echo_key.ends_with("_per_gb")) return "";
  for (const auto& [suffix, unit] : {std::pair<std::string_view, std::string_view>{"_months", "mo"},
                                     {"_mb_s", "MB/s"},
                                     {"_gb", "GB"},
                                     {"_w", "W"},
                                     {"_h", "h"},
                                     {"_s", "s"}})
    if (echo_key.ends_with(suffix)) return std::string(unit);
  return "";
}

// The setting key for an echoed key: the echo puts the unit into the key.
std::string set_key(std::string_view echo_key) {
  std::string k(echo_key);
  if (k.ends_with("_per_gb")) return k;
  for (std::string_view suffix : {"_months", "_mb_s", "_gb", "_w", "_h", "_s"})
    if (k.ends_with(suffix)) {
      k.resize(k.size() - suffix.size());
      break;
    }
  return k;
}

void numeric_leaves(const Json& j, const std::string& path, std::string& out) {
  if (const auto* o = j.as_object()) {
    for (const auto& [key, value] : *o) numeric_leaves(value, path + "." + key, out);
  } else if (is_number(j)) {
    // Nine significant digits: a price per GPU echoed to the micro-unit and
    // multiplied back may differ from the instance price in the last micro.
    out += fmt::format("{}={:.9g}\n", path, std::stod(j.dump_compact()));
  }
}

// What a scenario computes, numbers only.
std::string numbers(const ResolvedScenario& rs) {
  const Comparison c = compare(rs.scenario);
  std::string out;
  for (const OptionResult& o : c.options) {
    out += fmt::format("{} {} {:.6f} {:.2f}", o.key, o.total.micros(), o.npv, o.used_gpu_hours);
    for (const Money& m : o.cash_flow) out += fmt::format(" {}", m.micros());
    out += "\n";
  }
  // Labels may say a value was given; the numbers must not change.
  numeric_leaves(rs.inputs, "inputs", out);
  return out;
}

// Every numeric member of an echoed object, as "section.key=VALUE<unit>" settings.
void settings_of(const Json& obj, const std::string& section, std::vector<std::string>& out) {
  for (const auto& [key, value] : *obj.as_object()) {
    if (!is_number(value)) continue;
    const std::string path = section.empty() ? set_key(key) : section + "." + set_key(key);
    out.push_back(fmt::format("{}={}{}", path, value.dump_compact(), unit_of(key)));
    // And as the echo has it, key and bare number (the unit is in the key's name).
    if (set_key(key) != key)
      out.push_back(fmt::format("{}{}={}", section.empty() ? "" : section + ".", key, value.dump_compact()));
  }
}

std::vector<std::string> every_setting(const Json& inputs, const Scenario& s) {
  std::vector<std::string> out;
  settings_of(inputs, "", out);
  for (const char* section : {"workload", "buy", "hybrid"})
    if (const Json* j = inputs.find(section)) settings_of(*j, section, out);
  const Json* rent = inputs.find("rent");
  if (rent) settings_of(*rent, "rent", out);
  for (const char* mode : {"hourly", "monthly", "spot"}) {
    const Json* j = rent ? rent->find(mode) : nullptr;
    if (!j) continue;
    std::vector<std::string> mine;
    settings_of(*j, fmt::format("rent.{}", mode), mine);
    for (auto& m : mine) {
      // A spot price given as a discount off the hourly one is not also a price.
      if (std::string_view(mode) == "spot" && s.spot && s.spot->discount && m.find(".price_per_") != std::string::npos)
        continue;
      out.push_back(std::move(m));
    }
  }
  return out;
}

// Every echoed null (a field left to its default, or to none), as "path=null" settings.
void null_settings(const Json& j, const std::string& path, std::vector<std::string>& out) {
  if (const auto* o = j.as_object()) {
    for (const auto& [key, value] : *o) null_settings(value, path.empty() ? key : path + "." + key, out);
  } else if (j.is_null()) {
    out.push_back(path + "=null");
  }
}

// Each example (and the built-in defaults): every setting `settings_of`
// makes from its echo, given back one at a time, computes the same numbers.
template <class Settings>
void check_settings_change_nothing(const Context& ctx, Settings settings_of, std::size_t at_least) {
  for (const std::string file :
       {"", "examples/qingdao-8xa100.yaml", "examples/qingdao-hybrid.yaml", "examples/startup-4090-spot.yaml"}) {
    const std::string path = file.empty() ? "" : std::string(GPUPLAN_SOURCE_DIR) + "/" + file;
    const ResolvedScenario base = load_scenario(path, {}, ctx);
    const std::string want = numbers(base);
    const std::vector<std::string> sets = settings_of(base);
    CHECK(sets.size() >= at_least);
    for (const std::string& set : sets) {
      INFO((file.empty() ? "built-in defaults" : file) << " --set " << set);
      std::string got;
      try {
        got = numbers(load_scenario(path, {set}, ctx));
      } catch (const std::exception& e) {
        got = e.what();
      }
      CHECK(got == want);
    }
  }
}

}  // namespace

TEST_CASE("setting an echoed null changes nothing, and KEY=null gives a given field back to its default",
          "[scenario][property]") {
  const Context ctx = fixture_context();
  check_settings_change_nothing(
      ctx,
      [](const ResolvedScenario& base) {
        std::vector<std::string> sets;
        null_settings(base.inputs, "", sets);
        return sets;
      },
      1);
  const std::string qingdao = std::string(GPUPLAN_SOURCE_DIR) + "/examples/qingdao-8xa100.yaml";
  const ResolvedScenario given = load_scenario(qingdao, {}, ctx);
  const ResolvedScenario unset = load_scenario(qingdao, {"buy.card_price=null"}, ctx);
  CHECK(given.scenario.own.card_price.units() == Approx(70000));
  // The file's price is gone: the catalog's default, named as a default like any other.
  CHECK(unset.scenario.own.card_price.units() != Approx(70000));
  CHECK(std::any_of(unset.defaults.begin(), unset.defaults.end(), [](const DefaultUsed& d) {
    return d.field == "buy.card_price" && d.why.find("catalog purchase") != std::string::npos;
  }));
  CHECK(std::none_of(given.defaults.begin(), given.defaults.end(),
                     [](const DefaultUsed& d) { return d.field == "buy.card_price"; }));
  // Unsetting one of two keys for one thing keeps the other.
  const ResolvedScenario twin = load_scenario(qingdao, {"buy.resale_amount=300000CNY", "buy.resale_value=null"}, ctx);
  CHECK(twin.scenario.own.resale_amount.has_value());
  // A typo is still a typo, and a key the file gives twice is still given twice.
  CHECK_THROWS_WITH(load_scenario(qingdao, {"buy.cardz=null"}, ctx),
                    Catch::Matchers::Contains("--set buy.cardz=null: buy.cardz: is not a known field; did you mean "
                                              "'buy.cards'?"));
  // In a section the file does not have too (nothing to unset there, and no table reads it).
  CHECK_THROWS_WITH(load_scenario("", {"tax.vat_goodz=null"}, ctx),
                    Catch::Matchers::Contains("tax.vat_goodz: is not a known field; did you mean 'tax.vat_goods'?"));
  CHECK_THROWS_WITH(load_scenario(qingdao, {"bu.card_price=null"}, ctx),
                    Catch::Matchers::Contains("did you mean 'buy.card_price'?"));
  CHECK_NOTHROW(load_scenario("", {"hybrid.local_gpu=null"}, ctx));
  CHECK_FALSE(load_scenario("", {"hybrid.local_gpu=null"}, ctx).scenario.hybrid);  // no section made for it
  // A section is given back field by field: dropped whole, it would drop a --set into it in either order.
  for (const std::vector<std::string>& both :
       {std::vector<std::string>{"buy=null", "buy.card_price=1000"}, {"buy.card_price=1000", "buy=null"}})
    CHECK_THROWS_WITH(load_scenario(qingdao, both, ctx), Catch::Matchers::Contains("buy: is a section"));
  // Unset where the file has nothing, then set: the later setting holds.
  CHECK(load_scenario("", {"buy=null", "buy.card_price=1000CNY"}, ctx).scenario.own.card_price.units() == Approx(1000));
  const std::string twice = "buy:\n  cards: 8\n  cards: 4\n";
  CHECK_THROWS_WITH(load_scenario("x.yaml", {"buy.cards=null"}, ctx, &twice),
                    Catch::Matchers::Contains("x.yaml:3:3: buy.cards: is given twice (first on line 2)"));
}

TEST_CASE(
    "a file that uses the echo's name of a field is told the key and unit a file writes, which then read the same",
    "[scenario][property]") {
  const Context ctx = fixture_context();
  const ResolvedScenario base = load_scenario("", {}, ctx);
  const std::string want = numbers(base);
  int hinted = 0;
  for (const std::string& set : every_setting(base.inputs, base.scenario)) {
    // The echo's own spelling: a key whose name carries a unit, and a bare number.
    const std::size_t eq = set.find('='), dot = set.rfind('.', eq);
    const std::string key = set.substr(dot + 1, eq - dot - 1), value = set.substr(eq + 1);
    if (dot == std::string::npos || set_key(key) == key) continue;
    const std::string section = set.substr(0, dot);
    // "rent.spot" → "rent:\n  spot:\n    KEY: VALUE\n"
    std::string text, indent;
    for (std::size_t start = 0; start <= section.size();) {
      const std::size_t end = std::min(section.find('.', start), section.size());
      text += indent + section.substr(start, end - start) + ":\n";
      indent += "  ";
      start = end + 1;
    }
    INFO(text + indent + key + ": " + value);
    const std::string as_echoed = text + indent + key + ": " + value + "\n";
    std::string message;
    try {
      load_scenario("x.yaml", {}, ctx, &as_echoed);
    } catch (const std::exception& e) {
      message = e.what();
    }
    const std::string says = "a file writes it as ";
    REQUIRE(message.find("is the name the JSON output gives " + section + "." + set_key(key)) != std::string::npos);
    const std::string line = message.substr(message.find(says) + says.size());
    CHECK(line == set_key(key) + ": " + value + unit_of(key));
    const std::string fixed = text + indent + line + "\n";
    CHECK(numbers(load_scenario("x.yaml", {}, ctx, &fixed)) == want);
    ++hinted;
  }
  CHECK(hinted >= 5);
}

TEST_CASE("setting a key to its echoed value changes nothing, for every numeric scenario field",
          "[scenario][property]") {
  const Context ctx = fixture_context();
  check_settings_change_nothing(
      ctx, [](const ResolvedScenario& base) { return every_setting(base.inputs, base.scenario); }, 41);
}

TEST_CASE("a price per GPU and a price per instance of the same offer are the same price", "[scenario]") {
  const Context ctx = fixture_context();
  const ResolvedScenario base = load_scenario("", {}, ctx);
  REQUIRE(base.scenario.hourly);
  const RentInputs& r = base.scenario.hourly->rent;
  const double per_gpu = r.price.units() / r.gpus_per_instance;
  const ResolvedScenario by_gpu =
      load_scenario("", {fmt::format("rent.hourly.price_per_gpu_hour={}", per_gpu * 2)}, ctx);
  const ResolvedScenario by_instance = load_scenario(
      "", {fmt::format("rent.hourly.price_per_instance_hour={}", per_gpu * 2 * r.gpus_per_instance)}, ctx);
  CHECK(by_gpu.scenario.hourly->rent.price == by_instance.scenario.hourly->rent.price);
  // Repricing keeps the offer: its shape, billing and add-ons (the storage charge stays).
  CHECK(by_gpu.scenario.hourly->rent.offer == r.offer);
  CHECK(by_gpu.scenario.hourly->rent.gpus_per_instance == r.gpus_per_instance);
  CHECK(by_gpu.scenario.hourly->rent.storage_per_gb_month == r.storage_per_gb_month);
  CHECK(compare(by_gpu.scenario).options.at(1).total > compare(base.scenario).options.at(1).total);
}

TEST_CASE("of two keys for one thing, the later setting wins, from the file or an earlier --set", "[scenario]") {
  const Context ctx = fixture_context();
  const std::string qingdao = GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml";  // price_per_instance_hour: 225
  const ResolvedScenario by_gpu = load_scenario(qingdao, {"rent.hourly.price_per_gpu_hour=30"}, ctx);
  CHECK(by_gpu.scenario.hourly->rent.price == Money::parse("240", kCny));  // 8 GPUs × 30
  const ResolvedScenario amount_last = load_scenario(qingdao, {"buy.resale_value=10%", "buy.resale_amount=5000"}, ctx);
  CHECK_FALSE(amount_last.scenario.own.resale_share);
  REQUIRE(amount_last.scenario.own.resale_amount);
  CHECK(*amount_last.scenario.own.resale_amount == Money::parse("5000", kCny));
  const ResolvedScenario share_last = load_scenario(qingdao, {"buy.resale_amount=5000", "buy.resale_value=10%"}, ctx);
  CHECK_FALSE(share_last.scenario.own.resale_amount);
  CHECK(share_last.scenario.own.resale_share == 0.1);
}

TEST_CASE("spot priced as a discount keeps what it gives for itself", "[scenario]") {
  // Before: the hourly instance was copied over spot's own billing step.
  const Context ctx = fixture_context();
  const ResolvedScenario rs =
      load_scenario(GPUPLAN_SOURCE_DIR "/examples/qingdao-8xa100.yaml",
                    {"rent.spot.billing_granularity=1s", "rent.spot.storage_per_gb_month=0.3"}, ctx);
  REQUIRE(rs.scenario.spot);
  CHECK(rs.scenario.spot->rent.granularity == Seconds(1));
  CHECK(rs.scenario.hourly->rent.granularity == Seconds(3600));
  CHECK(rs.scenario.spot->rent.storage_per_gb_month == Money::parse("0.3", kCny));
  CHECK(rs.scenario.spot->own_keys == std::vector<std::string>{"billing_granularity", "storage_per_gb_month"});
}

TEST_CASE("an echo key with a value that is not a bare number goes to its field, whose error names it", "[scenario]") {
  const Context ctx = fixture_context();
  // With its own unit, the value is read as written.
  const ResolvedScenario gb = load_scenario("", {"workload.dataset_gb=500"}, ctx);
  const ResolvedScenario tb = load_scenario("", {"workload.dataset_gb=0.5TB"}, ctx);
  CHECK(numbers(gb) == numbers(tb));
  // No number at all: refused as the field's value, not as an unknown key.
  try {
    load_scenario("", {"workload.dataset_gb=abc"}, ctx);
    FAIL("no error");
  } catch (const std::exception& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("workload.dataset:") != std::string::npos);
    CHECK(what.find("not a known field") == std::string::npos);
  }
  // The error quotes the --set as it was typed, not as it was rewritten to the field.
  for (const char* set : {"workload.dataset_gb=-1", "workload.dataset_gb=abc"}) {
    try {
      load_scenario("", {set}, ctx);
      FAIL("no error");
    } catch (const std::exception& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find(std::string("--set ") + set) != std::string::npos);
    }
  }
}

namespace {
// The first problem loading `text` (named `file`) with `sets` reports; "" when none.
std::string load_problem(const Context& ctx, const std::string& file, const std::string& text,
                         const std::vector<std::string>& sets) {
  try {
    load_scenario(file, sets, ctx, &text);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}
}  // namespace

TEST_CASE("a --set of a key the file gives twice leaves the duplicate reported, and a twin's --set drops every copy",
          "[scenario]") {
  const Context ctx = fixture_context();
  const auto problem = [&](const std::string& text, const std::vector<std::string>& sets) {
    return load_problem(ctx, "dup.yaml", text, sets);
  };
  // Two and three copies, with one or two --set: the first later copy is named, with the first copy's line.
  CHECK_THAT(problem("schema_version: 1\nhorizon: 24mo\nhorizon: 12mo\n", {"horizon=6mo"}),
             Catch::Matchers::Contains("dup.yaml:3:1: horizon: is given twice (first on line 2)"));
  const std::string three = "schema_version: 1\nhorizon: 24mo\nhorizon: 12mo\nhorizon: 6mo\n";
  for (const auto& sets :
       {std::vector<std::string>{"horizon=3mo"}, std::vector<std::string>{"horizon=3mo", "horizon=2mo"}}) {
    const std::string what = problem(three, sets);
    CHECK_THAT(what, Catch::Matchers::Contains("dup.yaml:3:1: horizon: is given twice (first on line 2)"));
  }
  // The file's twin given twice: a --set of the other twin replaces both copies, as it replaces one.
  const std::string twins = "schema_version: 1\nbuy:\n  resale_amount: 100000\n  resale_amount: 200000\n";
  CHECK(problem(twins, {"buy.resale_value=10%"}).empty());
  const Scenario s = load_scenario("dup.yaml", {"buy.resale_value=10%"}, ctx, &twins).scenario;
  CHECK(s.own.resale_share == std::optional<double>(0.1));
  CHECK_FALSE(s.own.resale_amount.has_value());
}

TEST_CASE("rent.regions refuses what is no region name, an empty list and an empty value", "[scenario]") {
  const Context ctx = fixture_context();
  const auto problem = [&](const std::string& text, const std::vector<std::string>& sets) {
    return load_problem(ctx, "r.yaml", text, sets);
  };
  const std::string bare = "schema_version: 1\n";
  // '[CN' is what a YAML list typed into --set becomes: it left out every rental, silently.
  for (const char* set : {"rent.regions=[CN, US]", "rent.regions=CN,US]", "rent.regions=C N"})
    CHECK_THAT(problem(bare, {set}), Catch::Matchers::Contains("is not a region name"));
  CHECK_THAT(problem("schema_version: 1\nrent:\n  regions: []\n", {}),
             Catch::Matchers::Contains("r.yaml:3:12: rent.regions: names no region"));
  CHECK_THAT(problem("schema_version: 1\nrent:\n  regions:\n", {}),
             Catch::Matchers::Contains("r.yaml:3:3: rent.regions: is empty"));
  // Countries, provider regions, their prefixes and any are names; so is one no offer has (no rental there).
  for (const char* set : {"rent.regions=CN", "rent.regions=any", "rent.regions=us", "rent.regions=CN,any",
                          "rent.regions=cn-northwest-1", "rent.regions=JP"}) {
    INFO(set);
    CHECK(problem(bare, {set}).empty());
  }
}
