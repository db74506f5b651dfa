#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <sstream>

#include "gpuplan/error.h"
#include "gpuplan/html.h"
#include "gpuplan/report.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

namespace {
Report sample() {
  Table t;
  t.name = "offers";
  t.columns = {{"provider", "provider"}, {"gpu", "gpu"}, {"hourly_cny", "CNY/h", 2}, {"note", "note", 0, false}};
  t.add_row({std::string("example-cloud"), std::string("A100-80G"), Money::parse("221.50", kCny), Cell{}});
  t.add_row(
      {std::string("Acme, Inc."), std::string("H100"), Money::parse("1360", kCny), std::string("=HYPERLINK(\"x\")")});
  Report r;
  r.command = "prices";
  r.title = "Offers";
  r.tables.push_back(t);
  r.notes.push_back("a note");
  return r;
}
}  // namespace

TEST_CASE("csv is RFC 4180 with CRLF, quoting and plain numbers", "[report]") {
  CHECK(render(sample(), Format::kCsv) ==
        "provider,gpu,hourly_cny,note\r\n"
        "example-cloud,A100-80G,221.50,\r\n"
        "\"Acme, Inc.\",H100,1360.00,\"'=HYPERLINK(\"\"x\"\")\"\r\n");
}

TEST_CASE("tsv refuses a value it cannot hold", "[report]") {
  Report r = sample();
  r.tables[0].rows[0][0] = std::string("tab\there");
  CHECK_THROWS_WITH(
      render(r, Format::kTsv),
      "--format tsv: provider: a value contains a tab or newline, which TSV cannot hold (use --format csv)");
  r.tables[0].rows[0][0] = std::string("ok");
  CHECK(render(r, Format::kTsv).starts_with("provider\tgpu\thourly_cny\tnote\nok\tA100-80G\t221.50\t\n"));
}

TEST_CASE("the terminal table aligns numbers right, groups thousands and has no trailing blanks", "[report]") {
  const std::string out = render(sample(), Format::kTable);
  CHECK(out ==
        "Offers\n\n"
        "provider       gpu          CNY/h\n"
        "-------------  --------  --------\n"
        "example-cloud  A100-80G    221.50\n"
        "Acme, Inc.     H100      1,360.00\n"
        "\n"
        "a note\n");
}

TEST_CASE("markdown escapes pipes and right-aligns numeric columns", "[report]") {
  Report r = sample();
  r.tables[0].rows[1][0] = std::string("A|B");
  const std::string out = render(r, Format::kMd);
  CHECK_THAT(out, Contains("| provider | gpu | CNY/h |\n|---|---|---:|\n"));
  CHECK_THAT(out, Contains("| A\\|B | H100 | 1,360.00 |"));
}

TEST_CASE("json carries every column, the schema version and the notes", "[report]") {
  const std::string out = render(sample(), Format::kJson);
  CHECK_THAT(out, Contains("\"schema_version\": 3"));
  CHECK_THAT(out, Contains("\"hourly_cny\": 221.50"));
  CHECK_THAT(out, Contains("\"note\": null"));
  CHECK_THAT(out, Contains("\"notes\": [\n    \"a note\"\n  ]"));
}

TEST_CASE("a row whose width differs from the header is a programming error", "[report]") {
  Table t;
  t.columns = {{"a", "a"}};
  CHECK_THROWS_AS(t.add_row({std::string("x"), std::string("y")}), std::logic_error);
}

TEST_CASE("display width counts CJK characters as two columns", "[report]") {
  CHECK(display_width("abc") == 3);
  CHECK(display_width("共绩算力") == 8);
  CHECK(display_width("¥1") == 2);
}

TEST_CASE("formats parse by name and unknown ones are listed", "[report]") {
  CHECK(parse_format("md") == Format::kMd);
  CHECK(parse_format("html") == Format::kHtml);
  CHECK_THROWS_WITH(parse_format("xml"), "xml not in {table, csv, tsv, json, md, xlsx, yaml, html, svg}");
}

TEST_CASE("HTML: text from inputs is escaped, never markup — a chart's series and points are all drawn", "[report]") {
  Report r = sample();
  r.title = "<script>alert(1)</script> & \"quotes\"";
  r.notes = {"a note with <b>tags</b>", "  a default <i>indented</i>"};
  r.warnings = {"<img src=x onerror=alert(1)>"};
  Chart c;
  c.name = "cumulative_cost";
  c.title = "<svg onload=alert(1)>";
  c.series = {{"a<b", {{0, 1}, {1, 2}, {2, 4}}}, {"c", {{0, 0}, {1, 1}, {2, 1}}}};
  c.marker_x = 1.5;
  c.marker_label = "break-even";
  r.charts = {c};
  const std::string html = render(r, Format::kHtml);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<img") == std::string::npos);
  CHECK(html.find("<b>") == std::string::npos);
  CHECK(html.find("<svg onload") == std::string::npos);
  CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;") != std::string::npos);
  const std::string svg = render_svg(c);
  std::size_t lines = 0, at = 0;
  while ((at = svg.find("<polyline", at)) != std::string::npos) ++lines, ++at;
  CHECK(lines == 2);
  CHECK(svg.find("class=\"marker\"") != std::string::npos);
  // The plot spans x 70..590 (760 wide, margins 70 and 170) and y 310..40 (360 high, margins 50 and 40) for
  // months 0..2 and values 0..4: (1, 2) is at 330, 310 − 2/4 × 270 = 175.
  CHECK(svg.find("points=\"70.0,242.5 330.0,175.0 590.0,40.0\"") != std::string::npos);
}

TEST_CASE("SVG stacked bars: positive layers up from zero, negative ones down, one rect each", "[report]") {
  Chart c;
  c.kind = Chart::Kind::kStackedBars;
  c.name = "cost_breakdown";
  c.categories = {"buy", "rent"};
  c.series = {{"hardware", {{0, 2}}}, {"compute", {{1, 3}}}, {"resale", {{0, -1}}}};
  const std::string svg = render_svg(c);
  std::size_t rects = 0, at = 0;
  while ((at = svg.find("<rect x=", at)) != std::string::npos) ++rects, ++at;
  CHECK(rects == 3 + 3);  // three segments, three legend swatches
  // Values -1..3 over y 310..40: zero at 310 − 1/4 × 270 = 242.5; hardware 2 up from it to 107.5, resale 1 down to 310.
  CHECK(svg.find("y=\"107.5\" width=\"156.0\" height=\"135.0\"") != std::string::npos);
  CHECK(svg.find("y=\"242.5\" width=\"156.0\" height=\"67.5\"") != std::string::npos);
  CHECK(svg.find(">buy</text>") != std::string::npos);
}

TEST_CASE("a table's currency is a column of its own in CSV, TSV and JSON — the report's a field", "[report]") {
  Report r = sample();
  r.tables[0].columns[2].key = "hourly";
  r.tables[0].currency = kUsd;
  r.currency = kUsd;
  CHECK(render(r, Format::kCsv) ==
        "provider,gpu,hourly,note,currency\r\n"
        "example-cloud,A100-80G,221.50,,USD\r\n"
        "\"Acme, Inc.\",H100,1360.00,\"'=HYPERLINK(\"\"x\"\")\",USD\r\n");
  CHECK(render(r, Format::kTsv)
            .starts_with("provider\tgpu\thourly\tnote\tcurrency\nexample-cloud\tA100-80G\t221.50\t\tUSD\n"));
  const std::string json = render(r, Format::kJson);
  CHECK_THAT(json, Contains("\"command\": \"prices\",\n  \"currency\": \"USD\""));
  CHECK_THAT(json, Contains("\"note\": null,\n      \"currency\": \"USD\""));
  CHECK(field_value(r, "offers.1.currency") == "USD\n");
  CHECK(field_value(r, "currency") == "USD\n");
  // The terminal table names the currency in its headers only.
  CHECK(render(r, Format::kTable).find("USD") == std::string::npos);
}

TEST_CASE("a table wider than the terminal comes in blocks that fit, each led by its naming columns", "[report]") {
  Report r;
  r.command = "test";
  Table t;
  t.name = "wide";
  t.lead = {"id", "mode"};
  t.columns = {{"id", "id"}, {"gpu", "gpu"}, {"mode", "mode"}};
  for (int j = 0; j < 12; ++j) t.columns.push_back({fmt::format("c{}", j), fmt::format("column {}", j)});
  for (int i = 0; i < 5; ++i) {
    std::vector<Cell> row = {fmt::format("row-{}", i), std::string("A100"), std::string(i % 2 ? "hourly" : "monthly")};
    for (int j = 0; j < 12; ++j) row.emplace_back(static_cast<std::int64_t>(100 * i + j + 500));
    t.add_row(std::move(row));
  }
  r.tables = {t};
  const std::string full = render(r, Format::kTable);
  for (std::size_t width : {40u, 60u, 80u, 120u}) {
    INFO(width);
    const std::string narrow = render(r, Format::kTable, RenderOptions{false, width});
    std::size_t blocks = 0, longest = 0;
    std::string line;
    for (std::istringstream in(narrow); std::getline(in, line);) {
      longest = std::max(longest, line.size());
      if (line.starts_with("id  ")) {
        ++blocks;
        CHECK_THAT(line, Contains("mode"));  // every block names its rows by id and mode
      }
    }
    CHECK(longest <= width);
    CHECK(blocks > 1);
    // Nothing lost: every cell of the full table is in some block.
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 12; ++j) CHECK_THAT(narrow, Contains(fmt::format("{}", 100 * i + j + 500)));
  }
  CHECK(render(r, Format::kTable, RenderOptions{false, 1000}) == full);  // wide enough: one block, as before
}
