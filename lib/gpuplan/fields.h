// One definition per input field. A section of a scenario or job file is a
// table of rows; each row says the key, the kind of value and its range, the
// member it fills, its default with the reason, and how it is echoed in JSON.
// Reading (field_reader.h), "Defaults used", the JSON echo, the inputs that
// `sensitivity` varies, the workbooks' assumption labels and the schema test
// all walk the same rows, so a field cannot mean one thing in one place and
// another elsewhere. Model structs hold neutral values; defaults live here.
#pragma once

#include <charconv>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "gpuplan/i18n.h"
#include "gpuplan/catalog.h"
#include "gpuplan/json.h"
#include "gpuplan/money.h"
#include "gpuplan/units.h"

namespace gpuplan {

class CurrencyConverter;

/// What a field holds: decides its parser, its unit, how sensitivity shows it
/// and how a workbook styles it.
enum class ValueKind {
  kMoney,     ///< "1200", "1200 CNY", "166 USD": converted to the report currency
  kShare,     ///< "85%" or "0.85"
  kDuration,  ///< "90min", "2mo"
  kWatts,     ///< "400W"
  kBytes,     ///< "500GB"
  kRate,      ///< "100MB/s", "25Gbps"
  kCount,     ///< "7B", "1.4T"
  kNumber,    ///< a plain number
  kFactor,    ///< a multiplier (sensitivity only: "every catalog price")
  kWhole,     ///< a whole number ("8", "2K")
  kChoice,    ///< one of a list of names
  kBool,      ///< true or false
  kText,      ///< free text (an id, a name)
  kList,      ///< ids: a YAML list, or one text of comma-separated ids
  kNumbers,   ///< plain numbers: a YAML list, or one text of comma-separated numbers (the range holds for each)
};

/// A field's value, in base units: shares 0–1, durations in seconds, money exact.
using Value = std::variant<std::monostate, int, double, bool, std::string, Money, Seconds, Bytes, BytesPerSecond, Watts,
                           std::vector<std::string>, std::vector<double>>;

/// Allowed values in base units; `open` excludes the bound itself.
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false;
  bool hi_open = false;
};

/// One name of a choice field and the enumerator it stands for.
struct Choice {
  std::string_view name;
  int value = 0;
};

/// A default worked out from other inputs or the catalog: its value, how
/// "Defaults used" shows it, and why (a catalog record and its source).
struct Fallback {
  Value value{};
  std::string shown{};
  std::string why{};
};

/// What derived defaults and custom parsers may look at.
struct FieldContext {
  const Catalog* catalog = nullptr;
  const CurrencyConverter* fx = nullptr;  ///< to the report currency
  Currency file_currency = kCny;          ///< bare amounts in the file
  bool for_plan = false;                  ///< a job file read by `plan`
  std::chrono::sys_seconds now{};         ///< deadlines count from here
  Date today{};                           ///< for stale prices
  Seconds stale_after{};
};

/// Reads and writes one input of a root struct (a Scenario, a job) as a Value.
template <class Root>
struct Access {
  Value (*get)(const Root&) = nullptr;
  void (*set)(Root&, const Value&) = nullptr;
};

namespace detail {
template <class T>
Value to_value(const T& v) {
  if constexpr (std::is_enum_v<T>) return Value(static_cast<int>(v));
  else if constexpr (std::is_same_v<T, Hours>) return Value(Seconds(v));
  else return Value(v);
}
template <class T>
Value to_value(const std::optional<T>& v) {
  return v ? to_value(*v) : Value();
}
template <class T>
void from_value(T& dst, const Value& v) {
  if constexpr (std::is_enum_v<T>) dst = static_cast<T>(std::get<int>(v));
  else if constexpr (std::is_same_v<T, Hours>) dst = Hours(std::get<Seconds>(v));
  else if constexpr (std::is_same_v<T, double>)
    dst = std::holds_alternative<int>(v) ? std::get<int>(v) : std::get<double>(v);
  else dst = std::get<T>(v);
}
template <class T>
void from_value(std::optional<T>& dst, const Value& v) {
  if (std::holds_alternative<std::monostate>(v)) {
    dst.reset();
    return;
  }
  if constexpr (std::is_default_constructible_v<T>) {
    T t{};
    from_value(t, v);
    dst = t;
  } else {
    dst = std::get<T>(v);  // a value type without a neutral value (Money: its currency)
  }
}
// Steps into a section; an absent optional section is nullptr.
template <class T>
T* step(T& x) {
  return &x;
}
template <class T>
const T* step(const T& x) {
  return &x;
}
template <class T>
T* step(std::optional<T>& x) {
  return x ? &*x : nullptr;
}
template <class T>
const T* step(const std::optional<T>& x) {
  return x ? &*x : nullptr;
}
template <auto M, auto... Rest, class S>
auto* walk(S* s) {
  if constexpr (sizeof...(Rest) == 0) {
    return s ? &(s->*M) : nullptr;
  } else {
    return walk<Rest...>(s ? step(s->*M) : nullptr);
  }
}
template <class>
struct ClassOf;
template <class C, class T>
struct ClassOf<T C::*> {
  using type = C;
};
template <auto M0, auto... Ms>
struct Bind {
  using Root = typename ClassOf<decltype(M0)>::type;
  static Value get(const Root& r) {
    const auto* p = walk<M0, Ms...>(&r);
    return p ? to_value(*p) : Value();
  }
  static void set(Root& r, const Value& v) {
    auto* p = walk<M0, Ms...>(&r);
    if (!p) throw std::logic_error("an input was set in a section that is not there");
    from_value(*p, v);
  }
};
}  // namespace detail

/// The Access for a member reached through sections:
/// `member<&Scenario::workload, &Workload::utilisation>()`. Optional sections
/// on the way read as "no value" when absent.
template <auto... Ms>
constexpr auto member() {
  using B = detail::Bind<Ms...>;
  return Access<typename B::Root>{&B::get, &B::set};
}

/// How a field is echoed in the JSON inputs: under `key` (default: the
/// field's key), numbers divided by `divisor` (500e9 bytes / kGB = 500).
struct Echo {
  std::string_view key{};
  double divisor = 1;
  bool skip = false;  ///< not echoed (it shows elsewhere, or only steers reading)
  /// -1: every stored digit, so `--set KEY=<echoed value>` gives back the same amount (a
  /// converted 669.014084 USD echoed as 669.01 moved a 36-month total); -2: the currency's minor digits
  int money_decimals = -1;
  bool nullable = false;  ///< derived only sometimes (a catalog record named): null when not
};

/// One input field: the single place its key, parser, range, member, default,
/// echo and sensitivity range are written.
template <class Root>
struct Field {
  std::string_view key;
  ValueKind kind = ValueKind::kText;
  /// The member it fills; none for a field read by hand beside its table.
  Access<Root> at{};
  Range range{};
  /// The default as a user would write it ("50%", "24mo"); "" = none.
  std::string_view fallback{};
  /// Why that default: "assumption: …", "default", a source.
  std::string_view why{};
  /// A default worked out from the section's other values or the catalog;
  /// tried before `fallback`, nullopt when it has none.
  std::optional<Fallback> (*derive)(const Root&, const FieldContext&) = nullptr;
  /// When set, the default applies only when this holds (a vision job has no sequence length).
  bool (*applies)(const Root&, const FieldContext&) = nullptr;
  /// When set, the default is named in "Defaults used" only when this holds.
  bool (*noted)(const Root&, const FieldContext&) = nullptr;
  /// When neither given nor defaulted: an error with this message ("is required: …").
  std::string_view missing{};
  std::span<const Choice> choices{};
  /// A parser of its own, for values no kind describes (a deadline, a horizon in whole months).
  Value (*parse)(const std::string&, const FieldContext&) = nullptr;
  Echo echo{};
  /// Whether `sensitivity` varies it (and its range clamps the variation).
  bool vary = false;
  /// When above zero, sensitivity moves it by ± this much (in base units)
  /// instead of ± a share of its value: a trend of 0% still moves.
  double spread = 0;
  /// When set, sensitivity varies it only when this holds (read bandwidth only when samples are read).
  bool (*varies)(const Root&) = nullptr;
  /// Read by hand beside the table (its member is set for sensitivity, never by reading or defaults).
  bool by_hand = false;
  /// Rounded to a whole number when varied.
  bool whole = false;
  /// For people: workbook labels and the field reference.
  std::string_view label{};
};

/// A table of rows under one section name ("workload"; "" for the top level).
template <class Root>
struct Section {
  std::string_view name;
  std::span<const Field<Root>> rows;
  /// When set, the section's defaults apply only when this holds (rent.spot when spot is priced).
  bool (*present)(const Root&) = nullptr;
};

/// Parses text by kind and checks it against the range. Throws
/// std::invalid_argument with what is wrong ("150% is outside 0%..100%").
Value parse_kind(ValueKind kind, const Range& range, std::span<const Choice> choices, const std::string& text,
                 const FieldContext& ctx);

/// A market: an ISO 3166 code (CN, US; any case). A name ("China") would
/// match no catalog record and silently drop the market's rules (VAT, export
/// controls), so it is refused.
Value parse_market(const std::string& text, const FieldContext& ctx);

template <class Root>
Value parse_field(const Field<Root>& f, const std::string& text, const FieldContext& ctx) {
  return f.parse ? f.parse(text, ctx) : parse_kind(f.kind, f.range, f.choices, text, ctx);
}

/// The name of a choice value ("rent"), or "" when it is none of them.
std::string_view choice_name(std::span<const Choice> choices, int value);

/// Which rows of a section were given (in the file or by --set).
using Given = std::vector<bool>;

/// One default used: the field, its value as shown, why, and how far to trust it.
struct DefaultUsed {
  std::string field, value, why, quality;
};

/// "Defaults used" lines: "workload.utilisation = 50% (assumption: …)", and the same as records.
struct DefaultNotes {
  std::vector<std::string> lines{};
  std::vector<DefaultUsed> entries{};
  std::vector<std::string> defaulted{};  ///< every field a row's default filled, named or not
  /// `why` in the reader's language; `why_english` the same reason in English
  /// (its quality is read from it) when the reader's language is another.
  void add(std::string field, std::string value, std::string why, std::string_view why_english = {});
};

/// The text `why()` builds, built in English, when the reader's language is
/// another ("" when it is English): what a default's quality is read from.
template <class Build>
std::string in_english(Build&& why) {
  if (language() == Language::kEnglish) return {};
  const LanguageScope english(Language::kEnglish);
  return why();
}

/// How far a default can be trusted, read from its reason: "assumption" (also
/// when a sourced figure is scaled by an assumed share);
/// "default" (a choice gpuplan makes, e.g. a 24-month horizon); a catalog
/// record's own confidence ("low", "medium", "high"; "low" too when its source
/// calls itself weak, is stale, or is for another region); else "sourced" (a
/// source without a rating).
std::string_view default_quality(std::string_view why);

/// What a quality is looked up as for people ("default quality: low" → 可信度低):
/// "low" alone means a lower bound elsewhere (Column::context).
inline constexpr const char* kQualityContext = "default quality: ";

/// "section.key" (or "key" at the top level).
std::string field_path(std::string_view section, std::string_view key);

/// A value as JSON, the way the echo writes it.
Json echo_value(ValueKind kind, const Value& v, std::span<const Choice> choices, const Echo& echo, Currency currency);

/// A value as "Defaults used" shows it: money with separators ("100,000.00 CNY"), else the text.
std::string shown_default(ValueKind kind, const Value& v, const std::string& text);

/// "a, b" or "a,b" → {"a", "b"}; an empty entry is refused.
std::vector<std::string> split_ids(std::string_view text);

/// A numeric value in base units as a double (money in currency units), for sensitivity.
double as_number(const Value& v);
/// `number` (base units) as a Value of the same alternative as `like`.
Value with_number(const Value& like, double number);

/// A field that is required but has neither a value nor a default.
struct MissingField {
  std::string field;
  std::string message;
};

/// Applies the default of every row not given, in row order, and names it in
/// `notes`. Rows are resolved in order, so a derived default may use the rows
/// above it (and the sections before). Returns the required fields left without
/// a value.
template <class Root>
std::vector<MissingField> apply_defaults(Root& r, const Section<Root>& section, const Given& given,
                                         const FieldContext& ctx, DefaultNotes& notes) {
  std::vector<MissingField> missing;
  if (section.present && !section.present(r)) return missing;
  for (std::size_t i = 0; i < section.rows.size(); ++i) {
    const Field<Root>& f = section.rows[i];
    if ((i < given.size() && given[i]) || (f.applies && !f.applies(r, ctx)) || !f.at.set || f.by_hand) continue;
    std::optional<Fallback> fb = f.derive ? f.derive(r, ctx) : std::nullopt;
    const bool derived = fb.has_value();
    // The quality is read from the English reason: derived once more in English
    // (before the value is set, which a derivation may read).
    const std::string english =
        in_english([&] { return derived ? f.derive(r, ctx).value_or(Fallback{}).why : std::string(f.why); });
    if (derived)
      fb->why = std::string(tr(fb->why));  // a fixed reason (tr_noop); a built one is in the reader's language
    if (!fb && !f.fallback.empty()) {
      const std::string text(f.fallback);
      const Value v = parse_field(f, text, ctx);
      fb = Fallback{v, shown_default(f.kind, v, text), std::string(tr(f.why))};
    }
    if (!fb) {
      if (!f.missing.empty()) missing.push_back({field_path(section.name, f.key), std::string(tr(f.missing))});
      continue;
    }
    f.at.set(r, fb->value);
    std::string path = field_path(section.name, f.key);
    notes.defaulted.push_back(path);
    if (f.noted && !f.noted(r, ctx)) continue;
    notes.add(std::move(path), std::move(fb->shown), std::move(fb->why), english);
  }
  return missing;
}

/// The JSON echo of a section: one member per row (unless skipped).
template <class Root>
Json echo_fields(const Root& r, std::span<const Field<Root>> rows, Currency currency) {
  Json out = Json::object();
  for (const Field<Root>& f : rows) {
    if (f.echo.skip || !f.at.get) continue;
    const Value v = f.at.get(r);
    // A neutral value the field refuses (0 parameters active: a dense model) is
    // "not set", echoed as null where the schema allows it, so that no echoed
    // number is one --set would refuse.
    const double* x = std::get_if<double>(&v);
    const bool nullable = (f.fallback.empty() && !f.derive) || f.echo.nullable;
    const bool refused = x && ((f.range.lo_open ? *x <= f.range.lo : *x < f.range.lo) ||
                               (f.range.hi_open ? *x >= f.range.hi : *x > f.range.hi));
    out[f.echo.key.empty() ? f.key : f.echo.key] =
        nullable && refused ? Json() : echo_value(f.kind, v, f.choices, f.echo, currency);
  }
  return out;
}

/// An object schema: every property required except `optional`, no other allowed.
Json object_schema(Json properties, std::initializer_list<std::string_view> optional = {});

/// Appends the members of object `from` to object `into` (a member already there is replaced in place).
void append(Json& into, const Json& from);

/// The JSON Schema of one echoed value: its type by kind (an enum of the
/// choices), the label as its description, null allowed when it may be unset.
Json value_schema(ValueKind kind, std::span<const Choice> choices, std::string_view label, bool nullable);

/// The JSON Schema properties of a section's echo: what echo_fields writes,
/// described by the rows (type by kind, the label as the description).
template <class Root>
Json echo_properties(std::span<const Field<Root>> rows) {
  Json props = Json::object();
  for (const Field<Root>& f : rows) {
    if (f.echo.skip || !f.at.get) continue;
    const bool nullable = (f.fallback.empty() && !f.derive) || f.echo.nullable;
    props[f.echo.key.empty() ? f.key : f.echo.key] = value_schema(f.kind, f.choices, f.label, nullable);
  }
  return props;
}

/// The keys of a table, for Fields (known keys) and "did you mean".
template <class Root>
std::vector<std::string_view> keys_of(std::span<const Field<Root>> rows) {
  std::vector<std::string_view> keys;
  keys.reserve(rows.size());
  for (const Field<Root>& f : rows) keys.push_back(f.key);
  return keys;
}

/// The suffix an echo key ends in and the unit it names, as --set writes it
/// ("dataset_gb" → {"_gb", "GB"}, "checkpoint_write_s" → {"_s", "s"}); nullopt when none.
std::optional<std::pair<std::string_view, std::string_view>> echo_key_unit(std::string_view echo_key);

/// `--set` takes the JSON echo's keys too (the output contract: `--set KEY=<echoed
/// value>` changes nothing): `workload.dataset_gb=500` becomes `workload.dataset=500GB`,
/// the echo's unit read from its key; a value with its own unit or no number at all
/// goes to the field as written, so its error names the field. Other settings are left as they are.
template <class Root>
std::vector<std::string> echo_keys_as_sets(std::vector<std::string> sets, std::span<const Section<Root>> sections) {
  for (std::string& s : sets) {
    const std::size_t eq = s.find('=');
    if (eq == std::string::npos) continue;
    const std::string_view path(s.data(), eq), value = std::string_view(s).substr(eq + 1);
    const std::size_t dot = path.rfind('.');
    const std::string_view section = dot == std::string_view::npos ? std::string_view() : path.substr(0, dot);
    const std::string_view key = dot == std::string_view::npos ? path : path.substr(dot + 1);
    double number = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    const bool plain = ec == std::errc() && end == value.data() + value.size();  // as the echo writes numbers
    for (const Section<Root>& sec : sections) {
      if (sec.name != section) continue;
      const auto unit = echo_key_unit(key);
      if (!unit) continue;
      // The row whose echo key this is, else (echoed by hand) the row whose key has the unit's suffix added.
      const std::string_view stem = key.substr(0, key.size() - unit->first.size());
      const Field<Root>* row = nullptr;
      for (const Field<Root>& f : sec.rows)
        if (!f.echo.skip && f.echo.key == key) row = &f;
      for (const Field<Root>& f : sec.rows)
        if (!row && !f.echo.skip && f.echo.key.empty() && f.key == stem) row = &f;
      // Anything but a bare number goes to the row as written ("500GB" is read, "abc" refused there, by name).
      if (row)
        s = fmt::format("{}={}{}", field_path(section, row->key), value, plain ? unit->second : "");  // views end here
      break;
    }
  }
  return sets;
}

/// The row with `key`, or nullptr.
template <class Root>
const Field<Root>* find_field(std::span<const Field<Root>> rows, std::string_view key) {
  for (const Field<Root>& f : rows)
    if (f.key == key) return &f;
  return nullptr;
}

}  // namespace gpuplan
