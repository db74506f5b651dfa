#include "gpuplan/units.h"
#include "gpuplan/i18n.h"

#include <array>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>
#include <utility>

namespace gpuplan {
namespace {

struct UnitFactor {
  std::string_view unit;
  double factor;  // into the base unit of the dimension
};

// Splits "12.5GB" into 12.5 and "GB" (spaces between them allowed). The number
// must be plain decimal; from_chars is locale-independent.
std::pair<double, std::string_view> split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) throw std::invalid_argument(std::string(tr("empty value")));
  std::string_view digits = text;
  if (digits.front() == '+') digits.remove_prefix(1);
  const bool negative = !digits.empty() && digits.front() == '-';
  const std::string_view body = negative ? digits.substr(1) : digits;
  if (body.size() >= 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X'))
    throw std::invalid_argument(trf("'{}' is not a decimal number (hexadecimal is not accepted)", text));
  if (body.empty() || !(std::isdigit(static_cast<unsigned char>(body[0])) || body[0] == '.'))
    throw std::invalid_argument(trf("'{}' is not a number", text));
  double value = 0.0;
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(first, last, value, std::chars_format::general);
  if (ec == std::errc::result_out_of_range) throw std::invalid_argument(trf("'{}' is out of range", text));
  if (ec != std::errc() || !std::isfinite(value)) throw std::invalid_argument(trf("'{}' is not a number", text));
  const std::string_view number(first, static_cast<std::size_t>(ptr - first));
  const std::string_view int_part = negative ? number.substr(1) : number;
  // YAML 1.1 reads 010 as octal 8; refuse the ambiguity rather than guess.
  if (int_part.size() >= 2 && int_part[0] == '0' && std::isdigit(static_cast<unsigned char>(int_part[1])))
    throw std::invalid_argument(
        trf("'{}' has a leading zero (write {} or quote it as text)", text, trf("{:g}", value)));
  std::string_view unit(ptr, static_cast<std::size_t>(last - ptr));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  if (!unit.empty() && (unit.front() == '_' || unit.front() == ','))
    throw std::invalid_argument(trf("'{}' is not a number (write digits without separators)", text));
  return {value, unit};
}

[[maybe_unused]] constexpr const char* kUnitKinds[] = {tr_noop("unit kind: duration"), tr_noop("unit kind: size"),
                                                       tr_noop("unit kind: rate"), tr_noop("unit kind: count"),
                                                       tr_noop("unit kind: power")};

template <std::size_t N>
double scale(std::string_view text, const std::array<UnitFactor, N>& units, std::string_view kind,
             std::string_view listed, bool unit_required) {
  const auto [value, unit] = split_number(text);
  if (unit.empty()) {
    if (!unit_required) return value;
    throw std::invalid_argument(trf("{} needs a unit ({})", tr(kind), listed));
  }
  for (const UnitFactor& u : units)
    if (u.unit == unit) {
      // A finite number times its unit can still overflow ("5e303GiB/s", found by fuzz_units).
      const double v = value * u.factor;
      if (!std::isfinite(v)) throw std::invalid_argument(trf("'{}' is out of range", text));
      return v;
    }
  // "a duration" → "duration": looked up as "unit kind: duration" ("power" alone is a cost item elsewhere).
  const std::string noun(kind.substr(kind.find(' ') + 1));
  const std::string key = "unit kind: " + noun;
  throw std::invalid_argument(
      trf("'{}' is not a {} unit ({})", unit,
          language() != Language::kEnglish && has_translation(key) ? std::string(tr(key)) : noun, listed));
}

constexpr double kMinute = 60.0, kHour = 3600.0, kDay = 86400.0;
constexpr double kMonth = 730.0 * kHour, kYear = 8760.0 * kHour;

constexpr std::array<UnitFactor, 15> kDurationUnits{{{"ms", 1e-3},
                                                     {"s", 1.0},
                                                     {"sec", 1.0},
                                                     {"min", kMinute},
                                                     {"h", kHour},
                                                     {"hr", kHour},
                                                     {"d", kDay},
                                                     {"day", kDay},
                                                     {"days", kDay},
                                                     {"w", 7 * kDay},
                                                     {"wk", 7 * kDay},
                                                     {"mo", kMonth},
                                                     {"month", kMonth},
                                                     {"months", kMonth},
                                                     {"y", kYear}}};

constexpr std::array<UnitFactor, 12> kSizeUnits{{{"B", 1.0},
                                                 {"kB", 1e3},
                                                 {"KB", 1e3},
                                                 {"MB", 1e6},
                                                 {"GB", 1e9},
                                                 {"TB", 1e12},
                                                 {"PB", 1e15},
                                                 {"KiB", 1024.0},
                                                 {"MiB", 1024.0 * 1024},
                                                 {"GiB", kGiB},
                                                 {"TiB", kGiB * 1024},
                                                 {"PiB", kGiB * 1024 * 1024}}};

// Byte rates (B/s) and bit rates (b/s, bps). Case matters: GB/s is eight times Gb/s.
constexpr std::array<UnitFactor, 21> kRateUnits{
    {{"B/s", 1.0},      {"kB/s", 1e3},        {"KB/s", 1e3},     {"MB/s", 1e6},      {"GB/s", 1e9},
     {"TB/s", 1e12},    {"MiB/s", 1048576.0}, {"GiB/s", kGiB},   {"bps", 1.0 / 8},   {"kbps", 1e3 / 8},
     {"Kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},    {"Gbps", 1e9 / 8}, {"Tbps", 1e12 / 8}, {"b/s", 1.0 / 8},
     {"kb/s", 1e3 / 8}, {"Kb/s", 1e3 / 8},    {"Mb/s", 1e6 / 8}, {"Gb/s", 1e9 / 8},  {"Tb/s", 1e12 / 8},
     {"Pb/s", 1e15 / 8}}};

constexpr std::array<UnitFactor, 5> kCountUnits{{{"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"B", 1e9}, {"T", 1e12}}};

constexpr std::array<UnitFactor, 3> kPowerUnits{{{"W", 1.0}, {"kW", 1e3}, {"MW", 1e6}}};

}  // namespace

double parse_number(std::string_view text) {
  const auto [value, unit] = split_number(text);
  if (!unit.empty()) throw std::invalid_argument(trf("'{}' is not a plain number", text));
  return value;
}

Seconds parse_duration(std::string_view text) {
  return Seconds(scale(text, kDurationUnits, tr_noop("a duration"), "ms, s, min, h, d, w, mo, y", true));
}

Bytes parse_size(std::string_view text) {
  return Bytes(scale(text, kSizeUnits, tr_noop("a size"), "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB", true));
}

BytesPerSecond parse_rate(std::string_view text) {
  return BytesPerSecond(
      scale(text, kRateUnits, tr_noop("a rate"), "MB/s, GB/s for bytes; Mbps, Gbps, Gb/s for bits", true));
}

double parse_count(std::string_view text) {
  return scale(text, kCountUnits, tr_noop("a count"), "K, M, B, T or none", false);
}

double parse_share(std::string_view text) {
  const auto [value, unit] = split_number(text);
  if (unit.empty()) return value;
  if (unit == "%") return value / 100.0;
  throw std::invalid_argument(trf("'{}' is not a share unit (write 85% or 0.85)", unit));
}

Watts parse_power(std::string_view text) { return Watts(scale(text, kPowerUnits, tr_noop("a power"), "W, kW", true)); }

Date parse_date(std::string_view text) {
  const auto bad = [&] { return std::invalid_argument(fmt::format("'{}' is not a date (write YYYY-MM-DD)", text)); };
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') throw bad();
  int y = 0;
  unsigned m = 0, d = 0;
  const auto num = [&](std::size_t pos, std::size_t len, auto& out) {
    const auto [p, ec] = std::from_chars(text.data() + pos, text.data() + pos + len, out);
    if (ec != std::errc() || p != text.data() + pos + len) throw bad();
  };
  num(0, 4, y);
  num(5, 2, m);
  num(8, 2, d);
  const std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(m), std::chrono::day(d)};
  if (!ymd.ok()) throw std::invalid_argument(trf("'{}' is not a real calendar day", text));
  return Date(ymd);
}

std::string format_duration(Seconds d) {
  const double s = d.count();
  constexpr std::array<UnitFactor, 8> kUnits{{{"y", kYear},
                                              {"mo", kMonth},
                                              {"w", 7 * kDay},
                                              {"d", kDay},
                                              {"h", kHour},
                                              {"min", kMinute},
                                              {"s", 1.0},
                                              {"ms", 1e-3}}};
  for (const UnitFactor& u : kUnits) {
    const double n = s / u.factor;
    if (n >= 1.0 && std::abs(n - std::round(n)) < 1e-9) return fmt::format("{}{}", std::llround(n), u.unit);
  }
  return fmt::format("{:g}s", s);
}

std::string format_date(Date d) {
  const std::chrono::year_month_day ymd(d);
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                     static_cast<unsigned>(ymd.day()));
}

std::string format_date(std::optional<Date> d) { return d ? format_date(*d) : std::string("unknown"); }

}  // namespace gpuplan
