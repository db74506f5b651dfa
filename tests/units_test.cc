#include <catch2/catch.hpp>

#include "gpuplan/units.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

TEST_CASE("durations parse with every unit the spec lists", "[units]") {
  CHECK(parse_duration("90min").count() == Approx(5400));
  CHECK(parse_duration("50ms").count() == Approx(0.05));
  CHECK(parse_duration("12h").count() == Approx(43200));
  CHECK(parse_duration("3d").count() == Approx(259200));
  CHECK(parse_duration("2w").count() == Approx(1209600));
  // A month is 730 h (SPEC): 6mo = 4380 h = 15,768,000 s.
  CHECK(parse_duration("6mo").count() == Approx(15'768'000));
  CHECK(std::chrono::duration_cast<Hours>(parse_duration("1y")).count() == Approx(8760));
  CHECK(std::chrono::duration_cast<Months>(parse_duration("1y")).count() == Approx(12));
  CHECK(parse_duration("30s").count() == Approx(30));
  CHECK(parse_duration("1.5h").count() == Approx(5400));
}

TEST_CASE("a duration without a unit or with a wrong unit is refused, naming what was expected", "[units]") {
  CHECK_THROWS_WITH(parse_duration("12"), "a duration needs a unit (ms, s, min, h, d, w, mo, y)");
  CHECK_THROWS_WITH(parse_duration("12GB"), "'GB' is not a duration unit (ms, s, min, h, d, w, mo, y)");
  CHECK_THROWS_WITH(parse_duration(""), "empty value");
  CHECK_THROWS_WITH(parse_duration("h"), "'h' is not a number");
}

TEST_CASE("sizes use decimal and binary prefixes distinctly", "[units]") {
  CHECK(parse_size("500GB").value() == Approx(500e9));
  // 1.5 TiB = 1.5 × 2^40 = 1,649,267,441,664 bytes.
  CHECK(parse_size("1.5TiB").value() == Approx(1'649'267'441'664.0));
  CHECK(parse_size("512MiB").value() == Approx(536'870'912.0));
  CHECK(parse_size("7B").value() == Approx(7));
  CHECK_THROWS_WITH(parse_size("500"), Contains("a size needs a unit"));
  CHECK_THROWS_WITH(parse_size("5Gbps"), Contains("'Gbps' is not a size unit"));
}

TEST_CASE("rates tell bytes from bits by case", "[units]") {
  CHECK(parse_rate("100MB/s").value() == Approx(100e6));
  // 25 Gb/s = 25e9 bits/s = 3.125e9 bytes/s.
  CHECK(parse_rate("25Gbps").value() == Approx(3.125e9));
  CHECK(parse_rate("400Gb/s").value() == Approx(50e9));
  CHECK(parse_rate("2039GB/s").value() == Approx(2039e9));
  CHECK_THROWS_WITH(parse_rate("100MB"), Contains("'MB' is not a rate unit"));
  CHECK_THROWS_WITH(parse_rate("25"), Contains("a rate needs a unit"));
}

TEST_CASE("counts take K M B T suffixes and exponents", "[units]") {
  CHECK(parse_count("7B") == Approx(7e9));
  CHECK(parse_count("1.4T") == Approx(1.4e12));
  CHECK(parse_count("2e12") == Approx(2e12));
  CHECK(parse_count("350M") == Approx(350e6));
  CHECK(parse_count("64") == Approx(64));
  CHECK_THROWS_WITH(parse_count("7GB"), Contains("'GB' is not a count unit"));
}

TEST_CASE("shares read as percent or fraction", "[units]") {
  CHECK(parse_share("85%") == Approx(0.85));
  CHECK(parse_share("0.85") == Approx(0.85));
  CHECK(parse_share("150%") == Approx(1.5));  // the caller checks the range it needs
  CHECK_THROWS_WITH(parse_share("85h"), Contains("not a share unit"));
}

TEST_CASE("numbers refuse YAML 1.1 and spreadsheet surprises", "[units]") {
  CHECK(parse_number("-0.5") == Approx(-0.5));
  CHECK_THROWS_WITH(parse_number("0x10"), Contains("hexadecimal"));
  CHECK_THROWS_WITH(parse_number("010"), Contains("leading zero"));
  CHECK_THROWS_WITH(parse_number("1_000"), Contains("without separators"));
  CHECK_THROWS_WITH(parse_number("1,200"), Contains("without separators"));
  CHECK_THROWS_WITH(parse_number("nan"), "'nan' is not a number");
  CHECK_THROWS_WITH(parse_number("inf"), "'inf' is not a number");
  CHECK_THROWS_WITH(parse_number("1e400"), "'1e400' is out of range");
  CHECK_THROWS_WITH(parse_number("no"), "'no' is not a number");
  CHECK(parse_number("0.5") == Approx(0.5));  // a single leading zero before the point is fine
  CHECK(parse_number("0") == 0.0);
}

TEST_CASE("power parses watts and kilowatts", "[units]") {
  CHECK(parse_power("400W").value() == Approx(400));
  CHECK(parse_power("3.2kW").value() == Approx(3200));
  CHECK_THROWS_WITH(parse_power("400"), Contains("a power needs a unit"));
}

TEST_CASE("dates are ISO calendar days", "[units]") {
  const Date d = parse_date("2026-10-04");
  CHECK(format_date(d) == "2026-10-04");
  // 2026-12-02 minus 2026-10-04: 27 days left in October + 30 in November + 2 = 59.
  CHECK((parse_date("2026-12-02") - d).count() == 59);
  CHECK_THROWS_WITH(parse_date("2026-02-30"), "'2026-02-30' is not a real calendar day");
  CHECK_THROWS_WITH(parse_date("04/10/2026"), Contains("YYYY-MM-DD"));
}

TEST_CASE("unit arithmetic reads like the formula", "[units]") {
  const Flops work(6.0 * 7e9 * 1e12);              // 6·N·D for N = 7B, D = 1T tokens
  const FlopsPerSecond cluster(8 * 312e12 * 0.4);  // 8 × A100 bf16 peak × MFU 0.4
  const Hours wall = std::chrono::duration_cast<Hours>(work / cluster);
  // 4.2e22 FLOP / 9.984e14 FLOP/s = 4.207e7 s = 11685.4 h
  CHECK(wall.count() == Approx(11'685.36).epsilon(1e-6));
  // 1 TB over 25 Gb/s: 1e12 B / 3.125e9 B/s = 320 s.
  CHECK((parse_size("1TB") / parse_rate("25Gbps")).count() == Approx(320));
}

TEST_CASE("durations format to their shortest exact unit", "[units]") {
  CHECK(format_duration(Seconds(1)) == "1s");
  CHECK(format_duration(Seconds(60)) == "1min");
  CHECK(format_duration(Seconds(0.05)) == "50ms");
  CHECK(format_duration(Seconds(3600)) == "1h");
  CHECK(format_duration(Years(1)) == "1y");
  CHECK(format_duration(Years(3)) == "3y");
  CHECK(format_duration(Months(1)) == "1mo");
}

TEST_CASE("a finite number whose unit overflows is out of range, not infinity", "[units]") {
  // Found by fuzz_units: 5e303 × 2^30 B/s is beyond a double.
  CHECK_THROWS_WITH(parse_rate("5e303GiB/s"), "'5e303GiB/s' is out of range");
  CHECK_THROWS_WITH(parse_size("1e308TB"), "'1e308TB' is out of range");
  CHECK_THROWS_WITH(parse_duration("1e307y"), "'1e307y' is out of range");
  CHECK(parse_rate("5GiB/s").value() == Approx(5.0 * 1024 * 1024 * 1024));
}
