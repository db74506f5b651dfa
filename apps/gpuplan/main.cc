// gpuplan: flags -> library call -> renderer -> exit code. The commands are
// one table (commands.cc); the shell around them is cli.cc; everything a
// command computes lives in lib/.
#include <fmt/format.h>

#include "cli.h"

int main(int argc, char** argv) {
  // The help and usage errors read in the language chosen here, before any flag is declared.
  cli::choose_usage_language(argc, argv);
  CLI::App app{cli::tr("gpuplan: GPU compute cost and capacity planner.\n"
                       "Prices from a dated, sourced catalog; every number traceable."),
               "gpuplan"};
  cli::Flags flags;
  cli::add_global_options(app, flags);
  // A misspelt subcommand: CLI11 would say only "A subcommand is required".
  std::string misspelt;
  const cli::Command* wanted = cli::invoked_command(app, argc, argv, &misspelt);
  if (!misspelt.empty()) {
    fmt::print(stderr, "{}", gpuplan::trf("gpuplan: {}\nRun with --help for more information.\n", misspelt));
    return cli::kUsage;
  }
  const std::vector<CLI::App*> subs = cli::add_commands(app, flags, wanted);
  cli::refuse_flags_as_values(app);
  cli::label_type_names(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? cli::kOk : cli::kUsage;  // CLI11's own codes (105, 106...) are not our contract
  }
  return cli::run(app, subs, flags);
}
