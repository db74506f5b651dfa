// Internal (not installed): strict reading of YAML maps for catalog, scenario
// and job files. Every scalar is read as text and parsed by gpuplan's own
// parsers (never yaml-cpp's as<double>, whose YAML 1.1 rules read `no` as false
// and `010` as 8). Problems are collected with their location, so a file with
// three mistakes reports three; unknown and duplicate keys are problems too.
#pragma once

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/error.h"
#include "gpuplan/suggest.h"
#include "gpuplan/fields.h"
#include "gpuplan/i18n.h"
#include "gpuplan/units.h"
#include "gpuplan/yaml_tree.h"

namespace gpuplan::detail {

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  SourceLocation at(const Node& n) const;
  void fail(const Node& n, const std::string& field, const std::string& message);
  void fail(SourceLocation where, const std::string& field, const std::string& message);
  std::size_t count() const { return problems_.size(); }
  /// Values set with --set: their nodes have no place in the file, so
  /// problems with them are reported at "--set " + `typed` (as the user typed it).
  void add_override(const std::string& field, std::string typed) { overrides_[field] = std::move(typed); }
  /// --set KEY=null into a section the file does not have: nothing is unset
  /// and no table reads the key, so the loader checks the path (check_unsets).
  void add_unset_elsewhere(std::string path, std::string typed) {
    unset_elsewhere_.emplace_back(std::move(path), std::move(typed));
  }
  const std::vector<std::pair<std::string, std::string>>& unset_elsewhere() const { return unset_elsewhere_; }
  std::vector<InputError>& problems() { return problems_; }
  /// Throws InputErrors with every problem, in file order (--set ones first).
  void throw_if_any();

 private:
  std::string file_;
  std::vector<InputError> problems_;
  std::map<std::string, std::string> overrides_;
  std::vector<std::pair<std::string, std::string>> unset_elsewhere_;
};

/// The text with every comment cut to its '#' where the line's tokens are
/// certain (else the rest verbatim): the same document, every other character
/// on the same line and column, for yaml-cpp, which scans comments slowly.
std::string shorten_comments(std::string_view text);
/// Parses a whole document (read_yaml_subset, else yaml-cpp); a syntax error
/// becomes a problem at its mark.
std::optional<Node> load_document(std::string_view text, Diagnostics& diag);
/// Reports every quoted value of `n` that runs past its line in `text` (an
/// unclosed quote swallowing what follows): gpuplan has no multi-line values.
void check_one_line(const Node& n, std::string_view text, Diagnostics& diag);

/// One YAML map being read. Its known keys are declared up front (a field
/// table's keys) or, for readers without a table, are the keys read; finish()
/// reports the others, with the nearest known key as a suggestion.
class Fields {
 public:
  Fields(Diagnostics& diag, const Node& map, std::string path, std::vector<std::string_view> known = {});
  /// Declares more known keys (sections read by hand beside a table).
  void declare(std::initializer_list<std::string_view> keys) { known_.insert(known_.end(), keys); }
  /// The JSON echo names field `key` `echo_key` (dataset_gb for dataset): a
  /// file that uses the echo's name is told the key and unit a file writes.
  void echo_name(std::string_view echo_key, std::string_view key) { echo_names_.emplace_back(echo_key, key); }

  bool is_map() const { return is_map_; }
  const Node& node() const { return map_; }
  const std::string& path() const { return path_; }
  std::string field(std::string_view key) const;

  /// The value node, or an undefined node when absent; `required` reports it missing.
  Node get(std::string_view key, bool required);
  /// The key itself when it is written with nothing after it (`hourly:`),
  /// which get() reads as absent; else an undefined node.
  Node written_empty(std::string_view key) const;
  /// A scalar's text; reports a non-scalar or a missing required key.
  std::optional<std::string> text(std::string_view key, bool required);

  /// Reads the scalar at `key` and parses it; std::invalid_argument from the
  /// parser becomes a problem at the value's location.
  template <class Parse>
  auto value(std::string_view key, bool required, Parse parse) -> std::optional<decltype(parse(std::string()))> {
    const Node n = get(key, required);
    if (!n.defined()) return std::nullopt;
    return parse_node(n, field(key), parse);
  }

  template <class Parse>
  auto parse_node(const Node& n, const std::string& field_name, Parse parse)
      -> std::optional<decltype(parse(std::string()))> {
    if (!n.is_scalar()) {
      fail(n, field_name, n.is_null() ? "has no value" : "must be a single value, not a list or map");
      return std::nullopt;
    }
    try {
      return parse(n.scalar());
    } catch (const std::invalid_argument& e) {
      fail(n, field_name, e.what());
      return std::nullopt;
    }
  }

  /// Reports keys that were never read, and keys given twice.
  void finish();
  /// Whether this record (since construction) added any problem.
  bool ok() const { return diag_.count() == problems_at_start_; }
  void fail(const Node& n, const std::string& field, const std::string& message) { diag_.fail(n, field, message); }
  Diagnostics& diagnostics() { return diag_; }

 private:
  Diagnostics& diag_;
  Node map_;
  std::string path_;
  bool is_map_ = false;
  std::size_t problems_at_start_;
  std::vector<std::string> used_;  ///< the keys read (a few dozen: a vector, no node per key)
  std::vector<std::string_view> known_;
  std::vector<std::pair<std::string_view, std::string_view>> echo_names_;
  /// The map's keys with their key and value nodes, in file order.
  struct Entry {
    std::string key;  ///< empty unless `scalar`
    Node key_node, value;
    bool scalar = false;
  };
  std::vector<Entry> entries_;
  std::string echo_hint(const Entry& e) const;
};

// Typed readers for the catalog's records (scenario and job files read
// through their field tables). Each returns nullopt when the key is absent or
// its value is bad (the problem is recorded).

/// A whole count ("8", "2K") within [lo, hi], parsed as a kWhole field is.
std::optional<int> read_whole_in(Fields& f, std::string_view key, int lo, int hi, bool required = false);
/// A list of ids: a YAML sequence of scalars, or one scalar of comma-separated
/// ids ("autodl,runpod", as --set gives it). Empty ids are refused.
std::optional<std::vector<std::string>> read_list(Fields& f, std::string_view key);
/// A list of plain numbers, each within `range`: a YAML sequence of scalars or
/// one scalar of comma-separated numbers; a bad entry is shown at its item.
std::optional<std::vector<double>> read_numbers(Fields& f, std::string_view key, const Range& range);
/// A section that may be absent: an empty map then, so its reads fall back to defaults.
Node section(Fields& parent, std::string_view key);

/// The file at `path` (an empty map when `path` is empty: built-in defaults),
/// or `text` when given (then `path` only names it in messages), with the
/// --set overrides applied; throws InputErrors on any problem. `typed`: the
/// settings as the user typed them, when `sets` is them rewritten
/// (echo_keys_as_sets), one for one: messages quote what was typed.
Node load_with_sets(const std::string& path, const std::vector<std::string>& sets, Diagnostics& diag,
                    const std::string* text = nullptr, const std::vector<std::string>* typed = nullptr);

/// Applies --set path.to.field=VALUE overrides to a parsed document, so they
/// are checked exactly like the file's values and reported at "--set …".
void apply_sets(Node& root, const std::vector<std::string>& sets, Diagnostics& diag,
                const std::vector<std::string>* typed = nullptr);

/// Reads the rows of a table that `f` gives into `r`; a bad value is a
/// problem at its place. Rows without a member are read by hand beside the
/// table (read_row). Returns which rows were given.
template <class Root>
Given read_fields(Fields& f, Root& r, std::span<const Field<Root>> rows, const FieldContext& ctx) {
  Given given(rows.size(), false);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Field<Root>& row = rows[i];
    // `tokens:` with nothing after it (or null) would silently take the default;
    // rows read by hand too, which then see the key as absent.
    if (const Node empty = f.written_empty(row.key); empty.defined()) {
      f.fail(empty, f.field(row.key), std::string(tr("is empty: give a value, or leave the key out for its default")));
      continue;
    }
    if (!row.echo.key.empty() && row.echo.key != row.key) f.echo_name(row.echo.key, row.key);
    if (!row.at.set || row.by_hand) continue;
    const Node n = f.get(row.key, false);
    if (!n.defined()) continue;
    given[i] = true;
    if (row.kind == ValueKind::kList) {
      if (auto ids = read_list(f, row.key)) row.at.set(r, *ids);
      continue;
    }
    if (row.kind == ValueKind::kNumbers) {
      if (auto xs = read_numbers(f, row.key, row.range)) row.at.set(r, *xs);
      continue;
    }
    if (auto v = f.parse_node(n, f.field(row.key), [&](const std::string& t) { return parse_field(row, t, ctx); }))
      row.at.set(r, *v);
  }
  return given;
}

/// The value of the row `key` of `rows`, parsed by the row, for fields read by hand.
template <class Root>
std::optional<Value> read_row(Fields& f, std::span<const Field<Root>> rows, std::string_view key,
                              const FieldContext& ctx) {
  const Field<Root>* row = find_field(rows, key);
  if (!row) throw std::logic_error(fmt::format("no field '{}' in the table of {}", key, f.path()));
  return f.value(key, false, [&](const std::string& t) { return parse_field(*row, t, ctx); });
}

/// The node a dotted field path names ("buy.card_price"), or the nearest
/// enclosing map when part of it is missing: where a problem with it is shown.
Node node_at(const Node& root, std::string_view path);

/// `path[index]` helpers for list items.
std::string item_path(const std::string& list, std::size_t index);

/// Every --set KEY=null into a section the file does not have names a field
/// of one of `sections` (a typo is refused, with the nearest path), though
/// no table reads it.
template <class Root>
void check_unsets(Diagnostics& diag, std::span<const Section<Root>> sections) {
  for (const auto& [path, typed] : diag.unset_elsewhere()) {
    std::vector<std::string> paths;
    for (const Section<Root>& sec : sections)
      for (const Field<Root>& f : sec.rows) paths.push_back(field_path(sec.name, f.key));
    if (std::find(paths.begin(), paths.end(), path) != paths.end()) continue;
    const std::vector<std::string_view> views(paths.begin(), paths.end());
    const std::string_view near = nearest(path, views);
    diag.fail(
        SourceLocation{"--set " + typed}, path,
        near.empty() ? std::string(tr("is not a known field")) : trf("is not a known field; did you mean '{}'?", near));
  }
}

}  // namespace gpuplan::detail
