// `gpuplan fit mfu`: the MFU a measurement implies, on efficiency.h's basis.
//
// With a job file it is the exact inverse of `estimate`: the MFU at which the
// model (layout, communication, bubbles, and for a whole run checkpoints and
// failures) reproduces the measured step time or GPU-hours, so `estimate JOB
// --mfu <it>` gives the measurement back. Without one only a throughput and
// the parameter count are known: 6·N per token over the whole job's time, an
// end-to-end MFU that already contains communication.
#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "gpuplan/i18n.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/commands/flags.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/error.h"
#include "gpuplan/fields.h"
#include "gpuplan/job.h"
#include "gpuplan/units.h"

namespace gpuplan {
namespace {

Table mfu_table() {
  Table t;
  t.name = "mfu";
  t.columns = {{"gpu", tr_noop("gpu")},
               {"gpus", tr_noop("gpus")},
               {"achieved_tflops_per_gpu", tr_noop("achieved TFLOP/s/GPU"), 1},
               {"peak_tflops_per_gpu", tr_noop("peak"), 1},
               {"mfu", tr_noop("MFU"), 4},
               {"end_to_end_mfu", tr_noop("end-to-end MFU"), 4},
               {"layout", tr_noop("layout")}};
  return t;
}

Precision precision_or_throw(const std::string& text) {
  const auto p = parse_precision(text);
  if (!p) throw InputError(SourceLocation{"--precision"}, "", trf("{} not in {{fp32, tf32, bf16, fp16, fp8}}", text));
  return *p;
}

double positive_count(const char* flag, const std::string& text) {
  double v = 0;
  try {
    v = parse_count(text);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{flag}, "", e.what());
  }
  if (!(v > 0)) throw InputError(SourceLocation{flag}, "", std::string(tr("must be greater than zero")));
  return v;
}

// ---- without a job file: 6·N (or 3 × forward) over the whole job's time ----

Report flags_only_report(const Context& ctx, const MfuQuery& q) {
  if (!q.gpu || !q.gpus)
    throw UsageError(std::string(tr("give a job file, or --gpu and --gpus with the measured throughput")));
  const Gpu* gpu = ctx.catalog().find_gpu(*q.gpu);
  if (!gpu) throw InputError(SourceLocation{"--gpu"}, "", trf("unknown GPU id '{}'", *q.gpu));
  const std::string prec_text = q.precision.value_or("bf16");
  const Precision prec = precision_or_throw(prec_text);
  if (!gpu->dense_tflops.contains(prec))
    throw InputError(SourceLocation{"--precision"}, "", trf("{} has no {} rate in the catalog", gpu->id, prec_text));
  const int gpus = static_cast<int>(flag_whole("--gpus", *q.gpus, 1, 1e6));
  double achieved = 0;  // model FLOP/s of the whole job
  std::string basis;
  if (q.tokens_per_second && q.parameters) {
    const double n = positive_count("--parameters", *q.parameters);
    const double tps = flag_number("--tokens-per-second", *q.tokens_per_second);
    achieved = tps * 6 * n;  // Chowdhery et al. 2022, App. B, without the attention term
    basis = fmt::format("{:g} tokens/s × 6 × {:g} parameters", tps, n);
  } else if (q.samples_per_second && q.flops_per_sample) {
    const double f = positive_count("--flops-per-sample", *q.flops_per_sample);
    const double sps = flag_number("--samples-per-second", *q.samples_per_second);
    achieved = sps * 3 * f;  // forward + backward ≈ 3 × forward
    basis = fmt::format("{:g} samples/s × 3 × {:g} forward FLOPs", sps, f);
  } else {
    throw UsageError(
        std::string(tr("give --tokens-per-second with --parameters, or --samples-per-second with --flops-per-sample")));
  }
  // The dense bf16 peak for bf16/fp16/fp8 runs (efficiency.h): one basis everywhere.
  const double peak_tflops = mfu_peak_tflops(*gpu, prec);
  const double mfu = achieved / (peak_tflops * 1e12 * gpus);
  if (mfu > 1)
    throw InputError(SourceLocation{"fit mfu"}, "",
                     trf("{} implies an MFU of {:.0f}%, more than the GPUs' peak: is the throughput that of "
                         "the whole job on {} GPU(s)?",
                         basis, mfu * 100, gpus));
  Report rep;
  rep.command = "fit mfu";
  rep.title = trf("Model FLOPs utilisation on {}× {} ({}, against the {} peak)", gpus, gpu->id, prec_text,
                  to_string(mfu_basis(*gpu, prec)));
  Table t = mfu_table();
  t.add_row({gpu->id, static_cast<std::int64_t>(gpus), achieved / gpus / 1e12, peak_tflops, mfu, mfu, Cell{}});
  rep.tables.push_back(std::move(t));
  Json in = Json::object();
  in["gpu"] = gpu->id;
  in["gpus"] = gpus;
  in["precision"] = prec_text;
  in["basis"] = basis;
  rep.inputs = std::move(in);
  rep.notes.push_back(trf("From {}: an end-to-end MFU, communication and stalls included.", basis));
  rep.notes.push_back(
      std::string(tr("estimate models communication, bubbles and the attention FLOPs on top of its MFU, so this figure "
                     "predicts a slower run than measured. For the MFU that reproduces the measurement, give the job: "
                     "gpuplan fit mfu JOB.yaml --tokens-per-second X")));
  return rep;
}

// ---- with a job file: the inverse of estimate ----

struct Measurement {
  Measured what = Measured::kStepWork;
  Seconds time{};      ///< a step's work, or the whole run's wall time
  std::string text{};  ///< as the user gave it
};

// --step-time: seconds, bare ("22") or with a unit ("22s", "850ms", "1.5min").
double step_seconds(const std::string& text) {
  if (std::none_of(text.begin(), text.end(), [](unsigned char c) { return std::isalpha(c); }))
    return flag_number("--step-time", text);
  try {
    const double s = parse_duration(text).count();
    if (!(s > 0)) throw std::invalid_argument(trf("{} must be greater than zero", text));
    return s;
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{fmt::format("--step-time {}", text)}, "", e.what());
  }
}

Measurement job_measurement(const MfuQuery& q, const Job& job, int gpus) {
  const int given = !!q.tokens_per_second + !!q.samples_per_second + !!q.step_time + !!q.gpu_hours;
  if (given != 1)
    throw UsageError(std::string(
        tr("with a job file, give one measurement: --tokens-per-second, --samples-per-second, --step-time or "
           "--gpu-hours")));
  Measurement m;
  if (q.gpu_hours) {
    const double h = flag_number("--gpu-hours", *q.gpu_hours);
    m = {Measured::kWallTime, Seconds(h * 3600 / gpus), fmt::format("{:g} GPU-hours for the whole run", h)};
  } else if (q.step_time) {
    const double s = step_seconds(*q.step_time);
    m = {Measured::kStepWork, Seconds(s), trf("{:g} s a step", s)};
  } else if (q.tokens_per_second) {
    if (!(job.sequence_length > 0))
      throw UsageError(
          std::string(tr("--tokens-per-second: this job counts samples, not tokens (give --samples-per-second)")));
    const double tps = flag_number("--tokens-per-second", *q.tokens_per_second);
    m = {Measured::kStepWork, Seconds(job.global_batch * job.sequence_length / tps),
         trf("{:g} tokens/s on the whole job", tps)};
  } else {
    const double sps = flag_number("--samples-per-second", *q.samples_per_second);
    m = {Measured::kStepWork, Seconds(job.global_batch / sps), trf("{:g} samples/s on the whole job", sps)};
  }
  return m;
}

// Why no MFU reproduces a measurement: what the model gives at 100% (or 0.01%).
std::string unreachable(const ResolvedJob& rj, const Measurement& m) {
  Job best = rj.job;
  best.mfu = 1.0;
  const Estimate e = estimate(best, rj.cluster, rj.layout);
  const double at_full = m.what == Measured::kWallTime ? e.wall.count() : e.step.work.count();
  const std::string where = fmt::format("{}× {}", rj.cluster.gpus, rj.cluster.gpu->id);
  if (at_full < m.time.count())
    return fmt::format(
        "{} is outside what this job can reach on {}: slower than an MFU of 0.01% gives "
        "(check the batch, sequence length and GPU count against the measured run)",
        m.text, where);
  return fmt::format(
      "{} is outside what this job can reach on {} at any MFU up to 100%: even then {} takes {:.3g} s, "
      "bound by {} ({}). Check the GPU count, network and layout against the measured run.",
      m.text, where, m.what == Measured::kWallTime ? "the run" : "a step", at_full, e.step.bottleneck,
      to_string(e.layout));
}

ResolvedJob resolve(const Context& ctx, const MfuQuery& q) {
  if (q.flops_per_sample)
    throw UsageError(std::string(tr("--flops-per-sample is for a run without a job file (the job states its own)")));
  std::vector<FlagOverride> flags;
  if (q.gpu) flags.push_back({"--gpu", "cluster.gpu", *q.gpu});
  if (q.gpus) flags.push_back({"--gpus", "cluster.gpus", *q.gpus});
  if (q.precision) flags.push_back({"--precision", "job.precision", *q.precision});
  if (q.parameters) flags.push_back({"--parameters", "job.parameters", *q.parameters});
  if (q.layout) flags.push_back({"--layout", "job.layout", *q.layout});
  return load_job_with_flags(q.job_file, q.sets, flags, ctx);
}

// The `estimate` command that takes this MFU on the same run: every flag
// that described it, quoted for a POSIX shell where needed.
std::string estimate_command(const MfuQuery& q) {
  const auto quoted = [](const std::string& t) {
    if (!t.empty() && t.find_first_of(" '\"$`\\*?[]{}()<>|&;#~!") == std::string::npos) return t;
    std::string out = "'";
    for (const char ch : t) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
  };
  std::string cmd = "gpuplan estimate";
  if (!q.job_file.empty()) cmd += " " + quoted(q.job_file);
  // job.stack only chooses the default MFU, which the --mfu passed on replaces.
  for (const std::string& set : q.sets)
    if (!set.starts_with("job.stack=")) cmd += " --set " + quoted(set);
  if (q.layout) cmd += " --layout " + quoted(*q.layout);
  if (q.gpu) cmd += " --gpu " + quoted(*q.gpu);
  if (q.gpus) cmd += " --gpus " + quoted(*q.gpus);
  if (q.precision) cmd += " --set " + quoted("job.precision=" + *q.precision);
  if (q.parameters) cmd += " --set " + quoted("job.parameters=" + *q.parameters);
  return cmd;
}

Report job_report(const Context& ctx, const MfuQuery& q) {
  const ResolvedJob rj = resolve(ctx, q);
  const Cluster& cl = rj.cluster;
  const Measurement m = job_measurement(q, rj.job, cl.gpus);
  const SourceLocation where{q.job_file};
  std::optional<double> mfu;
  Estimate e;
  try {
    mfu = implied_mfu(rj.job, cl, rj.layout, m.what, m.time);
    if (mfu) {
      Job j = rj.job;
      j.mfu = *mfu;
      e = estimate(j, cl, rj.layout);
    }
  } catch (const std::invalid_argument& err) {
    throw InputError(where, "", err.what());
  }
  if (!mfu) throw InputError(where, "", unreachable(rj, m));
  // End to end: the model FLOPs of the measured time, over the peak.
  const Seconds per_step = m.what == Measured::kWallTime ? Seconds(m.time.count() / e.steps) : m.time;
  const double peak_tflops = mfu_peak_tflops(*cl.gpu, rj.job.precision);
  const double end_to_end = e.total_flops.value() / e.steps / per_step.count() / (peak_tflops * 1e12 * cl.gpus);
  Report rep;
  rep.command = "fit mfu";
  rep.title = trf("Model FLOPs utilisation of {} on {}× {} (against the {} peak)", rj.job.name, cl.gpus, cl.gpu->id,
                  to_string(mfu_basis(*cl.gpu, rj.job.precision)));
  Table t = mfu_table();
  t.add_row({cl.gpu->id, static_cast<std::int64_t>(cl.gpus), e.per_gpu.value() / 1e12, peak_tflops, *mfu, end_to_end,
             to_string(e.layout)});
  rep.tables.push_back(std::move(t));
  Json in = ctx.echo();
  append(in, rj.inputs);
  in["measured"] = m.text;
  rep.inputs = std::move(in);
  rep.notes.push_back(trf("From {}. Pass it on: {} --mfu {:.2f}% (it reproduces the measurement: {}).", m.text,
                          estimate_command(q), *mfu * 100,
                          m.what == Measured::kWallTime
                              ? tr("the GPU-hours")
                              : tr("the steady-state step, JSON estimate.step_work_seconds and tokens_per_second; the "
                                   "step time shown adds checkpoints and failures")));
  rep.notes.push_back(std::string(
      m.what == Measured::kWallTime
          ? tr("MFU is the compute share of the step: the model adds communication, pipeline bubbles, data stalls, "
               "checkpoints and failures on top; end-to-end MFU counts them in.")
          : tr("MFU is the compute share of the step: the model adds communication, pipeline bubbles and data stalls "
               "on top (a steady-state step: no checkpoints or failures); end-to-end MFU counts them in.")));
  add_defaults_notes(rep, rj.defaults_used);
  return rep;
}

}  // namespace

Report fit_mfu_report(const Context& ctx, const MfuQuery& q) {
  const bool job_mode = !q.job_file.empty() || !q.sets.empty() || q.step_time || q.gpu_hours || q.layout;
  return job_mode ? job_report(ctx, q) : flags_only_report(ctx, q);
}

}  // namespace gpuplan
