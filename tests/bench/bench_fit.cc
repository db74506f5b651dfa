// Reads a 1,000,000-row CSV file and fits the USL to it, as `gpuplan fit
// scaling` does (a stream into per-GPU-count accumulators), and reports rows
// per second: the library's share of the whole command, which
// bench_commands times end to end. Target: read + fit <= 0.05 s.
//
//   build/release/tests/bench/bench_fit [rows]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <string>
#include <unistd.h>

#include "gpuplan/csv.h"
#include "gpuplan/fit.h"

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 1'000'000;
  // Synthetic measurements: USL with λ = 1000, σ = 0.03, κ = 0.0005, 2% noise, N = 1..128.
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> gpus(1, 128);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::string csv = "gpus,throughput\n";
  csv.reserve(static_cast<std::size_t>(rows) * 16);
  for (long i = 0; i < rows; ++i) {
    const double n = gpus(rng);
    const double x = 1000 * n / (1 + 0.03 * (n - 1) + 0.0005 * n * (n - 1)) * noise(rng);
    csv += fmt::format("{:g},{:.2f}\n", n, x);
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / fmt::format("bench-fit-{}.csv", ::getpid())).string();
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fwrite(csv.data(), 1, csv.size(), f);
  std::fclose(f);
  const auto t0 = std::chrono::steady_clock::now();
  gpuplan::CsvStream in(path);
  gpuplan::ScalingSample sample;
  while (in.next()) sample.add(in.number(0), in.number(1), in.line());
  const auto t1 = std::chrono::steady_clock::now();
  const gpuplan::ScalingFit fit = gpuplan::fit_scaling(sample, gpuplan::ScalingModel::kUsl);
  const auto t2 = std::chrono::steady_clock::now();
  std::filesystem::remove(path);
  const double read_s = std::chrono::duration<double>(t1 - t0).count();
  const double fit_s = std::chrono::duration<double>(t2 - t1).count();
  fmt::print(
      "rows {}: read {:.3f} s, USL fit {:.4f} s ({} iterations), total {:.3f} s = {:.1f} M rows/s "
      "(target: total <= 0.05 s)\n",
      rows, read_s, fit_s, fit.iterations, read_s + fit_s, static_cast<double>(rows) / (read_s + fit_s) / 1e6);
  fmt::print("fit: lambda {:.2f} sigma {:.5f} kappa {:.6f} (true 1000, 0.03, 0.0005)\n", fit.lambda, fit.sigma,
             fit.kappa);
  return 0;
}
