// gpuplan against published training runs (tests/data/published-runs.yaml):
// each run's stated facts go through `estimate` with every other input at its
// default, and the result is set beside what was published.
//
//   validate_runs RUNS.yaml                 the table, the median and worst error
//   validate_runs RUNS.yaml --check M W R   exit 1 unless median |error| <= M%, every run within ±W%,
//                                           at most R runs refused or marked known_gap (printed, and
//                                           left out of the median and worst), each default MFU within 2
//                                           points of its runs' median (the calibration)
//   validate_runs RUNS.yaml --held-out M    exit 1 unless the median |error| is <= M% with each run's
//                                           default MFU taken from the other runs only (leave one out)
//   validate_runs RUNS.yaml --only A,B ...  just those runs (with --check: their own bounds)
//   validate_runs RUNS.yaml --roundtrip     fit mfu (the MFU that reproduces the published figure)
//                                           fed back as --mfu must reproduce it within ±2%
//
// Error = gpuplan's time ÷ the published time − 1 (positive: gpuplan is
// slower, or dearer). A throughput (tokens/s, TFLOP/s per GPU) is compared as
// the steady-state step, without checkpoints or failures (benchmarks have
// neither); GPU-hours as the whole run, with both.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <optional>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "gpuplan/commands/estimate.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/context.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/job.h"
#include "gpuplan/training.h"

namespace {

using namespace gpuplan;

struct Published {
  std::string metric;  // gpu_hours, tokens_per_second_per_gpu, tflops_per_gpu
  double value = 0;
  std::string flops;  // tflops_per_gpu: "palm" or "megatron_eq3"
};

struct Row {
  std::string id;
  Published published;
  std::optional<double> error;      // gpuplan ÷ published − 1, as time
  std::string refused;              // why gpuplan could not estimate it
  std::string gap;                  // known_gap: what the model lacks for it (left out of the bounds, counted)
  double mfu = 0;                   // the default used
  std::optional<double> implied;    // the MFU that reproduces the published figure
  std::optional<double> roundtrip;  // error with --mfu <implied>
  std::string bottleneck, layout;
  std::string form_factor;         // of the GPU: the default MFU's class
  std::string stack;               // job.stack as the row gives it
  double unknown_mfu = 0;          // the default with job.stack left unknown
  std::string job_text;            // the facts, as a job file
  std::optional<double> held_out;  // error with the default taken from the other runs only
};

// Model FLOPs per token as the source counts them, to turn its TFLOP/s into tokens/s.
double source_flops_per_token(const Published& p, const Job& j) {
  const double l = j.arch.layers, h = j.arch.hidden, s = j.sequence_length, v = j.arch.vocab;
  // Narayanan et al. 2021, eq. 3, per token: 96·l·h²·(1 + s/6h + V/16lh), recompute's forward pass included.
  if (p.flops == "megatron_eq3") return 96.0 * l * h * h * (1 + s / (6 * h) + v / (16 * l * h));
  // PaLM (Chowdhery et al. 2022, App. B): 6N + 12·L·s·h.
  return 6.0 * j.parameters + 12.0 * l * s * h;
}

Published read_published(const YAML::Node& run) {
  Published p;
  for (const auto& kv : run["published"]) {
    p.metric = kv.first.as<std::string>();
    p.value = kv.second.as<double>();
  }
  if (run["flops_formula"]) p.flops = run["flops_formula"].as<std::string>();
  return p;
}

// The measured time the published figure stands for, in the same terms as the estimate.
Seconds published_time(const Published& p, const ResolvedJob& rj) {
  const Job& j = rj.job;
  const double gpus = rj.cluster.gpus, tokens_per_step = j.global_batch * j.sequence_length;
  if (p.metric == "gpu_hours") return Seconds(p.value * 3600 / gpus);
  double tps = p.value;  // tokens/s per GPU
  if (p.metric == "tflops_per_gpu") tps = p.value * 1e12 / source_flops_per_token(p, j);
  return Seconds(tokens_per_step / (tps * gpus));
}

Measured measured(const Published& p) { return p.metric == "gpu_hours" ? Measured::kWallTime : Measured::kStepWork; }

Seconds estimated_time(const Published& p, const Estimate& e) {
  return measured(p) == Measured::kWallTime ? e.wall : e.step.work;
}

// What a user does: `fit mfu JOB --tokens-per-second X` (or --gpu-hours),
// the MFU copied from its "--mfu N%" note into `estimate JOB --mfu N%`; the
// error of that estimate against the published figure.
double command_round_trip(const Row& r, const std::string& job_text, const ResolvedJob& rj, const Context& ctx) {
  const std::string file = fmt::format("{}/validate-{}.yaml", std::filesystem::temp_directory_path().string(), r.id);
  std::ofstream(file) << job_text << "\n";
  MfuQuery q;
  q.job_file = file;
  const Published& p = r.published;
  const double tokens_per_step = rj.job.global_batch * rj.job.sequence_length;
  if (p.metric == "gpu_hours") q.gpu_hours = fmt::format("{:.17g}", p.value);
  else q.tokens_per_second = fmt::format("{:.17g}", tokens_per_step / published_time(p, rj).count());
  const Report fit = fit_mfu_report(ctx, q);
  const std::string& note = fit.notes.front();
  const std::size_t at = note.find("--mfu ") + 6;
  EstimateQuery eq;
  eq.job_file = file;
  eq.mfu = note.substr(at, note.find('%', at) - at + 1);
  const EstimateOutcome out = estimate_report(ctx, eq);
  const Json& est = *out.report.extra.find("estimate");
  std::filesystem::remove(file);
  if (p.metric == "gpu_hours") return std::stod(est.find("gpu_hours")->to_text()) / p.value - 1;
  return std::stod(est.find("step_work_seconds")->to_text()) / published_time(p, rj).count() - 1;
}

Row validate(const YAML::Node& run, const Context& ctx, bool roundtrip) {
  Row r;
  r.id = run["id"].as<std::string>();
  r.published = read_published(run);
  if (run["known_gap"]) r.gap = run["known_gap"].as<std::string>();
  YAML::Emitter out;
  out << run["job"];
  const std::string text = out.c_str();
  r.job_text = text;
  try {
    const ResolvedJob rj = load_job(r.id, {}, ctx, JobUse::kEstimate, &text);
    const Estimate e = estimate(rj.job, rj.cluster, rj.layout);
    // A layout gpuplan says cannot run is not an estimate a user would act on:
    // counted as refused, with by how much it misses.
    if (!e.memory.fits) {
      r.refused = fmt::format("does not fit: {:.1f} GB per GPU at best ({}), {:.1f} GB usable",
                              e.memory.total.value() / 1e9, to_string(e.layout), e.memory.usable.value() / 1e9);
      return r;
    }
    const Seconds want = published_time(r.published, rj);
    r.error = estimated_time(r.published, e) / want - 1;
    r.mfu = e.mfu;
    r.form_factor = rj.job.experts > 0 ? "moe" : rj.cluster.gpu->form_factor;  // the default MFU's class
    r.stack = run["job"]["job"]["stack"] ? run["job"]["job"]["stack"].as<std::string>() : "unknown";
    Job unsaid = rj.job;
    unsaid.stack = Stack::kUnknown;
    r.unknown_mfu = default_mfu(*rj.cluster.gpu, unsaid).value;
    r.bottleneck = std::string(e.step.bottleneck);
    r.layout = to_string(e.layout);
    r.implied = implied_mfu(rj.job, rj.cluster, rj.layout, measured(r.published), want);
    if (roundtrip && r.implied) r.roundtrip = command_round_trip(r, text, rj, ctx);
  } catch (const InputErrors& e) {
    r.refused = e.problems().empty() ? e.what() : e.problems().front().message();
  } catch (const std::exception& e) {
    r.refused = e.what();
  }
  return r;
}

// The q-quantile (0–1) by linear interpolation between order statistics.
double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(at);
  return i + 1 < v.size() ? v[i] + (at - static_cast<double>(i)) * (v[i + 1] - v[i]) : v[i];
}
double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

// One group's calibration line; false when its default is more than 2 points from its runs' median.
bool calibrate(const std::string& group, const std::vector<double>& v, double used, bool checked) {
  const double med = median(v);
  fmt::print(
      "calibration, {}: {} runs imply MFU {:.1f}% (median; 16th-84th percentile {:.1f}-{:.1f}%); the default is "
      "{:.1f}%{}\n",
      group, v.size(), med * 100, quantile(v, 0.16) * 100, quantile(v, 0.84) * 100, used * 100,
      checked ? "" : " (not split by job.stack)");
  return !checked || std::abs(used - med) <= 0.02;
}

// The MFU that reproduces each published figure, per GPU class and, where
// the default depends on it, per job.stack: what the defaults
// (efficiency.cc) are taken from. Every class's runs together calibrate the
// default for an unknown stack. Returns false when a default is more than 2
// points from its runs' median.
bool calibration(const std::vector<Row>& rows) {
  bool ok = true;
  for (const char* cls : {"sxm", "pcie", "consumer", "moe"}) {
    std::vector<double> all;
    double unknown = 0;
    for (const Row& r : rows)
      if (r.implied && r.form_factor == cls) {
        all.push_back(*r.implied);
        unknown = r.unknown_mfu;
      }
    if (all.empty()) continue;
    ok = calibrate(fmt::format("{} GPUs", cls), all, unknown, true) && ok;
    for (const char* stack : {"nvidia_recipe", "other"}) {
      std::vector<double> v;
      double used = 0;
      for (const Row& r : rows)
        if (r.implied && r.form_factor == cls && r.stack == stack) {
          v.push_back(*r.implied);
          used = r.mfu;
        }
      if (!v.empty()) ok = calibrate(fmt::format("{} GPUs, {}", cls, stack), v, used, used != unknown) && ok;
    }
  }
  return ok;
}

void print(const std::vector<Row>& rows, bool roundtrip) {
  fmt::print("{:<40} {:>26} {:>8} {:>6} {:>8}{}  {}\n", "run", "published", "error", "MFU", "implied",
             roundtrip ? "  round trip" : "", "bottleneck / layout");
  for (const Row& r : rows) {
    const std::string pub = fmt::format("{:g} {}", r.published.value,
                                        r.published.metric == "gpu_hours"        ? "GPU-h"
                                        : r.published.metric == "tflops_per_gpu" ? "TFLOP/s/GPU"
                                                                                 : "tok/s/GPU");
    if (!r.refused.empty()) {
      fmt::print("{:<40} {:>26} {:>8}  refused: {}\n", r.id, pub, "-", r.refused);
      continue;
    }
    fmt::print("{:<40} {:>26} {:>+7.1f}% {:>5.1f}% {:>7}{}  {}; {}{}\n", r.id, pub, *r.error * 100, r.mfu * 100,
               r.implied ? fmt::format("{:.1f}%", *r.implied * 100) : "-",
               roundtrip ? (r.roundtrip ? fmt::format("  {:>+9.3f}%", *r.roundtrip * 100) : "          -") : "",
               r.bottleneck, r.layout, r.gap.empty() ? "" : "  [known gap: " + r.gap + "]");
  }
}

// The runs a row's default MFU comes from: its class, and its job.stack
// where the class's default depends on it.
std::string default_group(const Row& r) {
  return r.mfu != r.unknown_mfu ? r.form_factor + "/" + r.stack : r.form_factor;
}

// Leave one out: each run estimated with its group's median implied MFU over
// the other runs, as if it were a new run the defaults had not seen. The gap
// to the in-sample error is what calibrating on the table itself is worth.
void hold_out(std::vector<Row>& rows, const Context& ctx) {
  for (Row& r : rows) {
    if (!r.implied) continue;
    std::vector<double> others;
    for (const Row& o : rows)
      if (&o != &r && o.implied && default_group(o) == default_group(r)) others.push_back(*o.implied);
    if (others.empty()) continue;
    ResolvedJob rj = load_job(r.id, {}, ctx, JobUse::kEstimate, &r.job_text);
    rj.job.mfu = median(others);
    const Estimate e = estimate(rj.job, rj.cluster, rj.layout);
    r.held_out = estimated_time(r.published, e) / published_time(r.published, rj) - 1;
  }
}

// The held-out |error| of each run in the bounds.
std::vector<double> held_out_errors(const std::vector<Row>& rows) {
  std::vector<double> v;
  for (const Row& r : rows)
    if (r.held_out && r.gap.empty()) v.push_back(std::abs(*r.held_out));
  return v;
}

void print_held_out(const std::vector<double>& v) {
  const double worst = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  fmt::print(
      "held out (each run's default MFU from the other runs): {} runs, median |error| {:.1f}%, worst {:.1f}%, {} "
      "within ±25%\n",
      v.size(), median(v) * 100, worst * 100, std::count_if(v.begin(), v.end(), [](double x) { return x <= 0.25; }));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr,
               "usage: validate_runs RUNS.yaml [--check MEDIAN_PCT WORST_PCT MAX_REFUSED] [--held-out MEDIAN_PCT] "
               "[--only ID,ID...] [--roundtrip]\n");
    return 2;
  }
  std::optional<double> max_median, max_worst, max_held_out;
  int max_refused = 0;
  bool roundtrip = false;
  std::string only;  // comma-separated run ids (the acceptance runs of issue 13)
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--check" && i + 3 < argc) {
      max_median = std::atof(argv[++i]);
      max_worst = std::atof(argv[++i]);
      max_refused = std::atoi(argv[++i]);
    } else if (a == "--held-out" && i + 1 < argc) {
      max_held_out = std::atof(argv[++i]);
    } else if (a == "--roundtrip") {
      roundtrip = true;
    } else if (a == "--only" && i + 1 < argc) {
      only = argv[++i];
    }
  }
  GlobalOptions options;
  options.today = "2026-12-02";
  const Context ctx = make_context(options);
  const YAML::Node doc = YAML::LoadFile(argv[1]);
  std::vector<Row> rows;
  for (const auto& run : doc["runs"])
    if (only.empty() || ("," + only + ",").find("," + run["id"].as<std::string>() + ",") != std::string::npos)
      rows.push_back(validate(run, ctx, roundtrip));
  print(rows, roundtrip);

  std::vector<double> errors;
  double worst = 0;
  int refused = 0, within = 0, roundtrip_bad = 0, no_mfu = 0, gaps = 0;
  for (const Row& r : rows) {
    if (!r.error) {
      ++refused;
      continue;
    }
    if (!r.gap.empty()) {
      ++gaps;
      continue;
    }
    errors.push_back(std::abs(*r.error));
    worst = std::max(worst, std::abs(*r.error));
    within += std::abs(*r.error) <= 0.25;
    if (!r.implied) ++no_mfu;  // even 100% is too slow: what gpuplan adds to the compute alone is too much
    else if (roundtrip && (!r.roundtrip || std::abs(*r.roundtrip) > 0.02)) ++roundtrip_bad;
  }
  const double med = median(errors);
  fmt::print(
      "\n{} runs: {} in the bounds, {} refused, {} known gaps; median |error| {:.1f}%, worst {:.1f}%, {} "
      "within ±25%\n",
      rows.size(), errors.size(), refused, gaps, med * 100, worst * 100, within);
  if (roundtrip)
    fmt::print("round trip (fit mfu → estimate --mfu) outside ±2%: {}; no MFU up to 100% reproduces {} run(s)\n",
               roundtrip_bad, no_mfu);
  bool ok = !only.empty() || calibration(rows);  // the calibration needs every run
  if (only.empty()) {
    hold_out(rows, ctx);
    const std::vector<double> held = held_out_errors(rows);
    print_held_out(held);
    if (max_held_out && median(held) * 100 > *max_held_out) {
      fmt::print("FAIL: want the held-out median |error| <= {:g}%\n", *max_held_out);
      ok = false;
    }
  }
  if (max_median && (refused + gaps > max_refused || med * 100 > *max_median || worst * 100 > *max_worst)) {
    fmt::print("FAIL: want at most {} runs refused or known gaps, median |error| <= {:g}% and worst <= {:g}%\n",
               max_refused, *max_median, *max_worst);
    ok = false;
  }
  if (roundtrip && roundtrip_bad > 0) ok = false;
  return ok ? 0 : 1;
}
