// Chinese output (issue 17): the catalog's syntax and completeness, the
// language chosen from the environment, translations that format with the
// same arguments, the article's terms, every label people see translated,
// and tables that stay aligned with CJK widths.
#include <catch2/catch.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <map>
#include <set>
#include <regex>

#include "gpuplan/commands/catalog_check.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/commands/estimate.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/commands/gpus.h"
#include "gpuplan/commands/plan.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/commands/sensitivity.h"
#include "gpuplan/commands/serve.h"
#include "gpuplan/i18n.h"
#include "gpuplan/po.h"
#include "gpuplan/job.h"
#include "gpuplan/report.h"
#include "gpuplan/scenario.h"

using namespace gpuplan;

namespace {

// Sets the language for one test and puts English back.
struct InLanguage {
  explicit InLanguage(Language l) { set_language(l); }
  ~InLanguage() { set_language(Language::kEnglish); }
};

// The replacement fields of an fmt format string: for each, the argument it
// takes (automatic numbering counted) and its format spec ("", ".1f").
struct FormatField {
  std::size_t arg;
  std::string spec;
};
std::vector<FormatField> fields_of(const std::string& f, bool* manual) {
  std::vector<FormatField> out;
  std::size_t next = 0;
  *manual = false;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '{' && i + 1 < f.size() && f[i + 1] == '{') {
      ++i;
      continue;
    }
    if (f[i] != '{') continue;
    const std::size_t close = f.find('}', i);
    REQUIRE(close != std::string::npos);
    const std::string inner = f.substr(i + 1, close - i - 1);
    const std::size_t colon = inner.find(':');
    const std::string id = inner.substr(0, colon);
    const std::string spec = colon == std::string::npos ? "" : inner.substr(colon + 1);
    if (!id.empty() && id.find_first_not_of("0123456789") != std::string::npos) {
      *manual = true;  // "{ }" is text, not a field: this string is not a format
      return {};
    }
    if (id.empty()) {
      out.push_back({next++, spec});
    } else {
      *manual = true;
      out.push_back({static_cast<std::size_t>(std::stoul(id)), spec});
    }
    i = close;
  }
  return out;
}

Context builtin() {
  GlobalOptions o;
  o.today = "2026-12-02";
  return make_context(o);
}
std::string example(const char* name) { return std::string(GPUPLAN_SOURCE_DIR) + "/examples/" + name; }

}  // namespace

TEST_CASE("a .po file: continuation lines, escapes — the header, fuzzy and obsolete entries left out", "[i18n]") {
  const auto e = parse_po(
      "# comment\nmsgid \"\"\nmsgstr \"\"\n\"Language: zh_CN\\n\"\n\n"
      "#: a.cc\nmsgid \"two \"\n\"lines\"\nmsgstr \"两\"\n\"行\"\n\n"
      "msgid \"say \\\"hi\\\"\\n\"\nmsgstr \"说\\\"你好\\\"\\n\"\n\n"
      "#, fuzzy\nmsgid \"guess\"\nmsgstr \"猜\"\n\n"
      "msgid \"empty\"\nmsgstr \"\"\n\n"
      "#~ msgid \"gone\"\n#~ msgstr \"没了\"\n");
  REQUIRE(e.size() == 2);
  CHECK(e[0] == std::pair<std::string, std::string>{"two lines", "两行"});
  CHECK(e[1] == std::pair<std::string, std::string>{"say \"hi\"\n", "说\"你好\"\n"});
  CHECK_THROWS_WITH(parse_po("msgid \"a\"\nmsgstr \"b\"\nnonsense\n"), Catch::Contains("line 3"));
  CHECK_THROWS_WITH(parse_po("msgstr \"b\"\n"), Catch::Contains("line 1"));
}

TEST_CASE("the compiled catalog is lib/po/zh_CN.po's translated entries, sorted, escapes intact", "[i18n]") {
  std::ifstream in(std::string(GPUPLAN_SOURCE_DIR) + "/lib/po/zh_CN.po", std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  auto expected = parse_po(text.str());
  std::sort(expected.begin(), expected.end());
  const auto compiled = chinese_catalog();
  REQUIRE(compiled.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(compiled[i].id == expected[i].first);
    CHECK(compiled[i].text == expected[i].second);
  }
  CHECK(std::any_of(compiled.begin(), compiled.end(), [](const Message& m) { return m.id.find('\n') != m.id.npos; }));
  CHECK(std::any_of(compiled.begin(), compiled.end(), [](const Message& m) { return m.id.find('"') != m.id.npos; }));
}

TEST_CASE("the language: --lang names it — else LC_ALL, LC_MESSAGES, LANG in that order", "[i18n]") {
  CHECK(language_from_environment(nullptr, nullptr, "zh_CN.UTF-8") == Language::kChinese);
  CHECK(language_from_environment("C", nullptr, "zh_CN.UTF-8") == Language::kEnglish);       // LC_ALL wins
  CHECK(language_from_environment("", "zh_TW.UTF-8", "en_US.UTF-8") == Language::kChinese);  // empty = unset
  CHECK(language_from_environment(nullptr, nullptr, nullptr) == Language::kEnglish);
  CHECK(language_from_environment("de_DE.UTF-8", nullptr, nullptr) == Language::kEnglish);
  CHECK(parse_language("zh") == Language::kChinese);
  CHECK(parse_language("en") == Language::kEnglish);
  CHECK_THROWS(parse_language("fr"));
}

TEST_CASE("a message without a translation prints in English — English never reads the catalog", "[i18n]") {
  CHECK(tr("not a message of gpuplan") == "not a message of gpuplan");
  CHECK(trf("Buy {}× {}", 8, "A100") == "Buy 8× A100");
  const InLanguage zh(Language::kChinese);
  CHECK(tr("not a message of gpuplan") == "not a message of gpuplan");
  CHECK(trf("Buy {}× {}", 8, "A100") == "自购 8× A100");
}

TEST_CASE("every translation takes the same arguments with the same formats as its English", "[i18n]") {
  const auto catalog = chinese_catalog();
  REQUIRE(catalog.size() > 250);
  for (const Message& m : catalog) {
    const std::string id(m.id), str(m.text);
    INFO(id << " -> " << str);
    bool id_manual = false, str_manual = false;
    const std::vector<FormatField> from = fields_of(id, &id_manual);
    const std::vector<FormatField> to = fields_of(str, &str_manual);
    // fmt takes either automatic or numbered fields, never both in one string.
    bool mixed = false;
    for (const std::string& f : {id, str})
      mixed |= std::regex_search(f, std::regex(R"(\{[:}])")) && std::regex_search(f, std::regex(R"(\{[0-9])"));
    CHECK_FALSE(mixed);
    std::map<std::size_t, std::string> spec;
    for (const FormatField& f : from) spec[f.arg] = f.spec;
    std::set<std::size_t> used;
    for (const FormatField& f : to) {
      REQUIRE(spec.count(f.arg) == 1);  // no argument the English does not pass
      CHECK(f.spec == spec[f.arg]);     // formatted alike: {:.1f} stays {:.1f}
      used.insert(f.arg);
    }
    // Only a plural ending may go unused (Chinese has none): "GPU{}", "offer{}".
    std::vector<bool> plural;
    for (std::size_t at = id.find('{'); at != std::string::npos; at = id.find('{', at + 1))
      plural.push_back(at > 0 && std::isalpha(static_cast<unsigned char>(id[at - 1])) != 0);
    for (const auto& [arg, s] : spec)
      if (used.count(arg) == 0) CHECK((arg < plural.size() && plural[arg]));
  }
}

TEST_CASE("the terms a Chinese finance reader expects, as the article words them", "[i18n]") {
  const InLanguage zh(Language::kChinese);
  // The article: 按小时租用, 包月, 竞价实例, 电费, 运维, 折旧, 利用率; finance: 净现值, 盈亏平衡, 残值, 增值税.
  CHECK(tr("by the hour") == "按小时租用");
  CHECK(tr("by the month") == "包月租用");
  CHECK(tr("spot") == "竞价实例");
  CHECK(tr("NPV") == "净现值");
  CHECK(tr("depreciation") == "折旧");
  CHECK(tr("resale value at horizon") == "期末残值");
  CHECK(tr("power") == "电费");
  CHECK(tr("operations") == "运维");
  CHECK(tr("VAT") == "增值税");
  CHECK_THAT(std::string(tr("break-even mo")), Catch::Contains("盈亏平衡"));
  CHECK_THAT(std::string(tr("payback mo")), Catch::Contains("回本"));
  CHECK_THAT(trf("Rent by the hour: {}× {}", 1, "x"), Catch::StartsWith("按小时租用"));
  CHECK_THAT(trf("Rent by the month: {}× {}", 1, "x"), Catch::StartsWith("包月租用"));
  CHECK_THAT(trf("Spot: {}× {}", 1, "x"), Catch::StartsWith("竞价实例"));
}

TEST_CASE("every label, table title and chart text people see has a Chinese translation", "[i18n]") {
  const Context ctx = builtin();
  const InLanguage zh(Language::kChinese);
  std::vector<Report> reports;
  for (const char* f : {"qingdao-8xa100.yaml", "startup-4090-spot.yaml", "qingdao-hybrid.yaml"}) {
    CompareQuery q;
    q.scenario_file = example(f);
    q.monthly = true;
    q.breakdown = true;
    reports.push_back(compare_report(ctx, q));
  }
  CompareQuery three;
  three.scenario_files = {example("qingdao-8xa100.yaml"), example("startup-4090-spot.yaml"),
                          example("qingdao-hybrid.yaml")};
  reports.push_back(compare_report(ctx, three));
  for (const char* f : {"finetune-7b-a100.yaml", "vision-4090.yaml", "moe-gpt-oss-120b.yaml"}) {
    EstimateQuery q;
    q.job_file = example(f);
    reports.push_back(estimate_report(ctx, q).report);
  }
  PlanQuery plan;
  plan.job_file = example("plan-deadline.yaml");
  reports.push_back(plan_report(ctx, plan).report);
  SensitivityQuery sens;
  sens.file = example("qingdao-8xa100.yaml");
  reports.push_back(sensitivity_report(ctx, sens).report);
  ScalingQuery scaling;
  scaling.file = example("scaling-a100.csv");
  reports.push_back(fit_scaling_report(ctx, scaling));
  ServeQuery serve;
  serve.serving_file = example("serve-7b-4090.yaml");
  reports.push_back(serve_report(ctx, serve).report);
  reports.push_back(prices_report(ctx, PricesQuery{}));
  reports.push_back(gpus_report(ctx, {}));
  reports.push_back(catalog_check_report(ctx));
  // A word cell ("hourly", "single") left in English; "25G?" or "2026-10-04" are not
  // words, and the terms Chinese engineers use as they are (token, all-reduce) stay.
  const std::regex english_word("[a-z]{3,}"), kept_term("token|all-reduce|all-to-all");
  for (const Report& r : reports) {
    INFO(r.command << ": " << r.title);
    CHECK(untranslated(r) == std::vector<std::string>{});
    for (const Table& t : r.tables)
      for (std::size_t j = 0; j < t.columns.size(); ++j) {
        if (!t.columns[j].words) continue;
        for (const auto& row : t.rows)
          if (const auto* text = std::get_if<std::string>(&row[j])) {
            INFO(t.name << "." << t.columns[j].key << ": " << *text);
            CHECK(!std::regex_search(std::regex_replace(translate_word(t.columns[j], *text), kept_term, ""),
                                     english_word));
          }
      }
  }
}

// Whether the text holds a character wider than one column (a CJK one).
bool has_wide(std::string_view s) {
  const auto code_points = std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; });
  return display_width(s) > static_cast<std::size_t>(code_points);
}

TEST_CASE("a default's reason reads in Chinese and its quality does not change with the language", "[i18n]") {
  const Context ctx = builtin();
  for (const char* f : {"qingdao-8xa100.yaml", "startup-4090-spot.yaml", "qingdao-hybrid.yaml"}) {
    INFO(f);
    const ResolvedScenario en = load_scenario(example(f), {}, ctx);
    const InLanguage zh(Language::kChinese);
    const ResolvedScenario cn = load_scenario(example(f), {}, ctx);
    REQUIRE(cn.defaults.size() == en.defaults.size());
    REQUIRE(!en.defaults.empty());
    for (std::size_t i = 0; i < en.defaults.size(); ++i) {
      INFO(en.defaults[i].field << ": " << en.defaults[i].why << " / " << cn.defaults[i].why);
      CHECK(cn.defaults[i].field == en.defaults[i].field);
      CHECK(cn.defaults[i].quality == en.defaults[i].quality);
      CHECK(has_wide(cn.defaults[i].why));
      CHECK(!has_wide(en.defaults[i].why.substr(0, 12)));
    }
    // The echo (JSON) is English: a machine reads it.
    CHECK(en.defaults_used.front().starts_with("region = CN (default market"));
    // Each line is "field = value (why)" in the reader's language: full-width brackets in Chinese.
    REQUIRE(cn.defaults_used.size() == cn.defaults.size());
    for (std::size_t i = 0; i < cn.defaults.size(); ++i) {
      const DefaultUsed& d = cn.defaults[i];
      CHECK(cn.defaults_used[i] == d.field + " = " + d.value + "（" + d.why + "）");
      CHECK(en.defaults_used[i] ==
            en.defaults[i].field + " = " + en.defaults[i].value + " (" + en.defaults[i].why + ")");
    }
  }
  for (const char* f :
       {"finetune-7b-a100.yaml", "llama2-7b-pretrain.yaml", "moe-gpt-oss-120b.yaml", "vision-4090.yaml"}) {
    INFO(f);
    const InLanguage zh(Language::kChinese);
    const ResolvedJob cn = load_job(example(f), {}, ctx);
    for (const std::string& line : cn.defaults_used) {
      INFO(line);
      CHECK(has_wide(line.substr(line.find(" = "))));
    }
  }
}

TEST_CASE("a Chinese table stays aligned: every line of a block as wide on screen", "[i18n]") {
  const Context ctx = builtin();
  const InLanguage zh(Language::kChinese);
  CompareQuery q;
  q.scenario_file = example("qingdao-8xa100.yaml");
  Report r = compare_report(ctx, q);
  r.tables.resize(1);  // the options: its last column is a number, so every line ends at one column
  r.notes.clear();
  r.title.clear();
  const std::string text = render(r, Format::kTable);
  REQUIRE_THAT(text, Catch::Contains("净现值"));
  std::vector<std::size_t> widths;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    if (end > start) widths.push_back(display_width(std::string_view(text).substr(start, end - start)));
  REQUIRE(widths.size() >= 4);
  for (const std::size_t w : widths) CHECK(w == widths.front());
}

TEST_CASE("machine output is English whatever the language: CSV and JSON of a Chinese run are the same bytes",
          "[i18n]") {
  const Context ctx = builtin();
  CompareQuery q;
  q.scenario_file = example("qingdao-8xa100.yaml");
  const Report en = compare_report(ctx, q);
  std::string csv_zh, json_zh;
  {
    const InLanguage zh(Language::kChinese);
    // The CLI builds a CSV or JSON report in English (choose_language); the renderers add nothing of their own.
    csv_zh = render(en, Format::kCsv);
    json_zh = render(en, Format::kJson);
    CHECK(render(en, Format::kTable) != render(en, Format::kTable).substr(0, 0));
  }
  CHECK(csv_zh == render(en, Format::kCsv));
  CHECK(json_zh == render(en, Format::kJson));
}

TEST_CASE("an estimate's warnings and network read in Chinese — the echoed network stays English", "[i18n]") {
  const Context ctx = builtin();
  EstimateQuery q;
  q.job_file = example("llama2-7b-pretrain.yaml");
  const InLanguage zh(Language::kChinese);
  const std::string text = render(estimate_report(ctx, q).report, Format::kTable);
  CHECK_THAT(text, Catch::Contains("自定义 1600 Gb/s"));
  CHECK_THAT(text, !Catch::Contains("custom 1600"));
  CHECK_THAT(render(estimate_report(ctx, q).report, Format::kJson),
             Catch::Contains("\"network\": \"custom 1600 Gb/s\""));

  // The network left to its default on 1,024 cards decides the answer: the warning says so, in Chinese.
  const std::string path = (std::filesystem::temp_directory_path() / "gpuplan-i18n-default-network.yaml").string();
  {
    std::ifstream in(q.job_file);
    std::ofstream out(path);
    for (std::string line; std::getline(in, line);)
      if (line.find("network_bandwidth") == std::string::npos) out << line << '\n';
  }
  q.job_file = path;
  const Report r = estimate_report(ctx, q).report;
  std::filesystem::remove(path);
  const auto deciding = std::find_if(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
    return w.find("cluster.network") != std::string::npos;
  });
  REQUIRE(deciding != r.warnings.end());
  CHECK_THAT(*deciding, Catch::StartsWith("未给出 cluster.network，是它的默认值决定了这个估算"));
  CHECK_THAT(*deciding, Catch::Contains("每节点 25 Gb/s"));
}

TEST_CASE("short numbers: k, M, B for English, 万 and 亿 for Chinese — rounded before the unit, never an exponent",
          "[i18n]") {
  CHECK(short_number(0) == "0");
  CHECK(short_number(12.345) == "12.3");
  CHECK(short_number(999.7) == "1k");
  CHECK(short_number(1539) == "1.54k");
  CHECK(short_number(764048) == "764k");
  CHECK(short_number(-468000) == "-468k");
  CHECK(short_number(999999) == "1M");
  CHECK(short_number(3040000) == "3.04M");
  CHECK(short_number(2.5e9) == "2.5B");
  CHECK(short_number(1250000, 6) == "1.25M");
  CHECK(short_number(0.000123) == "0.000123");
  const InLanguage zh(Language::kChinese);
  CHECK(short_number(9940) == "9940");
  CHECK(short_number(9999) == "1万");
  CHECK(short_number(764048) == "76.4万");
  CHECK(short_number(-468000) == "-46.8万");
  CHECK(short_number(76400000) == "7640万");
  CHECK(short_number(99999999) == "1亿");
  CHECK(short_number(1.5e9) == "15亿");
}

TEST_CASE("a Chinese tornado's axis puts 0 in the column of the base", "[i18n]") {
  const Context ctx = builtin();
  const InLanguage zh(Language::kChinese);
  SensitivityQuery q;
  q.file = example("qingdao-8xa100.yaml");
  const Report r = sensitivity_report(ctx, q).report;
  REQUIRE(!r.figures.empty());
  std::istringstream lines(r.figures.front());
  std::string title, axis, bar;
  std::getline(lines, title);
  std::getline(lines, axis);
  std::getline(lines, bar);
  REQUIRE_THAT(axis, Catch::Contains("万"));
  const std::size_t zero = display_width(axis.substr(0, axis.find(" 0 ") + 1));
  CHECK(zero == display_width(bar.substr(0, bar.find('|'))));
}

// The first problem's message of a scenario text that does not load.
std::string load_problem(const std::string& text) {
  try {
    load_scenario("bad.yaml", {}, builtin(), &text);
  } catch (const InputErrors& e) {
    return e.problems().front().message();
  } catch (const InputError& e) {
    return e.message();
  }
  return "";
}

TEST_CASE("a YAML syntax error reads in Chinese: yaml-cpp's message translated, its detail kept", "[i18n]") {
  const struct {
    const char* text;
    const char* english;
    const char* chinese;
  } cases[] = {
      {"job:\n  parameters: [1, 2\nhorizon: 3\n", "end of sequence flow not found", "找不到 [ ] 列表的结尾"},
      {"a: b: c\n", "illegal map value", "此处不能出现值"},
      {"a: \"\\q\"\n", "unknown escape character: q", "未知的转义字符：q"},
      {"horizon: 3\n", "", ""},
      {"horizon: 3\ncosts: 4\n", "", ""},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const std::string en = load_problem(c.text);
    CHECK_THAT(en, Catch::Contains(c.english));
    const InLanguage zh(Language::kChinese);
    const std::string cn = load_problem(c.text);
    CHECK_THAT(cn, Catch::Contains(c.chinese));
    if (*c.english != '\0') CHECK_THAT(cn, !Catch::Contains(c.english));
    if (!en.empty()) CHECK(has_wide(cn));
  }
  const InLanguage zh(Language::kChinese);
  CHECK(load_problem("workload: 3\n") == "必须是由字段组成的映射");
}
