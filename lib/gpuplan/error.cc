#include "gpuplan/error.h"

#include <fmt/format.h>

namespace gpuplan {

std::string to_string(const SourceLocation& where) {
  if (where.line <= 0) return where.file;
  if (where.column <= 0) return fmt::format("{}:{}", where.file, where.line);
  return fmt::format("{}:{}:{}", where.file, where.line, where.column);
}

namespace {
std::string compose(const SourceLocation& where, const std::string& field, const std::string& message) {
  std::string out = to_string(where);
  if (!out.empty()) out += ": ";
  if (!field.empty()) out += field + ": ";
  return out + message;
}
}  // namespace

InputError::InputError(SourceLocation where, std::string field, const std::string& message)
    : std::runtime_error(compose(where, field, message)),
      where_(std::move(where)),
      field_(std::move(field)),
      message_(message) {}

InputErrors::InputErrors(std::vector<InputError> problems)
    : std::runtime_error(problems.empty() ? std::string("no problems") : problems.front().what()),
      problems_(std::move(problems)) {}

}  // namespace gpuplan
