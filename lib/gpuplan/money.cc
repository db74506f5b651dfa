#include "gpuplan/money.h"
#include "gpuplan/i18n.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpuplan {
namespace {

constexpr std::int64_t pow10(int n) {
  std::int64_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

// Integer division rounded half-to-even (banker's rounding, as hledger does).
// Inline, so that a constant divisor (cents: 10,000 micro-units) becomes a
// multiplication: plan rounds millions of amounts.
inline std::int64_t divide_half_even(std::int64_t value, std::int64_t divisor) {
  std::int64_t q = value / divisor;
  const std::int64_t r = value % divisor;
  const std::int64_t twice = 2 * (r < 0 ? -r : r);
  if (twice > divisor || (twice == divisor && q % 2 != 0)) q += (value < 0 ? -1 : 1);
  return q;
}

std::int64_t checked(long double micros) {
  constexpr long double kLimit = static_cast<long double>(std::numeric_limits<std::int64_t>::max());
  if (!std::isfinite(micros) || std::fabs(micros) >= kLimit)
    throw std::invalid_argument(std::string(tr("amount is out of range")));
  // rint rounds ties to even in the default rounding mode, as nearbyint does;
  // unlike nearbyint it may raise FE_INEXACT, which nothing here reads, and it
  // compiles to one instruction instead of a libm call (plan prices millions).
  return static_cast<std::int64_t>(std::rint(micros));
}

}  // namespace

Currency::Currency(std::string_view code) {
  if (code.size() != 3) throw std::invalid_argument(trf("'{}' is not a currency code (like CNY, USD)", code));
  for (std::size_t i = 0; i < 3; ++i) {
    if (code[i] < 'A' || code[i] > 'Z')
      throw std::invalid_argument(trf("'{}' is not a currency code (like CNY, USD)", code));
    code_[i] = code[i];
  }
  // ISO 4217 minor units: most currencies have 2 digits; these have 0 or 3.
  const std::string_view c = this->code();
  if (c == "JPY" || c == "KRW" || c == "VND" || c == "CLP" || c == "ISK") minor_digits_ = 0;
  if (c == "KWD" || c == "BHD" || c == "OMR" || c == "JOD" || c == "TND") minor_digits_ = 3;
}

std::string Currency::lower() const {
  std::string s(code());
  for (char& ch : s) ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

Money Money::parse(std::string_view text, Currency currency) {
  const std::string_view original = text;
  const auto bad = [&](std::string_view why) {
    return std::invalid_argument(trf("'{}' is not a decimal amount{}", original, why));
  };
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) throw bad("");
  // "010" is octal in YAML 1.1 and a typo anywhere else: refuse it ("0.5" is fine).
  if (text.size() >= 2 && text[0] == '0' && text[1] != '.') throw bad(tr(" (it has a leading zero)"));
  std::int64_t units = 0;
  std::int64_t fraction = 0;
  int fraction_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (const char ch : text) {
    if (ch == '.') {
      if (seen_point) throw bad("");
      seen_point = true;
      continue;
    }
    if (ch == ',' || ch == '_' || ch == ' ') throw bad(tr(" (write it without thousands separators: 1200, not 1,200)"));
    if (ch < '0' || ch > '9') throw bad(tr(" (write a plain number such as 1200.50, without symbols or exponents)"));
    any_digit = true;
    const int digit = ch - '0';
    if (seen_point) {
      if (++fraction_digits > 6) throw bad(tr(" (more than 6 decimal places)"));
      fraction = fraction * 10 + digit;
    } else {
      if (units > (std::numeric_limits<std::int64_t>::max() / kMicrosPerUnit - 9) / 10)
        throw std::invalid_argument(trf("'{}' is too large an amount", original));
      units = units * 10 + digit;
    }
  }
  if (!any_digit) throw bad("");
  const std::int64_t micros = units * kMicrosPerUnit + fraction * pow10(6 - fraction_digits);
  return Money(negative ? -micros : micros, currency);
}

Money Money::scaled(double factor) const {
  if (!std::isfinite(factor)) throw std::invalid_argument(std::string(tr("amount scaled by a non-finite factor")));
  return Money(checked(static_cast<long double>(micros_) * factor), currency_);
}

Money Money::converted(Currency to, double rate) const {
  if (!(rate > 0) || !std::isfinite(rate))
    throw std::invalid_argument(std::string(tr("exchange rate must be positive")));
  return Money(checked(static_cast<long double>(micros_) * rate), to);
}

Money Money::rounded(int decimals) const {
  if (decimals >= 6) return *this;
  if (decimals == 2) return Money(divide_half_even(micros_, 10'000) * 10'000, currency_);  // the usual case
  const std::int64_t step = pow10(6 - decimals);
  return Money(divide_half_even(micros_, step) * step, currency_);
}

Money Money::times(std::int64_t n) const {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(micros_, n, &out)) throw std::invalid_argument(std::string(tr("amount is out of range")));
  return Money(out, currency_);
}

Money& Money::operator+=(Money other) {
  if (other.currency_ != currency_)
    throw std::logic_error(fmt::format("adding {} to {}", other.currency_.code(), currency_.code()));
  if (__builtin_add_overflow(micros_, other.micros_, &micros_))
    throw std::invalid_argument(std::string(tr("amount is out of range")));
  return *this;
}

Money& Money::operator-=(Money other) { return *this += -other; }

std::strong_ordering Money::operator<=>(const Money& other) const {
  if (other.currency_ != currency_)
    throw std::logic_error(fmt::format("comparing {} with {}", other.currency_.code(), currency_.code()));
  return micros_ <=> other.micros_;
}

bool Money::operator==(const Money& other) const { return (*this <=> other) == 0; }

Money parse_money(std::string_view text, Currency fallback) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.size() > 3) {
    // A trailing ISO code, in either case ("300 USD", "300 usd"), as --currency accepts it.
    std::string tail(text.substr(text.size() - 3));
    for (char& c : tail) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const bool letters = tail.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ") == std::string::npos;
    if (letters) {
      std::string_view amount = text.substr(0, text.size() - 3);
      while (!amount.empty() && amount.back() == ' ') amount.remove_suffix(1);
      // ".nan" and "inf" end in letters too: quote the whole text, not "." as an amount.
      if (amount.find_first_of("0123456789") == std::string_view::npos)
        throw std::invalid_argument(trf("'{}' is not a decimal amount", text));
      return Money::parse(amount, Currency(tail));
    }
  }
  return Money::parse(text, fallback);
}

std::string to_plain_string(Money m, int decimals) {
  int shown = decimals;
  std::int64_t micros = m.micros();
  if (decimals < 0) {
    // Exact: drop trailing zeros of the micro-units, but keep the minor unit.
    shown = 6;
    while (shown > m.currency().minor_digits() && micros % pow10(6 - shown + 1) == 0) --shown;
  } else {
    micros = m.rounded(decimals).micros();
    if (shown > 6) shown = 6;
  }
  const bool negative = micros < 0;
  const std::uint64_t magnitude =
      negative ? static_cast<std::uint64_t>(-(micros + 1)) + 1u : static_cast<std::uint64_t>(micros);
  const std::uint64_t per = static_cast<std::uint64_t>(Money::kMicrosPerUnit);
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / per);
  if (shown > 0) {
    const std::uint64_t frac = (magnitude % per) / static_cast<std::uint64_t>(pow10(6 - shown));
    out += fmt::format(".{:0{}}", frac, shown);
  }
  if (out == "-0" || out.find_first_not_of("-0.") == std::string::npos) {
    if (out.front() == '-') out.erase(0, 1);  // never print "-0.00"
  }
  return out;
}

std::string group_thousands(std::string_view plain) {
  // Scientific notation ("1e+06", "2.5e-07") has no thousands to group.
  if (plain.find_first_of("eE") != std::string_view::npos) return std::string(plain);
  std::size_t start = (!plain.empty() && plain.front() == '-') ? 1 : 0;
  std::size_t end = plain.find('.');
  if (end == std::string_view::npos) end = plain.size();
  std::string out(plain.substr(0, start));
  const std::size_t digits = end - start;
  for (std::size_t i = 0; i < digits; ++i) {
    out += plain[start + i];
    const std::size_t left = digits - i - 1;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  out += plain.substr(end);
  return out;
}

std::string to_pretty_string(Money m, int decimals) { return group_thousands(to_plain_string(m, decimals)); }

}  // namespace gpuplan
