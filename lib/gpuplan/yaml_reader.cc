#include "gpuplan/yaml_reader.h"
#include "gpuplan/i18n.h"

#include "gpuplan/io.h"
#include "gpuplan/suggest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <optional>
#include <sstream>
#include <yaml-cpp/depthguard.h>  // YAML::DeepRecursion (not in yaml.h in 0.7)
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace gpuplan::detail {

SourceLocation Diagnostics::at(const Node& n) const {
  const Mark m = n.mark();
  if (m.is_null()) return {file_, 0, 0};
  return {file_, m.line + 1, m.column + 1};
}

void Diagnostics::fail(const Node& n, const std::string& field, const std::string& message) {
  if (n.mark().is_null()) {
    for (const auto& [path, typed] : overrides_)
      if (field == path || field.starts_with(path + ".") || path.starts_with(field + ".")) {
        problems_.emplace_back(SourceLocation{"--set " + typed}, field, message);
        return;
      }
  }
  problems_.emplace_back(at(n), field, message);
}

void Diagnostics::fail(SourceLocation where, const std::string& field, const std::string& message) {
  problems_.emplace_back(std::move(where), field, message);
}

void Diagnostics::throw_if_any() {
  if (problems_.empty()) return;
  std::stable_sort(problems_.begin(), problems_.end(), [](const InputError& a, const InputError& b) {
    return std::pair(a.where().line, a.where().column) < std::pair(b.where().line, b.where().column);
  });
  throw InputErrors(std::move(problems_));
}

namespace {

// A field's path as steps (a map key or a list index),
// made into "a.b[2]" only for a problem: most documents have none.
struct PathStep {
  std::string_view key;
  std::size_t index = 0;
  bool is_index = false;
};
std::string path_text(const std::vector<PathStep>& steps) {
  std::string out;
  for (const PathStep& p : steps)
    out += p.is_index ? fmt::format("[{}]", p.index) : (out.empty() ? "" : ".") + std::string(p.key);
  return out;
}

// Recursion of check_one_line(); `lines`: where each line of `text` starts.
void check_quotes(const Node& n, std::string_view text, const std::vector<std::size_t>& lines, Diagnostics& diag,
                  std::vector<PathStep>& path) {
  if (path.size() > 64) return;
  if (n.is_scalar()) {
    // By line and column: the parser read the text with its comments cut
    // (shorten_comments), so its byte offsets are not this text's.
    const Mark m = n.mark();
    if (m.is_null() || m.line < 0 || static_cast<std::size_t>(m.line) >= lines.size()) return;
    const std::size_t at = lines[static_cast<std::size_t>(m.line)] + static_cast<std::size_t>(m.column);
    if (at >= text.size()) return;
    const char quote = text[at];
    if (quote != '"' && quote != '\'') return;
    for (std::size_t i = at + 1; i < text.size(); ++i) {
      if (text[i] == '\\' && quote == '"') ++i;
      else if (text[i] == quote) return;
      else if (text[i] == '\n')
        return diag.fail(n, path_text(path),
                         trf("a quoted value runs past the end of its line (an unclosed {}?): "
                             "everything up to the next {} was read as part of it",
                             quote, quote));
    }
    return;
  }
  if (n.is_map())
    for (std::size_t i = 0; i < n.size(); ++i) {
      const Node key = n.key(i);
      path.push_back({key.is_scalar() ? std::string_view(key.scalar()) : std::string_view("?")});
      check_quotes(n.value(i), text, lines, diag, path);
      path.pop_back();
    }
  else if (n.is_sequence())
    for (std::size_t i = 0; i < n.size(); ++i) {
      path.push_back({{}, i, true});
      check_quotes(n[i], text, lines, diag, path);
      path.pop_back();
    }
}

}  // namespace

// A quoted value that runs past its line: every value of a job, scenario or
// catalog is one line, so this is an unclosed quote that has swallowed what follows
// (`name: "70B pre-train` then the job section, read as part of the name).
void check_one_line(const Node& n, std::string_view text, Diagnostics& diag) {
  if (n.tree() && n.tree()->one_line_values) return;            // the subset reader has checked
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // as load_document() read it
  std::vector<std::size_t> lines{0};
  for (std::size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) lines.push_back(i + 1);
  std::vector<PathStep> path;
  check_quotes(n, text, lines, diag, path);
}

Node load_with_sets(const std::string& path, const std::vector<std::string>& sets, Diagnostics& diag,
                    const std::string* given, const std::vector<std::string>* typed) {
  Node root = Node::new_map();
  if (!path.empty() || given) {
    const std::string text = given ? *given : read_input_file(path);
    if (auto doc = load_document(text, diag)) {
      root = *doc;
      // A file given but empty (or only comments, or cron's /dev/null) is not
      // the built-in defaults: those are for no file at all.
      if (root.is_null())
        diag.fail(
            SourceLocation{diag.file()}, "",
            std::string(tr("holds no settings (empty, or only comments): give the fields, or no file for the built-in "
                           "defaults")));
      else check_one_line(root, text, diag);
    }
    if (root.is_null()) root = Node::new_map();
  }
  if (diag.count() == 0 && root.is_map()) apply_sets(root, sets, diag, typed);
  diag.throw_if_any();
  return root;
}

namespace {

// No gpuplan file needs more than a few levels of nesting or more than a few
// thousand values. yaml-cpp 0.7 stops near 500–2,000 levels with a "bad file"
// message, and it shares aliased nodes (&a … *a) without copying, so a small
// file can stand for billions of values ("billion laughs"): whatever walks it
// would never finish. The walk below is capped in both, so it ends quickly.
constexpr int kMaxDepth = 64;
constexpr long kMaxNodes = 1'000'000;

// A yaml-cpp node's place in `diag`'s file.
SourceLocation at_mark(const Diagnostics& diag, const YAML::Mark& m) {
  if (m.is_null()) return {diag.file(), 0, 0};
  return {diag.file(), m.line + 1, m.column + 1};
}

// Returns false (and records the problem) when the document is too deep or too
// big. `last_line`: the last line (0-based) on which a node of it starts.
bool within_limits(const YAML::Node& root, Diagnostics& diag, int& last_line) {
  long budget = kMaxNodes;
  bool ok = true;
  const std::function<void(const YAML::Node&, int, const std::string&)> walk = [&](const YAML::Node& n, int depth,
                                                                                   const std::string& field) {
    if (!ok) return;
    if (--budget < 0) {
      diag.fail(at_mark(diag, n.Mark()), field,
                trf("expands through aliases (&name … *name) to more than {} values; write the values out", kMaxNodes));
      ok = false;
      return;
    }
    if (depth > kMaxDepth) {
      diag.fail(at_mark(diag, n.Mark()), field,
                trf("lists and maps are nested too deeply (more than {} levels)", kMaxDepth));
      ok = false;
      return;
    }
    last_line = std::max(last_line, n.Mark().line);
    if (n.IsSequence()) {
      for (const YAML::Node& item : n) walk(item, depth + 1, field);
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        last_line = std::max(last_line, kv.first.Mark().line);
        walk(kv.second, depth + 1, depth == 0 && kv.first.IsScalar() ? kv.first.Scalar() : field);
      }
    }
  };
  walk(root, 0, "");
  return ok;
}

// Counts a text's YAML documents, stopping at `cap`. yaml-cpp 0.7's LoadAll
// never returns on a ',' outside [ ] or { } at the top level or after a block
// list ("- a\n,"): the parser does not consume the token and reports an empty
// document after another, forever (found by fuzz_catalog). Its event parser
// is asked for at most `cap` documents instead.
class IgnoreEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

int count_documents(const std::string& text, int cap) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  IgnoreEvents events;
  int n = 0;
  while (n < cap && parser.HandleNextDocument(events)) ++n;
  return n;
}

// Counts the values the first document stands for once its aliases are
// expanded, from the parser's events and without walking the expanded tree
// (which for a "billion laughs" file takes as long as the expansion is big):
// an alias counts as many values as its anchor's node holds. Marks where the
// count first passes the cap.
class ExpansionCounter : public YAML::EventHandler {
 public:
  explicit ExpansionCounter(long cap) : cap_(cap) {}
  std::optional<YAML::Mark> over{};

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t a) override { leaf(m, a, 1); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t a) override { leaf(m, 0, a < sizes_.size() ? sizes_[a] : 1); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t a, const std::string&) override {
    leaf(m, a, 1);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t a, YAML::EmitterStyle::value) override {
    open(m, a);
  }
  void OnMapEnd() override { close(); }

 private:
  // Sizes are capped just past the cap, so nested aliases never overflow.
  void record(YAML::anchor_t a, long size) {
    if (a == YAML::NullAnchor) return;
    if (sizes_.size() <= a) sizes_.resize(a + 1, 1);
    sizes_[a] = std::min(size, cap_ + 1);
  }
  void add(const YAML::Mark& m, long n) {
    total_ = std::min(total_ + n, 2 * cap_ + 2);
    if (total_ > cap_ && !over) over = m;
  }
  void leaf(const YAML::Mark& m, YAML::anchor_t a, long n) {
    add(m, n);
    record(a, n);
  }
  void open(const YAML::Mark& m, YAML::anchor_t a) {
    open_.push_back({a, total_});
    add(m, 1);
  }
  void close() {
    if (open_.empty()) return;
    const auto [a, start] = open_.back();
    open_.pop_back();
    record(a, total_ - start);
  }
  long cap_, total_ = 0;
  std::vector<long> sizes_;
  std::vector<std::pair<YAML::anchor_t, long>> open_;
};

// Where the first document's aliases expand past kMaxNodes values, if they do.
// Only a text with an alias (*name) can; others are not parsed again.
std::optional<YAML::Mark> alias_expansion_past_cap(const std::string& text) {
  if (text.find('*') == std::string::npos) return std::nullopt;
  std::istringstream in(text);
  YAML::Parser parser(in);
  ExpansionCounter counter(kMaxNodes);
  parser.HandleNextDocument(counter);
  return counter.over;
}

// Whether the text may hold more than the document yaml-cpp loaded, whose last
// node starts on `last_line` (0-based): a document marker or directive line,
// anything but blanks and comments after that line, or a ',' on it (where
// yaml-cpp stops and starts another document). Only then is the text parsed a
// second time to count its documents.
bool may_hold_more(std::string_view text, int last_line) {
  if (last_line < 0) return true;
  int line_no = 0;
  for (std::size_t pos = 0; pos < text.size(); ++line_no) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.starts_with("---") || line.starts_with("...") || line.starts_with("%")) return true;
    if (line_no == last_line && line.find(',') != std::string_view::npos) return true;
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (line_no > last_line && first != std::string_view::npos && line[first] != '#') return true;
  }
  return false;
}

// The first line that starts a document: a ---, a ... or a % directive
// (which yaml-cpp reads as the start of the next document); none: line 0.
SourceLocation document_marker(std::string_view text, const std::string& file) {
  int line_no = 1;
  for (std::size_t pos = 0; pos < text.size(); ++line_no) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    if (line.starts_with("---") || line.starts_with("...") || line.starts_with("%")) return {file, line_no, 1};
    pos = end + 1;
  }
  return {file, 0, 0};
}

// The first line whose first non-blank character is ',': where yaml-cpp got stuck.
SourceLocation stray_comma(std::string_view text, const std::string& file) {
  int line_no = 1;
  for (std::size_t pos = 0; pos < text.size(); ++line_no) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == ',')
      return SourceLocation{file, line_no, static_cast<int>(first) + 1};
    pos = end + 1;
  }
  return SourceLocation{file, 0, 0};
}

// yaml-cpp's parser messages (its ErrorMsg namespace, 0.7) for people: each
// looked up as "yaml-cpp: " + the message; a message that ends in ": " is a
// prefix of the detail that follows it ("unknown escape character: q").
constexpr const char* kYamlCppMessages[] = {
    tr_noop("yaml-cpp: YAML directives must have exactly one argument"),
    tr_noop("yaml-cpp: bad YAML version: "),
    tr_noop("yaml-cpp: YAML major version too large"),
    tr_noop("yaml-cpp: repeated YAML directive"),
    tr_noop("yaml-cpp: TAG directives must have exactly two arguments"),
    tr_noop("yaml-cpp: repeated TAG directive"),
    tr_noop("yaml-cpp: illegal character found while scanning tag handle"),
    tr_noop("yaml-cpp: tag handle with no suffix"),
    tr_noop("yaml-cpp: end of verbatim tag not found"),
    tr_noop("yaml-cpp: end of map not found"),
    tr_noop("yaml-cpp: end of map flow not found"),
    tr_noop("yaml-cpp: end of sequence not found"),
    tr_noop("yaml-cpp: end of sequence flow not found"),
    tr_noop("yaml-cpp: cannot assign multiple tags to the same node"),
    tr_noop("yaml-cpp: cannot assign multiple anchors to the same node"),
    tr_noop("yaml-cpp: cannot assign multiple aliases to the same node"),
    tr_noop("yaml-cpp: aliases can't have any content, *including* tags"),
    tr_noop("yaml-cpp: bad character found while scanning hex number"),
    tr_noop("yaml-cpp: invalid unicode: "),
    tr_noop("yaml-cpp: unknown escape character: "),
    tr_noop("yaml-cpp: unknown token"),
    tr_noop("yaml-cpp: illegal document indicator in scalar"),
    tr_noop("yaml-cpp: illegal EOF in scalar"),
    tr_noop("yaml-cpp: illegal character in scalar"),
    tr_noop("yaml-cpp: illegal tab when looking for indentation"),
    tr_noop("yaml-cpp: illegal flow end"),
    tr_noop("yaml-cpp: illegal block entry"),
    tr_noop("yaml-cpp: illegal map key"),
    tr_noop("yaml-cpp: illegal map value"),
    tr_noop("yaml-cpp: alias not found after *"),
    tr_noop("yaml-cpp: anchor not found after &"),
    tr_noop("yaml-cpp: illegal character found while scanning alias"),
    tr_noop("yaml-cpp: illegal character found while scanning anchor"),
    tr_noop("yaml-cpp: cannot set zero indentation for a block scalar"),
    tr_noop("yaml-cpp: unexpected character in block scalar"),
    tr_noop("yaml-cpp: cannot assign the same alias to multiple nodes"),
    tr_noop("yaml-cpp: the referenced anchor is not defined"),
    tr_noop("yaml-cpp: unexpected end sequence token"),
    tr_noop("yaml-cpp: unexpected end map token"),
    tr_noop("yaml-cpp: invalid character in single-quoted string"),
    tr_noop("yaml-cpp: invalid anchor"),
    tr_noop("yaml-cpp: invalid alias"),
    tr_noop("yaml-cpp: invalid tag"),
    tr_noop("yaml-cpp: unmatched group tag"),
};

std::string yaml_cpp_message(const std::string& msg) {
  if (language() == Language::kEnglish) return msg;
  constexpr std::string_view kPrefix = "yaml-cpp: ";
  for (const char* id : kYamlCppMessages) {
    const std::string_view english = std::string_view(id).substr(kPrefix.size());
    if (msg == english || (english.ends_with(": ") && msg.starts_with(english)))
      return std::string(tr(id)) + msg.substr(english.size());
  }
  return msg;  // a message of a later yaml-cpp: as it is
}

}  // namespace

namespace {

constexpr std::size_t kUnsure = std::string_view::npos - 1;

bool key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

// Where the comment of a value starting at `i` begins: npos for none, kUnsure
// when the value might run onto later lines or is not a plain or quoted
// scalar (block scalar |, >; a quote not closed on the line; flow [ ] { };
// anchors, aliases, tags, directives, complex keys; a ': ' inside).
std::size_t value_comment(std::string_view line, std::size_t i) {
  std::size_t j = i;
  if (line[i] == '"' || line[i] == '\'') {
    const char q = line[i];
    for (j = i + 1;; ++j) {
      if (j >= line.size()) return kUnsure;  // runs onto the next line
      if (q == '"' && line[j] == '\\') ++j;  // an escape: \" does not close
      else if (q == '\'' && line[j] == '\'' && j + 1 < line.size() && line[j + 1] == '\'') ++j;  // '' is a quote
      else if (line[j] == q) break;
    }
    const std::size_t k = line.find_first_not_of(' ', j + 1);
    if (k == std::string_view::npos) return std::string_view::npos;
    return line[k] == '#' && k > j + 1 ? k : kUnsure;
  }
  // A plain scalar (YAML 1.2, 7.3.3): its first character no indicator; after
  // it, quotes, | and > are characters like any other (block context).
  if (std::string_view("|>[]{}&*!%@`?:,").find(line[i]) != std::string_view::npos) return kUnsure;
  for (; j < line.size(); ++j) {
    const char c = line[j];
    if (c == '#' && j > i && line[j - 1] == ' ') return j;
    if (c == ':' && (j + 1 == line.size() || line[j + 1] == ' ')) return kUnsure;
  }
  return std::string_view::npos;
}

// Where a line's comment begins (npos: none), if its tokens are certain:
// blank, a comment, or [- ]…[key: ]value with a plain key. kUnsure otherwise.
std::size_t comment_start(std::string_view line) {
  if (line.find_first_of("\t\r") != std::string_view::npos) return kUnsure;
  std::size_t i = line.find_first_not_of(' ');
  while (i != std::string_view::npos && line[i] == '-' && i + 1 < line.size() && line[i + 1] == ' ')
    i = line.find_first_not_of(' ', i + 1);  // a sequence entry
  if (i == std::string_view::npos) return std::string_view::npos;
  if (line[i] == '#') return i;
  std::size_t k = i;
  while (k < line.size() && key_char(line[k])) ++k;
  if (k > i && k < line.size() && line[k] == ':' && (k + 1 == line.size() || line[k + 1] == ' ')) {
    i = line.find_first_not_of(' ', k + 1);
    if (i == std::string_view::npos) return std::string_view::npos;
    if (line[i] == '#') return i;  // after the ': ', so a comment
  }
  return value_comment(line, i);
}

}  // namespace

// yaml-cpp scans a comment a character at a time through its regular
// expressions (~500 instructions a character: a third of `compare` on a
// commented scenario). A comment cut to its '#' is still a comment, so
// plain scalars end where they ended and every token keeps its line and
// column; only where a '#' could be content (in a block scalar, in a quote
// running onto the next line) would cutting change the document, and such
// lines start with a line comment_start() cannot vouch for: from there on the
// text is copied as it is.
std::string shorten_comments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, end - pos);
    const std::size_t cut = comment_start(line);
    if (cut == kUnsure) {
      out.append(text.substr(pos));
      return out;
    }
    out.append(cut == std::string_view::npos ? line : line.substr(0, cut + 1));
    if (end < text.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

namespace {

// yaml-cpp's tree in gpuplan's form: every node copied once (an alias's
// target as often as it is used; within_limits() has capped that).
std::uint32_t copy_node(Tree& tree, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  const Mark mark = m.is_null() ? Mark{} : Mark{m.line, m.column};
  switch (n.Type()) {
    case YAML::NodeType::Scalar:
      return tree.add(NodeType::kScalar, mark, n.Scalar(), n.Tag() == "!");
    case YAML::NodeType::Sequence: {
      const std::uint32_t id = tree.add(NodeType::kSequence, mark);
      for (const YAML::Node& item : n) {
        const std::uint32_t kid = copy_node(tree, item);
        tree.nodes[id].kids.push_back(kid);
      }
      return id;
    }
    case YAML::NodeType::Map: {
      const std::uint32_t id = tree.add(NodeType::kMap, mark);
      for (const auto& kv : n) {
        const std::uint32_t key = copy_node(tree, kv.first);
        const std::uint32_t value = copy_node(tree, kv.second);
        tree.nodes[id].kids.insert(tree.nodes[id].kids.end(), {key, value});
      }
      return id;
    }
    default:
      return tree.add(NodeType::kNull, mark);
  }
}

Node copy_tree(const YAML::Node& root) {
  auto tree = std::make_shared<Tree>();
  const std::uint32_t id = copy_node(*tree, root);
  return Node(std::move(tree), id);
}

// The whole of load_document() for a text outside read_yaml_subset's subset.
std::optional<Node> load_with_yaml_cpp(const std::string& owned, Diagnostics& diag) {
  try {
    YAML::Node doc = YAML::Load(owned);  // the first document
    if (const auto mark = alias_expansion_past_cap(owned)) {
      diag.fail(at_mark(diag, *mark), "",
                trf("expands through aliases (&name … *name) to more than {} values; write the values out", kMaxNodes));
      return std::nullopt;
    }
    int last_line = -1;
    if (!within_limits(doc, diag, last_line)) return std::nullopt;
    if (may_hold_more(owned, last_line) && count_documents(owned, 2) > 1) {
      // A real second document starts with a --- (or follows a ...) line;
      // without one, it is yaml-cpp stuck on a stray ',' (see count_documents).
      if (const SourceLocation marker = document_marker(owned, diag.file()); marker.line > 0) {
        diag.fail(marker, "",
                  std::string(
                      tr("holds more than one YAML document (a ---, ... or % directive line starts another); a file is "
                         "one document")));
      } else {
        diag.fail(stray_comma(owned, diag.file()), "",
                  std::string(tr("malformed YAML: a ',' outside a [ ] list or { } map")));
      }
      return std::nullopt;
    }
    return copy_tree(doc);
  } catch (const YAML::DeepRecursion& e) {
    diag.fail(at_mark(diag, e.mark), "", trf("lists and maps are nested too deeply (more than {} levels)", kMaxDepth));
  } catch (const YAML::ParserException& e) {
    diag.fail(at_mark(diag, e.mark), "", trf("malformed YAML: {}", yaml_cpp_message(e.msg)));
  } catch (const YAML::Exception& e) {
    diag.fail(SourceLocation{diag.file(), 0, 0}, "", trf("malformed YAML: {}", yaml_cpp_message(e.msg)));
  }
  return std::nullopt;
}

}  // namespace

std::optional<Node> load_document(std::string_view text, Diagnostics& diag) {
  // The UTF-8 byte-order mark some editors write is not content.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  try {
    check_text(text, diag.file());
  } catch (const InputError& e) {
    diag.fail(e.where(), "", e.message());
    return std::nullopt;
  }
  // Comments cut as yaml-cpp reads the text, so that both readers place an
  // empty value at the end of the text alike.
  const std::string owned = shorten_comments(text);
  if (std::optional<Node> doc = read_yaml_subset(owned, kMaxDepth)) return doc;
  return load_with_yaml_cpp(owned, diag);
}

Fields::Fields(Diagnostics& diag, const Node& map, std::string path, std::vector<std::string_view> known)
    : diag_(diag), map_(map), path_(std::move(path)), problems_at_start_(diag.count()), known_(std::move(known)) {
  is_map_ = map_.is_map();
  if (!is_map_)
    diag_.fail(map_, path_,
               std::string(map_.is_null() ? tr("is empty; expected a map of fields") : tr("must be a map of fields")));
  else {
    entries_.reserve(map_.size());
    for (std::size_t i = 0; i < map_.size(); ++i) {
      const Node key = map_.key(i);
      const bool scalar = key.is_scalar();
      entries_.push_back(Entry{scalar ? key.scalar() : std::string(), key, map_.value(i), scalar});
    }
  }
}

std::string Fields::field(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Node Fields::written_empty(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.scalar && e.key == key && e.value.is_null()) return e.key_node;
  return Node();
}

Node Fields::get(std::string_view key, bool required) {
  if (std::find(used_.begin(), used_.end(), key) == used_.end()) used_.emplace_back(key);
  if (!is_map_) return Node();
  // The first entry with the key (not operator[]: a const lookup that misses must not insert).
  for (const Entry& e : entries_) {
    if (!e.scalar || e.key != key) continue;
    if (e.value.is_null() && required) {
      diag_.fail(e.key_node, field(key), std::string(tr("has no value")));
      return Node();
    }
    if (e.value.is_null()) return Node();
    return e.value;
  }
  // A missing key has no mark of its own: report it at the enclosing map.
  if (required) diag_.fail(map_, field(key), std::string(tr("is required")));
  return Node();
}

std::optional<std::string> Fields::text(std::string_view key, bool required) {
  return value(key, required, [](const std::string& s) { return s; });
}

namespace {
// For each entry of a map, the line (1-based) of the first entry with the
// same key when it repeats one, else 0: sorted once, not a map of keys.
template <class Entry>
std::vector<int> first_lines(const std::vector<Entry>& entries) {
  std::vector<std::size_t> order(entries.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(!entries[a].scalar, std::string_view(entries[a].key)) <
           std::pair(!entries[b].scalar, std::string_view(entries[b].key));
  });
  std::vector<int> first(entries.size(), 0);
  for (std::size_t k = 1, run = 0; k < order.size() && entries[order[k]].scalar; ++k) {
    if (entries[order[k]].key != entries[order[run]].key) run = k;
    else first[order[k]] = entries[order[run]].key_node.mark().line + 1;
  }
  return first;
}
}  // namespace

// A key the JSON echo uses (dataset_gb): the key a file writes, with the
// echo's unit on a bare number (dataset: 400GB), as --set reads it.
std::string Fields::echo_hint(const Entry& e) const {
  std::vector<std::pair<std::string_view, std::string_view>> names = echo_names_;
  // The echo's rule where no table row names it: a known key and its unit's suffix.
  if (const auto unit = echo_key_unit(e.key)) {
    const std::string_view stem = std::string_view(e.key).substr(0, e.key.size() - unit->first.size());
    if (std::find(known_.begin(), known_.end(), stem) != known_.end()) names.emplace_back(e.key, stem);
  }
  for (const auto& [echo_key, key] : names) {
    if (e.key != echo_key) continue;
    const auto unit = echo_key_unit(echo_key);
    std::string value = e.value.is_scalar() ? e.value.scalar() : "…";
    double number = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (unit && ec == std::errc() && end == value.data() + value.size()) value += unit->second;
    return trf("is the name the JSON output gives {}; a file writes it as {}: {}", field(key), key, value);
  }
  return {};
}

void Fields::finish() {
  if (!is_map_) return;
  const std::vector<int> first = first_lines(entries_);
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (!e.scalar) {
      diag_.fail(e.key_node, path_, std::string(tr("a key must be a plain name")));
      continue;
    }
    const std::string& key = e.key;
    if (first[i] != 0) {
      diag_.fail(e.key_node, field(key), trf("is given twice (first on line {})", first[i]));
      continue;
    }
    if (std::find(used_.begin(), used_.end(), key) != used_.end() ||
        std::find(known_.begin(), known_.end(), key) != known_.end())
      continue;
    if (const std::string hint = echo_hint(e); !hint.empty()) {
      diag_.fail(e.key_node, field(key), hint);
      continue;
    }
    std::vector<std::string_view> candidates = known_;
    for (const std::string& k : used_) candidates.push_back(k);
    const std::string_view near = nearest(key, candidates);
    diag_.fail(e.key_node, field(key),
               near.empty() ? std::string(tr("is not a known field"))
                            : trf("is not a known field; did you mean '{}'?", field(near)));
  }
}

std::optional<int> read_whole_in(Fields& f, std::string_view key, int lo, int hi, bool required) {
  const Range range{static_cast<double>(lo), static_cast<double>(hi)};
  return f.value(key, required, [&](const std::string& t) {
    return std::get<int>(parse_kind(ValueKind::kWhole, range, {}, t, FieldContext{}));
  });
}

namespace {
// The scalars of a list field, each split at commas and passed to `add`
// (false: a problem already reported at the item).
template <class Add>
bool read_items(Fields& f, std::string_view key, const Node& n, std::string_view what, Add add) {
  if (n.is_scalar()) return add(n, n.scalar());
  if (!n.is_sequence()) {
    f.fail(n, f.field(key), trf("must be a list of {0}, or {0} separated by commas", what));
    return false;
  }
  for (std::size_t i = 0; i < n.size(); ++i) {
    const Node item = n[i];
    if (!item.is_scalar()) {
      f.fail(item, f.field(key), trf("must be a list of {}", what));
      return false;
    }
    if (!add(item, item.scalar())) return false;
  }
  return true;
}
}  // namespace

std::optional<std::vector<std::string>> read_list(Fields& f, std::string_view key) {
  const Node n = f.get(key, false);
  if (!n.defined()) return std::nullopt;
  std::vector<std::string> out;
  const bool ok = read_items(f, key, n, tr("ids"), [&](const Node& item, const std::string& text) {
    try {
      for (std::string& id : split_ids(text)) out.push_back(std::move(id));
      return true;
    } catch (const std::invalid_argument& e) {
      f.fail(item, f.field(key), e.what());
      return false;
    }
  });
  return ok ? std::optional(std::move(out)) : std::nullopt;
}

std::optional<std::vector<double>> read_numbers(Fields& f, std::string_view key, const Range& range) {
  const Node n = f.get(key, false);
  if (!n.defined()) return std::nullopt;
  std::vector<double> out;
  const bool ok = read_items(f, key, n, tr("numbers"), [&](const Node& item, const std::string& text) {
    try {
      const auto xs = std::get<std::vector<double>>(parse_kind(ValueKind::kNumbers, range, {}, text, FieldContext{}));
      out.insert(out.end(), xs.begin(), xs.end());
      return true;
    } catch (const std::invalid_argument& e) {
      f.fail(item, f.field(key), e.what());
      return false;
    }
  });
  return ok ? std::optional(std::move(out)) : std::nullopt;
}

Node section(Fields& parent, std::string_view key) {
  Node n = parent.get(key, false);
  return n.defined() ? n : Node::new_map();
}

namespace {
// "0xFF" for the first byte of `s` that is not UTF-8, "" when all are.
std::string non_utf8_byte(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) return fmt::format("0x{:02X}", static_cast<unsigned char>(s[i]));
    i += len;
  }
  return {};
}

// `s` with every byte that is not UTF-8 written as \xFF, for messages.
std::string printable(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence(s, i);
    if (len == 0) out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i]));
    else out.append(s.substr(i, len));
    i += len == 0 ? 1 : len;
  }
  return out;
}
}  // namespace

// --set a.b.c=VALUE: the value lands in the YAML tree before it is read, so it
// is checked exactly like the file's own values.
void apply_sets(Node& root, const std::vector<std::string>& sets, Diagnostics& diag,
                const std::vector<std::string>* typed) {
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const std::string& s = sets[i];
    const std::string& shown = typed && typed->size() == sets.size() ? (*typed)[i] : s;
    if (const std::string bad = non_utf8_byte(s); !bad.empty()) {
      diag.fail(SourceLocation{"--set " + printable(shown)}, "",
                trf("is not UTF-8 text (byte {}): give text in UTF-8, as a file must be", bad));
      continue;
    }
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) {
      diag.fail(SourceLocation{"--set " + shown}, "", std::string(tr("expected path.to.field=VALUE")));
      continue;
    }
    const std::string path = s.substr(0, eq);
    const std::string value = s.substr(eq + 1);
    std::vector<std::string> keys;
    std::size_t start = 0;
    while (true) {
      const auto dot = path.find('.', start);
      keys.push_back(path.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    if (std::any_of(keys.begin(), keys.end(), [](const std::string& k) { return k.empty(); })) {
      diag.fail(SourceLocation{"--set " + shown}, "", std::string(tr("the path has an empty part")));
      continue;
    }
    // KEY=null (as the JSON echo writes a field left to its default): the
    // field as if the file did not give it. No section is made for it.
    const bool unset = value == "null";
    Node node = root;
    bool ok = true;
    for (std::size_t k = 0; ok && k + 1 < keys.size(); ++k) {
      const Node next = node.child(keys[k]);
      if (next.defined() && !next.is_null() && !next.is_map()) {
        diag.fail(SourceLocation{"--set " + shown}, path, trf("{} is not a section", keys[k]));
        ok = false;
      } else if (unset && !next.is_map()) {
        diag.add_unset_elsewhere(path, shown);  // no such section: the field is not given already
        ok = false;
      } else {
        node = node.ensure_map(keys[k]);
      }
    }
    if (!ok) continue;
    if (unset && node.child(keys.back()).is_map()) {
      // Its fields one by one: a section dropped whole would drop a --set into it too.
      diag.fail(SourceLocation{"--set " + shown}, path,
                trf("is a section: give its fields back to their defaults one by one ({}.FIELD=null)", path));
      continue;
    }
    if (unset) {
      node.unset(keys.back());
      diag.add_override(path, shown);
      continue;
    }
    // A fresh node (not an assignment into the file's node), so that it has no
    // file position and problems with it are reported at --set.
    node.replace_scalar(keys.back(), value);
    diag.add_override(path, shown);
  }
}

Node node_at(const Node& root, std::string_view path) {
  Node node = root;
  while (!path.empty() && node.is_map()) {
    const std::size_t dot = path.find('.');
    const std::string_view key = path.substr(0, dot);
    const Node next = node.child(key);
    if (!next.defined()) break;
    node = next;
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  }
  return node;
}

std::string item_path(const std::string& list, std::size_t index) { return fmt::format("{}[{}]", list, index); }

}  // namespace gpuplan::detail
