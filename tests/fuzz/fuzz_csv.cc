// Fuzzes the CSV readers and the fits on what they read: text -> CsvTable ->
// numbers -> Amdahl/USL and progress fits; and, differentially, the streamed
// reader (CsvStream, with its one-pass record split and exact decimal fast
// path) against the whole-text table: both read the same records with the
// same cells, lines and numbers, or both refuse the input (the stream after
// yielding the records before the line it refuses).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "fuzz_common.h"
#include "gpuplan/csv.h"
#include "gpuplan/error.h"
#include "gpuplan/fit.h"
#include "gpuplan/units.h"

namespace {

[[noreturn]] void disagree(const char* what) {
  std::fprintf(stderr, "CsvStream and CsvTable disagree: %s\n", what);
  std::abort();
}

// A cell's number as the general parser reads it, or none.
std::optional<double> general(std::string_view cell) {
  try {
    if (cell.empty()) return std::nullopt;
    return gpuplan::parse_number(cell);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void compare_readers(const std::string& text, const std::string& path) {
  std::optional<gpuplan::CsvTable> table;
  try {
    table = gpuplan::CsvTable::parse(text, "fuzz.csv");
  } catch (const gpuplan::InputError&) {
  }
  bool streamed = true;
  std::size_t row = 0;
  try {
    gpuplan::CsvStream s(path);
    if (table && s.header() != table->header()) disagree("header");
    while (s.next()) {
      if (!table) continue;  // a stream yields records before the line it refuses: it must still refuse
      if (row >= table->rows()) disagree("a record only the stream reads");
      if (s.line() != table->line(row)) disagree("line number");
      for (std::size_t c = 0; c < s.header().size(); ++c) {
        if (s.cell(c) != table->text(s.header()[c])[row]) disagree("cell text");
        std::optional<double> fast;
        try {
          fast = s.number(c);
        } catch (const gpuplan::InputError&) {
        }
        const std::optional<double> slow = general(s.cell(c));
        if (fast.has_value() != slow.has_value() || (fast && *fast != *slow)) disagree("number");
      }
      ++row;
    }
  } catch (const gpuplan::InputError&) {
    streamed = false;
  }
  if (streamed != table.has_value()) disagree("one refuses what the other reads");
  if (streamed && row != table->rows()) disagree("record count");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // Lines over 1 MiB are refused by the stream alone; fuzz inputs are far shorter.
  if (size < (1u << 20)) compare_readers(text, gpuplan_fuzz::as_file(data, size));
  gpuplan_fuzz::expect_handled([&] {
    const gpuplan::CsvTable t = gpuplan::CsvTable::parse(text, "fuzz.csv");
    std::vector<std::vector<double>> columns;
    for (const std::string& name : t.header()) {
      try {
        columns.push_back(t.numbers(name));
      } catch (const gpuplan::InputError&) {
      }
    }
    if (columns.size() >= 2 && columns[0].size() == columns[1].size()) {
      bool positive = true;
      for (const auto& c : columns)
        for (double v : c) positive = positive && v > 0;
      if (positive) {
        const gpuplan::ScalingFit f = gpuplan::fit_scaling(columns[0], columns[1], gpuplan::ScalingModel::kUsl);
        gpuplan_fuzz::expect_finite(f.lambda, "lambda");
        const auto outliers =
            gpuplan::scaling_outliers(gpuplan::ScalingSample::from_rows(columns[0], columns[1]), f.model);
        if (outliers.without) gpuplan_fuzz::expect_finite(outliers.without->lambda, "lambda without outliers");
      }
      gpuplan::fit_progress(columns[0], columns[1]);
    }
  });
  return 0;
}
