// Fuzzes the CSV reader and the fits on what it reads: text -> CsvTable ->
// numbers -> Amdahl/USL and progress fits.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "gpuplan/csv.h"
#include "gpuplan/fit.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
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
      }
      gpuplan::fit_progress(columns[0], columns[1]);
    }
  });
  return 0;
}
