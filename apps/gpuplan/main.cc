// gpuplan: flags -> library call -> renderer -> exit code. Everything a
// command computes, including the tables it prints, lives in lib/.
#include <CLI/CLI.hpp>
#include <cstdlib>
#include <fmt/format.h>
#include <algorithm>
#include <functional>
#include <optional>
#include <unistd.h>

#include "gpuplan/commands/catalog_validate.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/commands/estimate.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/commands/gpus.h"
#include "gpuplan/commands/plan.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/commands/sensitivity.h"
#include "gpuplan/context.h"
#include "gpuplan/error.h"
#include "gpuplan/io.h"
#include "gpuplan/report.h"

namespace {

enum ExitCode : int { kOk = 0, kFailure = 1, kUsage = 2, kBadInput = 3, kInfeasible = 4 };

struct Outcome {
  gpuplan::Report report;
  int exit_code = kOk;
};

struct Flags {
  gpuplan::GlobalOptions global;
  std::string format = "table";
  std::string output = "-";
  std::string color = "auto";
  bool quiet = false;
  std::optional<std::string> field;
  gpuplan::PricesQuery prices;
  gpuplan::CompareQuery compare;
  gpuplan::EstimateQuery estimate;
  gpuplan::ScalingQuery scaling;
  gpuplan::ProgressQuery progress;
  gpuplan::MfuQuery mfu;
  gpuplan::PlanQuery plan;
  gpuplan::SensitivityQuery sensitivity;
  bool no_chart = false;
  std::vector<std::string> gpu_filters;
  std::vector<std::string> validate_files;
};

// The flags of `plan`, which `sensitivity` also takes for a job file.
void plan_options(CLI::App& sub, gpuplan::PlanQuery& q) {
  sub.add_option("--set", q.sets, "override a field: path.to.field=VALUE (repeatable)");
  sub.add_option("--deadline", q.deadline, "finish within this long (10d, 36h) or by this date (2026-12-20)");
  sub.add_option("--budget", q.budget, "spend at most this much (200000, or 30000 USD)");
  // Flag functions see --flag=false as a negative count: it overrides the file's `true`.
  sub.add_flag_function("--allow-spot", [&q](std::int64_t n) { q.allow_spot = n > 0; },
                        "consider spot (preemptible) capacity (--allow-spot=false: not, whatever the file says)");
  sub.add_flag_function("--include-buy", [&q](std::int64_t n) { q.include_buy = n > 0; },
                        "consider buying the cards, after the purchase lead time (=false: not)");
  sub.add_option("--gpu", q.gpus, "GPU ids or families to consider (default: all)")->delimiter(',');
  sub.add_option("--provider", q.providers, "providers to consider (default: all)")->delimiter(',');
  sub.add_option("--region", q.regions, "regions to consider (default: all)")->delimiter(',');
  sub.add_option("--max-gpus", q.max_gpus, "the most cards to consider (default 1024)");
  sub.add_option("--objective", q.objective, "cost (default) or time")->check(CLI::IsMember({"cost", "time"}));
  sub.add_option("--confidence", q.confidence, "a spot plan must meet the deadline this often (default 90%)");
  sub.add_option("--mfu", q.mfu, "model FLOPs utilisation on every GPU, e.g. 40% (from `gpuplan fit mfu`)");
  sub.add_option("--scaling", q.scaling_file, "a saved scaling fit (gpuplan fit scaling … --format json -o FILE)");
  sub.add_option("--trials", q.trials, "Monte Carlo runs per spot plan (default 1000)");
  sub.add_option("--seed", q.seed, "Monte Carlo seed (default 1)");
}

// One row per subcommand (ninja's kTools): help, README and tests enumerate it.
struct Command {
  const char* name;
  const char* description;
  const char* example;
  std::function<void(CLI::App&, Flags&)> options;
  std::function<Outcome(const Flags&)> run;
};

Outcome run_with_context(const Flags& f, const std::function<gpuplan::Report(const gpuplan::Context&)>& body) {
  const gpuplan::Context ctx = gpuplan::make_context(f.global);
  return Outcome{body(ctx), kOk};
}

const std::vector<Command>& commands() {
  static const std::vector<Command> kCommands = {
      {"compare", "Buy vs rent (hourly, monthly, spot, hybrid): totals, NPV, cost per used GPU-hour, break-even",
       "  gpuplan compare                      # built-in defaults: 8×A100-80G team in Qingdao\n"
       "  gpuplan compare examples/qingdao-8xa100.yaml --chart\n"
       "  gpuplan compare examples/qingdao-8xa100.yaml --set workload.utilisation=30% --format json\n"
       "  gpuplan compare examples/qingdao-8xa100.yaml --monthly --format csv -o cashflow.csv",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("scenario", f.compare.scenario_file, "scenario YAML (default: built-in defaults)");
         sub.add_option("--set", f.compare.sets, "override a scenario field: path.to.field=VALUE (repeatable)");
         sub.add_flag("--monthly", f.compare.monthly, "show the month-by-month cash flow (and export it as CSV)");
         sub.add_flag("--chart", f.compare.chart, "cumulative cost per option as a terminal chart");
       },
       [](const Flags& f) {
         return run_with_context(f,
                                 [&](const gpuplan::Context& c) { return gpuplan::compare_report(c, f.compare); });
       }},
      {"estimate", "Training time and cost: FLOPs, memory fit, step-time breakdown and bottleneck, cost per offer",
       "  gpuplan estimate                     # built-in defaults: 7B full fine-tune on 8×A100-80G\n"
       "  gpuplan estimate examples/finetune-7b-a100.yaml\n"
       "  gpuplan estimate examples/pretrain-1b-h800.yaml --set cluster.network=eth_1g\n"
       "  gpuplan estimate examples/vision-4090.yaml --mfu 35% --format csv",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("job", f.estimate.job_file, "job YAML (default: built-in defaults)");
         sub.add_option("--set", f.estimate.sets, "override a job field: path.to.field=VALUE (repeatable)");
         sub.add_option("--mfu", f.estimate.mfu, "model FLOPs utilisation, e.g. 40% (from `gpuplan fit mfu`)");
         sub.add_option("--gpu", f.estimate.gpu, "GPU id (overrides cluster.gpu)");
         sub.add_option("--gpus", f.estimate.gpus, "card count (overrides cluster.gpus)");
       },
       [](const Flags& f) {
         return run_with_context(f,
                                 [&](const gpuplan::Context& c) { return gpuplan::estimate_report(c, f.estimate); });
       }},
      {"plan", "Capacity search: every offer × card count × billing mode against a deadline and a budget",
       "  gpuplan plan examples/plan-deadline.yaml\n"
       "  gpuplan plan examples/finetune-7b-a100.yaml --deadline 2d --budget 5000 --allow-spot\n"
       "  gpuplan plan JOB.yaml --deadline 2026-12-20 --budget 200000 --include-buy --explain\n"
       "  gpuplan plan JOB.yaml --scaling scaling.json --objective time --format csv -o frontier.csv",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("job", f.plan.job_file, "job YAML (default: built-in defaults)");
         plan_options(sub, f.plan);
         sub.add_flag("--explain", f.plan.explain, "say why notable configurations were rejected");
       },
       [](const Flags& f) {
         const gpuplan::Context ctx = gpuplan::make_context(f.global);
         gpuplan::PlanOutcome o = gpuplan::plan_report(ctx, f.plan);
         return Outcome{std::move(o.report), o.feasible ? kOk : kInfeasible};
       }},
      {"sensitivity", "Which inputs move the decision: each input varied ±20%, ranked (tornado), flips marked",
       "  gpuplan sensitivity examples/qingdao-8xa100.yaml            # buy vs rent: what decides it\n"
       "  gpuplan sensitivity examples/qingdao-8xa100.yaml --range 30% --format csv\n"
       "  gpuplan sensitivity examples/plan-deadline.yaml             # a job: what moves the plan",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("file", f.sensitivity.file, "scenario or job YAML (default: the built-in scenario)");
         sub.add_option("--range", f.sensitivity.range, "how far each input moves, e.g. 20% (default)");
         plan_options(sub, f.sensitivity.plan);
       },
       [](const Flags& f) {
         return run_with_context(
             f, [&](const gpuplan::Context& c) { return gpuplan::sensitivity_report(c, f.sensitivity); });
       }},
      {"prices", "Rental offers: price per instance and per GPU-hour, by billing mode, with source and date",
       "  gpuplan prices --gpu A100-80G --mode hourly --sort gpu_hour\n"
       "  gpuplan prices --provider autodl,runpod --currency USD --format csv",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("--gpu", f.prices.gpus, "GPU id or family (A100 matches A100-40G, A100-80G, ...)")
             ->delimiter(',');
         sub.add_option("--provider", f.prices.providers, "provider id (see the provider column)")->delimiter(',');
         sub.add_option("--region", f.prices.regions, "region")->delimiter(',');
         sub.add_option("--mode", f.prices.modes, "billing mode: hourly, monthly, spot")
             ->delimiter(',')
             ->check(CLI::IsMember({"hourly", "monthly", "spot"}));
         sub.add_option("--sort", f.prices.sort, "sort key: gpu_hour (default), price, provider, gpu, as_of")
             ->check(CLI::IsMember(gpuplan::kPriceSortKeys));
         sub.add_flag("--stale", f.prices.stale_only, "only prices older than --stale-after");
       },
       [](const Flags& f) {
         gpuplan::PricesQuery q = f.prices;
         q.brief = !f.field && (f.format == "table" || f.format == "md");
         return run_with_context(f, [&](const gpuplan::Context& c) { return gpuplan::prices_report(c, q); });
       }},
      {"gpus", "GPU hardware: memory, bandwidth, dense TFLOPS per precision, TDP, interconnect",
       "  gpuplan gpus\n  gpuplan gpus --gpu H100 --format json",
       [](CLI::App& sub, Flags& f) {
         sub.add_option("--gpu", f.gpu_filters, "GPU id or family")->delimiter(',');
       },
       [](const Flags& f) {
         return run_with_context(f, [&](const gpuplan::Context& c) { return gpuplan::gpus_report(c, f.gpu_filters); });
       }},
  };
  return kCommands;
}

bool use_color(const Flags& f) {
  // NO_COLOR (no-color.org) wins over everything, --color always included.
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && *no_color != '\0') return false;
  if (f.color == "always") return true;
  if (f.color == "never" || f.output != "-") return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(STDOUT_FILENO) == 1;
}

// The format: --format, else the -o file's extension (.csv, .tsv, .json, .md,
// .xlsx), else a table. A workbook under another extension, or text under
// .xlsx, is refused rather than written.
gpuplan::Format output_format(const Flags& f, const CLI::App& app) {
  std::string ext;
  if (const auto dot = f.output.rfind('.'); f.output != "-" && dot != std::string::npos) ext = f.output.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool given = app.count("--format") > 0;
  if (!given) {
    for (const char* e : {"csv", "tsv", "json", "md", "xlsx"})
      if (ext == e) return gpuplan::parse_format(e);
    return gpuplan::Format::kTable;
  }
  const gpuplan::Format format = gpuplan::parse_format(f.format);
  if ((ext == "xlsx") != (format == gpuplan::Format::kXlsx) && !f.field)
    throw gpuplan::UsageError(fmt::format("--format {} does not go into {} (use --format {} or another file name)",
                                          f.format, f.output, ext == "xlsx" ? "xlsx" : f.format == "xlsx" ? "a .xlsx name" : f.format));
  return format;
}

void emit(const Flags& f, gpuplan::Report report, const CLI::App& app) {
  const gpuplan::Format format = output_format(f, app);
  if (f.quiet && format != gpuplan::Format::kJson) report.notes.clear();
  const std::string text = f.field ? gpuplan::field_value(report, *f.field)
                                   : gpuplan::render(report, format, gpuplan::RenderOptions{use_color(f)});
  if (f.output == "-") {
    // A workbook is binary: it goes to a file or a pipe, never to a terminal.
    if (format == gpuplan::Format::kXlsx && !f.field && ::isatty(STDOUT_FILENO) == 1)
      throw gpuplan::UsageError("--format xlsx writes a binary workbook: give -o FILE.xlsx");
    gpuplan::write_stdout(text);
  } else {
    std::vector<std::string> inputs = f.global.catalog_files;
    if (!f.compare.scenario_file.empty()) inputs.push_back(f.compare.scenario_file);
    if (!f.estimate.job_file.empty()) inputs.push_back(f.estimate.job_file);
    if (!f.plan.job_file.empty()) inputs.push_back(f.plan.job_file);
    if (f.plan.scaling_file) inputs.push_back(*f.plan.scaling_file);
    if (!f.sensitivity.file.empty()) inputs.push_back(f.sensitivity.file);
    if (f.sensitivity.plan.scaling_file) inputs.push_back(*f.sensitivity.plan.scaling_file);
    if (!f.scaling.file.empty()) inputs.push_back(f.scaling.file);
    if (!f.progress.file.empty()) inputs.push_back(f.progress.file);
    gpuplan::write_output_file(f.output, text, inputs);
  }
}

// The first argument naming a subcommand that is not the value of a global
// option (`--catalog prices.yaml` names a file, not `prices`).
// The first word that is not a global option or its value: the subcommand
// as typed (possibly misspelt), or empty.
std::string_view first_word(int argc, char** argv) {
  static const std::vector<std::string_view> kValued = {"--catalog", "--currency", "--format", "-o",      "--output",
                                                        "--color",   "--today",    "--stale-after", "--field"};
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (std::find(kValued.begin(), kValued.end(), a) != kValued.end()) {
      ++i;
      continue;
    }
    if (!a.starts_with("-")) return a;
  }
  return {};
}

std::string_view invoked_subcommand(int argc, char** argv) {
  const std::string_view w = first_word(argc, argv);
  for (const Command& c : commands())
    if (w == c.name) return c.name;
  return {};  // another subcommand (fit, catalog), a typo, or none
}

// Levenshtein distance, for "did you mean".
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

void print_problem(const gpuplan::InputError& e) { fmt::print(stderr, "gpuplan: {}\n", e.what()); }

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpuplan: GPU compute cost and capacity planner.\n"
               "Prices from a dated, sourced catalog; every number traceable.",
               "gpuplan"};
  app.require_subcommand(1);
  app.fallthrough();
  app.footer("\nExit status:\n"
             "  0  success\n"
             "  1  internal error (a bug: please report it with the command line)\n"
             "  2  usage error: unknown flag or subcommand, a flag value not in its set\n"
             "  3  bad input: a file, a value or a flag's content (the message names file, line, column, field)\n"
             "  4  nothing feasible: plan found no configuration within the deadline and the budget\n"
             "\nEvery subcommand has --help with examples. Documentation: the README; man gpuplan.");
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return fmt::format("gpuplan: {}\nRun with --help for more information.\n", e.what());
  });
  Flags f;
  app.add_option("--catalog", f.global.catalog_files,
                 "catalog YAML merged over the built-in one by id (repeatable; later wins)");
  app.add_flag("--no-default-catalog", f.global.no_default_catalog, "start from an empty catalog");
  app.add_option("--currency", f.global.currency,
                 "display currency (default: the scenario's, else CNY), converted with the catalog's dated FX rates");
  app.add_option("--format", f.format, "output format")
      ->check(CLI::IsMember({"table", "csv", "tsv", "json", "md", "xlsx"}))
      ->capture_default_str();
  app.add_option("-o,--output", f.output,
                 "write to FILE (whole or not at all); - is stdout; without --format, the name's extension "
                 "(.csv .tsv .json .md .xlsx) picks the format")
      ->capture_default_str();
  app.add_option("--color", f.color, "colour on a terminal: auto, always, never (NO_COLOR is honoured)")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", f.quiet, "no notes under tables, nothing but the result");
  app.add_option("--field", f.field, "print one value of the JSON result, e.g. break_even.month or options.0.total_cny");
  app.add_option("--today", f.global.today, "evaluate staleness as of this date, YYYY-MM-DD (default: $GPUPLAN_TODAY, else today in UTC)");
  app.add_option("--stale-after", f.global.stale_after, "flag prices older than this (default: catalog, 180d)");

  // A misspelt subcommand: CLI11 would say only "A subcommand is required".
  if (const std::string_view w = first_word(argc, argv); !w.empty()) {
    std::vector<std::string_view> names = {"catalog", "fit"};
    for (const Command& c : commands()) names.push_back(c.name);
    if (std::find(names.begin(), names.end(), w) == names.end()) {
      std::string_view best;
      for (const std::string_view n : names)
        if (edit_distance(w, n) <= 2 && (best.empty() || edit_distance(w, n) < edit_distance(w, best))) best = n;
      fmt::print(stderr, "gpuplan: '{}' is not a subcommand{}\nRun with --help for more information.\n", w,
                 best.empty() ? "" : fmt::format("; did you mean '{}'?", best));
      return kUsage;
    }
  }
  std::vector<std::pair<CLI::App*, const Command*>> subs;
  // Budget scripts run gpuplan in loops: define the options of the subcommand
  // being run only (each CLI11 option costs start-up time), all of them when
  // no subcommand can be seen (help, usage errors).
  const std::string_view wanted = invoked_subcommand(argc, argv);
  for (const Command& c : commands()) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    sub->footer(std::string("\nExamples:\n") + c.example);
    if (wanted.empty() || wanted == c.name) c.options(*sub, f);
    subs.emplace_back(sub, &c);
  }
  CLI::App* catalog = app.add_subcommand("catalog", "Catalog tools");
  catalog->require_subcommand(1);
  catalog->footer("\nExamples:\n  gpuplan catalog validate examples/team-quotes.yaml");
  CLI::App* validate = catalog->add_subcommand(
      "validate", "Check catalog files; report every problem as FILE:LINE:COL: field: what is wrong");
  validate->add_option("files", f.validate_files, "catalog YAML files")->required();
  validate->footer("\nExamples:\n  gpuplan catalog validate my-prices.yaml\n"
                   "  gpuplan catalog validate --no-default-catalog full-catalog.yaml");

  CLI::App* fit = app.add_subcommand("fit", "Fit measured runs: scaling (Amdahl, USL), progress (rate, ETA), MFU");
  fit->require_subcommand(1);
  fit->footer("\nExamples:\n  gpuplan fit scaling examples/scaling-a100.csv --predict 32,64\n"
              "  gpuplan fit progress examples/trial-progress.csv --total-steps 20000\n"
              "  gpuplan fit mfu --gpu A100-80G --gpus 8 --parameters 7B --tokens-per-second 23000");
  CLI::App* fit_scaling = fit->add_subcommand("scaling", "Amdahl and USL fits of throughput against GPU count");
  fit_scaling->add_option("data", f.scaling.file, "CSV with a GPU-count and a throughput column (- is stdin)")->required();
  fit_scaling->add_option("--x", f.scaling.x, "GPU-count column")->capture_default_str();
  fit_scaling->add_option("--y", f.scaling.y, "throughput column")->capture_default_str();
  fit_scaling->add_option("--predict", f.scaling.predict, "GPU counts to predict, e.g. 16,32,64")->delimiter(',');
  fit_scaling->add_option("--model", f.scaling.model, "usl, amdahl or both")
      ->check(CLI::IsMember({"usl", "amdahl", "both"}))
      ->capture_default_str();
  fit_scaling->add_flag("--no-chart", f.no_chart, "leave out the terminal chart");
  fit_scaling->footer("\nExamples:\n  gpuplan fit scaling examples/scaling-a100.csv --predict 32,64\n"
                      "  gpuplan fit scaling runs.csv --x nodes --y samples_per_s --format json -o scaling.json");
  CLI::App* fit_progress = fit->add_subcommand("progress", "Rate and ETA from a training log (step, elapsed seconds or timestamp)");
  fit_progress->add_option("log", f.progress.file, "CSV with step and elapsed-time columns (- is stdin)")->required();
  fit_progress->add_option("--step", f.progress.step, "step column")->capture_default_str();
  fit_progress->add_option("--time", f.progress.time, "elapsed-seconds or timestamp column");
  fit_progress->add_option("--total-steps", f.progress.total_steps, "the full run's steps, for the ETA");
  fit_progress->add_option("--total-tokens", f.progress.total_tokens, "the full run's tokens (with --tokens-per-step)");
  fit_progress->add_option("--tokens-per-step", f.progress.tokens_per_step, "tokens per step");
  fit_progress->footer("\nExamples:\n  gpuplan fit progress examples/trial-progress.csv --total-steps 20000");
  CLI::App* fit_mfu = fit->add_subcommand("mfu", "The MFU a measured throughput implies (for estimate --mfu)");
  fit_mfu->add_option("--gpu", f.mfu.gpu, "GPU id")->required();
  fit_mfu->add_option("--gpus", f.mfu.gpus, "cards in the measured run")->required();
  fit_mfu->add_option("--precision", f.mfu.precision, "fp32, tf32, bf16, fp16, fp8")->capture_default_str();
  fit_mfu->add_option("--parameters", f.mfu.parameters, "model parameters, e.g. 7B");
  fit_mfu->add_option("--tokens-per-second", f.mfu.tokens_per_second, "measured tokens/s of the whole job");
  fit_mfu->add_option("--samples-per-second", f.mfu.samples_per_second, "measured samples/s of the whole job");
  fit_mfu->add_option("--flops-per-sample", f.mfu.flops_per_sample, "forward FLOPs per sample");
  fit_mfu->footer("\nExamples:\n  gpuplan fit mfu --gpu A100-80G --gpus 8 --parameters 7B --tokens-per-second 23000");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;  // CLI11's own codes (105, 106...) are not our contract
  }

  // GPUPLAN_TODAY pins "today" for reproducible output (tests, the README tour).
  if (!f.global.today) {
    const char* today = std::getenv("GPUPLAN_TODAY");
    if (today != nullptr && *today != '\0') f.global.today = today;
  }
  try {
    if (validate->parsed()) {
      gpuplan::ValidationResult r = gpuplan::validate_catalogs(f.validate_files, !f.global.no_default_catalog);
      for (const gpuplan::InputError& p : r.problems) print_problem(p);
      emit(f, std::move(r.report), app);
      return r.problems.empty() ? kOk : kBadInput;
    }
    if (fit_scaling->parsed() || fit_progress->parsed() || fit_mfu->parsed()) {
      f.scaling.chart = !f.no_chart;
      const gpuplan::Context ctx = gpuplan::make_context(f.global);
      gpuplan::Report r = fit_scaling->parsed()    ? gpuplan::fit_scaling_report(ctx, f.scaling)
                          : fit_progress->parsed() ? gpuplan::fit_progress_report(ctx, f.progress)
                                                   : gpuplan::fit_mfu_report(ctx, f.mfu);
      emit(f, std::move(r), app);
      return kOk;
    }
    for (const auto& [sub, cmd] : subs) {
      if (!sub->parsed()) continue;
      Outcome out = cmd->run(f);
      emit(f, std::move(out.report), app);
      return out.exit_code;
    }
    return kUsage;
  } catch (const gpuplan::InputErrors& e) {
    for (const gpuplan::InputError& p : e.problems()) print_problem(p);
    return kBadInput;
  } catch (const gpuplan::InputError& e) {
    print_problem(e);
    return kBadInput;
  } catch (const gpuplan::FitError& e) {
    fmt::print(stderr, "gpuplan: {}\n", e.what());
    return kBadInput;
  } catch (const gpuplan::UsageError& e) {
    fmt::print(stderr, "gpuplan: {}\n", e.what());
    return kUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuplan: internal error: {}\n", e.what());
    return kFailure;
  }
}
