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
#include <unistd.h>

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

TEST_CASE("a FIFO is read as a stream; with no writer it reads empty, without blocking", "[io]") {
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

TEST_CASE("a released temporary file stays; an abandoned one is removed", "[io]") {
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

TEST_CASE("one parse for one document; a second, however it starts, is still found", "[io][yaml]") {
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
