#include "gpuplan/i18n.h"

#include <algorithm>
#include <stdexcept>

namespace gpuplan {

// The text of lib/po/zh_CN.po, compiled in (lib/embed_po.cmake).
extern const std::string_view kChinesePo;

namespace {

Language current = Language::kEnglish;

bool starts_with_zh(std::string_view s) {
  return s.size() >= 2 && (s[0] == 'z' || s[0] == 'Z') && (s[1] == 'h' || s[1] == 'H');
}

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

struct Sorted {
  std::vector<std::pair<std::string, std::string>> entries;
  explicit Sorted(std::vector<std::pair<std::string, std::string>> e) : entries(std::move(e)) {
    std::sort(entries.begin(), entries.end());
  }
  const std::string* find(std::string_view id) const {
    const auto it = std::lower_bound(entries.begin(), entries.end(), id,
                                     [](const auto& e, std::string_view k) { return e.first < k; });
    return it != entries.end() && it->first == id ? &it->second : nullptr;
  }
};

// Parsed on the first Chinese lookup: English output never pays for it.
const Sorted& chinese() {
  static const Sorted catalog(parse_po(kChinesePo));
  return catalog;
}

}  // namespace

void set_language(Language language) { current = language; }
Language language() { return current; }

Language parse_language(std::string_view name) {
  if (starts_with_zh(name) || name == "chinese") return Language::kChinese;
  if (name.starts_with("en") || name == "C" || name == "POSIX") return Language::kEnglish;
  throw std::invalid_argument(fmt::format("unknown language '{}' (en or zh)", name));
}

Language language_from_environment(const char* lc_all, const char* lc_messages, const char* lang) {
  for (const char* v : {lc_all, lc_messages, lang})
    if (v != nullptr && *v != '\0') return starts_with_zh(v) ? Language::kChinese : Language::kEnglish;
  return Language::kEnglish;
}

std::string_view tr(std::string_view msgid) {
  if (current == Language::kEnglish) return msgid;
  const std::string* s = chinese().find(msgid);
  return s != nullptr ? std::string_view(*s) : msgid;
}

bool has_translation(std::string_view msgid) { return chinese().find(msgid) != nullptr; }

const std::vector<std::pair<std::string, std::string>>& chinese_catalog() { return chinese().entries; }

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
