// A small JSON document model and writer. Why not nlohmann-json: money must be
// written as an exact decimal number (221.50, straight from integer
// micro-units, never through a double), keys must keep the order the report
// gives them (stable output for scripts and golden tests), and a non-finite
// double must be an error, not a silent `null`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gpuplan/money.h"

namespace gpuplan {

class Json {
 public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;
  /// An exact decimal number written as given, e.g. "221.50".
  struct Decimal {
    std::string text;
  };

  Json() = default;  ///< null
  Json(std::nullptr_t) {}
  Json(bool b) : value_(b) {}
  Json(int i) : value_(static_cast<std::int64_t>(i)) {}
  Json(long i) : value_(static_cast<std::int64_t>(i)) {}
  Json(long long i) : value_(static_cast<std::int64_t>(i)) {}
  Json(double d) : value_(d) {}  ///< Written with up to 15 significant digits; non-finite throws on write.
  Json(std::string s) : value_(std::move(s)) {}
  Json(const char* s) : value_(std::string(s)) {}
  Json(std::string_view s) : value_(std::string(s)) {}
  Json(Decimal d) : value_(std::move(d)) {}
  Json(Array a) : value_(std::move(a)) {}
  Json(Object o) : value_(std::move(o)) {}

  static Json array() { return Json(Array{}); }
  /// An array of strings.
  static Json strings(const std::vector<std::string>& values);
  static Json object() { return Json(Object{}); }
  /// Money as an exact decimal with `decimals` places (< 0: every stored digit).
  static Json money(Money m, int decimals);

  bool is_null() const { return std::holds_alternative<std::monostate>(value_); }
  bool is_object() const { return std::holds_alternative<Object>(value_); }
  bool is_array() const { return std::holds_alternative<Array>(value_); }

  /// Object member access; appends the key when missing (insertion order kept).
  Json& operator[](std::string_view key);
  /// Appends to an array.
  void push_back(Json v);
  const Object* as_object() const { return std::get_if<Object>(&value_); }
  const Array* as_array() const { return std::get_if<Array>(&value_); }
  /// A member by key, or nullptr.
  const Json* find(std::string_view key) const;

  /// Pretty-printed with two-space indents and a final newline.
  std::string dump() const;
  /// One line, no final newline (`--field` values).
  std::string dump_compact() const;
  /// A scalar as plain text: strings unquoted (for `--field`).
  std::string to_text() const;

 private:
  void write(std::string& out, int indent, bool pretty) const;
  std::variant<std::monostate, bool, std::int64_t, double, std::string, Decimal, Array, Object> value_{};
};

/// A string escaped and quoted per RFC 8259.
std::string json_quote(std::string_view s);

}  // namespace gpuplan
