#include "gpuplan/po.h"

#include <fmt/format.h>

#include <stdexcept>

namespace gpuplan {

namespace {

// The body of a quoted .po string, escapes resolved.
std::string unquote(std::string_view line, std::size_t number) {
  const std::size_t open = line.find('"');
  const std::size_t close = line.rfind('"');
  if (open == std::string_view::npos || close == open)
    throw std::invalid_argument(fmt::format("line {}: expected a quoted string", number));
  std::string out;
  for (std::size_t i = open + 1; i < close; ++i) {
    if (line[i] != '\\' || i + 1 == close) {
      out += line[i];
      continue;
    }
    switch (line[++i]) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      default:
        out += line[i];  // a quote or a backslash
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_po(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> entries;
  std::string id, str;
  std::string* open = nullptr;  // the string continuation lines extend
  bool fuzzy = false, have_id = false;
  auto finish = [&] {
    if (have_id && !fuzzy && !id.empty() && !str.empty()) entries.emplace_back(std::move(id), std::move(str));
    id.clear(), str.clear(), open = nullptr, fuzzy = false, have_id = false;
  };
  std::size_t number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) {
      finish();
    } else if (line.starts_with("#,")) {
      if (have_id) finish();
      fuzzy = line.find("fuzzy") != std::string_view::npos;
    } else if (line.starts_with("#")) {
      if (have_id && !str.empty()) finish();
    } else if (line.starts_with("msgid ")) {
      if (have_id) finish();
      id = unquote(line, number), open = &id, have_id = true;
    } else if (line.starts_with("msgstr ")) {
      if (!have_id) throw std::invalid_argument(fmt::format("line {}: msgstr without msgid", number));
      str = unquote(line, number), open = &str;
    } else if (line.starts_with("\"") && open != nullptr) {
      *open += unquote(line, number);
    } else {
      throw std::invalid_argument(fmt::format("line {}: not a .po line: {}", number, line));
    }
    if (end == text.size()) break;
  }
  finish();
  return entries;
}

}  // namespace gpuplan
