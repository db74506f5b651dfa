#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
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

TEST_CASE("a FIFO given as input is refused without blocking", "[io]") {
  TempDir d;
  const fs::path fifo = d.path / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_input_file(fifo.string()), Contains("is not a regular file"));
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
