// The command table: every subcommand's flags, how it runs, and which files
// it reads. Everything a command computes, including the tables it prints,
// lives in lib/; a row here only connects flags to a library call.
#include <array>

#include "cli.h"
#include "gpuplan/commands/catalog_check.h"
#include "gpuplan/commands/catalog_validate.h"
#include "gpuplan/commands/gpus.h"

namespace cli {
namespace {

using gpuplan::Context;

Outcome with_context(const Flags& f, gpuplan::Report (*body)(const Context&, const Flags&)) {
  const Context ctx = gpuplan::make_context(f.global);
  return Outcome{body(ctx, f)};
}

std::vector<std::string> some(std::initializer_list<const std::string*> files) {
  std::vector<std::string> out;
  for (const std::string* p : files)
    if (p && !p->empty()) out.push_back(*p);
  return out;
}

// ---- compare ----

void compare_options(CLI::App& sub, Flags& f) {
  sub.add_option("scenario", f.compare.scenario_files,
                 tr("scenario YAML (default: built-in defaults); several: side by side, the cheapest of all"));
  sub.add_option("--set", f.compare.sets, tr("override a scenario field: path.to.field=VALUE (repeatable)"));
  sub.add_flag("--monthly", f.compare.monthly, tr("show the month-by-month cash flow (and export it as CSV)"));
  sub.add_flag("--chart", f.compare.chart, tr("cumulative cost per option as a terminal chart"));
  sub.add_flag("--breakdown", f.compare.breakdown,
               tr("every cost item of every option and month, long form: option,item,month,amount (and its CSV)"));
  sub.add_flag("--defaults", f.compare.defaults,
               tr("the defaults used as a table: field, value, quality (assumption, default, low/medium/high, "
                  "sourced) and source (and its CSV)"));
}
Outcome compare_run(const Flags& f) {
  Outcome o = with_context(f, [](const Context& c, const Flags& fl) {
    gpuplan::CompareQuery q = fl.compare;
    // The terminal table and Markdown print the sections asked for, CSV and TSV the primary one;
    // JSON, YAML, HTML, SVG, the workbook and --field (any value of the JSON) need them all.
    using gpuplan::Format;
    const bool printed_only = fl.written == Format::kTable || fl.written == Format::kMd ||
                              fl.written == Format::kCsv || fl.written == Format::kTsv;
    q.every_section = !printed_only || !fl.fields.empty();
    return gpuplan::compare_report(c, q);
  });
  // No option can deliver within the horizon: reported, and exit 4 as for a plan with nothing feasible.
  if (const gpuplan::Json* cheapest = o.report.extra.find("cheapest"); cheapest && cheapest->is_null())
    o.exit_code = kInfeasible;
  return o;
}
std::vector<std::string> compare_inputs(const Flags& f) { return f.compare.scenario_files; }

// ---- estimate ----

void estimate_options(CLI::App& sub, Flags& f) {
  sub.add_option("job", f.estimate.job_file, tr("job YAML (default: built-in defaults)"));
  sub.add_option("--set", f.estimate.sets, tr("override a job field: path.to.field=VALUE (repeatable)"));
  sub.add_option("--mfu", f.estimate.mfu, tr("model FLOPs utilisation, e.g. 40% (from `gpuplan fit mfu`)"));
  sub.add_option("--gpu", f.estimate.gpu, tr("GPU id (overrides cluster.gpu)"));
  sub.add_option("--gpus", f.estimate.gpus, tr("card count (overrides cluster.gpus)"));
  sub.add_option("--layout", f.estimate.layout,
                 tr("fix parts of the parallel layout: tp=2,cp=2,pp=4,vp=2,ep=8,zero=1,recompute=full"));
  sub.add_flag("--explain", f.estimate.explain, tr("the runner-up layout and why it lost"));
}
Outcome estimate_run(const Flags& f) {
  const Context ctx = gpuplan::make_context(f.global);
  gpuplan::EstimateOutcome o = gpuplan::estimate_report(ctx, f.estimate);
  return Outcome{std::move(o.report), {}, o.feasible ? kOk : kInfeasible};
}
std::vector<std::string> estimate_inputs(const Flags& f) { return some({&f.estimate.job_file}); }

// ---- serve ----

void serve_options(CLI::App& sub, Flags& f) {
  sub.add_option("serving", f.serve.serving_file, tr("serving YAML (default: built-in defaults)"));
  sub.add_option("--set", f.serve.sets, tr("override a serving field: path.to.field=VALUE (repeatable)"));
}
Outcome serve_run(const Flags& f) {
  const Context ctx = gpuplan::make_context(f.global);
  gpuplan::ServeOutcome o = gpuplan::serve_report(ctx, f.serve);
  return Outcome{std::move(o.report), {}, o.feasible ? kOk : kInfeasible};
}
std::vector<std::string> serve_inputs(const Flags& f) { return some({&f.serve.serving_file}); }

// ---- plan (its flags are sensitivity's too, for a job file) ----

void plan_flags(CLI::App& sub, gpuplan::PlanQuery& q) {
  sub.add_option("--set", q.sets, tr("override a field: path.to.field=VALUE (repeatable)"));
  sub.add_option("--deadline", q.deadline, tr("finish within this long (10d, 36h) or by this date (2026-12-20)"));
  sub.add_option("--budget", q.budget, tr("spend at most this much (200000, or 30000 USD)"));
  // Flag functions see --flag=false as a negative count: it overrides the file's `true`.
  sub.add_flag_function(
      "--allow-spot", [&q](std::int64_t n) { q.allow_spot = n > 0; },
      tr("consider spot (preemptible) capacity (--allow-spot=false: not, whatever the file says)"));
  sub.add_flag_function(
      "--include-buy", [&q](std::int64_t n) { q.include_buy = n > 0; },
      tr("consider buying the cards, after the purchase lead time (=false: not)"));
  sub.add_flag_function(
      "--exclude-restricted", [&q](std::int64_t n) { q.exclude_restricted = n > 0; },
      tr("leave out offers and cards restricted in plan.market (export controls) instead of marking them"));
  sub.add_option("--gpu", q.gpus, tr("GPU ids or families to consider (default: all)"))->delimiter(',');
  sub.add_option("--provider", q.providers, tr("providers to consider (default: all)"))->delimiter(',');
  sub.add_option("--region", q.regions, tr("regions to consider (default: all)"))->delimiter(',');
  sub.add_option("--max-gpus", q.max_gpus, tr("the most cards to consider (default 1024)"));
  sub.add_option("--objective", q.objective, tr("cost (default) or time"))->check(cli::one_of({"cost", "time"}));
  sub.add_option("--confidence", q.confidence,
                 tr("a plan must meet the deadline this often, over MFU uncertainty and spot (default 90%)"));
  sub.add_option("--mfu", q.mfu, tr("model FLOPs utilisation on every GPU, e.g. 40% (from `gpuplan fit mfu`)"));
  sub.add_option("--layout", q.layout, tr("fix parts of every plan's parallel layout: tp=2,pp=4,zero=1"));
  sub.add_option("--scaling", q.scaling_file, tr("a saved scaling fit (gpuplan fit scaling … --format json -o FILE)"));
  sub.add_option("--trials", q.trials, tr("Monte Carlo runs per spot plan (default 1000)"));
  sub.add_option("--seed", q.seed, tr("Monte Carlo seed (default 1)"));
}
void plan_options(CLI::App& sub, Flags& f) {
  sub.add_option("job", f.plan.job_file, tr("job YAML (default: built-in defaults)"));
  plan_flags(sub, f.plan);
  sub.add_flag("--explain", f.plan.explain, tr("say why notable configurations were rejected"));
}
Outcome plan_run(const Flags& f) {
  const Context ctx = gpuplan::make_context(f.global);
  gpuplan::PlanOutcome o = gpuplan::plan_report(ctx, f.plan);
  return Outcome{std::move(o.report), {}, o.feasible ? kOk : kInfeasible};
}
std::vector<std::string> plan_inputs(const Flags& f) {
  return some({&f.plan.job_file, f.plan.scaling_file ? &*f.plan.scaling_file : nullptr});
}

// ---- sensitivity ----

void sensitivity_options(CLI::App& sub, Flags& f) {
  sub.add_option("file", f.sensitivity.file, tr("scenario or job YAML (default: the built-in scenario)"));
  sub.add_option("--range", f.sensitivity.range, tr("how far each input moves, e.g. 20% (default)"));
  plan_flags(sub, f.sensitivity.plan);
}
Outcome sensitivity_run(const Flags& f) {
  const Context ctx = gpuplan::make_context(f.global);
  gpuplan::SensitivityReport o = gpuplan::sensitivity_report(ctx, f.sensitivity);
  return Outcome{std::move(o.report), {}, o.feasible ? kOk : kInfeasible};
}
std::vector<std::string> sensitivity_inputs(const Flags& f) {
  const auto& scaling = f.sensitivity.plan.scaling_file;
  return some({&f.sensitivity.file, scaling ? &*scaling : nullptr});
}

// ---- prices, gpus ----

void prices_options(CLI::App& sub, Flags& f) {
  sub.add_option("--gpu", f.prices.gpus, tr("GPU id or family (A100 matches A100-40G, A100-80G, ...)"))->delimiter(',');
  sub.add_option("--provider", f.prices.providers, tr("provider id (see the provider column)"))->delimiter(',');
  sub.add_option("--region", f.prices.regions, tr("region"))->delimiter(',');
  sub.add_option("--mode", f.prices.modes, tr("billing mode: hourly, monthly, spot"))
      ->delimiter(',')
      ->check(cli::one_of({"hourly", "monthly", "spot"}));
  sub.add_option("--sort", f.prices.sort, tr("sort key: gpu_hour (default), price, provider, gpu, as_of"))
      ->check(cli::one_of(gpuplan::kPriceSortKeys));
  sub.add_flag("--stale", f.prices.stale_only,
               tr("only prices older than --stale-after, and undated ones (as_of: unknown)"));
  sub.add_flag("--history", f.prices.history,
               tr("every dated price of the offers that keep earlier ones, oldest first, with the yearly trend"));
}
Outcome prices_run(const Flags& f) {
  return with_context(f, [](const Context& c, const Flags& fl) {
    gpuplan::PricesQuery q = fl.prices;
    // The terminal table and Markdown show the brief columns; a workbook, CSV or JSON (also by -o's name) all.
    q.brief = fl.fields.empty() && (fl.written == gpuplan::Format::kTable || fl.written == gpuplan::Format::kMd);
    return gpuplan::prices_report(c, q);
  });
}

void gpus_options(CLI::App& sub, Flags& f) {
  sub.add_option("--gpu", f.gpu_filters, tr("GPU id or family"))->delimiter(',');
}
Outcome gpus_run(const Flags& f) {
  return with_context(f, [](const Context& c, const Flags& fl) { return gpuplan::gpus_report(c, fl.gpu_filters); });
}

// ---- catalog validate ----

void validate_options(CLI::App& sub, Flags& f) {
  sub.add_option("files", f.validate_files, tr("catalog YAML files"))->required();
}
Outcome validate_run(const Flags& f) {
  const gpuplan::Context ctx = gpuplan::make_context(f.global);  // for today (--today, GPUPLAN_TODAY)
  gpuplan::ValidationResult r = gpuplan::validate_catalogs(f.validate_files, !f.global.no_default_catalog, ctx.today);
  const int rc = r.problems.empty() ? kOk : kBadInput;
  return Outcome{std::move(r.report), std::move(r.problems), rc};
}
std::vector<std::string> validate_inputs(const Flags& f) { return f.validate_files; }

// ---- catalog check ----

Outcome check_run(const Flags& f) {
  return with_context(f, [](const Context& c, const Flags&) { return gpuplan::catalog_check_report(c); });
}

// ---- catalog import ----

void import_options(CLI::App& sub, Flags& f) {
  sub.add_option("format", f.import.format,
                 tr("skypilot (SkyPilot's catalogs/v6/<cloud>/vms.csv) or quotes (the quote CSV)"))
      ->check(cli::one_of({"skypilot", "quotes"}))
      ->required();
  sub.add_option("files", f.import.files, tr("price files (CSV)"))->required();
  sub.add_option("--provider", f.import.provider, tr("skypilot: the provider id (default: the file's directory name)"));
  sub.add_option("--map", f.import.map_file, tr("YAML mapping accelerator names or instance types to catalog GPU ids"));
  sub.add_option("--as-of", f.import.as_of,
                 tr("skypilot: the date of the snapshot, YYYY-MM-DD (default: the file's modification date)"));
  sub.add_option("--source", f.import.source,
                 tr("skypilot: where the file comes from (repository, path, commit), written into every record"));
}
Outcome import_run(const Flags& f) {
  return with_context(f,
                      [](const Context& c, const Flags& fl) { return gpuplan::catalog_import_report(c, fl.import); });
}
std::vector<std::string> import_inputs(const Flags& f) {
  std::vector<std::string> in = f.import.files;
  if (!f.import.map_file.empty()) in.push_back(f.import.map_file);
  return in;
}

// ---- fit scaling | progress | mfu ----

void scaling_options(CLI::App& sub, Flags& f) {
  sub.add_option("data", f.scaling.file, tr("CSV with a GPU-count and a throughput column (- is stdin)"))->required();
  sub.add_option("--x", f.scaling.x, tr("GPU-count column"))->capture_default_str();
  sub.add_option("--y", f.scaling.y, tr("throughput column"))->capture_default_str();
  sub.add_option("--predict", f.scaling.predict, tr("GPU counts to predict, e.g. 16,32,64"))->delimiter(',');
  sub.add_option("--model", f.scaling.model, tr("usl, amdahl or both"))
      ->check(cli::one_of({"usl", "amdahl", "both"}))
      ->capture_default_str();
  sub.add_flag("--no-chart", f.no_chart, tr("leave out the terminal chart"));
}
Outcome scaling_run(const Flags& f) {
  return with_context(f, [](const Context& c, const Flags& fl) {
    gpuplan::ScalingQuery q = fl.scaling;
    q.chart = !fl.no_chart;
    return gpuplan::fit_scaling_report(c, q);
  });
}
std::vector<std::string> scaling_inputs(const Flags& f) { return some({&f.scaling.file}); }

void progress_options(CLI::App& sub, Flags& f) {
  sub.add_option("log", f.progress.file, tr("CSV with step and elapsed-time columns (- is stdin)"))->required();
  sub.add_option("--step", f.progress.step, tr("step column"))->capture_default_str();
  sub.add_option("--time", f.progress.time, tr("elapsed-seconds or timestamp column"));
  sub.add_option("--total-steps", f.progress.total_steps, tr("the full run's steps, for the ETA"));
  sub.add_option("--total-tokens", f.progress.total_tokens, tr("the full run's tokens (with --tokens-per-step)"));
  sub.add_option("--tokens-per-step", f.progress.tokens_per_step, tr("tokens per step"));
}
Outcome progress_run(const Flags& f) {
  return with_context(f,
                      [](const Context& c, const Flags& fl) { return gpuplan::fit_progress_report(c, fl.progress); });
}
std::vector<std::string> progress_inputs(const Flags& f) { return some({&f.progress.file}); }

void mfu_options(CLI::App& sub, Flags& f) {
  sub.add_option("job", f.mfu.job_file, tr("job YAML of the measured run (the exact inverse of estimate)"));
  sub.add_option("--set", f.mfu.sets, tr("override a job field: path.to.field=VALUE (repeatable)"));
  sub.add_option("--layout", f.mfu.layout, tr("the measured run's layout: tp=2,pp=4,zero=1"));
  sub.add_option("--gpu", f.mfu.gpu, tr("GPU id (with a job: overrides cluster.gpu)"));
  sub.add_option("--gpus", f.mfu.gpus, tr("cards in the measured run (with a job: overrides cluster.gpus)"));
  sub.add_option("--precision", f.mfu.precision, tr("fp32, tf32, bf16, fp16, fp8 (default bf16)"));
  sub.add_option("--parameters", f.mfu.parameters, tr("model parameters, e.g. 7B"));
  sub.add_option("--tokens-per-second", f.mfu.tokens_per_second, tr("measured tokens/s of the whole job"));
  sub.add_option("--samples-per-second", f.mfu.samples_per_second, tr("measured samples/s of the whole job"));
  sub.add_option("--flops-per-sample", f.mfu.flops_per_sample, tr("forward FLOPs per sample (without a job)"));
  sub.add_option("--step-time", f.mfu.step_time, tr("measured time a step (with a job): seconds, or with a unit (850ms, 22s)"));
  sub.add_option("--gpu-hours", f.mfu.gpu_hours, tr("GPU-hours of the whole run (with a job)"));
}
Outcome mfu_run(const Flags& f) {
  return with_context(f, [](const Context& c, const Flags& fl) { return gpuplan::fit_mfu_report(c, fl.mfu); });
}
std::vector<std::string> mfu_inputs(const Flags& f) { return some({&f.mfu.job_file}); }

const std::array kCommands = {
    Command{"compare",
            tr_noop("Buy vs rent (hourly, monthly, spot, hybrid): totals, NPV, cost per used GPU-hour, break-even"),
            tr_noop("  gpuplan compare                      # built-in defaults: 8-card A100-class team in Qingdao\n"
                    "  gpuplan compare examples/qingdao-8xa100.yaml --chart\n"
                    "  gpuplan compare examples/qingdao-8xa100.yaml --set workload.utilisation=30% --format json\n"
                    "  gpuplan compare examples/qingdao-8xa100.yaml --monthly --format csv -o cashflow.csv"),
            compare_options, compare_run, compare_inputs},
    Command{"estimate",
            tr_noop("Training time and cost: FLOPs, memory fit, step-time breakdown and bottleneck, cost per offer"),
            tr_noop("  gpuplan estimate                     # built-in defaults: 7B full fine-tune on 8×A100-80G\n"
                    "  gpuplan estimate examples/finetune-7b-a100.yaml\n"
                    "  gpuplan estimate examples/pretrain-1b-h800.yaml --set cluster.network=eth_1g\n"
                    "  gpuplan estimate examples/finetune-7b-a100.yaml --set job.stack=other   # your own code\n"
                    "  gpuplan estimate examples/vision-4090.yaml --mfu 35% --format csv"),
            estimate_options, estimate_run, estimate_inputs},
    Command{"plan", tr_noop("Capacity search: every offer × card count × billing mode against a deadline and a budget"),
            tr_noop("  gpuplan plan examples/plan-deadline.yaml\n"
                    "  gpuplan plan examples/finetune-7b-a100.yaml --deadline 2d --budget 5000 --allow-spot\n"
                    "  gpuplan plan JOB.yaml --deadline 2026-12-20 --budget 200000 --include-buy --explain\n"
                    "  gpuplan plan JOB.yaml --scaling scaling.json --objective time --format csv -o frontier.csv"),
            plan_options, plan_run, plan_inputs},
    Command{"sensitivity",
            tr_noop("Which inputs move the decision: each input varied ±20%, ranked (tornado), flips marked"),
            tr_noop("  gpuplan sensitivity examples/qingdao-8xa100.yaml            # buy vs rent: what decides it\n"
                    "  gpuplan sensitivity examples/qingdao-8xa100.yaml --range 30% --format csv\n"
                    "  gpuplan sensitivity examples/plan-deadline.yaml             # a job: what moves the plan"),
            sensitivity_options, sensitivity_run, sensitivity_inputs},
    Command{
        "serve", tr_noop("Serving a model: batch under latency targets, tokens/s, replicas, cost per million tokens"),
        tr_noop(
            "  gpuplan serve                        # built-in defaults: Llama 2 7B for about 200 staff\n"
            "  gpuplan serve examples/serve-7b-4090.yaml\n"
            "  gpuplan serve examples/serve-7b-4090.yaml --set traffic.requests_per_second=2 --format csv\n"
            "  gpuplan serve examples/serve-7b-4090.yaml --set api.offer=deepseek-chat-cny --set serve.min_replicas=0"),
        serve_options, serve_run, serve_inputs},
    Command{"prices",
            tr_noop("Rental offers: price per instance and per GPU-hour, by billing mode, with source and date"),
            tr_noop("  gpuplan prices --gpu A100-80G --mode hourly --sort gpu_hour\n"
                    "  gpuplan prices --provider autodl,runpod --currency USD --format csv\n"
                    "  gpuplan prices --history --gpu H100"),
            prices_options, prices_run},
    Command{"gpus", tr_noop("GPU hardware: memory, bandwidth, dense TFLOPS per precision, TDP, interconnect"),
            tr_noop("  gpuplan gpus\n  gpuplan gpus --gpu H100 --format json"), gpus_options, gpus_run},
    Command{"catalog", tr_noop("Catalog tools"),
            tr_noop("  gpuplan catalog validate examples/team-quotes.yaml\n  gpuplan catalog check\n"
                    "  gpuplan catalog import quotes examples/team-quotes.csv -o quotes.yaml")},
    Command{"catalog validate",
            tr_noop("Check catalog files; report every problem as FILE:LINE:COL: field: what is wrong"),
            tr_noop("  gpuplan catalog validate my-prices.yaml\n"
                    "  gpuplan catalog validate --no-default-catalog full-catalog.yaml"),
            validate_options, validate_run, validate_inputs},
    Command{
        "catalog check",
        tr_noop(
            "Freshness and sources of the catalog in use: prices per provider, oldest and newest, stale and undated"),
        tr_noop("  gpuplan catalog check\n"
                "  gpuplan catalog check --catalog my-prices.yaml --stale-after 90d --format csv"),
        nullptr, check_run},
    Command{"catalog import",
            tr_noop("Turn price files (SkyPilot catalog CSV, a team's quote CSV) into a catalog, offline"),
            tr_noop("  gpuplan catalog import skypilot catalogs/v6/lambda/vms.csv --as-of 2026-11-30 -o lambda.yaml\n"
                    "  gpuplan catalog import skypilot vms.csv --provider runpod --map my-gpus.yaml --format csv\n"
                    "  gpuplan catalog import quotes examples/team-quotes.csv -o quotes.yaml\n"
                    "Prices keep the currency of their file: --currency converts nothing here."),
            import_options, import_run, import_inputs, "yaml"},
    Command{"fit", tr_noop("Fit measured runs: scaling (Amdahl, USL), progress (rate, ETA), MFU"),
            tr_noop("  gpuplan fit scaling examples/scaling-a100.csv --predict 32,64\n"
                    "  gpuplan fit progress examples/trial-progress.csv --total-steps 20000\n"
                    "  gpuplan fit mfu examples/finetune-7b-a100.yaml --tokens-per-second 23000")},
    Command{"fit scaling", tr_noop("Amdahl and USL fits of throughput against GPU count"),
            tr_noop("  gpuplan fit scaling examples/scaling-a100.csv --predict 32,64\n"
                    "  gpuplan fit scaling runs.csv --x nodes --y samples_per_s --format json -o scaling.json"),
            scaling_options, scaling_run, scaling_inputs},
    Command{"fit progress", tr_noop("Rate and ETA from a training log (step, elapsed seconds or timestamp)"),
            tr_noop("  gpuplan fit progress examples/trial-progress.csv --total-steps 20000"), progress_options,
            progress_run, progress_inputs},
    Command{"fit mfu", tr_noop("The MFU a measured run implies (for estimate --mfu)"),
            tr_noop("  gpuplan fit mfu examples/finetune-7b-a100.yaml --tokens-per-second 23000\n"
                    "  gpuplan fit mfu examples/llama2-7b-pretrain.yaml --gpu-hours 184320\n"
                    "  gpuplan fit mfu --gpu A100-80G --gpus 8 --parameters 7B --tokens-per-second 23000"),
            mfu_options, mfu_run, mfu_inputs},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace cli
