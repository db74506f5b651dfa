#include "gpuplan/yaml_tree.h"

namespace gpuplan::detail {

namespace {
const std::string kNoText;
}

Node Node::new_map() {
  auto tree = std::make_shared<Tree>();
  tree->add(NodeType::kMap, Mark{});
  return Node(std::move(tree), 0);
}

NodeType Node::type() const { return tree_ ? tree_->nodes[id_].type : NodeType::kUndefined; }
const std::string& Node::scalar() const { return tree_ ? tree_->nodes[id_].text : kNoText; }
bool Node::quoted() const { return tree_ && tree_->nodes[id_].quoted; }
Mark Node::mark() const { return tree_ ? tree_->nodes[id_].mark : Mark{}; }

std::size_t Node::size() const {
  if (!tree_) return 0;
  const NodeData& d = tree_->nodes[id_];
  if (d.type == NodeType::kMap) return d.kids.size() / 2;
  return d.type == NodeType::kSequence ? d.kids.size() : 0;
}

Node Node::operator[](std::size_t i) const {
  if (!is_sequence() || i >= size()) return {};
  return Node(tree_, tree_->nodes[id_].kids[i]);
}

Node Node::key(std::size_t i) const {
  if (!is_map() || i >= size()) return {};
  return Node(tree_, tree_->nodes[id_].kids[2 * i]);
}

Node Node::value(std::size_t i) const {
  if (!is_map() || i >= size()) return {};
  return Node(tree_, tree_->nodes[id_].kids[2 * i + 1]);
}

namespace {
// The index of the first entry of map `id` whose key is the scalar `key`, from entry `from`.
std::optional<std::size_t> find_key(const Tree& t, std::uint32_t id, std::string_view key, std::size_t from = 0) {
  const std::vector<std::uint32_t>& kids = t.nodes[id].kids;
  for (std::size_t i = 2 * from; i + 1 < kids.size(); i += 2) {
    const NodeData& k = t.nodes[kids[i]];
    if (k.type == NodeType::kScalar && k.text == key) return i / 2;
  }
  return std::nullopt;
}
}  // namespace

Node Node::child(std::string_view key) const {
  if (!is_map()) return {};
  const auto i = find_key(*tree_, id_, key);
  return i ? value(*i) : Node();
}

Node Node::ensure_map(std::string_view key) {
  if (!is_map()) return {};
  if (const auto i = find_key(*tree_, id_, key)) {
    if (!value(*i).is_null() && value(*i).defined()) return value(*i);  // null or unset: a new section
    const std::uint32_t map = tree_->add(NodeType::kMap, Mark{});
    tree_->nodes[id_].kids[2 * *i + 1] = map;
    return Node(tree_, map);
  }
  const std::uint32_t k = tree_->add(NodeType::kScalar, Mark{}, std::string(key));
  const std::uint32_t map = tree_->add(NodeType::kMap, Mark{});
  tree_->nodes[id_].kids.insert(tree_->nodes[id_].kids.end(), {k, map});
  return Node(tree_, map);
}

void Node::remove(std::string_view key) {
  if (!is_map()) return;
  std::vector<std::uint32_t>& kids = tree_->nodes[id_].kids;
  for (std::size_t i = 0; i + 1 < kids.size();) {
    const NodeData& k = tree_->nodes[kids[i]];
    if (k.type == NodeType::kScalar && k.text == key)
      kids.erase(kids.begin() + static_cast<std::ptrdiff_t>(i), kids.begin() + static_cast<std::ptrdiff_t>(i + 2));
    else i += 2;
  }
}

void Node::replace_scalar(std::string_view key, std::string text) {
  if (!is_map()) return;
  const std::uint32_t v = tree_->add(NodeType::kScalar, Mark{}, std::move(text));
  if (const auto i = find_key(*tree_, id_, key)) {  // the first entry; a second one is still "given twice"
    tree_->nodes[id_].kids[2 * *i + 1] = v;
    return;
  }
  const std::uint32_t k = tree_->add(NodeType::kScalar, Mark{}, std::string(key));
  tree_->nodes[id_].kids.insert(tree_->nodes[id_].kids.end(), {k, v});
}

void Node::unset(std::string_view key) {
  if (!is_map()) return;
  const std::uint32_t v = tree_->add(NodeType::kUndefined, Mark{});
  if (const auto i = find_key(*tree_, id_, key)) {
    tree_->nodes[id_].kids[2 * *i + 1] = v;
    return;
  }
  // A new entry all the same, so that a key no table knows is still reported.
  const std::uint32_t k = tree_->add(NodeType::kScalar, Mark{}, std::string(key));
  tree_->nodes[id_].kids.insert(tree_->nodes[id_].kids.end(), {k, v});
}

namespace {

// YAML 1.2's core schema nulls, as yaml-cpp reads a plain scalar.
bool null_word(std::string_view s) { return s == "~" || s == "null" || s == "Null" || s == "NULL"; }

// One line with content (blank and comment-only lines are skipped): `indent`
// is where its content starts; a "- key: value" item moves it to the key.
struct Line {
  std::string_view text;
  int no = 0;
  std::size_t indent = 0;
};

// Reads the subset, or gives up (ok_ false) at the first thing outside it.
// Marks follow yaml-cpp: a scalar or a flow collection at its first
// character, a block map at its first key, a block list at its first '-', an
// empty value at the next token (the next line's content, or the end).
class SubsetReader {
 public:
  SubsetReader(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

  std::optional<Node> read() {
    if (!split_lines()) return std::nullopt;
    auto tree = std::make_shared<Tree>();
    t_ = tree.get();
    if (lines_.empty()) {
      t_->add(NodeType::kNull, Mark{});
      return Node(std::move(tree), 0);
    }
    const std::uint32_t root = block(0);
    if (!ok_ || i_ != lines_.size() || t_->nodes.size() > kMaxNodes) return std::nullopt;
    t_->one_line_values = true;
    return Node(std::move(tree), root);
  }

 private:
  static constexpr std::size_t kMaxNodes = 1'000'000;
  static constexpr std::size_t kMaxKey = 1000;  // yaml-cpp's simple keys end at 1,024 characters

  bool split_lines() {
    bool control = false;  // one pass without a branch a byte
    for (const char c : text_) control |= ((static_cast<unsigned char>(c) < 0x20) & (c != '\n')) | (c == 0x7F);
    if (control) return false;
    int no = 0;
    for (std::size_t pos = 0; pos < text_.size(); ++no) {
      const std::size_t end = std::min(text_.find('\n', pos), text_.size());
      const std::string_view line = text_.substr(pos, end - pos);
      pos = end + 1;
      if (line.starts_with("---") || line.starts_with("...") || line.starts_with("%")) return false;
      const std::size_t first = line.find_first_not_of(' ');
      if (first == std::string_view::npos || line[first] == '#') continue;
      lines_.push_back(Line{line, no, first});
    }
    // yaml-cpp places the end at column 0 of the line after the last newline,
    // or of the last line when the text does not end in one.
    eof_ = Mark{text_.ends_with('\n') ? no : no - 1, 0};
    return true;
  }

  std::uint32_t fail() {
    ok_ = false;
    return 0;
  }

  Mark at(const Line& l, std::size_t col) const { return Mark{l.no, static_cast<int>(col)}; }
  // Where an empty value is placed: the next token.
  Mark next_token() const {
    if (i_ >= lines_.size()) return eof_;
    const Line& l = lines_[i_];
    return at(l, l.text.find_first_not_of(' '));
  }
  static bool is_entry(const Line& l) {
    return l.text[l.indent] == '-' && (l.indent + 1 == l.text.size() || l.text[l.indent + 1] == ' ');
  }
  bool deeper(std::size_t indent) const { return i_ < lines_.size() && lines_[i_].indent > indent; }

  // The block node whose first line is the current one.
  std::uint32_t block(int depth) {
    if (depth > max_depth_) return fail();
    const Line& l = lines_[i_];
    if (is_entry(l)) return sequence(depth, l.indent);
    if (key_end(l.text, l.indent)) return map(depth, l.indent);
    return fail();
  }

  std::uint32_t map(int depth, std::size_t indent) {
    const std::uint32_t id = t_->add(NodeType::kMap, at(lines_[i_], indent));
    while (ok_ && i_ < lines_.size() && lines_[i_].indent == indent && !is_entry(lines_[i_])) {
      const Line l = lines_[i_];
      const auto colon = key_end(l.text, indent);
      if (!colon) return fail();
      const std::uint32_t key = scalar(l, indent, trim(l.text.substr(indent, *colon - indent)), false);
      const std::size_t v = l.text.find_first_not_of(' ', *colon + 1);
      std::uint32_t value = 0;
      if (v == std::string_view::npos || l.text[v] == '#') {
        ++i_;
        if (deeper(indent)) value = block(depth + 1);
        else if (i_ < lines_.size() && lines_[i_].indent == indent && is_entry(lines_[i_]))
          value = sequence(depth + 1, indent);  // a list at its key's indentation
        else value = t_->add(NodeType::kNull, next_token());
      } else {
        value = inline_value(l, v, depth + 1);
        ++i_;
        if (deeper(indent)) return fail();  // a value running onto the next line
      }
      t_->nodes[id].kids.insert(t_->nodes[id].kids.end(), {key, value});
    }
    return id;
  }

  std::uint32_t sequence(int depth, std::size_t indent) {
    const std::uint32_t id = t_->add(NodeType::kSequence, at(lines_[i_], indent));
    while (ok_ && i_ < lines_.size() && lines_[i_].indent == indent && is_entry(lines_[i_])) {
      Line& l = lines_[i_];
      const std::size_t v = l.text.find_first_not_of(' ', indent + 1);
      std::uint32_t item = 0;
      if (v == std::string_view::npos || l.text[v] == '#') {
        ++i_;
        item = deeper(indent) ? block(depth + 1) : t_->add(NodeType::kNull, next_token());
      } else if (key_end(l.text, v)) {
        l.indent = v;  // "- key: value": a map at the key, its next entries below it
        item = map(depth + 1, v);
      } else {
        item = inline_value(l, v, depth + 1);
        ++i_;
        if (deeper(indent)) return fail();
      }
      if (!ok_) return 0;
      t_->nodes[id].kids.push_back(item);
    }
    return id;
  }

  // Where a plain key starting at `p` ends (its ':'), if the line is "key: …" or "key:".
  static std::optional<std::size_t> key_end(std::string_view s, std::size_t p) {
    if (!plain_start(s, p, false)) return std::nullopt;
    for (std::size_t j = p; j < s.size() && j - p <= kMaxKey; ++j) {
      if (s[j] == ':' && (j + 1 == s.size() || s[j + 1] == ' ')) return j;
      if (s[j] == '#' && s[j - 1] == ' ') return std::nullopt;
    }
    return std::nullopt;
  }

  // Whether a plain scalar may start at `p` (YAML 1.2, 7.3.3, as yaml-cpp reads it).
  static bool plain_start(std::string_view s, std::size_t p, bool flow) {
    if (p >= s.size()) return false;
    const char c = s[p];
    if (std::string_view(",[]{}#&*!|>'\"%@`?: ").find(c) != std::string_view::npos) return false;
    if (c != '-') return true;
    return p + 1 < s.size() && s[p + 1] != ' ' &&
           !(flow && std::string_view(",[]{}").find(s[p + 1]) != std::string_view::npos);
  }

  static std::string_view trim(std::string_view s) { return s.substr(0, s.find_last_not_of(' ') + 1); }

  std::uint32_t scalar(const Line& l, std::size_t col, std::string_view text, bool quoted) {
    if (!quoted && null_word(text)) return t_->add(NodeType::kNull, at(l, col));
    return t_->add(NodeType::kScalar, at(l, col), std::string(text), quoted);
  }

  // A value on one line from `p`: a plain or quoted scalar, or a [ ] or { }
  // of them; after it only a comment.
  std::uint32_t inline_value(const Line& l, std::size_t p, int depth) {
    const std::string_view s = l.text;
    std::size_t end = p;
    std::uint32_t id = 0;
    if (s[p] == '[' || s[p] == '{') {
      id = flow(l, p, end, depth);
    } else if (s[p] == '"' || s[p] == '\'') {
      id = quoted(l, p, end);
    } else if (plain_start(s, p, false)) {
      for (end = p; end < s.size() && !(s[end] == '#' && s[end - 1] == ' '); ++end)
        if (s[end] == ':' && (end + 1 == s.size() || s[end + 1] == ' ')) return fail();
      id = scalar(l, p, trim(s.substr(p, end - p)), false);
    } else {
      return fail();
    }
    if (!ok_) return 0;
    const std::size_t rest = s.find_first_not_of(' ', end);
    if (rest != std::string_view::npos && !(s[rest] == '#' && s[rest - 1] == ' ')) return fail();
    return id;
  }

  // A quoted scalar closed on its line; `end`: after it.
  std::uint32_t quoted(const Line& l, std::size_t p, std::size_t& end) {
    const std::string_view s = l.text;
    const char q = s[p];
    std::string text;
    for (std::size_t j = p + 1; j < s.size(); ++j) {
      if (q == '"' && s[j] == '\\') {  // \" and \\ only; other escapes are yaml-cpp's
        if (j + 1 == s.size() || (s[j + 1] != '"' && s[j + 1] != '\\')) return fail();
        text += s[++j];
        continue;
      }
      if (s[j] != q) {
        text += s[j];
        continue;
      }
      if (q == '\'' && j + 1 < s.size() && s[j + 1] == '\'') {
        text += '\'';
        ++j;
        continue;
      }
      end = j + 1;
      return scalar(l, p, text, true);
    }
    return fail();
  }

  // One item of a [ ] or { } from `j` (moved past it): a [ ] or { } (not as
  // a key), or a quoted or plain scalar; a plain one ends at ',', at `close`,
  // or (`key`) at ": ".
  std::uint32_t flow_item(const Line& l, std::size_t& j, char close, bool key, int depth) {
    const std::string_view s = l.text;
    j = s.find_first_not_of(' ', j);
    if (j == std::string_view::npos) return fail();
    if (s[j] == '[' || s[j] == '{') {
      if (key) return fail();
      std::size_t end = j;
      const std::uint32_t id = flow(l, j, end, depth);
      j = end;
      return id;
    }
    if (s[j] == '"' || s[j] == '\'') {
      if (key) return fail();
      std::size_t end = j;
      const std::uint32_t id = quoted(l, j, end);
      j = end;
      return id;
    }
    if (!plain_start(s, j, true)) return fail();
    const std::size_t p = j;
    for (; j < s.size(); ++j) {
      const char c = s[j];
      if (c == ',' || c == close) break;
      if (std::string_view("[]{}?").find(c) != std::string_view::npos || (c == '#' && s[j - 1] == ' ')) return fail();
      if (c == ':' && (j + 1 == s.size() || std::string_view(" ,[]{}").find(s[j + 1]) != std::string_view::npos)) {
        if (key && j + 1 < s.size() && s[j + 1] == ' ') break;
        return fail();
      }
    }
    if (j == s.size()) return fail();
    return scalar(l, p, trim(s.substr(p, j - p)), false);
  }

  // A [ ] list or { } map, closed on its line.
  std::uint32_t flow(const Line& l, std::size_t p, std::size_t& end, int depth) {
    if (depth > max_depth_) return fail();
    const std::string_view s = l.text;
    const bool is_map = s[p] == '{';
    const char close = is_map ? '}' : ']';
    const std::uint32_t id = t_->add(is_map ? NodeType::kMap : NodeType::kSequence, at(l, p));
    std::size_t j = s.find_first_not_of(' ', p + 1);
    if (j != std::string_view::npos && s[j] == close) {
      end = j + 1;
      return id;
    }
    j = p + 1;
    while (ok_) {
      const std::uint32_t first = flow_item(l, j, close, is_map, depth + 1);
      if (!ok_) return 0;
      t_->nodes[id].kids.push_back(first);
      if (is_map) {
        if (s[j] != ':') return fail();
        ++j;
        const std::size_t v = s.find_first_not_of(' ', j);
        if (v == std::string_view::npos || s[v] == ',' || s[v] == close) return fail();
        const std::uint32_t value = flow_item(l, j, close, false, depth + 1);
        if (!ok_) return 0;
        t_->nodes[id].kids.push_back(value);
      }
      j = s.find_first_not_of(' ', j);
      if (j == std::string_view::npos) return fail();
      if (s[j] == close) break;
      if (s[j] != ',') return fail();
      ++j;
      const std::size_t next = s.find_first_not_of(' ', j);
      if (next == std::string_view::npos || s[next] == close || s[next] == ',') return fail();
    }
    end = j + 1;
    return id;
  }

  std::string_view text_;
  int max_depth_;
  std::vector<Line> lines_;
  std::size_t i_ = 0;
  Mark eof_;
  Tree* t_ = nullptr;
  bool ok_ = true;
};

}  // namespace

std::optional<Node> read_yaml_subset(std::string_view text, int max_depth) {
  return SubsetReader(text, max_depth).read();
}

}  // namespace gpuplan::detail
