#include "gpuplan/fields.h"
#include "gpuplan/i18n.h"

#include <cctype>
#include <algorithm>
#include <initializer_list>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <stdexcept>

#include "gpuplan/context.h"
#include "gpuplan/error.h"

namespace gpuplan {
namespace {

[[noreturn]] void bad(std::string message) { throw std::invalid_argument(std::move(message)); }

bool below(double v, const Range& r) { return r.lo_open ? !(v > r.lo) : v < r.lo; }
bool above(double v, const Range& r) { return r.hi_open ? !(v < r.hi) : v > r.hi; }
bool outside(double v, const Range& r) { return below(v, r) || above(v, r); }

// "0%..100%" for a closed range, "(0%, 100%]" when a bound is open.
std::string describe(const Range& r, double scale, std::string_view unit) {
  if (!r.lo_open && !r.hi_open) return fmt::format("{:g}{}..{:g}{}", r.lo * scale, unit, r.hi * scale, unit);
  return fmt::format("{}{:g}{}, {:g}{}{}", r.lo_open ? '(' : '[', r.lo * scale, unit, r.hi * scale, unit,
                     r.hi_open ? ')' : ']');
}

Value parse_money_field(const Range& r, const std::string& t, const FieldContext& ctx) {
  Money m = parse_money(t, ctx.file_currency);
  if (m.micros() < 0 || (r.lo_open && m.micros() == 0))
    bad(std::string(r.lo_open ? tr("must be a positive amount") : tr("must not be negative")));
  if (m.units() >= Money::kMaxPlausibleUnits)
    bad(trf("{} is a trillion or more: not an amount gpuplan can plan with", t));
  if (ctx.fx && m.currency() != ctx.fx->display()) {
    try {
      m = ctx.fx->convert(m);
    } catch (const InputError& e) {
      bad(e.message());
    }
  }
  return m;
}

Value parse_whole(const Range& r, const std::string& t) {
  const double v = parse_count(t);
  if (v != std::floor(v)) bad(trf("{} is not a whole number", t));
  if (outside(v, r)) bad(trf("{} is outside {}..{}", t, static_cast<long long>(r.lo), static_cast<long long>(r.hi)));
  return static_cast<int>(v);
}

Value parse_count_field(const Range& r, const std::string& t) {
  const double v = parse_count(t);
  if (below(v, r)) bad(trf("{} must be greater than zero", t));
  if (above(v, r)) bad(trf("{} is more than {:g}, the most gpuplan takes here", t, r.hi));
  return v;
}

Value parse_number_field(const Range& r, const std::string& t) {
  const double v = parse_number(t);
  if (r.lo_open && r.lo == 0 && std::isinf(r.hi) && below(v, r)) bad(trf("{} must be greater than zero", t));
  if (outside(v, r)) bad(trf("{} is outside {}", t, describe(r, 1, "")));
  return v;
}

Value parse_choice(std::span<const Choice> choices, const std::string& t) {
  for (const Choice& c : choices)
    if (c.name == t) return c.value;
  std::vector<std::string_view> names;
  for (const Choice& c : choices) names.push_back(c.name);
  if (t.empty()) bad(trf("no value: give one of {{{}}}", fmt::join(names, ", ")));
  bad(trf("{} not in {{{}}}", t, fmt::join(names, ", ")));
}

}  // namespace

std::vector<std::string> split_ids(std::string_view text) {
  std::vector<std::string> out;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    std::string_view id = rest.substr(0, comma);
    while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
    while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
    if (id.empty()) bad(trf("'{}' has an empty entry", text));
    out.emplace_back(id);
    if (comma == std::string_view::npos) return out;
    rest.remove_prefix(comma + 1);
  }
}

Value parse_kind(ValueKind kind, const Range& r, std::span<const Choice> choices, const std::string& t,
                 const FieldContext& ctx) {
  switch (kind) {
    case ValueKind::kMoney:
      return parse_money_field(r, t, ctx);
    case ValueKind::kShare:
    case ValueKind::kFactor: {
      const double v = parse_share(t);
      if (outside(v, r)) bad(trf("{} is outside {}", t, describe(r, 100, "%")));
      return v;
    }
    case ValueKind::kDuration: {
      const Seconds d = parse_duration(t);
      if (below(d.count(), r))
        bad(r.lo_open ? trf("{} must be longer than zero", t) : trf("{} must be zero or longer", t));
      return d;
    }
    case ValueKind::kWatts: {
      const Watts w = parse_power(t);
      if (below(w.value(), r)) bad(std::string(tr("must not be negative")));
      return w;
    }
    case ValueKind::kBytes: {
      const Bytes b = parse_size(t);
      if (below(b.value(), r)) bad(trf("{} must not be negative", t));
      return b;
    }
    case ValueKind::kRate: {
      const BytesPerSecond rate = parse_rate(t);
      if (below(rate.value(), r)) bad(trf("{} must be greater than zero", t));
      return rate;
    }
    case ValueKind::kCount:
      return parse_count_field(r, t);
    case ValueKind::kNumber:
      return parse_number_field(r, t);
    case ValueKind::kWhole:
      return parse_whole(r, t);
    case ValueKind::kChoice:
      return parse_choice(choices, t);
    case ValueKind::kBool:
      if (t == "true") return true;
      if (t == "false") return false;
      bad(trf("'{}' is not true or false", t));
    case ValueKind::kText:
      return t;
    case ValueKind::kList:
      return split_ids(t);
    case ValueKind::kNumbers: {
      std::vector<double> out;
      for (const std::string& x : split_ids(t)) out.push_back(std::get<double>(parse_number_field(r, x)));
      return out;
    }
  }
  throw std::logic_error("parse_kind: unknown kind");
}

std::string_view choice_name(std::span<const Choice> choices, int value) {
  for (const Choice& c : choices)
    if (c.value == value) return c.name;
  return {};
}

namespace {

// `pattern` with each "{}" replaced by the next of `args`: the one line a
// default gets, without fmt parsing its pattern at run time for every default
// of every file (a tenth of the scenario fuzzer's time). The pattern is a
// translation of "{} = {} ({})": placeholders and plain text only.
std::string fill(std::string_view pattern, std::initializer_list<std::string_view> args) {
  std::string out;
  std::size_t size = pattern.size();
  for (std::string_view a : args) size += a.size();
  out.reserve(size);
  for (std::string_view a : args) {
    const std::size_t at = pattern.find("{}");
    if (at == std::string_view::npos) break;
    out.append(pattern.substr(0, at)).append(a);
    pattern.remove_prefix(at + 2);
  }
  return out.append(pattern);
}

}  // namespace

void DefaultNotes::add(std::string field, std::string value, std::string why, std::string_view why_english) {
  lines.push_back(fill(tr("{} = {} ({})"), {field, value, why}));
  const std::string_view quality = default_quality(why_english.empty() ? why : why_english);
  entries.push_back({std::move(field), std::move(value), std::move(why), std::string(quality)});
}

// The qualities for people, looked up as kQualityContext + quality.
[[maybe_unused]] constexpr const char* kQualityWords[] = {
    tr_noop("default quality: assumption"), tr_noop("default quality: default"), tr_noop("default quality: low"),
    tr_noop("default quality: medium"),     tr_noop("default quality: high"),    tr_noop("default quality: sourced")};

std::string_view default_quality(std::string_view why) {
  // A sourced figure scaled by an assumed share is an assumption: the weakest part wins.
  if (why.find("assumption") != std::string_view::npos) return "assumption";
  if (why.starts_with("default")) return "default";
  // The weakest rating the reason mentions wins (a derived default may cite two records).
  if (why.find("confidence low") != std::string_view::npos || why.find("weak") != std::string_view::npos ||
      why.find(", stale:") != std::string_view::npos || why.find("as_of unknown") != std::string_view::npos ||
      why.find(", from region") != std::string_view::npos)
    return "low";
  if (why.find("confidence medium") != std::string_view::npos) return "medium";
  if (why.find("confidence high") != std::string_view::npos) return "high";
  return "sourced";
}

std::optional<std::pair<std::string_view, std::string_view>> echo_key_unit(std::string_view echo_key) {
  // Longest suffixes first: "_mb_s" is megabytes a second, not seconds.
  static constexpr std::pair<std::string_view, std::string_view> kSuffixes[] = {
      {"_gbit_s", "Gbps"}, {"_mb_s", "MB/s"}, {"_months", "mo"}, {"_hours", "h"},
      {"_gb", "GB"},       {"_w", "W"},       {"_s", "s"},       {"_h", "h"}};
  for (const auto& entry : kSuffixes)
    if (echo_key.ends_with(entry.first)) return entry;
  return std::nullopt;
}

std::string field_path(std::string_view section, std::string_view key) {
  std::string path;
  path.reserve(section.size() + 1 + key.size());
  if (!section.empty()) path.append(section).append(1, '.');
  return path.append(key);
}

Json echo_value(ValueKind kind, const Value& v, std::span<const Choice> choices, const Echo& echo, Currency currency) {
  return std::visit(
      [&](const auto& x) -> Json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) return Json();
        else if constexpr (std::is_same_v<T, int>) {
          if (kind == ValueKind::kChoice) return Json(choice_name(choices, x));
          return Json(x);
        } else if constexpr (std::is_same_v<T, double>) return Json(x / echo.divisor);
        else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>) return Json(x);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) return Json::strings(x);
        else if constexpr (std::is_same_v<T, std::vector<double>>) {
          Json a = Json::array();
          for (double d : x) a.push_back(Json(d / echo.divisor));
          return a;
        } else if constexpr (std::is_same_v<T, Money>)
          return Json::money(x, echo.money_decimals == -2 ? currency.minor_digits() : echo.money_decimals);
        else if constexpr (std::is_same_v<T, Seconds>) return Json(x.count() / echo.divisor);
        else return Json(x.value() / echo.divisor);
      },
      v);
}

Json value_schema(ValueKind kind, std::span<const Choice> choices, std::string_view label, bool nullable) {
  std::string type;
  switch (kind) {
    case ValueKind::kWhole:
      type = "integer";
      break;
    case ValueKind::kBool:
      type = "boolean";
      break;
    case ValueKind::kText:
    case ValueKind::kChoice:
      type = "string";
      break;
    case ValueKind::kList:
    case ValueKind::kNumbers:
      type = "array";
      break;
    default:
      type = "number";
  }
  Json s = Json::object();
  if (nullable) {
    Json types = Json::array();
    types.push_back(type);
    types.push_back("null");
    s["type"] = std::move(types);
  } else {
    s["type"] = type;
  }
  if (kind == ValueKind::kList || kind == ValueKind::kNumbers) {
    Json items = Json::object();
    items["type"] = kind == ValueKind::kList ? "string" : "number";
    s["items"] = std::move(items);
  }
  if (!choices.empty()) {
    Json names = Json::array();
    for (const Choice& c : choices) names.push_back(c.name);
    s["enum"] = std::move(names);
  }
  if (!label.empty()) s["description"] = label;
  return s;
}

void append(Json& into, const Json& from) {
  for (const auto& [k, v] : *from.as_object()) into[k] = v;
}

Json object_schema(Json properties, std::initializer_list<std::string_view> optional) {
  Json s = Json::object();
  s["type"] = "object";
  Json required = Json::array();
  for (const auto& [k, v] : *properties.as_object())
    if (std::find(optional.begin(), optional.end(), k) == optional.end()) required.push_back(k);
  s["properties"] = std::move(properties);
  s["required"] = std::move(required);
  s["additionalProperties"] = false;
  return s;
}

std::string shown_default(ValueKind kind, const Value& v, const std::string& text) {
  if (kind == ValueKind::kMoney) return fmt::format("{}", std::get<Money>(v));
  return text;
}

double as_number(const Value& v) {
  return std::visit(
      [](const auto& x) -> double {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int> || std::is_same_v<T, double>) return x;
        else if constexpr (std::is_same_v<T, bool>) return x ? 1 : 0;
        else if constexpr (std::is_same_v<T, Money>) return x.units();
        else if constexpr (std::is_same_v<T, Seconds>) return x.count();
        else if constexpr (std::is_same_v<T, Bytes> || std::is_same_v<T, BytesPerSecond> || std::is_same_v<T, Watts>)
          return x.value();
        else return 0.0;
      },
      v);
}

Value with_number(const Value& like, double n) {
  return std::visit(
      [n](const auto& x) -> Value {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, int>) return static_cast<int>(n);
        else if constexpr (std::is_same_v<T, double>) return n;
        else if constexpr (std::is_same_v<T, Money>) return Money::from_micros(std::llround(n * 1e6), x.currency());
        else if constexpr (std::is_same_v<T, Seconds>) return Seconds(n);
        else if constexpr (std::is_same_v<T, Bytes> || std::is_same_v<T, BytesPerSecond> || std::is_same_v<T, Watts>)
          return T(n);
        else return x;
      },
      like);
}

Value parse_market(const std::string& text, const FieldContext&) {
  if (text.size() != 2 || !std::isalpha(static_cast<unsigned char>(text[0])) ||
      !std::isalpha(static_cast<unsigned char>(text[1])))
    throw std::invalid_argument(trf("'{}' is not an ISO 3166 code like CN or US", text));
  return text;
}

}  // namespace gpuplan
