// Build-time tool: reads lib/po/zh_CN.po and writes its translated messages
// as a C++ array sorted by msgid, so a Chinese run looks a message up with a
// binary search and parses nothing (SPEC "Speed and size"). A malformed .po
// or a message given twice fails the build naming the line or the message.
//
//   gpuplan_po_codegen IN.po DISPLAY_NAME OUT.cc
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "codegen/cxx_literal.h"
#include "gpuplan/po.h"

namespace {

std::string lit(std::string_view s) { return gpuplan::codegen::cxx_literal(s) + "sv"; }

std::string generate(std::string_view po, const std::string& name) {
  auto entries = gpuplan::parse_po(po);
  std::sort(entries.begin(), entries.end());
  const auto twin = std::adjacent_find(entries.begin(), entries.end(),
                                       [](const auto& a, const auto& b) { return a.first == b.first; });
  if (twin != entries.end()) throw std::invalid_argument(fmt::format("msgid \"{}\" is given twice", twin->first));
  std::string out = fmt::format(
      "// Generated from {} by lib/codegen/po_codegen.cc: do not edit.\n"
      "#include \"gpuplan/i18n.h\"\n"
      "namespace gpuplan {{\n"
      "using namespace std::string_view_literals;\n"
      "extern const Message kChineseMessages[];\n"
      "extern const std::size_t kChineseMessageCount;\n"
      "const Message kChineseMessages[] = {{\n",
      name);
  for (const auto& [id, text] : entries) out += fmt::format("    {{{}, {}}},\n", lit(id), lit(text));
  out += fmt::format("}};\nconst std::size_t kChineseMessageCount = {};\n}}  // namespace gpuplan\n", entries.size());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gpuplan_po_codegen IN.po DISPLAY_NAME OUT.cc\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  try {
    const std::string code = generate(text.str(), argv[2]);
    std::ofstream out(argv[3], std::ios::binary);
    out << code;
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", argv[3]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
    return 1;
  }
  return 0;
}
