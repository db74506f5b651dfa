// Fuzzes the unit, money and date parsers: every parser on the same text;
// each either throws std::invalid_argument or returns a finite value.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "fuzz_common.h"
#include "gpuplan/job.h"
#include "gpuplan/money.h"
#include "gpuplan/units.h"

namespace {
template <class Parse>
void each(Parse&& parse) {
  try {
    parse();
  } catch (const std::invalid_argument&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string t(reinterpret_cast<const char*>(data), size);
  using namespace gpuplan;
  using gpuplan_fuzz::expect_finite;
  each([&] { expect_finite(parse_number(t), "number"); });
  each([&] { expect_finite(parse_duration(t).count(), "duration"); });
  each([&] { expect_finite(parse_size(t).value(), "size"); });
  each([&] { expect_finite(parse_rate(t).value(), "rate"); });
  each([&] { expect_finite(parse_count(t), "count"); });
  each([&] { expect_finite(parse_share(t), "share"); });
  each([&] { expect_finite(parse_power(t).value(), "power"); });
  each([&] { (void)format_date(parse_date(t)); });
  each([&] { (void)to_plain_string(Money::parse(t, kCny), -1); });
  each([&] { (void)to_pretty_string(parse_money(t, kCny), 2); });
  each([&] { expect_finite(parse_deadline(t, local_midnight(parse_date("2026-12-02"))).count(), "deadline"); });
  return 0;
}
