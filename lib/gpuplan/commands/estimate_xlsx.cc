// `gpuplan estimate --format xlsx`: the training-time model and the cost rows
// as a live workbook. The job's size, MFU and peak are named inputs; the
// per-step data-loading, all-reduce and checkpoint times are inputs too (they
// come from the cluster model: rerun gpuplan after changing the cluster); the
// step time, wall time and GPU-hours are formulas (training.cc's), and each
// cost row is a formula over its own editable price (cost/run.cc's).
#include <algorithm>
#include <fmt/format.h>

#include "gpuplan/commands/estimate.h"
#include "gpuplan/i18n.h"
#include "gpuplan/efficiency.h"
#include "gpuplan/xlsx.h"

namespace gpuplan {

namespace {

using xlsx::Style;

// The job's FLOPs per step and its steps, as formulas over its inputs.
struct JobCells {
  xlsx::Value step_flops, steps;
};

JobCells per_sample_job(xlsx::Assumptions& in, const EstimateWorkbook& d, const xlsx::Value& mult,
                        const xlsx::Value& batch) {
  const Job& j = d.job;
  const double k = training_flops_multiplier(j);
  const xlsx::Value fwd = in.input("forward_flops_per_sample", tr_noop("forward FLOPs per sample"),
                                   j.forward_flops_per_sample, Style::kInputNumber, "FLOPs");
  const xlsx::Value samples =
      in.input("samples", tr_noop("samples (× epochs)"), j.samples, Style::kInputNumber, tr_noop("samples"));
  JobCells c;
  c.step_flops =
      in.derived("step_flops", tr_noop("FLOPs per step"), fmt::format("{}*{}*{}", mult.ref, fwd.ref, batch.ref),
                 k * j.forward_flops_per_sample * j.global_batch, Style::kNumber, "FLOPs");
  c.steps = in.derived("steps", tr_noop("steps"), fmt::format("ROUNDUP({}/{}-1E-9,0)", samples.ref, batch.ref),
                       d.estimate.steps, Style::kInteger);
  return c;
}

JobCells token_job(xlsx::Assumptions& in, const EstimateWorkbook& d, const xlsx::Value& mult,
                   const xlsx::Value& batch) {
  const Job& j = d.job;
  const Estimate& e = d.estimate;
  const double k = training_flops_multiplier(j);
  const double active = active_parameters(j);  // a MoE's FLOPs follow what a token passes through
  const xlsx::Value n =
      in.input("parameters", j.experts > 0 ? tr_noop("active parameters (N, MoE)") : tr_noop("parameters (N)"), active,
               Style::kInputNumber, tr_noop("parameters"));
  const xlsx::Value tokens =
      in.input("tokens", tr_noop("tokens (D)"), j.tokens, Style::kInputNumber, tr_noop("tokens"));
  const xlsx::Value seq = in.input("sequence_length", tr_noop("sequence length"), j.sequence_length,
                                   Style::kInputNumber, tr_noop("tokens"));
  const double attention = e.flops_per_token - k * active;
  const xlsx::Value att =
      in.input("attention_flops_per_token", tr_noop("attention FLOPs per token"), attention, Style::kInputNumber,
               "FLOPs", tr_noop("multiplier × layers × sequence × hidden (0 without the architecture)"));
  const xlsx::Value fpt =
      in.derived("flops_per_token", tr_noop("FLOPs per token"), fmt::format("{}*{}+{}", mult.ref, n.ref, att.ref),
                 e.flops_per_token, Style::kNumber, "FLOPs");
  JobCells c;
  c.step_flops =
      in.derived("step_flops", tr_noop("FLOPs per step"), fmt::format("{}*{}*{}", fpt.ref, batch.ref, seq.ref),
                 e.flops_per_token * j.global_batch * j.sequence_length, Style::kNumber, "FLOPs");
  c.steps =
      in.derived("steps", tr_noop("steps"), fmt::format("ROUNDUP({}/({}*{})-1E-9,0)", tokens.ref, batch.ref, seq.ref),
                 e.steps, Style::kInteger);
  return c;
}

JobCells job_inputs(xlsx::Assumptions& in, const EstimateWorkbook& d) {
  const Job& j = d.job;
  const bool per_sample = j.forward_flops_per_sample > 0;
  in.heading(tr_noop("Job"));
  const xlsx::Value mult = in.input(
      "flops_multiplier", tr_noop("training FLOPs per forward FLOP"), training_flops_multiplier(j), Style::kInputNumber,
      "×", per_sample ? tr_noop("3 (4 with full recompute)") : tr_noop("6 dense, 4 LoRA, +2 with full recompute"));
  const xlsx::Value batch = in.input("global_batch", tr_noop("global batch"), j.global_batch, Style::kInputNumber,
                                     per_sample ? tr_noop("samples per step") : tr_noop("sequences per step"));
  return per_sample ? per_sample_job(in, d, mult, batch) : token_job(in, d, mult, batch);
}

// What the cost rows refer to: the GPU count, the wall time and the dataset.
struct TimeCells {
  xlsx::Value gpus, wall, dataset;
};

// Checkpoints and interruptions as Daly's complete model over the work per
// step (cost/spot.h): T/W = M·e^(R/M)·(e^((τ+C)/M) − 1)/τ, M = 1/λ; 1 + C/τ at λ = 0.
xlsx::Value interruption_cells(xlsx::Assumptions& in, const EstimateWorkbook& d, const xlsx::Value& work) {
  const StepBreakdown& s = d.estimate.step;
  if (s.checkpoint_interval_steps <= 0 || s.checkpoint_write.count() <= 0)
    return in.input("wall_per_work", tr_noop("checkpoints and interruptions: wall time per unit of work"), 1.0,
                    Style::kInputNumber, "×", "no checkpoints");
  const xlsx::Value rate =
      in.input("interruptions_per_hour", tr_noop("interruptions an hour (hardware failures)"), s.interruptions_per_hour,
               Style::kInputNumber, tr_noop("per hour"), tr_noop("GPUs ÷ cluster.gpu_mtbf"));
  const xlsx::Value c = in.input("checkpoint_write_seconds", tr_noop("one checkpoint, all nodes writing"),
                                 s.checkpoint_write.count(), Style::kInputNumber, "s");
  const xlsx::Value r = in.input("restart_seconds", tr_noop("restart after an interruption"), d.job.restart.count(),
                                 Style::kInputNumber, "s");
  xlsx::Value tau;
  if (d.job.checkpoint_every_steps) {
    const xlsx::Value steps = in.input("checkpoint_interval_steps", tr_noop("checkpoint every"),
                                       *d.job.checkpoint_every_steps, Style::kInputNumber, tr_noop("steps"));
    tau = in.derived("checkpoint_interval_seconds", tr_noop("checkpoint interval (work)"),
                     fmt::format("MAX(1,{})*{}", steps.ref, work.ref), s.checkpoint_interval_steps * s.work.count(),
                     Style::kPrecise, "s");
  } else {
    tau = in.input("checkpoint_interval_seconds", tr_noop("checkpoint interval (work)"),
                   s.checkpoint_interval_steps * s.work.count(), Style::kInputNumber, "s",
                   d.job.checkpoint_every ? "as given" : "Daly's optimum for the rate (not recomputed here)");
  }
  const std::string m = fmt::format("(3600/{})", rate.ref);
  return in.derived("wall_per_work", tr_noop("checkpoints and interruptions: wall time per unit of work"),
                    fmt::format("IF({0}>0,{1}*EXP({2}/{1})*(EXP(({3}+{4})/{1})-1)/{3},1+{4}/{3})", rate.ref, m, r.ref,
                                tau.ref, c.ref),
                    s.work.count() > 0 ? s.step / s.work : 1.0, Style::kPrecise, "×");
}

TimeCells cluster_and_time(xlsx::Assumptions& in, const EstimateWorkbook& d, const JobCells& job) {
  const Job& j = d.job;
  const Estimate& e = d.estimate;
  in.heading(trf("Cluster: {}× {}", d.gpus, d.gpu));
  TimeCells t;
  t.gpus =
      in.input("gpus", tr_noop("GPUs"), d.gpus, Style::kInputNumber, tr_noop("GPUs"),
               tr_noop("locked: the per-step times below are for this count (rerun gpuplan --gpus N to change it)"));
  // Communication and the layout change with the count, which no formula here redoes.
  in.limit(d.gpus, d.gpus, true);
  const xlsx::Value peak = in.input("peak_tflops", trf("dense peak ({}: MFU's basis)", to_string(d.mfu_basis)),
                                    d.peak_tflops, Style::kInputNumber, tr_noop("TFLOP/s per GPU"));
  const xlsx::Value mfu = in.input("mfu", tr_noop("MFU"), e.mfu, Style::kInputPercent, tr_noop("share"), e.mfu_source);
  const xlsx::Value speedup =
      in.input("precision_speedup", tr_noop("speed-up of the precision over the basis"), d.precision_speedup,
               Style::kInputNumber, "×", j.precision == Precision::kFp8 ? std::string(kFp8SpeedupSource) : "");
  const xlsx::Value data = in.input("data_seconds_per_step", tr_noop("data loading per step"), e.step.data.count(),
                                    Style::kInputNumber, "s", tr_noop("overlaps compute"));
  const xlsx::Value comm = in.input("allreduce_seconds_per_step", tr_noop("gradient all-reduce per step"),
                                    e.step.communication.count(), Style::kInputNumber, "s");
  const xlsx::Value bwd = in.input("backward_share", tr_noop("backward share of the compute"), backward_share(j),
                                   Style::kInputPercent, tr_noop("share"));
  const xlsx::Value overlap = in.input("comm_overlap", tr_noop("backward time that hides communication"),
                                       d.comm_overlap, Style::kInputPercent, tr_noop("share"));
  // Everything exposed but the data-parallel part: tensor and pipeline transfers, and what
  // of the expert all-to-alls and context-parallel passes the compute does not hide (at this MFU).
  const double dp_exposed =
      std::max(0.0, e.step.communication.count() - e.step.compute.count() * backward_share(j) * d.comm_overlap);
  const xlsx::Value waited = in.input(
      "waited_seconds_per_step", tr_noop("tensor-, pipeline-, expert- and context-parallel transfers per step"),
      e.step.exposed_communication.count() - dp_exposed, Style::kInputNumber, "s",
      tr_noop("waited for (expert and context parallel: the part compute does not hide)"));
  const xlsx::Value bubble_share =
      in.input("bubble_share", tr_noop("pipeline bubble, share of the compute"),
               e.step.compute.count() > 0 ? e.step.bubble / e.step.compute : 0.0, Style::kInputPercent,
               tr_noop("share"), tr_noop("(stages − 1) / micro-batches"));
  t.dataset = in.input("dataset_gb", tr_noop("dataset kept in storage"), d.dataset_gb, Style::kInputNumber, "GB");
  in.heading(tr_noop(
      "Time (training.cc: step = (max(compute, data) + exposed communication) × checkpoints and interruptions)"));
  const xlsx::Value compute =
      in.derived("compute_seconds_per_step", tr_noop("compute per step"),
                 fmt::format("{}/({}*{}*1E12*{}*{})", job.step_flops.ref, t.gpus.ref, peak.ref, mfu.ref, speedup.ref),
                 e.step.compute.count(), Style::kPrecise, "s");
  const xlsx::Value exposed =
      in.derived("exposed_seconds_per_step", tr_noop("exposed communication per step"),
                 fmt::format("MAX(0,{}-{}*{}*{})+{}", comm.ref, compute.ref, bwd.ref, overlap.ref, waited.ref),
                 e.step.exposed_communication.count(), Style::kPrecise, "s");
  const xlsx::Value work =
      in.derived("work_seconds_per_step", tr_noop("step without checkpoints and interruptions"),
                 fmt::format("MAX({}*(1+{}),{})+{}", compute.ref, bubble_share.ref, data.ref, exposed.ref),
                 e.step.work.count(), Style::kPrecise, "s");
  const xlsx::Value stretch = interruption_cells(in, d, work);
  const xlsx::Value step = in.derived("step_seconds", tr_noop("step"), fmt::format("{}*{}", work.ref, stretch.ref),
                                      e.step.step.count(), Style::kPrecise, "s");
  t.wall = in.derived("wall_hours", tr_noop("wall time"), fmt::format("{}*{}/3600", step.ref, job.steps.ref),
                      e.wall.count() / 3600, Style::kNumber, tr_noop("hours"));
  in.derived("gpu_hours", tr_noop("GPU-hours"), fmt::format("{}*{}", t.wall.ref, t.gpus.ref), e.gpu_hours,
             Style::kNumber, tr_noop("GPU-hours"));
  return t;
}

void costs_header(xlsx::Sheet& c, Currency currency) {
  const std::vector<std::string> heads = {tr_noop("offer"),
                                          tr_noop("provider"),
                                          tr_noop("region"),
                                          tr_noop("mode"),
                                          tr_noop("GPUs per instance"),
                                          tr_noop("instances"),
                                          tr_noop("price per instance"),
                                          tr_noop("billing granularity (h)"),
                                          tr_noop("minimum (h)"),
                                          tr_noop("run time factor"),
                                          tr_noop("run hours"),
                                          tr_noop("billed instance-hours"),
                                          tr_noop("storage per GB-month"),
                                          tr_noop("support share"),
                                          tr_noop("compute"),
                                          tr_noop("storage"),
                                          tr_noop("support"),
                                          trf("total {}", currency.code())};
  for (std::size_t i = 0; i < heads.size(); ++i) c.label(0, static_cast<int>(i), heads[i], Style::kHeader);
  c.freeze(1, 1);
  c.width(0, 40);
  for (int i = 1; i < static_cast<int>(heads.size()); ++i) c.width(i, 14);
}

// One row per offer and mode, each formula over its own (editable) price.
void cost_line(xlsx::Sheet& c, int r, const EstimateCostLine& l, const TimeCells& t) {
  const auto at = [&](int col) { return xlsx::cell_ref(r, col); };
  c.text(r, 0, l.offer);
  c.text(r, 1, l.provider);
  c.text(r, 2, l.region);
  c.text(r, 3, l.mode);
  c.number(r, 4, l.gpus_per_instance, Style::kInteger);
  c.formula(r, 5, fmt::format("ROUNDUP({}/{},0)", t.gpus.ref, at(4)), l.instances, Style::kInteger);
  c.number(r, 6, l.price, Style::kInputMoney);
  c.number(r, 7, l.granularity_h, Style::kNumber);
  c.number(r, 8, l.minimum_h, Style::kNumber);
  c.number(r, 9, l.run_factor, Style::kPrecise);
  c.formula(r, 10, fmt::format("{}*{}", t.wall.ref, at(9)), t.wall.v * l.run_factor, Style::kNumber);
  const bool monthly = l.mode == "monthly";
  // Monthly: whole months of 730 h per instance; else each instance's run
  // rounded up to the granularity, at least the minimum (cost/run.cc).
  const std::string billed = monthly
                                 ? fmt::format("ROUNDUP({}/730-1E-9,0)*730*{}", at(10), at(5))
                                 : fmt::format("IF({0}<=0,0,MAX(IF({1}>0,ROUNDUP({0}/{1}-1E-9,0)*{1},{0}),{2}))*{3}",
                                               at(10), at(7), at(8), at(5));
  c.formula(r, 11, billed, l.billed_hours, Style::kNumber);
  c.number(r, 12, l.storage_per_gb_month, Style::kInputMoney);
  c.number(r, 13, l.support_share, Style::kInputPercent);
  c.formula(r, 14, monthly ? fmt::format("{}*{}/730", at(6), at(11)) : fmt::format("{}*{}", at(6), at(11)), l.compute,
            Style::kMoney);
  c.formula(r, 15, fmt::format("{}*{}*{}/730", at(12), t.dataset.ref, at(10)), l.storage, Style::kMoney);
  c.formula(r, 16, fmt::format("ROUND((ROUND({},2)+ROUND({},2))*{},2)", at(14), at(15), at(13)), l.support,
            Style::kMoney);  // rounded to the cent, as cost/run.cc's is
  c.formula(r, 17, fmt::format("ROUND({},2)+ROUND({},2)+ROUND({},2)", at(14), at(15), at(16)), l.total, Style::kMoney);
}

}  // namespace

std::string estimate_workbook(const EstimateWorkbook& d) {
  xlsx::Workbook wb(d.currency);
  xlsx::Sheet& a = wb.add_sheet("Assumptions");
  xlsx::Sheet& c = wb.add_sheet("Costs");
  xlsx::Assumptions in(wb, a, xlsx::assumptions_header(a, d.title));
  const JobCells job = job_inputs(in, d);
  const TimeCells time = cluster_and_time(in, d, job);
  costs_header(c, d.currency);
  int r = 1;
  for (const EstimateCostLine& l : d.lines) cost_line(c, r++, l, time);
  return wb.bytes();
}

}  // namespace gpuplan
