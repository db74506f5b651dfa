// The command-line shell around the library: flags, the one command table
// (every subcommand, nested ones included, like ninja's kTools), output to
// stdout or a file, and exit codes. Help, "did you mean", lazy option
// registration and the input files that -o must not overwrite all come from
// the table in commands.cc.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/commands/catalog_import.h"
#include "gpuplan/commands/compare.h"
#include "gpuplan/commands/estimate.h"
#include "gpuplan/commands/serve.h"
#include "gpuplan/commands/fit.h"
#include "gpuplan/commands/plan.h"
#include "gpuplan/commands/prices.h"
#include "gpuplan/commands/sensitivity.h"
#include "gpuplan/context.h"
#include "gpuplan/report.h"

namespace cli {

/// A help text in the reader's language (--help is read by people; the
/// language is chosen before the flags are declared, see choose_usage_language).
inline std::string tr(const char* text) { return std::string(gpuplan::tr(text)); }
using gpuplan::tr_noop;

enum ExitCode : int { kOk = 0, kFailure = 1, kUsage = 2, kBadInput = 3, kInfeasible = 4 };

/// Every flag of every command, parsed once.
struct Flags {
  gpuplan::GlobalOptions global;
  std::string format = "table";
  /// The format the output is written in (--format, else the -o name's extension), set before the command runs.
  gpuplan::Format written = gpuplan::Format::kTable;
  std::string output = "-";
  std::string color = "auto";
  std::string lang;  ///< --lang: en or zh; empty = from LC_ALL / LC_MESSAGES / LANG
  bool quiet = false;
  std::vector<std::string> fields;  ///< --field, repeatable: one value a line
  gpuplan::PricesQuery prices;
  gpuplan::CompareQuery compare;
  gpuplan::EstimateQuery estimate;
  gpuplan::ServeQuery serve;
  gpuplan::ScalingQuery scaling;
  gpuplan::ProgressQuery progress;
  gpuplan::MfuQuery mfu;
  gpuplan::PlanQuery plan;
  gpuplan::SensitivityQuery sensitivity;
  bool no_chart = false;
  std::vector<std::string> gpu_filters;
  std::vector<std::string> validate_files;
  gpuplan::ImportQuery import;
};

/// What a command produced: a report, problems to print first, and its exit code.
struct Outcome {
  gpuplan::Report report;
  std::vector<gpuplan::InputError> problems{};
  int exit_code = kOk;
};

/// One row per command. A row without `run` is a group ("fit", "catalog")
/// whose rows below it ("fit scaling") are its subcommands.
struct Command {
  std::string_view path;         ///< "compare", "fit scaling"
  std::string_view description;  ///< one line, for --help
  std::string_view examples;     ///< the help footer's examples
  void (*options)(CLI::App&, Flags&) = nullptr;
  Outcome (*run)(const Flags&) = nullptr;
  /// The files the command reads (besides --catalog), which -o must not overwrite.
  std::vector<std::string> (*inputs)(const Flags&) = nullptr;
  std::string_view format = "table";  ///< without --format or a telling -o name
};

std::span<const Command> commands();

/// The global options, the program's help and exit-status footer.
void add_global_options(CLI::App& app, Flags& f);

/// Registers the commands of the table under `app`: all of them when `wanted`
/// is null, else only `wanted`, the groups above it and the commands under it,
/// and only `wanted`'s options (each CLI11 subcommand and option costs start-up
/// time). Returns the CLI11 subcommand of each row, in table order (null for a
/// row left out).
std::vector<CLI::App*> add_commands(CLI::App& app, Flags& f, const Command* wanted);

/// The command the arguments name (the deepest row), or null. A word that is
/// no command (or no subcommand of a group) is a usage error with the nearest
/// name suggested, returned as the message to print.
const Command* invoked_command(const CLI::App& app, int argc, char** argv, std::string* misspelt);

/// The language of usage errors, set before the command line is parsed: --lang
/// when given, else the environment; English when the output is for a machine
/// (--format csv/tsv/json/yaml, an -o name with that extension, --field).
void choose_usage_language(int argc, char** argv);

/// A flag's allowed values (CLI11's IsMember, its message in the reader's language).
CLI::Validator one_of(std::vector<std::string> allowed);
/// Refuses "--flag" as the value of an option of `app` or its subcommands:
/// CLI11 takes the next argument as a value even when it is the next flag
/// (`--deadline --lang zh` would read "--lang" as the deadline).
void refuse_flags_as_values(CLI::App& app);
/// CLI11's type names in the help (TEXT, TEXT:{a,b}) in the current language.
void label_type_names(CLI::App& app);

/// What CLI11's parse error says, in the reader's language where gpuplan can say it.
std::string usage_message(const CLI::App& app, const CLI::Error& e);

/// Runs the parsed command and prints its result; maps every outcome to an exit code.
int run(const CLI::App& app, const std::vector<CLI::App*>& subs, Flags& f);

}  // namespace cli
