// gpuplan serve against published serving measurements
// (tests/data/published-serving.yaml): each run's model, GPU, tensor parallel,
// batch and lengths go through the serving model with every other input at
// its default, and one replica's output tokens a second are set beside the
// published figure.
//
//   validate_serving RUNS.yaml              the table, the median and worst error
//   validate_serving RUNS.yaml --check W N X  exit 1 unless at least N held-out runs (no
//                                             default was read from them) are within ±W%
//                                             and every run within ±X%
//
// Error = gpuplan's time a token ÷ the published time − 1 (positive: gpuplan
// is slower), i.e. published tokens/s ÷ gpuplan's − 1.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "gpuplan/context.h"
#include "gpuplan/error.h"
#include "gpuplan/serving.h"
#include "gpuplan/serving_input.h"
#include "gpuplan/training.h"

namespace {

using namespace gpuplan;

struct Row {
  std::string id, gpu;
  bool calibration = false;
  int tp = 1, batch = 1;
  double published = 0, predicted = 0, error = 0;
  std::string bound, note;
};

std::string scalar(const YAML::Node& n, const char* key) {
  if (!n[key]) throw std::runtime_error(fmt::format("a run lacks {}", key));
  return n[key].Scalar();
}

Row run_one(const YAML::Node& r, const Context& ctx) {
  Row row;
  row.id = scalar(r, "id");
  row.gpu = scalar(r, "gpu");
  row.calibration = r["calibration"] && r["calibration"].Scalar() == "true";
  row.tp = std::stoi(scalar(r, "tp"));
  row.batch = std::stoi(scalar(r, "batch"));
  row.published = std::stod(scalar(r, "output_tokens_per_second"));
  // The facts as --set, so that the defaults come from the serving file's rows.
  std::vector<std::string> sets;
  for (const auto& kv : r["model"]) sets.push_back("model." + kv.first.Scalar() + "=" + kv.second.Scalar());
  sets.push_back("traffic.prompt_tokens=" + scalar(r, "prompt_tokens"));
  sets.push_back("traffic.output_tokens=" + scalar(r, "output_tokens"));
  const ResolvedServing rs = load_serving("", sets, ctx);
  const Gpu* g = ctx.catalog().find_gpu(row.gpu);
  if (!g) throw std::runtime_error(fmt::format("{}: no GPU {} in the catalog", row.id, row.gpu));
  const InstanceShape inst = server_shape(*g, 8, BytesPerSecond(0), "none");
  const ReplicaShape shape{g, row.tp, inst.intra, inst.intra_name};
  const Serving& s = rs.serving;
  const ReplicaRun run = replica_at(s.model, s.traffic, s.efficiency, shape, row.batch);
  if (!run.fits) throw std::runtime_error(fmt::format("{}: does not fit on TP{}", row.id, row.tp));
  // Timed at the published batch even where gpuplan's memory_share (90%) holds fewer: the engine used more.
  if (run.max_batch < row.batch) row.note = fmt::format(", more than serve.memory_share holds ({})", run.max_batch);
  row.predicted = run.output_tokens_per_second;
  row.error = row.published / row.predicted - 1;
  row.bound = run.decode_memory_bound ? "memory" : "compute";
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: validate_serving RUNS.yaml [--check W N X]\n");
    return 2;
  }
  try {
    GlobalOptions o;
    o.today = "2026-12-02";
    const Context ctx = make_context(o);
    std::vector<Row> rows;
    for (const YAML::Node& r : YAML::LoadFile(argv[1])["runs"]) rows.push_back(run_one(r, ctx));
    fmt::print("{:<42} {:<9} {:>3} {:>5} {:>10} {:>10} {:>7}  {}\n", "run", "gpu", "TP", "batch", "published",
               "gpuplan", "error", "decode");
    std::vector<double> errors;
    for (const Row& r : rows) {
      fmt::print("{:<42} {:<9} {:>3} {:>5} {:>10.1f} {:>10.1f} {:>+6.1f}%  {}{}{}\n", r.id, r.gpu, r.tp, r.batch,
                 r.published, r.predicted, r.error * 100, r.bound, r.calibration ? " (calibration)" : "", r.note);
      errors.push_back(std::abs(r.error));
    }
    std::sort(errors.begin(), errors.end());
    const double median =
        errors.size() % 2 ? errors[errors.size() / 2] : (errors[errors.size() / 2 - 1] + errors[errors.size() / 2]) / 2;
    const long held_out = std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.calibration; });
    fmt::print("\n{} runs ({} held out): median |error| {:.1f}%, worst {:.1f}%\n", rows.size(), held_out, median * 100,
               errors.back() * 100);
    if (argc >= 6 && std::string(argv[2]) == "--check") {
      const double bound = std::stod(argv[3]) / 100, worst = std::stod(argv[5]) / 100;
      const long need = std::stol(argv[4]);
      const long within = std::count_if(rows.begin(), rows.end(),
                                        [&](const Row& r) { return !r.calibration && std::abs(r.error) <= bound; });
      if (errors.back() > worst || within < need) {
        fmt::print("FAIL: need {} held-out runs within ±{:g}% ({} are) and every run within ±{:g}%\n", need,
                   bound * 100, within, worst * 100);
        return 1;
      }
      fmt::print("ok: {} held-out runs within ±{:g}%, every run within ±{:g}%\n", within, bound * 100, worst * 100);
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "validate_serving: {}\n", e.what());
    return 1;
  }
  return 0;
}
