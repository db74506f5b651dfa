// Reading a GNU gettext .po file: used at build time to compile the Chinese
// catalog into the binary (lib/codegen/po_codegen.cc), and by its tests.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuplan {

/// A .po file's entries: msgid and msgstr unescaped; the header and fuzzy
/// entries left out. Throws std::invalid_argument naming the line of a syntax error.
std::vector<std::pair<std::string, std::string>> parse_po(std::string_view text);

}  // namespace gpuplan
