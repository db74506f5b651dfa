#include "gpuplan/i18n.h"

#include <algorithm>
#include <stdexcept>

namespace gpuplan {

// lib/po/zh_CN.po's translated entries sorted by msgid, compiled in by
// lib/codegen/po_codegen.cc: a lookup costs a binary search and no parsing.
extern const Message kChineseMessages[];
extern const std::size_t kChineseMessageCount;

namespace {

Language current = Language::kEnglish;

bool starts_with_zh(std::string_view s) {
  return s.size() >= 2 && (s[0] == 'z' || s[0] == 'Z') && (s[1] == 'h' || s[1] == 'H');
}

std::span<const Message> chinese() { return {kChineseMessages, kChineseMessageCount}; }

const std::string_view* find(std::string_view id) {
  const std::span<const Message> all = chinese();
  const auto it =
      std::lower_bound(all.begin(), all.end(), id, [](const Message& m, std::string_view k) { return m.id < k; });
  return it != all.end() && it->id == id ? &it->text : nullptr;
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
  const std::string_view* s = find(msgid);
  return s != nullptr ? *s : msgid;
}

bool has_translation(std::string_view msgid) { return find(msgid) != nullptr; }

std::span<const Message> chinese_catalog() { return chinese(); }

}  // namespace gpuplan
