// Errors that reach the user. Bad input is an InputError that knows where it
// came from (file, line, column, field); the text it carries is exactly what
// follows "gpuplan: " on stderr (SPEC "Output contract"). Low-level parsers
// (units, money) throw std::invalid_argument with only the *what*; the reader
// that knows the location rethrows it as an InputError.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuplan {

/// A place in an input. Lines and columns are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file{};
  int line = 0;
  int column = 0;
};

/// "FILE:LINE:COL" with the unknown parts left out ("FILE", "FILE:LINE").
std::string to_string(const SourceLocation& where);

/// Bad input: a file, a value or a flag. Maps to exit code 3.
class InputError : public std::runtime_error {
 public:
  /// what() is "FILE:LINE:COL: field: message" (parts that are empty are left out).
  InputError(SourceLocation where, std::string field, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string message_;
};

/// Several input problems found in one pass (a catalog with three bad prices
/// reports all three). what() is the first; problems() has them all, in order.
class InputErrors : public std::runtime_error {
 public:
  explicit InputErrors(std::vector<InputError> problems);
  const std::vector<InputError>& problems() const { return problems_; }

 private:
  std::vector<InputError> problems_;
};

/// The data cannot determine a fit (too few points, all x equal, ...). Exit 3.
class FitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A command-line usage problem that CLI11 cannot see (conflicting flags). Exit 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpuplan
