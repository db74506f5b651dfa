// `gpuplan catalog validate FILE…`: every problem of every file, each with
// its file, line, column and field. Files are checked in order against the
// built-in catalog (unless --no-default-catalog) and the files before them,
// exactly as --catalog would merge them.
#pragma once

#include <string>
#include <vector>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/report.h"

namespace gpuplan {

struct ValidationResult {
  std::vector<InputError> problems{};  ///< all files, in order
  Report report{};                     ///< one row per file: counts and status
};

/// `today`: records dated after it are problems.
ValidationResult validate_catalogs(const std::vector<std::string>& files, bool with_builtin, Date today);

}  // namespace gpuplan
