// Internal (not installed): the parsed form of a YAML document that gpuplan's
// readers walk, and a reader for the plain subset of YAML that gpuplan's files
// are written in. yaml-cpp builds each node from several heap objects (a
// catalog of 700 values: ~650 of them, half of the loader's time); here a
// document is one vector of nodes. A text outside the subset is read by
// yaml-cpp and copied into the same form (yaml_reader.cc), so both readers
// give one tree; a test compares them on every file and on mutations of them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan::detail {

/// Where a node starts, 0-based as yaml-cpp counts; no place (a --set value): line -1.
struct Mark {
  int line = -1, column = -1;
  bool is_null() const { return line < 0; }
};

enum class NodeType : std::uint8_t { kUndefined, kNull, kScalar, kSequence, kMap };

struct Tree;

/// A handle on one node of a document (copies share the document, as
/// yaml-cpp's nodes do). Default-constructed: undefined (an absent key).
class Node {
 public:
  Node() = default;
  /// A new document holding an empty map with no place (defaults, --set).
  static Node new_map();

  NodeType type() const;
  bool defined() const { return type() != NodeType::kUndefined; }
  bool is_null() const { return type() == NodeType::kNull; }
  bool is_scalar() const { return type() == NodeType::kScalar; }
  bool is_sequence() const { return type() == NodeType::kSequence; }
  bool is_map() const { return type() == NodeType::kMap; }
  /// A scalar's text ("" for others); quoted(): written in quotes.
  const std::string& scalar() const;
  bool quoted() const;
  Mark mark() const;

  /// A sequence's items or a map's entries.
  std::size_t size() const;
  /// A sequence's item i.
  Node operator[](std::size_t i) const;
  /// A map's entry i: its key and its value.
  Node key(std::size_t i) const;
  Node value(std::size_t i) const;
  /// The value of a map's first entry whose key is the scalar `key`; undefined if none.
  Node child(std::string_view key) const;

  // Edits of a map, for --set (new nodes have no place).
  /// The map at `key`, made an empty one when absent or null.
  Node ensure_map(std::string_view key);
  /// Sets the value of the first entry with `key` (or of a new entry) to the
  /// scalar `text`; the entry keeps its key's place, so a second entry with
  /// the key is still reported as given twice.
  void replace_scalar(std::string_view key, std::string text);
  /// Leaves the first entry with `key` (or a new entry) without a value: it
  /// reads as absent (its default applies), while the key is still checked as
  /// the file's own (unknown, given twice). What `--set KEY=null` does.
  void unset(std::string_view key);
  /// Removes every entry with `key` (a --set of its twin replaces them all).
  void remove(std::string_view key);

  // Building a document (the readers).
  Node(std::shared_ptr<Tree> tree, std::uint32_t id) : tree_(std::move(tree)), id_(id) {}
  Tree* tree() const { return tree_.get(); }
  std::uint32_t id() const { return id_; }

 private:
  std::shared_ptr<Tree> tree_;
  std::uint32_t id_ = 0;
};

struct NodeData {
  NodeType type = NodeType::kNull;
  bool quoted = false;
  Mark mark;
  std::string text;
  std::vector<std::uint32_t> kids;  ///< a sequence's items; a map's key, value, key, value …
};

struct Tree {
  std::vector<NodeData> nodes;
  /// Read by read_yaml_subset, which takes no value that runs past its line.
  bool one_line_values = false;
  std::uint32_t add(NodeType type, Mark mark, std::string text = {}, bool quoted = false) {
    nodes.push_back(NodeData{type, quoted, mark, std::move(text), {}});
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }
};

/// The document `text` when it is within the subset gpuplan's files use, with
/// every node, value and place as yaml-cpp reads them; nullopt when it is not
/// (or when this reader cannot be sure): then yaml-cpp reads it. The subset:
/// block maps and lists by indentation, one-line plain and quoted values
/// (in double quotes, no escape but \" and \\), one-line [ ] lists and { } maps of them,
/// comments; no tabs, CRs, documents markers, anchors, tags, block scalars or
/// multi-line values. `max_depth`: deeper nesting is left to yaml-cpp's path,
/// which reports it.
std::optional<Node> read_yaml_subset(std::string_view text, int max_depth);

}  // namespace gpuplan::detail
