#include "gpuplan/yaml_reader.h"

#include <fmt/format.h>
#include <map>

namespace gpuplan::detail {

SourceLocation Diagnostics::at(const YAML::Node& n) const {
  const YAML::Mark m = n.Mark();
  if (m.is_null()) return {file_, 0, 0};
  return {file_, m.line + 1, m.column + 1};
}

void Diagnostics::fail(const YAML::Node& n, const std::string& field, const std::string& message) {
  if (n.Mark().is_null()) {
    for (const auto& [path, value] : overrides_)
      if (field == path || field.starts_with(path + ".") || path.starts_with(field + ".")) {
        problems_.emplace_back(SourceLocation{fmt::format("--set {}={}", path, value)}, field, message);
        return;
      }
  }
  problems_.emplace_back(at(n), field, message);
}

void Diagnostics::fail(SourceLocation where, const std::string& field, const std::string& message) {
  problems_.emplace_back(std::move(where), field, message);
}

std::optional<YAML::Node> load_document(std::string_view text, Diagnostics& diag) {
  // The UTF-8 byte-order mark some editors write is not content.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.find('\0') != std::string_view::npos) {
    diag.fail(SourceLocation{diag.file(), 0, 0}, "", "is not a text file (it contains NUL bytes)");
    return std::nullopt;
  }
  try {
    YAML::Node doc = YAML::Load(std::string(text));
    return doc;
  } catch (const YAML::ParserException& e) {
    SourceLocation where{diag.file(), 0, 0};
    if (!e.mark.is_null()) where = {diag.file(), e.mark.line + 1, e.mark.column + 1};
    diag.fail(where, "", fmt::format("malformed YAML: {}", e.msg));
  } catch (const YAML::Exception& e) {
    diag.fail(SourceLocation{diag.file(), 0, 0}, "", fmt::format("malformed YAML: {}", e.msg));
  }
  return std::nullopt;
}

Fields::Fields(Diagnostics& diag, const YAML::Node& map, std::string path)
    : diag_(diag), map_(map), path_(std::move(path)), problems_at_start_(diag.count()) {
  is_map_ = map_.IsMap();
  if (!is_map_) diag_.fail(map_, path_, map_.IsNull() ? "is empty; expected a map of fields" : "must be a map of fields");
}

std::string Fields::field(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

YAML::Node Fields::get(std::string_view key, bool required) {
  used_.insert(std::string(key));
  if (!is_map_) return YAML::Node(YAML::NodeType::Undefined);
  // Iterate rather than operator[]: a const lookup that misses must not insert.
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      const YAML::Node v = it->second;
      if (v.IsNull() && required) {
        diag_.fail(it->first, field(key), "has no value");
        return YAML::Node(YAML::NodeType::Undefined);
      }
      if (v.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
      return v;
    }
  }
  // A missing key has no mark of its own: report it at the enclosing map.
  if (required) diag_.fail(map_, field(key), "is required");
  return YAML::Node(YAML::NodeType::Undefined);
}

std::optional<std::string> Fields::text(std::string_view key, bool required) {
  return value(key, required, [](const std::string& s) { return s; });
}

void Fields::finish() {
  if (!is_map_) return;
  std::map<std::string, int> seen;
  for (auto it = map_.begin(); it != map_.end(); ++it) {
    if (!it->first.IsScalar()) {
      diag_.fail(it->first, path_, "a key must be a plain name");
      continue;
    }
    const std::string& key = it->first.Scalar();
    const auto [pos, fresh] = seen.emplace(key, it->first.Mark().line + 1);
    if (!fresh) {
      diag_.fail(it->first, field(key), fmt::format("is given twice (first on line {})", pos->second));
      continue;
    }
    if (!used_.contains(key)) diag_.fail(it->first, field(key), "is not a known field");
  }
}

std::string item_path(const std::string& list, std::size_t index) { return fmt::format("{}[{}]", list, index); }

}  // namespace gpuplan::detail
