// Output for people in their language (English or Chinese); output for
// machines never changes with it. The messages are GNU gettext catalogs
// (lib/po/zh_CN.po, kept with xgettext/msgmerge/msgfmt), compiled into the
// binary and looked up here rather than through glibc's gettext(): glibc
// translates only when the user's locale is generated on the machine (a bare
// Debian has C.UTF-8 alone), and `--lang zh` must work wherever gpuplan runs.
//
// Marking (xgettext --keyword=tr --keyword=trf --keyword=tr_noop):
//   tr("text")                  translated now
//   trf("{} GPUs", n)           translated, then formatted (fmt syntax)
//   tr_noop("text")             only marked: a label translated when rendered
#pragma once

#include <fmt/format.h>

#include <span>
#include <string>
#include <string_view>

namespace gpuplan {

enum class Language { kEnglish, kChinese };

/// The language messages are looked up in (the CLI sets it once, before any work).
void set_language(Language language);
Language language();

/// Sets a language until the end of a scope (for text that must be English
/// whatever the reader's language, e.g. to classify a default's reason).
class LanguageScope {
 public:
  explicit LanguageScope(Language l) : saved_(language()) { set_language(l); }
  ~LanguageScope() { set_language(saved_); }
  LanguageScope(const LanguageScope&) = delete;
  LanguageScope& operator=(const LanguageScope&) = delete;

 private:
  Language saved_;
};

/// "en" / "zh" (also "zh_CN", "zh-TW", "english"…); throws std::invalid_argument otherwise.
Language parse_language(std::string_view name);
/// POSIX precedence for messages: LC_ALL, else LC_MESSAGES, else LANG (the first
/// set and non-empty); Chinese when it starts with "zh", else English.
Language language_from_environment(const char* lc_all, const char* lc_messages, const char* lang);

/// The text in the current language: its translation, or itself when it has none.
std::string_view tr(std::string_view msgid);
constexpr const char* tr_noop(const char* msgid) { return msgid; }

/// tr() then fmt::format; the English text is checked at compile time, and a
/// test checks that every translation takes the same arguments and formats.
template <typename... Args>
std::string trf(fmt::format_string<Args...> msgid, Args&&... args) {
  const fmt::string_view id = msgid;
  return fmt::format(fmt::runtime(tr(std::string_view(id.data(), id.size()))), std::forward<Args>(args)...);
}

/// Whether `msgid` has a Chinese translation.
bool has_translation(std::string_view msgid);

/// One translated message: the English text and its translation.
struct Message {
  std::string_view id;
  std::string_view text;
};

/// Every message of the Chinese catalog sorted by id, fuzzy entries left out (tests).
std::span<const Message> chinese_catalog();

}  // namespace gpuplan
