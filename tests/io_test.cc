#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <csignal>
#include <sys/stat.h>
#include <sys/wait.h>
#include <chrono>
#include <thread>
#include <random>
#include <set>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "gpuplan/error.h"
#include "gpuplan/io.h"
#include "gpuplan/yaml_reader.h"

using namespace gpuplan;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "gpuplan-io-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { fs::remove_all(path); }
};
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}
}  // namespace

TEST_CASE("output files are written whole and replace the old file atomically", "[io]") {
  TempDir d;
  const fs::path out = d.path / "report.csv";
  write_output_file(out.string(), "first\r\n", {});
  CHECK(slurp(out) == "first\r\n");
  write_output_file(out.string(), "second\r\n", {});
  CHECK(slurp(out) == "second\r\n");
  // No temporary files are left behind.
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator()) == 1);
}

TEST_CASE("an output path that is an input is refused, even under another name", "[io]") {
  TempDir d;
  const fs::path in = d.path / "catalog.yaml";
  write_output_file(in.string(), "precious", {});
  const fs::path link = d.path / "alias.yaml";
  fs::create_hard_link(in, link);
  CHECK_THROWS_WITH(write_output_file(link.string(), "clobber", {in.string()}),
                    Contains("output would overwrite the input"));
  CHECK(slurp(in) == "precious");
}

TEST_CASE("an output path that is a directory or unwritable fails and writes nothing", "[io]") {
  TempDir d;
  CHECK_THROWS_WITH(write_output_file(d.path.string(), "x", {}), Contains("output path is a directory"));
  CHECK_THROWS_AS(write_output_file((d.path / "no/such/dir/file").string(), "x", {}), InputError);
}

TEST_CASE("writing to a full device is an error", "[io]") {
  if (!fs::exists("/dev/full")) return;
  CHECK_THROWS_WITH(write_output_file("/dev/full", std::string(1 << 16, 'x'), {}), Contains("no space left"));
}

TEST_CASE("a FIFO is read as a stream — with no writer it reads empty, without blocking", "[io]") {
  TempDir d;
  const fs::path fifo = d.path / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(read_input_file(fifo.string()).empty());
  // A writer, as `compare <(…)` has: the whole text arrives, in any number of writes.
  const std::string text = "job:\n  parameters: 7B\n" + std::string(200000, '#') + "\n";
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    for (std::size_t i = 0; i < text.size(); i += 4096) out << text.substr(i, 4096) << std::flush;
  });
  std::string got;
  // The reader may open before the writer: it then reads empty, so retry until the text comes.
  for (int tries = 0; got.empty() && tries < 5000; ++tries) {
    got = read_input_file(fifo.string());
    if (got.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  writer.join();
  CHECK(got == text);
}

TEST_CASE("a directory or block device is not an input", "[io]") {
  TempDir d;
  CHECK_THROWS_WITH(read_input_file(d.path.string()), Contains("is a directory"));
}

TEST_CASE("a read-only output file is kept, even for root", "[io]") {
  TempDir d;
  const fs::path out = d.path / "budget.csv";
  write_output_file(out.string(), "old\n", {});
  fs::permissions(out, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  CHECK_THROWS_WITH(write_output_file(out.string(), "new\n", {}), Contains("is read-only"));
  CHECK(slurp(out) == "old\n");
  CHECK(std::distance(fs::directory_iterator(d.path), fs::directory_iterator{}) == 1);  // no temp file left
}

TEST_CASE("an empty output path is named as such", "[io]") {
  CHECK_THROWS_WITH(write_output_file("", "x", {}), Contains("output file name is empty"));
}

TEST_CASE("a temporary output file is removed when SIGTERM or SIGINT arrives while it exists", "[io]") {
  for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
    TempDir d;
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      // The child: a writer half-way through its temporary file, then the
      // signal, with the default actions gpuplan starts with (not Catch's).
      for (const int s : {SIGTERM, SIGINT, SIGHUP}) ::signal(s, SIG_DFL);
      TempFileGuard guard;
      std::string tmpl = (d.path / ".gpuplan-XXXXXX").string();
      const int fd = guard.create(tmpl);
      if (fd < 0 || ::write(fd, "half", 4) != 4) ::_exit(10);
      ::raise(sig);
      ::_exit(11);  // not reached: the signal still terminates
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);
    CHECK(fs::is_empty(d.path));
  }
}

TEST_CASE("a released temporary file stays — an abandoned one is removed", "[io]") {
  TempDir d;
  std::string kept = (d.path / ".gpuplan-XXXXXX").string(), dropped = kept;
  {
    TempFileGuard a;
    const int fd = a.create(kept);
    REQUIRE(fd >= 0);
    ::close(fd);
    a.release();
  }
  {
    TempFileGuard b;
    const int fd = b.create(dropped);
    REQUIRE(fd >= 0);
    ::close(fd);
  }
  CHECK(fs::exists(kept));
  CHECK_FALSE(fs::exists(dropped));
}

TEST_CASE("inputs larger than the cap are refused", "[io]") {
  TempDir d;
  const fs::path big = d.path / "big.yaml";
  write_output_file(big.string(), std::string(2048, 'x'), {});
  CHECK_THROWS_WITH(read_input_file(big.string(), 1024), Contains("is larger than"));
  CHECK(read_input_file(big.string()).size() == 2048);
}

TEST_CASE("an output path that is a symlink replaces the file it points to, not the link", "[io]") {
  TempDir d;
  const fs::path target = d.path / "real.csv";
  const fs::path link = d.path / "link.csv";
  write_output_file(target.string(), "old", {});
  fs::create_symlink(target, link);
  write_output_file(link.string(), "new", {});
  CHECK(fs::is_symlink(link));
  CHECK(slurp(target) == "new");
}

TEST_CASE("one parse for one document — a second, however it starts, is still found", "[io][yaml]") {
  // The text is parsed again to count documents only when it may hold another
  // (a marker, a directive, content after the last node, a ',' on its line):
  // every way to a second document must still be refused.
  const auto documents = [](const std::string& text) {
    detail::Diagnostics diag("t.yaml");
    const auto doc = detail::load_document(text, diag);
    return std::pair{doc.has_value(), diag.count()};
  };
  CHECK(documents("name: x\nhorizon: 12mo  # a, b\n") == std::pair{true, std::size_t{0}});
  CHECK(documents("name: a, b\nhorizon: 12mo\n") == std::pair{true, std::size_t{0}});
  for (const char* text : {"name: x\n---\nname: y\n", "name: x\n...\nname: y\n", ",\n", "- a\n,\n", "- a\n- b\n,\n"}) {
    INFO(text);
    CHECK(documents(text).second > 0);
  }
}

TEST_CASE("aliases: the expansion is counted from the events, so a bomb is refused at once", "[io][yaml]") {
  // Levels of ten aliases each: level k stands for 10^(k+1) values.
  const auto bomb = [](int levels) {
    std::string text = "x0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
    for (int k = 1; k < levels; ++k) {
      text += fmt::format("x{}: &a{} [", k, k);
      for (int i = 0; i < 10; ++i) text += fmt::format("{}*a{}", i ? ", " : "", k - 1);
      text += "]\n";
    }
    return text;
  };
  const auto load = [](const std::string& text) {
    detail::Diagnostics diag("t.yaml");
    const auto doc = detail::load_document(text, diag);
    return std::pair{doc.has_value(), diag.count() == 0 ? std::string() : diag.problems().front().message()};
  };
  // 10 + 100 + … + 10^5 values, and their lists: about 111,000, under the cap of a million.
  CHECK(load(bomb(5)) == std::pair{true, std::string()});
  // 10^6 values and more: refused, and at once (a walk of the expansion took seconds).
  for (const int levels : {6, 9, 30}) {
    INFO(levels);
    const auto [ok, message] = load(bomb(levels));
    CHECK_FALSE(ok);
    CHECK_THAT(message, Contains("expands through aliases"));
  }
  // A text with no alias is not parsed a second time, and a '*' in a value is not an alias.
  CHECK(load("name: '8 * A100'\nnote: a*b\n") == std::pair{true, std::string()});
}

// ---------------------------------------------------------------------------
// shorten_comments: the parser sees the same document, token for token.

namespace {

bool same_tree(const std::string& raw);

// What yaml-cpp makes of a text: the tree with every node's tag, value and
// line:column, or its error with its line:column.
std::string parsed(const std::string& text) {
  std::string out;
  int nodes = 0;  // aliases can make a tree exponential (or a cycle): the first nodes tell
  const auto walk = [&](const auto& self, const YAML::Node& n, int depth) -> void {
    if (depth > 20 || ++nodes > 5000) return;
    const YAML::Mark m = n.Mark();
    out += fmt::format("{}@{}:{} {} ", static_cast<int>(n.Type()), m.line, m.column, n.Tag());
    if (n.IsScalar()) out += "<" + n.Scalar() + ">";
    out += "\n";
    if (n.IsMap())
      for (const auto& kv : n) {
        self(self, kv.first, depth + 1);
        self(self, kv.second, depth + 1);
      }
    else if (n.IsSequence())
      for (const auto& e : n) self(self, e, depth + 1);
  };
  try {
    walk(walk, YAML::Load(text), 0);
  } catch (const YAML::Exception& e) {
    out = fmt::format("error {}:{} {}", e.mark.line, e.mark.column, e.msg);
  }
  return out;
}

void same_document(const std::string& text) {
  const std::string short_text = detail::shorten_comments(text);
  INFO("text:\n" << text << "\nshortened:\n" << short_text);
  CHECK(short_text.size() <= text.size());
  CHECK(std::count(short_text.begin(), short_text.end(), '\n') == std::count(text.begin(), text.end(), '\n'));
  CHECK(parsed(short_text) == parsed(text));
}

// Lines where a '#' is content, or where a comment meets a tricky token.
const std::vector<std::string> kTricky = {
    "notes: |\n  # a heading in a block scalar\n  text # not a comment\n",
    "notes: >-\n  # folded\n\n  more\nnext: 1 # c\n",
    "- |2\n   # kept\n  x\n- y # c\n",
    "a: &x |\n  # anchored block\nb: *x\n",
    "a: !!str |\n  # tagged block\n",
    "name: \"multi\n  # inside a double-quoted scalar\n  end\" # c\n",
    "name: 'it''s\n  # inside a single-quoted scalar\n  end' # c\n",
    "name: \"esc \\\" still open\n  # in\n  \" # c\n",
    "list: [a, 'b\n  # in a quote in a flow list\n  ', c] # c\n",
    "map: {a: 1, # c\n  b: \"x # y\"}\n",
    "plain: first line\n  # a comment ends the plain scalar\n  second\n",
    "plain: first line\n  second # c\n  third\n",
    "name: Qingdao team, 8×A100 (the article's figures) # c\n",
    "name: \"quoted # not a comment\" # but this is\n",
    "name: 'quoted # not' # is\n",
    "url: http://x#frag # comment\n",
    "a: b: c # invalid\n# later\n",
    "? complex\n# c\n: value\n",
    "--- # doc\na: 1 # c\n... # end\n",
    "%YAML 1.2\n---\n# c\na: 1\n",
    "a:\t1 # tab\n# c\n",
    "a: 1 # c\r\n# crlf\r\nb: 2\r\n",
    "- - a # c\n  - b\n# c\n- c\n",
    "  # indented first\nkey:   # c\n  - 1 # c\n",
    "a: 'closed' trailing # c\n",
    "a: \"x\"# glued\n",
    "a: -5 # c\nb: ---x\n",
    "k: v\n#no space\n   #\n#\n",
};

}  // namespace

TEST_CASE("cutting comments leaves the document and every mark as they were", "[io][yaml]") {
  for (const std::string& text : kTricky) same_document(text);
}

TEST_CASE("cutting comments: random documents of tricky lines parse the same", "[io][yaml]") {
  // Lines from the tricky cases, shuffled and re-indented: block scalars,
  // multi-line quotes and comments in every combination of order.
  std::vector<std::string> lines;
  for (const std::string& t : kTricky)
    for (std::size_t pos = 0; pos < t.size();) {
      const std::size_t end = std::min(t.find('\n', pos), t.size());
      lines.push_back(t.substr(pos, end - pos));
      pos = end + 1;
    }
  std::mt19937 rng(18);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text;
    const int n = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int k = 0; k < n; ++k) {
      const std::string& l = lines[std::uniform_int_distribution<std::size_t>(0, lines.size() - 1)(rng)];
      text += std::string(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 2)(rng)) * 2, ' ') + l + "\n";
    }
    same_document(text);
    same_tree(text);  // and where the subset reader takes it, it reads what yaml-cpp reads
  }
}

TEST_CASE("cutting comments: every YAML file of the repository parses the same", "[io][yaml]") {
  int files = 0;
  for (const char* dir : {"examples", "pricing", "tests/data", "tests/fuzz/corpus", "doc"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GPUPLAN_SOURCE_DIR) / dir)) {
      if (!e.is_regular_file() || (e.path().extension() != ".yaml" && e.path().extension() != ".yml" &&
                                   e.path().parent_path().filename().string().find("fuzz") == std::string::npos &&
                                   e.path().string().find("/corpus/") == std::string::npos))
        continue;
      const std::string text = slurp(e.path());
      if (text.size() > 400000) continue;
      INFO(e.path());
      same_document(text);
      ++files;
    }
  CHECK(files > 50);
  // And it does what it is for: the commented example loses most of its comments.
  const std::string example = slurp(fs::path(GPUPLAN_SOURCE_DIR) / "examples/qingdao-8xa100.yaml");
  CHECK(detail::shorten_comments(example).size() < example.size() * 6 / 10);
}

// ---------------------------------------------------------------------------
// read_yaml_subset: where it reads a text, it reads what yaml-cpp reads.

namespace {

// The subset reader's tree in parsed()'s form; nullopt when it leaves the text to yaml-cpp.
std::optional<std::string> subset_parsed(const std::string& text) {
  const auto doc = detail::read_yaml_subset(text, 64);
  if (!doc) return std::nullopt;
  std::string out;
  const auto walk = [&](const auto& self, const detail::Node& n, int depth) -> void {
    if (depth > 20) return;
    const detail::Mark m = n.mark();
    const char* tag = n.is_null() ? "" : n.quoted() ? "!" : "?";
    out += fmt::format("{}@{}:{} {} ", static_cast<int>(n.type()), m.line, m.column, tag);
    if (n.is_scalar()) out += "<" + n.scalar() + ">";
    out += "\n";
    if (n.is_map())
      for (std::size_t i = 0; i < n.size(); ++i) {
        self(self, n.key(i), depth + 1);
        self(self, n.value(i), depth + 1);
      }
    else if (n.is_sequence())
      for (std::size_t i = 0; i < n.size(); ++i) self(self, n[i], depth + 1);
  };
  walk(walk, *doc, 0);
  return out;
}

// Whether the subset reader took `text`; if it did, its tree must be yaml-cpp's.
bool same_tree(const std::string& raw) {
  const std::string text = detail::shorten_comments(raw);
  const auto mine = subset_parsed(text);
  if (!mine) return false;
  INFO("text:\n" << text);
  CHECK(*mine == parsed(text));
  return true;
}

std::vector<fs::path> repository_yaml() {
  std::vector<fs::path> out;
  for (const char* dir : {"examples", "pricing", "tests/data", "tests/fuzz/corpus", "doc"})
    for (const auto& e : fs::recursive_directory_iterator(fs::path(GPUPLAN_SOURCE_DIR) / dir))
      if (e.is_regular_file() &&
          (e.path().extension() == ".yaml" || e.path().extension() == ".yml" ||
           std::set<std::string>{"catalog", "scenario", "job"}.contains(e.path().parent_path().filename().string())))
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("the YAML subset reader: the tricky lines, and the subset's own edges", "[io][yaml]") {
  for (const std::string& text : kTricky) same_tree(text);
  int taken = 0;
  for (const char* text : {"",
                           "# only\n",
                           "a:\n",
                           "a:",
                           "a: 1\nb:\n",
                           "a:\n# c\n",
                           "a:\n  # c\nb: 2",
                           "a: ~\nb: null\nc: 'null'\n",
                           "a:\n- 1\n- 2\nb: 3\n",
                           "- a: 1\n  b: 2\n- c\n-\n- d: \n",
                           "a: [x, 'y z', \"w\", ~, -1]\n",
                           "a: {k: 1, l: 'two', m: -3}\nb: []\nc: {}\n",
                           "a: 'it''s'\n",
                           "  a: 1\n  b:\n    c: 2\n",
                           "a: b # c\n",
                           "a: -5\nb: -x\n",
                           "x y: 1\n",
                           "a: [1, [2, {b: c, d: [e]}], []]\n",
                           "a: 8×A100 (the article)\n",
                           "a:  b  \n",
                           "k: v\nk: w\n",
                           "null: 1\n"}) {
    taken += same_tree(text);
  }
  CHECK(taken >= 20);
  // Outside the subset (left to yaml-cpp): each of these.
  for (const char* text : {"a: 'x\n  y'\n", "a: \"x\\ny\"\n", "a: |\n  t\n", "a: &x 1\nb: *x\n", "---\na: 1\n",
                           "a: 1\n  b: 2\n", "a: [1, [2]\n", "a: {{b: 1}: 2}\n", "? a\n: b\n", "a:\t1\n", "a: 1\r\n",
                           "a: b: c\n", "- - a\n", "a: x\n  y\n", "[1, 2]\n", "'a': 1\n", "a: [1,]\n"}) {
    INFO(text);
    CHECK_FALSE(detail::read_yaml_subset(text, 64));
  }
}

TEST_CASE("the YAML subset reader: every YAML file of the repository, and mutations of them", "[io][yaml]") {
  int files = 0, taken = 0;
  std::vector<std::string> texts;
  for (const fs::path& p : repository_yaml()) {
    std::string text = slurp(p);
    if (text.size() > 400000) continue;
    INFO(p);
    ++files;
    taken += same_tree(text);
    texts.push_back(std::move(text));
  }
  CHECK(files > 40);
  CHECK(taken * 10 >= files * 8);  // most files are in the subset (the rest: hostile cases)
  // The examples and the catalog take the fast path: that is what it is for.
  for (const char* f : {"examples/qingdao-8xa100.yaml", "examples/llama2-7b-pretrain.yaml", "pricing/default.yaml",
                        "examples/serve-7b-4090.yaml", "examples/qingdao-hybrid.yaml"}) {
    INFO(f);
    CHECK(subset_parsed(detail::shorten_comments(slurp(fs::path(GPUPLAN_SOURCE_DIR) / f))));
  }
  // Mutations: a byte changed, inserted or deleted, a line duplicated,
  // deleted or re-indented; whatever the subset reader takes must match.
  std::mt19937 rng(2026);
  const std::string alphabet = " -:#'\"[]{},~\n\tab0?&*!|>%@`.\\";
  int mutated = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string t = texts[rng() % texts.size()];
    if (t.size() > 20000) t.resize(20000);
    for (int k = 1 + static_cast<int>(rng() % 3); k > 0 && !t.empty(); --k) {
      const std::size_t at = rng() % t.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 6) {
        case 0:
          t[at] = c;
          break;
        case 1:
          t.insert(at, 1, c);
          break;
        case 2:
          t.erase(at, 1);
          break;
        case 3: {
          const std::size_t start = t.rfind('\n', at) == std::string::npos ? 0 : t.rfind('\n', at) + 1;
          const std::size_t end = std::min(t.find('\n', at), t.size());
          t.insert(start, t.substr(start, end - start) + "\n");
          break;
        }
        case 4: {
          const std::size_t start = t.rfind('\n', at) == std::string::npos ? 0 : t.rfind('\n', at) + 1;
          t.insert(start, std::string(rng() % 2 ? 2 : 1, ' '));
          break;
        }
        default: {
          const std::size_t start = t.rfind('\n', at) == std::string::npos ? 0 : t.rfind('\n', at) + 1;
          const std::size_t end = std::min(t.find('\n', at), t.size() - 1);
          t.erase(start, end - start + 1);
        }
      }
    }
    mutated += same_tree(t);
  }
  CHECK(mutated > 5000);
}

namespace {

// check_text's rules a character at a time, counting lines and columns as it
// goes: what the word-at-a-time check must agree with. "" when the text passes.
std::string check_text_reference(std::string_view text, int first_line) {
  int line = first_line, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0) return fmt::format("t:{}:{}: is not a text file (it contains NUL bytes)", line, column);
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0)
      return fmt::format("t:{}:{}: is not UTF-8 text (byte 0x{:02X}); save the file as UTF-8", line, column, c);
    if (c == '\n') ++line, column = 1;
    else ++column;
    i += len;
  }
  return "";
}

std::string check_text_outcome(std::string_view text, int first_line) {
  try {
    check_text(text, "t", first_line);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace

TEST_CASE("check_text: the word-at-a-time scan finds the first bad byte where a byte-by-byte one does", "[io]") {
  // Pieces that straddle the eight-byte words at every offset: ASCII runs,
  // newlines, Chinese text, NUL, stray continuation bytes, truncated and
  // overlong sequences, surrogates, bytes past U+10FFFF, DEL and 0x80.
  const std::vector<std::string> pieces = {"a",
                                           "gpus: 8",
                                           "\n",
                                           "价格",
                                           "\xE4\xBB",
                                           std::string(1, '\0'),
                                           "\x80",
                                           "\xC0\xAF",
                                           "\xED\xA0\x80",
                                           "\xF4\x90\x80\x80",
                                           "\x7F",
                                           "\xF0\x9F\x98\x80",
                                           "\xC2\xA0",
                                           "        ",
                                           "\xFF"};
  std::mt19937 rng(2026);
  int bad = 0;
  for (int n = 0; n < 20000; ++n) {
    std::string text;
    const int parts = std::uniform_int_distribution<int>(0, 24)(rng);
    for (int k = 0; k < parts; ++k) {
      // Mostly good pieces, so that many texts pass and the bad byte lands anywhere.
      const std::size_t p = std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng);
      text += (p >= 4 && p != 10 && p != 11 && p != 12 && p != 13 && rng() % 8 != 0) ? pieces[rng() % 4] : pieces[p];
    }
    // A CSV stream checks a line at a time, numbering from that line.
    const int first_line = n % 3 == 0 ? 20001 : 1;
    const std::string want = check_text_reference(text, first_line);
    INFO(fmt::format("{:?}", text));
    REQUIRE(check_text_outcome(text, first_line) == want);
    REQUIRE(plain_ascii(text) == (want.empty() && std::all_of(text.begin(), text.end(), [](char c) {
                                    return static_cast<unsigned char>(c) < 0x80;
                                  })));
    bad += !want.empty();
  }
  CHECK(bad > 2000);  // both outcomes are exercised
  CHECK(bad < 18000);
}
