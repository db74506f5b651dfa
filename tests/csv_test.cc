#include <catch2/catch.hpp>

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <unistd.h>

#include "fixture.h"
#include "gpuplan/commands/estimate.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/csv.h"
#include "gpuplan/error.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

TEST_CASE("csv tolerates a BOM, CRLF, comments, tabs and quoted fields", "[csv]") {
  const CsvTable t = CsvTable::parse(
      "\xEF\xBB\xBF# measured 2026-12-01\r\ngpus,\"through,put\"\r\n1,100\r\n2,\"190\"\r\n\r\n", "x.csv");
  CHECK(t.header() == std::vector<std::string>{"gpus", "through,put"});
  CHECK(t.numbers("gpus") == std::vector<double>{1, 2});
  CHECK(t.numbers("THROUGH,PUT") == std::vector<double>{100, 190});  // names match without case
  CHECK(t.line(1) == 4);
  const CsvTable tab = CsvTable::parse("step\telapsed_s\n0\t0\n10\t5.5\n", "t.tsv");
  CHECK(tab.numbers("elapsed_s") == std::vector<double>{0, 5.5});
  const CsvTable q = CsvTable::parse("name,note\na,\"say \"\"hi\"\"\"\n", "q.csv");
  CHECK(q.text("note") == std::vector<std::string>{"say \"hi\""});
}

TEST_CASE("csv errors name the file, line, column and field", "[csv]") {
  const CsvTable t = CsvTable::parse("gpus,throughput\n1,100\n2,abc\n", "x.csv");
  CHECK_THROWS_WITH(t.numbers("throughput"), "x.csv:3:3: throughput: 'abc' is not a number");
  CHECK_THROWS_WITH(t.numbers("samples"), "x.csv:1: samples: no such column (the header has: gpus, throughput)");
  CHECK_THROWS_WITH(CsvTable::parse("a,b\n1,2,3\n", "r.csv"), "r.csv:2:1: has 3 fields, the header has 2");
  CHECK_THROWS_WITH(CsvTable::parse("", "e.csv"), "e.csv: is empty: expected a header row and data rows");
  CHECK_THROWS_WITH(CsvTable::parse("a,b\n\"1,2\n", "u.csv"), "u.csv:2:1: unterminated quoted field");
  CHECK_THROWS_WITH(CsvTable::parse("a,a\n", "d.csv"), "d.csv:1:3: a: the column name is given twice");
  const CsvTable empty_cell = CsvTable::parse("a,b\n1,\n", "c.csv");
  CHECK_THROWS_WITH(empty_cell.numbers("b"), "c.csv:2:3: b: the cell is empty");
}

namespace {
// A file in the temporary directory, removed at the end of the test.
struct TempCsv {
  std::string path;
  explicit TempCsv(const std::string& text) {
    path = (std::filesystem::temp_directory_path() / fmt::format("gpuplan-csv-{}.csv", ::getpid())).string();
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempCsv() { std::filesystem::remove(path); }
};
}  // namespace

TEST_CASE("the streamed CSV reads what the whole-text table reads, across block boundaries", "[csv]") {
  // ~200 KiB: several 64 KiB blocks, lines cut at every offset; CRLF, comments,
  // blank lines, quoted cells with doubled quotes, a BOM, no final newline.
  std::string text = "\xEF\xBB\xBF# a comment\r\ngpus,\"through,put\",note\r\n";
  for (int i = 0; i < 9000; ++i) {
    text += fmt::format("{},{}.{},\"n \"\"{}\"\"\"\r\n", i % 64 + 1, 1000 + i, i % 7, i);
    if (i % 1000 == 0) text += "\r\n# note\n";
  }
  text += "3,42,last";
  const TempCsv f(text);
  const CsvTable t = CsvTable::parse(text, f.path);
  CsvStream s(f.path);
  CHECK(s.header() == t.header());
  CHECK(s.header_line() == t.header_line());
  const std::vector<double> a = t.numbers("gpus"), b = t.numbers("through,put");
  std::size_t r = 0;
  while (s.next()) {
    REQUIRE(r < a.size());
    CHECK(s.number(0) == a[r]);
    CHECK(s.number(1) == b[r]);
    CHECK(s.line() == t.line(r));
    ++r;
  }
  CHECK(r == t.rows());
  CHECK(s.rows() == static_cast<std::int64_t>(t.rows()));
}

TEST_CASE("the streamed CSV names the line of a bad cell or byte deep in the file", "[csv]") {
  std::string text = "gpus,throughput\n";
  for (int i = 0; i < 20000; ++i) text += "8,123.5\n";  // 160 KiB: the problem is in the third block
  const auto read_all = [](const std::string& path) {
    CsvStream s(path);
    double sum = 0;
    while (s.next()) sum += s.number(1);
    return sum;
  };
  {
    const TempCsv f(text + "8,12x\n");
    CHECK_THROWS_WITH(read_all(f.path), f.path + ":20002:3: throughput: '12x' is not a plain number");
  }
  {
    const TempCsv f(text +
                    "8,1\xE9"
                    "2\n");
    CHECK_THROWS_WITH(read_all(f.path), Contains(":20002:4: is not UTF-8 text (byte 0xE9)"));
  }
  {
    const TempCsv f(text + "8," + std::string(2u << 20, '1') + "\n");
    CHECK_THROWS_WITH(read_all(f.path), Contains(":20002: has a line longer than 1 MiB"));
  }
  {
    const TempCsv f(text + "8,1,2\n");
    CHECK_THROWS_WITH(read_all(f.path), f.path + ":20002:1: has 3 fields, the header has 2");
  }
  {
    const TempCsv f("# only a comment\n");
    CHECK_THROWS_WITH(CsvStream(f.path), Contains("is empty: expected a header row"));
  }
  CHECK_THROWS_WITH(CsvStream("/nonexistent/x.csv"), Contains("no such file"));
}

TEST_CASE("a large file split in two halves reads every record once, with the lines of a single pass", "[csv]") {
  std::string text = "# comment\ngpus,throughput\n";
  for (int i = 0; i < 30000; ++i) text += fmt::format("{},{}.5\n", i % 50 + 1, 1000 + i);
  for (const bool final_newline : {true, false}) {
    const TempCsv f(final_newline ? text : text + "7,7");
    const CsvTable whole = CsvTable::parse(final_newline ? text : text + "7,7", f.path);
    CsvStream first(f.path);
    const std::unique_ptr<CsvStream> second = first.split_off(0);
    REQUIRE(second);
    CHECK(second->header() == first.header());
    std::vector<int> lines;
    std::vector<double> values;
    for (CsvStream* part : {&first, second.get()})
      while (part->next()) lines.push_back(part->line()), values.push_back(part->number(1));
    REQUIRE(lines.size() == whole.rows());
    const std::vector<double> expected = whole.numbers("throughput");
    for (std::size_t r = 0; r < whole.rows(); ++r) {
      REQUIRE(lines[r] == whole.line(r));
      REQUIRE(values[r] == expected[r]);
    }
    CHECK(first.rows() > 10000);
    CHECK(second->rows() > 10000);
  }
  // An error in the second half names its line as a single pass would.
  const TempCsv bad(text + "8,12x\n");
  CsvStream first(bad.path);
  const auto second = first.split_off(0);
  REQUIRE(second);
  const auto read_all = [](CsvStream& s) {
    while (s.next()) (void)s.number(1);
  };
  CHECK_NOTHROW(read_all(first));
  CHECK_THROWS_WITH(read_all(*second), bad.path + ":30003:3: throughput: '12x' is not a plain number");
  // Streams and small files are not split.
  const TempCsv small("gpus,throughput\n1,2\n");
  CsvStream s(small.path);
  CHECK_FALSE(s.split_off());
}

TEST_CASE("timestamps parse as UTC seconds", "[csv]") {
  // 2026-12-02T10:00:00Z − 2026-12-02T09:59:30 = 30 s.
  CHECK(parse_timestamp("2026-12-02T10:00:00Z") - parse_timestamp("2026-12-02 09:59:30") == Approx(30));
  CHECK(parse_timestamp("1970-01-02T00:00:00.5") == Approx(86400.5));
  CHECK_THROWS_WITH(parse_timestamp("10:00"), Contains("is not a timestamp"));
  // Every digit counts: a typo in the minute or a sign is not read as a smaller time.
  for (const char* bad : {"2026-12-02T10:0x:00", "2026-12-02T1x:00:00", "2026-12-02T-1:00:00", "2026-12-02T10:-1:00",
                          "2026-12-02T24:00:00", "2026-12-02T10:60:00", "2026-12-02T10:00:61"})
    CHECK_THROWS_WITH(parse_timestamp(bad), Contains("is not a timestamp"));
}

TEST_CASE("fit mfu: tokens per second × 6N over the cards' peak", "[fit]") {
  GlobalOptions o;
  o.today = "2026-12-02";
  const Context ctx = make_context(o);
  MfuQuery q;
  q.gpu = "A100-80G";
  q.gpus = "8";
  q.parameters = "7B";
  q.tokens_per_second = "23000";
  // 23,000 × 6 × 7e9 = 9.66e14 FLOP/s over 8 × 312e12 = 2.496e15: MFU = 0.3870.
  const Report r = fit_mfu_report(ctx, q);
  CHECK(std::get<double>(r.tables[0].rows[0][4]) == Approx(0.387019).epsilon(1e-5));
  q.precision = "fp8";
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q), "--precision: A100-80G has no fp8 rate in the catalog");
  // Numbers on the command line are read strictly: CLI11 alone would take 0x10 as 16.
  q.precision = "bf16";
  q.gpus = "0x10";
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q),
                    "--gpus 0x10: '0x10' is not a decimal number (hexadecimal is not accepted)");
}

namespace {
using testing::fixture_context;
}  // namespace

TEST_CASE("fit mfu without a job: an fp8 run is counted against the bf16 peak (one basis)", "[fit]") {
  const Context ctx = fixture_context();
  MfuQuery q;
  q.gpu = "H100";
  q.gpus = "8";
  q.precision = "fp8";
  q.parameters = "7B";
  q.tokens_per_second = "100000";
  // 1e5 × 6 × 7e9 = 4.2e15 FLOP/s over 8 × 989.4e12 (bf16, not fp8's 1978.9): 0.5306.
  const Report r = fit_mfu_report(ctx, q);
  CHECK(std::get<double>(r.tables[0].rows[0][4]) == Approx(4.2e15 / (8 * 989.4e12)));
  q.gpu.reset();
  CHECK_THROWS_AS(fit_mfu_report(ctx, q), UsageError);
}

namespace {
// `fit mfu JOB <measurement>`, then `estimate JOB --mfu <the note's value>`, as a user copies it.
EstimateOutcome fit_then_estimate(const Context& ctx, MfuQuery q) {
  const Report fit = fit_mfu_report(ctx, q);
  const std::string& note = fit.notes.front();
  const std::size_t at = note.find("--mfu ") + 6;
  REQUIRE(at > 6);
  EstimateQuery e;
  e.job_file = q.job_file;
  e.sets = q.sets;
  e.mfu = note.substr(at, note.find('%', at) - at + 1);
  return estimate_report(ctx, e);
}
double number(const Report& r, const char* key) { return std::stod(r.extra.find("estimate")->find(key)->to_text()); }
}  // namespace

TEST_CASE("fit mfu with a job is estimate's inverse: the measurement comes back within 0.5%", "[fit][mfu]") {
  const Context ctx = fixture_context();
  MfuQuery q;
  q.job_file = GPUPLAN_SOURCE_DIR "/examples/finetune-7b-a100.yaml";
  // Throughputs from a weak run to a strong one, on one and on two nodes
  // (where communication sits between the MFU and the measurement).
  for (const char* gpus : {"8", "16"})
    for (double tps : {4000.0, 12000.0, 23000.0, 30000.0}) {
      q.sets = {std::string("cluster.gpus=") + gpus, "cluster.network_bandwidth=1600Gbps"};
      q.tokens_per_second = fmt::format("{:g}", tps * (gpus[0] == '8' ? 1 : 2));
      const EstimateOutcome e = fit_then_estimate(ctx, q);
      CHECK(number(e.report, "tokens_per_second") == Approx(std::stod(*q.tokens_per_second)).epsilon(0.005));
    }
  // A whole run's GPU-hours: checkpoints and failures are part of the inverse.
  MfuQuery w;
  w.job_file = GPUPLAN_SOURCE_DIR "/examples/llama2-7b-pretrain.yaml";
  for (double h : {150000.0, 184320.0, 400000.0}) {
    w.gpu_hours = fmt::format("{:g}", h);
    CHECK(number(fit_then_estimate(ctx, w).report, "gpu_hours") == Approx(h).epsilon(0.005));
  }
}

TEST_CASE("fit mfu passes its other --set on, not job.stack (the --mfu it gives replaces that default)", "[fit][mfu]") {
  const Context ctx = fixture_context();
  MfuQuery q;
  q.job_file = GPUPLAN_SOURCE_DIR "/examples/finetune-7b-a100.yaml";
  q.sets = {"job.stack=other", "cluster.gpus=16", "cluster.network_bandwidth=1600Gbps"};
  q.tokens_per_second = "40000";
  const std::string note = fit_mfu_report(ctx, q).notes.front();
  CHECK_THAT(note, Contains("--set cluster.gpus=16 --set cluster.network_bandwidth=1600Gbps --mfu "));
  CHECK_THAT(note, !Contains("job.stack"));
  // The stack does not move the fit: the MFU comes from the measurement alone.
  q.sets.front() = "job.stack=nvidia_recipe";
  CHECK(fit_mfu_report(ctx, q).notes.front() == note);
}

TEST_CASE("fit mfu with a job: a measurement no MFU reproduces, or two at once, is refused", "[fit][mfu]") {
  const Context ctx = fixture_context();
  MfuQuery q;
  q.job_file = GPUPLAN_SOURCE_DIR "/examples/finetune-7b-a100.yaml";
  q.tokens_per_second = "1e7";  // 8 A100s cannot train a 7B model at 10 M tokens/s (~35× their peak)
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q), Contains("outside what this job can reach on 8× A100-80G at any MFU"));
  q.tokens_per_second = "1e-3";
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q), Contains("slower than an MFU of 0.01% gives"));
  // Two nodes on the default network: communication bounds the step, and the error says so.
  q.sets = {"cluster.gpus=16"};
  q.tokens_per_second = "60000";
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q), Contains("bound by"));
  q.sets.clear();
  q.step_time = "10";
  CHECK_THROWS_AS(fit_mfu_report(ctx, q), UsageError);
  q.step_time.reset();
  q.tokens_per_second.reset();
  q.flops_per_sample = "1e9";
  q.samples_per_second = "10";
  CHECK_THROWS_AS(fit_mfu_report(ctx, q), UsageError);
  q.flops_per_sample.reset();
  q.samples_per_second.reset();
  q.step_time = "-3";
  CHECK_THROWS_WITH(fit_mfu_report(ctx, q), Contains("--step-time"));
}
