// The build-time code generators' one way to write a text as a C++ string
// literal: a raw string literal cannot hold every text, so quote and
// backslash are escaped and every other byte outside printable ASCII becomes
// a three-digit octal escape (three digits never run on into the next
// character), which keeps the generated sources ASCII and any UTF-8 intact.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace gpuplan::codegen {

inline std::string cxx_literal(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += fmt::format("\\{}", c);
    else if (u < 0x20 || u >= 0x7F) out += fmt::format("\\{:03o}", u);
    else out += c;
  }
  return out + "\"";
}

}  // namespace gpuplan::codegen
