// Physical quantities with their units in the type, and the parsers that read
// them from text ("12h", "500GB", "25Gbps", "7B", "85%"). A unit is mandatory
// where the kind of quantity has one, and a unit of the wrong kind is an error,
// never silently converted (SPEC "Units"). Parsers throw std::invalid_argument
// with the problem only; callers add the location. Parsing never depends on
// the process locale.
#pragma once

#include <chrono>
#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace gpuplan {

using Seconds = std::chrono::duration<double>;
using Hours = std::chrono::duration<double, std::ratio<3600>>;
using Days = std::chrono::duration<double, std::ratio<86400>>;
/// A month is 730 hours (8,760 h / 12), as the SPEC fixes it for all billing.
using Months = std::chrono::duration<double, std::ratio<730 * 3600>>;
using Years = std::chrono::duration<double, std::ratio<8760 * 3600>>;

/// A calendar date (as_of fields, the stale check).
using Date = std::chrono::sys_days;

/// A number in one dimension. Only the operations that make physical sense
/// exist: adding two sizes works, adding a size to a rate does not compile.
template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_(value) {}
  constexpr double value() const { return value_; }
  constexpr Quantity operator+(Quantity o) const { return Quantity(value_ + o.value_); }
  constexpr Quantity operator-(Quantity o) const { return Quantity(value_ - o.value_); }
  constexpr Quantity& operator+=(Quantity o) {
    value_ += o.value_;
    return *this;
  }
  constexpr Quantity operator*(double k) const { return Quantity(value_ * k); }
  constexpr Quantity operator/(double k) const { return Quantity(value_ / k); }
  constexpr double operator/(Quantity o) const { return value_ / o.value_; }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  double value_ = 0.0;
};
template <class Tag>
constexpr Quantity<Tag> operator*(double k, Quantity<Tag> q) {
  return q * k;
}

using Bytes = Quantity<struct BytesTag>;                    ///< bytes
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;  ///< bytes per second
using Flops = Quantity<struct FlopsTag>;                    ///< floating-point operations
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;  ///< FLOP/s
using Watts = Quantity<struct WattsTag>;                    ///< power

constexpr Seconds operator/(Bytes size, BytesPerSecond rate) { return Seconds(size.value() / rate.value()); }
constexpr Seconds operator/(Flops work, FlopsPerSecond rate) { return Seconds(work.value() / rate.value()); }
constexpr Bytes operator*(BytesPerSecond rate, Seconds t) { return Bytes(rate.value() * t.count()); }
constexpr Flops operator*(FlopsPerSecond rate, Seconds t) { return Flops(rate.value() * t.count()); }

/// Hours in a billing month (SPEC: a month is 730 h, 8,760 h / 12).
inline constexpr double kHoursPerMonth = 730.0;
inline constexpr double kGB = 1e9;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// A plain finite number: "12", "-0.5", "2e12". Rejects hex, "nan", "inf",
/// leading zeros ("010": YAML 1.1 octal), "1_000", "1,200" and out-of-range values.
double parse_number(std::string_view text);

/// "90min", "12h", "3d", "2w", "6mo", "1y", "30s", "50ms". A unit is required.
Seconds parse_duration(std::string_view text);
/// "500GB", "1.5TiB", "512MiB", "7B" (bytes). Decimal (k M G T P) and binary (Ki Mi Gi Ti Pi) prefixes.
Bytes parse_size(std::string_view text);
/// "100MB/s", "2039GB/s" (bytes) or "25Gbps", "400Gb/s" (bits, ÷ 8). A unit is required.
BytesPerSecond parse_rate(std::string_view text);
/// "7B", "1.4T", "2e12", "350M", "12K", "64": a count with an optional K/M/B/T suffix.
double parse_count(std::string_view text);
/// "85%" or "0.85" -> 0.85. The caller checks the range it needs.
double parse_share(std::string_view text);
/// "400W", "3.2kW".
Watts parse_power(std::string_view text);
/// "2026-10-04" (ISO 8601 calendar date, a real day).
Date parse_date(std::string_view text);

/// "1s", "1min", "1h", "1d", "1mo": the shortest exact spelling, for tables.
std::string format_duration(Seconds d);
/// "2026-10-04".
std::string format_date(Date d);
/// "2026-10-04", or "unknown" for an undated source.
std::string format_date(std::optional<Date> d);

}  // namespace gpuplan
