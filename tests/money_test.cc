#include <catch2/catch.hpp>

#include "gpuplan/money.h"

using namespace gpuplan;
using Catch::Matchers::Contains;

TEST_CASE("decimal prices are read exactly into micro-units", "[money]") {
  CHECK(Money::parse("221.50", kCny).micros() == 221'500'000);
  CHECK(Money::parse("0.1", kCny).micros() == 100'000);  // exactly, not 0.1000000000000000055...
  CHECK(Money::parse("27.44705", kUsd).micros() == 27'447'050);
  CHECK(Money::parse("-3", kCny).micros() == -3'000'000);
  CHECK(Money::parse("0.000027", kUsd).micros() == 27);
}

TEST_CASE("prices written like spreadsheets or with symbols are refused", "[money]") {
  CHECK_THROWS_WITH(Money::parse("1,200", kCny), Contains("without thousands separators"));
  CHECK_THROWS_WITH(Money::parse("¥1200", kCny), Contains("without symbols"));
  CHECK_THROWS_WITH(Money::parse("1e3", kCny), Contains("without symbols or exponents"));
  CHECK_THROWS_WITH(Money::parse("0.0000001", kCny), Contains("more than 6 decimal places"));
  CHECK_THROWS_WITH(Money::parse("", kCny), "'' is not a decimal amount");
  CHECK_THROWS_WITH(Money::parse("1.2.3", kCny), "'1.2.3' is not a decimal amount");
  CHECK_THROWS_WITH(Money::parse("99999999999999", kCny), Contains("too large"));
}

TEST_CASE("rounding is half-to-even, as the README states", "[money]") {
  CHECK(to_plain_string(Money::parse("0.125", kCny)) == "0.12");
  CHECK(to_plain_string(Money::parse("0.135", kCny)) == "0.14");
  CHECK(to_plain_string(Money::parse("-0.125", kCny)) == "-0.12");
  CHECK(to_plain_string(Money::parse("360.005", kCny)) == "360.00");
  CHECK(to_plain_string(Money::parse("0.126", kCny)) == "0.13");
  CHECK(to_plain_string(Money::parse("-0.004", kCny)) == "0.00");  // never "-0.00"
}

TEST_CASE("totals of rounded rows add up to the printed total", "[money]") {
  // Three rows of 1/3 of 100 CNY: each shows 33.33, so the total must be 99.99.
  const Money third = Money::parse("100", kCny).scaled(1.0 / 3.0);
  Money total = Money::zero(kCny);
  for (int i = 0; i < 3; ++i) total += third.rounded();
  CHECK(to_plain_string(total) == "99.99");
}

TEST_CASE("scaling rounds half-to-even at the micro-unit", "[money]") {
  // 1.000001 × 0.5 = 0.0000005 → 0.000000 (tie, even); 3 micros × 0.5 = 1.5 → 2.
  CHECK(Money::from_micros(1, kCny).scaled(0.5).micros() == 0);
  CHECK(Money::from_micros(3, kCny).scaled(0.5).micros() == 2);
  CHECK(Money::parse("2.19", kCny).scaled(730).micros() == 1'598'700'000);  // 2.19 × 730 = 1598.70
  CHECK_THROWS(Money::parse("1", kCny).scaled(std::nan("")));
  CHECK_THROWS(Money::parse("1000000", kCny).scaled(1e30));
}

TEST_CASE("currencies never mix silently", "[money]") {
  Money a = Money::parse("1", kCny);
  CHECK_THROWS_AS(a += Money::parse("1", kUsd), std::logic_error);
  CHECK_THROWS_AS((void)(a < Money::parse("1", kUsd)), std::logic_error);
  // Conversion is explicit: 27.44705 USD × 7.1 = 194.874055 CNY.
  const Money c = Money::parse("27.44705", kUsd).converted(kCny, 7.1);
  CHECK(c.currency() == kCny);
  CHECK(c.micros() == 194'874'055);
}

TEST_CASE("money formats plain for CSV and grouped for tables", "[money]") {
  const Money m = Money::parse("1234567.891", kCny);
  CHECK(to_plain_string(m) == "1234567.89");
  CHECK(to_pretty_string(m) == "1,234,567.89");
  CHECK(fmt::format("{}", m) == "1,234,567.89 CNY");
  CHECK(to_plain_string(m, -1) == "1234567.891");  // exact: every stored digit
  CHECK(to_plain_string(Money::parse("5", kCny), -1) == "5.00");
  CHECK(to_plain_string(Money::parse("-1234.5", kCny), 0) == "-1234");  // half-even: 1234.5 → 1234
  CHECK(group_thousands("-1234567") == "-1,234,567");
  CHECK(group_thousands("999") == "999");
}

TEST_CASE("currency codes are three capital letters", "[money]") {
  CHECK(Currency("USD").lower() == "usd");
  CHECK(Currency("JPY").minor_digits() == 0);
  CHECK_THROWS_WITH(Currency("usd"), "'usd' is not a currency code (like CNY, USD)");
  CHECK_THROWS(Currency("RMB¥"));
  CHECK(parse_money("1200 USD", kCny).currency() == kUsd);
  CHECK(parse_money("1200", kCny).currency() == kCny);
  CHECK(parse_money("1200", kCny).micros() == 1'200'000'000);
}
