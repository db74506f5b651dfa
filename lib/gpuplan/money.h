// Money is exact: integer micro-units (10⁻⁶) of one ISO 4217 currency, read
// from decimal text and never through a binary float (ledger/hledger's rule).
// Rounding happens in two named places only: Money::scaled (a model's double
// result meets money, rounded half-to-even to the micro-unit) and
// Money::rounded (half-to-even to the currency's minor unit, which is what
// reports show and sum). Adding two currencies is a programming error.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace gpuplan {

/// A three-letter ISO 4217 code ("CNY", "USD").
class Currency {
 public:
  /// Throws std::invalid_argument unless `code` is three letters A–Z.
  explicit Currency(std::string_view code);
  std::string_view code() const { return {code_.data(), 3}; }
  /// Digits after the decimal point that the currency's minor unit has (JPY 0, CNY 2).
  int minor_digits() const { return minor_digits_; }
  /// "cny": lower case, for names built from the code.
  std::string lower() const;
  // Compared letter by letter: money arithmetic checks currencies on every
  // operation, and a search (plan) does millions of them.
  friend bool operator==(const Currency& a, const Currency& b) {
    return a.code_[0] == b.code_[0] && a.code_[1] == b.code_[1] && a.code_[2] == b.code_[2];
  }
  friend auto operator<=>(const Currency& a, const Currency& b) { return a.code_ <=> b.code_; }

 private:
  std::array<char, 3> code_{};
  std::int8_t minor_digits_ = 2;  ///< derived from the code in the constructor
};

inline const Currency kCny{"CNY"};
inline const Currency kUsd{"USD"};

class Money {
 public:
  static constexpr std::int64_t kMicrosPerUnit = 1'000'000;
  /// Amounts from a trillion units up are not prices or plans anyone has:
  /// readers refuse them (naming the field) and models leave such results out,
  /// long before the 9.2e12 units that int64 micro-units can hold.
  static constexpr double kMaxPlausibleUnits = 1e12;

  /// "221.50", "-3", "0.000027": a plain decimal with at most 6 fraction
  /// digits; no exponent, separators or symbols. Throws std::invalid_argument.
  static Money parse(std::string_view decimal, Currency currency);
  static Money from_micros(std::int64_t micros, Currency currency) { return Money(micros, currency); }
  static Money zero(Currency currency) { return Money(0, currency); }

  std::int64_t micros() const { return micros_; }
  Currency currency() const { return currency_; }
  /// The amount in units, for ratios (NPV, per-GPU-hour rates): not for sums.
  double units() const { return static_cast<double>(micros_) / kMicrosPerUnit; }

  /// × a model's factor (hours, a share), rounded half-to-even to the micro-unit.
  /// Throws std::invalid_argument on a non-finite factor or an overflow.
  Money scaled(double factor) const;
  /// The same amount in another currency: × rate (1 this = rate `to`).
  Money converted(Currency to, double rate) const;
  /// Rounded half-to-even to `decimals` places (default: the currency's minor unit).
  Money rounded(int decimals) const;
  Money rounded() const { return rounded(currency_.minor_digits()); }
  /// × an integer (GPUs per instance): exact. Throws on overflow.
  Money times(std::int64_t n) const;

  Money& operator+=(Money other);
  Money& operator-=(Money other);
  friend Money operator+(Money a, Money b) { return a += b; }
  friend Money operator-(Money a, Money b) { return a -= b; }
  Money operator-() const { return Money(-micros_, currency_); }
  /// Throws std::logic_error on mixed currencies.
  std::strong_ordering operator<=>(const Money& other) const;
  bool operator==(const Money& other) const;

 private:
  Money(std::int64_t micros, Currency currency) : micros_(micros), currency_(currency) {}
  std::int64_t micros_ = 0;
  Currency currency_;
};

/// "1200", "1200 CNY", "1200CNY": money with an optional currency code; without
/// one, `fallback` applies. A different code than `expected` (when given) is an error.
Money parse_money(std::string_view text, Currency fallback);

/// "1234567.89": rounded half-to-even to `decimals`, no separators (CSV, JSON).
/// decimals < 0 means exact: every stored digit, at least the minor unit's.
std::string to_plain_string(Money m, int decimals = 2);
/// "1,234,567.89": the same with thousands separators (tables).
std::string to_pretty_string(Money m, int decimals = 2);
/// "1,234,567" for numbers in tables: thousands separators on the integer part.
std::string group_thousands(std::string_view plain);

}  // namespace gpuplan

/// "1,234,567.89 CNY".
template <>
struct fmt::formatter<gpuplan::Money> : fmt::formatter<std::string_view> {
  template <class Ctx>
  auto format(const gpuplan::Money& m, Ctx& ctx) const {
    const std::string text =
        gpuplan::to_pretty_string(m, m.currency().minor_digits()) + ' ' + std::string(m.currency().code());
    return fmt::formatter<std::string_view>::format(text, ctx);
  }
};
