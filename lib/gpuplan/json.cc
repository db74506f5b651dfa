#include "gpuplan/json.h"

#include "gpuplan/io.h"

#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace gpuplan {

Json Json::money(Money m, int decimals) { return Json(Decimal{to_plain_string(m, decimals)}); }

Json Json::strings(const std::vector<std::string>& values) {
  Json a = array();
  for (const auto& v : values) a.push_back(v);
  return a;
}

Json& Json::operator[](std::string_view key) {
  if (is_null()) value_ = Object{};
  auto* obj = std::get_if<Object>(&value_);
  if (obj == nullptr) throw std::logic_error("json: member access on a non-object");
  for (auto& [k, v] : *obj)
    if (k == key) return v;
  obj->emplace_back(std::string(key), Json());
  return obj->back().second;
}

void Json::push_back(Json v) {
  if (is_null()) value_ = Array{};
  auto* arr = std::get_if<Array>(&value_);
  if (arr == nullptr) throw std::logic_error("json: push_back on a non-array");
  arr->push_back(std::move(v));
}

const Json* Json::find(std::string_view key) const {
  const auto* obj = std::get_if<Object>(&value_);
  if (obj == nullptr) return nullptr;
  for (const auto& [k, v] : *obj)
    if (k == key) return &v;
  return nullptr;
}

// A string as JSON. Bytes that are not UTF-8 (a file name, say) become
// U+FFFD, so that the output always parses (RFC 8259 §8.1).
std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      const std::size_t len = utf8_sequence(s, i);
      out += len == 0 ? std::string_view("\xEF\xBF\xBD") : s.substr(i, len);
      i += len == 0 ? 1 : len;
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else out += c;
    }
  }
  out += '"';
  return out;
}

namespace {
std::string format_double(double d) {
  if (!std::isfinite(d)) throw std::logic_error("json: a non-finite number reached the output");
  if (d == 0) return "0";
  // 15 significant digits round-trip every value a model prints meaningfully,
  // and avoid artefacts such as 0.30000000000000004.
  std::string s = fmt::format("{:.15g}", d);
  if (s.find_first_of(".eE") == std::string::npos && std::fabs(d) >= 1e15) s += ".0";
  return s;
}
}  // namespace

void Json::write(std::string& out, int indent, bool pretty) const {
  const auto newline = [&](int level) {
    if (!pretty) return;
    out += '\n';
    out.append(static_cast<std::size_t>(level) * 2, ' ');
  };
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out += "null";
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          out += std::to_string(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out += format_double(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out += json_quote(v);
        } else if constexpr (std::is_same_v<T, Decimal>) {
          out += v.text;
        } else if constexpr (std::is_same_v<T, Array>) {
          if (v.empty()) {
            out += "[]";
            return;
          }
          out += '[';
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out += ',';
            newline(indent + 1);
            v[i].write(out, indent + 1, pretty);
          }
          newline(indent);
          out += ']';
        } else {
          if (v.empty()) {
            out += "{}";
            return;
          }
          out += '{';
          for (std::size_t i = 0; i < v.size(); ++i) {
            if (i > 0) out += ',';
            newline(indent + 1);
            out += json_quote(v[i].first);
            out += pretty ? ": " : ":";
            v[i].second.write(out, indent + 1, pretty);
          }
          newline(indent);
          out += '}';
        }
      },
      value_);
}

std::string Json::dump() const {
  std::string out;
  write(out, 0, true);
  out += '\n';
  return out;
}

std::string Json::dump_compact() const {
  std::string out;
  write(out, 0, false);
  return out;
}

std::string Json::to_text() const {
  if (const auto* s = std::get_if<std::string>(&value_)) return *s;
  return dump_compact();
}

}  // namespace gpuplan
