#include "cli.h"

#include <algorithm>
#include <cstdlib>
#include <fmt/args.h>
#include <fmt/format.h>
#include <regex>
#include <sys/ioctl.h>
#include <unistd.h>

#include "gpuplan/error.h"
#include "gpuplan/i18n.h"
#include "gpuplan/io.h"
#include "gpuplan/report.h"
#include "gpuplan/suggest.h"

namespace cli {
namespace {

std::string_view parent_of(std::string_view path) {
  const std::size_t space = path.rfind(' ');
  return space == std::string_view::npos ? std::string_view() : path.substr(0, space);
}

std::string_view leaf_of(std::string_view path) {
  const std::size_t space = path.rfind(' ');
  return space == std::string_view::npos ? path : path.substr(space + 1);
}

// The subcommands one level under `parent` ("" = the top level).
std::vector<std::string_view> children(std::string_view parent) {
  std::vector<std::string_view> names;
  for (const Command& c : commands())
    if (parent_of(c.path) == parent) names.push_back(leaf_of(c.path));
  return names;
}

bool takes_value(const CLI::App& app, std::string_view arg) {
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_expected_min() == 0) continue;  // a flag
    for (const std::string& n : o->get_lnames())
      if (arg == "--" + n) return true;
    for (const std::string& n : o->get_snames())
      if (arg == "-" + n) return true;
  }
  return false;
}

// The words that are not options or option values: the command as typed.
std::vector<std::string_view> command_words(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string_view> words;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.starts_with("-")) {
      if (a.find('=') == std::string_view::npos && takes_value(app, a)) ++i;
      continue;
    }
    words.push_back(a);
  }
  return words;
}

// The columns a terminal table may take: COLUMNS when set (a user narrowing it,
// or a script asking for a width), else the terminal's own; 0 (no limit) for a
// pipe or a file, so what a script reads never depends on a window's size.
std::size_t table_width(const Flags& f) {
  if (f.output != "-") return 0;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && n > 0 && n < 100000) return static_cast<std::size_t>(n);
  }
  winsize w{};
  if (::isatty(STDOUT_FILENO) == 1 && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 0;
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
// .xlsx), else the command's own (a table; YAML for catalog import, whatever the name). A workbook under another
// extension, or text under .xlsx, is refused rather than written.
gpuplan::Format output_format(const Flags& f, const CLI::App& app, std::string_view fallback) {
  std::string ext;
  if (const auto dot = f.output.rfind('.'); f.output != "-" && dot != std::string::npos) ext = f.output.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // --field prints text values: they never go into a file a spreadsheet opens as a workbook.
  if (!f.fields.empty() && (ext == "xlsx" || (app.count("--format") > 0 && f.format == "xlsx")))
    throw gpuplan::UsageError(
        "--field prints text values, which cannot make a workbook: give --field without xlsx (e.g. -o values.txt)");
  if (app.count("--format") == 0) {
    for (const char* e : {"csv", "tsv", "json", "md", "xlsx", "html", "svg"})
      if (ext == e) return gpuplan::parse_format(e);
    if (ext == "htm") return gpuplan::Format::kHtml;
    return gpuplan::parse_format(fallback);
  }
  const gpuplan::Format format = gpuplan::parse_format(f.format);
  if ((ext == "xlsx") != (format == gpuplan::Format::kXlsx) && f.fields.empty()) {
    // A workbook is binary: it goes into a file named .xlsx, never the terminal or a text name.
    if (format == gpuplan::Format::kXlsx)
      throw gpuplan::UsageError(
          fmt::format("--format xlsx writes a workbook, which does not go into {}: give -o FILE.xlsx",
                      f.output == "-" ? "standard output" : f.output));
    throw gpuplan::UsageError(fmt::format(
        "--format {} does not go into {}: a .xlsx file holds a workbook (use --format xlsx, or another file name)",
        f.format, f.output));
  }
  return format;
}

void print_problem(const gpuplan::InputError& e) { fmt::print(stderr, "gpuplan: {}\n", e.what()); }

// Writes the report (or its --field) where -o says. Returns false when
// --field names nothing in a result that is itself a failure (exit 4): the
// problem is printed, and the command's own exit code stands.
bool emit(const Flags& f, gpuplan::Report report, const CLI::App& app, const Command& cmd, int exit_code) {
  const gpuplan::Format format = output_format(f, app, cmd.format);
  for (const std::string& w : report.warnings) fmt::print(stderr, "gpuplan: {}{}\n", gpuplan::tr("warning: "), w);
  if (f.quiet && format != gpuplan::Format::kJson) report.notes.clear();
  std::string text;
  if (!f.fields.empty()) {
    try {
      for (const std::string& field : f.fields) text += gpuplan::field_value(report, field);
    } catch (const gpuplan::InputError& e) {
      if (exit_code == kOk) throw;
      print_problem(e);
      return false;
    }
  } else {
    text = gpuplan::render(report, format, gpuplan::RenderOptions{use_color(f), table_width(f)});
  }
  if (f.output == "-") {
    // A workbook is binary: it goes to a file or a pipe, never to a terminal.
    if (format == gpuplan::Format::kXlsx && f.fields.empty() && ::isatty(STDOUT_FILENO) == 1)
      throw gpuplan::UsageError("--format xlsx writes a binary workbook: give -o FILE.xlsx");
    gpuplan::write_stdout(text);
    return true;
  }
  std::vector<std::string> inputs = f.global.catalog_files;
  if (cmd.inputs)
    for (std::string& file : cmd.inputs(f)) inputs.push_back(std::move(file));
  gpuplan::write_output_file(f.output, text, inputs);
  return true;
}

// The language of what people read: --lang, else the locale's variables.
// Machine output (CSV, TSV, JSON, YAML, --field) is English in every
// language, so that a script reads the same bytes wherever it runs.
void choose_language(const Flags& f, gpuplan::Format format) {
  using gpuplan::Format;
  const bool for_people =
      f.fields.empty() && (format == Format::kTable || format == Format::kMd || format == Format::kHtml ||
                           format == Format::kSvg || format == Format::kXlsx);
  gpuplan::Language lang = gpuplan::Language::kEnglish;
  if (!f.lang.empty()) lang = gpuplan::parse_language(f.lang);
  else
    lang = gpuplan::language_from_environment(std::getenv("LC_ALL"), std::getenv("LC_MESSAGES"), std::getenv("LANG"));
  gpuplan::set_language(for_people ? lang : gpuplan::Language::kEnglish);
}

int dispatch(const CLI::App& app, const std::vector<CLI::App*>& subs, Flags& f) {
  const auto all = commands();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (!all[i].run || !subs[i] || !subs[i]->parsed()) continue;
    f.written = output_format(f, app, all[i].format);
    choose_language(f, f.written);
    Outcome out = all[i].run(f);
    for (const gpuplan::InputError& p : out.problems) print_problem(p);
    emit(f, std::move(out.report), app, all[i], out.exit_code);
    return out.exit_code;
  }
  return kUsage;
}

}  // namespace

namespace {

// CLI11 pads the option column by bytes (std::setw); a Chinese type name
// (文本) is two columns in three bytes, so pad by display width instead.
class DisplayWidthFormatter : public CLI::Formatter {
 public:
  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string desc = make_option_desc(opt);
    const std::size_t col = get_column_width(), width = gpuplan::display_width(name);
    const std::string indent(col, ' ');
    std::string out = name;
    if (width < col) out += std::string(col - width, ' ');
    else if (!desc.empty()) out += "\n" + indent;
    for (const char c : desc) {
      out += c;
      if (c == '\n') out += indent;
    }
    return out + "\n";
  }
};

}  // namespace

void add_global_options(CLI::App& app, Flags& f) {
  app.formatter(std::make_shared<DisplayWidthFormatter>());  // before the subcommands: they share it
  app.require_subcommand(1);
  app.fallthrough();
  app.footer(
      tr("\nExit status:\n"
         "  0  success\n"
         "  1  internal error (a bug: please report it with the command line)\n"
         "  2  usage error: unknown flag or subcommand, a flag value not in its set\n"
         "  3  bad input: a file, a value or a flag's content (the message names file, line, column, field);\n"
         "     output that cannot be written (-o FILE, or standard output)\n"
         "  4  nothing feasible: plan found no configuration within the deadline and the budget\n"
         "\nEvery subcommand has --help with examples. Documentation: doc/manual.md; man gpuplan."));
  app.option_defaults()->group(tr("Options"));  // CLI11 names the group, not a label; subcommands inherit it
  app.set_help_flag("-h,--help", tr("Print this help message and exit"));
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION,
                       tr("Display program version information and exit"));
  // CLI11's own words in the help (its Formatter labels); the type names: label_type_names().
  for (const char* key :
       {tr_noop("Usage"), tr_noop("OPTIONS"), tr_noop("SUBCOMMAND"), tr_noop("SUBCOMMANDS"), tr_noop("Positionals"),
        tr_noop("Options"), tr_noop("Subcommands"), tr_noop("REQUIRED"), tr_noop("Needs"), tr_noop("Excludes")})
    app.get_formatter()->label(key, tr(key));
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return usage_message(*a, e); });
  app.add_option("--catalog", f.global.catalog_files,
                 tr("catalog YAML merged over the built-in one by id (repeatable; later wins)"));
  app.add_flag("--no-default-catalog", f.global.no_default_catalog, tr("start from an empty catalog"));
  app.add_option(
      "--currency", f.global.currency,
      tr("display currency (default: the scenario's, else CNY), converted with the catalog's dated FX rates"));
  app.add_option("--format", f.format, tr("output format"))
      ->check(one_of({"table", "csv", "tsv", "json", "md", "xlsx", "yaml", "html", "svg"}))
      ->capture_default_str();
  app.add_option("-o,--output", f.output,
                 tr("write to FILE (whole or not at all); - is stdout; without --format, the name's extension "
                    "(.csv .tsv .json .md .xlsx .html .svg) picks the format"))
      ->capture_default_str();
  app.add_option("--color", f.color, tr("colour on a terminal: auto, always, never (NO_COLOR is honoured)"))
      ->check(one_of({"auto", "always", "never"}))
      ->capture_default_str();
  app.add_option("--lang", f.lang,
                 tr("language of tables, notes, reports and messages: en or zh (default: from LC_ALL, LC_MESSAGES, "
                    "LANG; zh_* is Chinese); CSV, TSV, JSON, YAML and --field are always English"))
      ->check(one_of({"en", "zh"}));
  app.add_flag("-q,--quiet", f.quiet, tr("no notes under tables, nothing but the result"));
  app.add_option("--field", f.fields,
                 tr("print one value of the JSON result, e.g. break_even.month, options.0.total or options.*.total "
                    "(every element; repeatable: one value a line, in the order given)"));
  app.add_option("--today", f.global.today,
                 tr("evaluate staleness as of this date, YYYY-MM-DD (default: $GPUPLAN_TODAY, else today in UTC)"));
  app.add_option("--stale-after", f.global.stale_after, tr("flag prices older than this (default: catalog, 180d)"));
}

// A single-valued option given twice takes the later value, as shells and
// wrapper scripts expect (`gpuplan $DEFAULTS --format csv`); repeatable ones
// (--set, --catalog, --field) keep every value.
void last_wins(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->get_items_expected_max() == 1) o->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) last_wins(*sub);
}

namespace {
// Whether `path` is `outer` or a command under it.
bool within(std::string_view path, std::string_view outer) {
  return path.starts_with(outer) && (path.size() == outer.size() || path[outer.size()] == ' ');
}
}  // namespace

std::vector<CLI::App*> add_commands(CLI::App& app, Flags& f, const Command* wanted) {
  std::vector<CLI::App*> subs;
  for (const Command& c : commands()) {
    // Only what this invocation can reach: the command, the groups above it and
    // the commands under it (a group's help lists them); every row without one.
    if (wanted && !within(wanted->path, c.path) && !within(c.path, wanted->path)) {
      subs.push_back(nullptr);
      continue;
    }
    CLI::App* parent = &app;
    for (std::size_t i = 0; i < subs.size(); ++i)
      if (commands()[i].path == parent_of(c.path)) parent = subs[i];
    CLI::App* sub = parent->add_subcommand(std::string(leaf_of(c.path)), std::string(gpuplan::tr(c.description)));
    sub->group(tr("Subcommands"));
    sub->set_help_flag("-h,--help", tr("Print this help message and exit"));  // again: into the group above
    sub->footer(gpuplan::trf("\nExamples:\n{}", gpuplan::tr(c.examples)));
    if (!c.run) sub->require_subcommand(1);
    if (c.options && (!wanted || wanted == &c)) c.options(*sub, f);
    subs.push_back(sub);
  }
  last_wins(app);
  return subs;
}

const Command* invoked_command(const CLI::App& app, int argc, char** argv, std::string* misspelt) {
  const Command* found = nullptr;
  std::string path;
  for (const std::string_view word : command_words(app, argc, argv)) {
    const std::vector<std::string_view> names = children(path);
    if (names.empty()) break;  // a command's own arguments from here on
    if (std::find(names.begin(), names.end(), word) == names.end()) {
      if (found && found->run) break;  // a positional argument of the command
      const std::string_view near = gpuplan::nearest(word, names);
      *misspelt = gpuplan::trf("'{}' is not a {}subcommand{}", word, path.empty() ? "" : path + " ",
                               near.empty() ? "" : gpuplan::trf("; did you mean '{}'?", near));
      return nullptr;
    }
    path = path.empty() ? std::string(word) : path + " " + std::string(word);
    for (const Command& c : commands())
      if (c.path == path) found = &c;
  }
  return found;
}

void choose_usage_language(int argc, char** argv) {
  std::string lang, format, output;
  bool field = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const std::string_view next = i + 1 < argc ? std::string_view(argv[i + 1]) : std::string_view();
    for (auto [flag, into] : {std::pair{std::string_view("--lang"), &lang},
                              {"--format", &format},
                              {"--output", &output},
                              {"-o", &output}}) {
      if (a == flag) *into = next;
      else if (a.starts_with(flag) && a.size() > flag.size() && a[flag.size()] == '=')
        *into = a.substr(flag.size() + 1);
    }
    field = field || a == "--field" || a.starts_with("--field=");
  }
  if (format.empty())
    for (const char* ext : {".csv", ".tsv", ".json", ".yaml"})
      if (output.ends_with(ext)) format = std::string(ext + 1);
  gpuplan::Language l =
      gpuplan::language_from_environment(std::getenv("LC_ALL"), std::getenv("LC_MESSAGES"), std::getenv("LANG"));
  try {
    if (!lang.empty()) l = gpuplan::parse_language(lang);
  } catch (const std::invalid_argument&) {
    // CLI11 refuses it in a moment, in the environment's language.
  }
  const bool machine = field || format == "csv" || format == "tsv" || format == "json" || format == "yaml";
  gpuplan::set_language(machine ? gpuplan::Language::kEnglish : l);
}

void refuse_flags_as_values(CLI::App& app) {
  const CLI::Validator not_a_flag(
      [](std::string& value) -> std::string {
        if (!value.starts_with("--")) return {};
        return gpuplan::trf("needs a value, and the next argument is the flag {}", value);
      },
      "");
  for (CLI::Option* opt : app.get_options())
    if (opt->nonpositional() && opt->get_expected_min() > 0) opt->check(not_a_flag);
  for (CLI::App* sub : app.get_subcommands({})) refuse_flags_as_values(*sub);
}

void label_type_names(CLI::App& app) {
  // The formatter is shared with the subcommands; a label maps a whole type name.
  if (gpuplan::tr("TEXT") == "TEXT") return;  // English: CLI11's own
  for (const CLI::Option* opt : app.get_options()) {
    const std::string type = opt->get_type_name();
    if (type.starts_with("TEXT")) app.get_formatter()->label(type, std::string(gpuplan::tr("TEXT")) + type.substr(4));
  }
  for (CLI::App* sub : app.get_subcommands({})) label_type_names(*sub);
}

CLI::Validator one_of(std::vector<std::string> allowed) {
  const std::string list = fmt::format("{}", fmt::join(allowed, ","));
  return CLI::Validator(
      [allowed = std::move(allowed), list](std::string& value) -> std::string {
        if (std::find(allowed.begin(), allowed.end(), value) != allowed.end()) return {};
        return gpuplan::trf("{} not in {{{}}}", value, list);
      },
      "{" + list + "}");
}

namespace {

// CLI11's messages (2.1, Debian 12's) as patterns, each with gpuplan's words
// for it (translated); the captured names and values go in unchanged.
struct Cli11Message {
  const char* pattern;
  const char* words;
};
constexpr Cli11Message kCli11Messages[] = {
    {"A subcommand is required", gpuplan::tr_noop("a subcommand is required")},
    {"(.+) is required", gpuplan::tr_noop("{} is required")},
    {"(.+): \\d+ required \\S+ missing", gpuplan::tr_noop("{} needs a value")},
    {"(.+): At Most (\\d+) required but received (\\d+)", gpuplan::tr_noop("{} takes at most {} value(s), {} given")},
    {"(.+): At least (\\d+) required but received (\\d+)", gpuplan::tr_noop("{} takes at least {} value(s), {} given")},
    {"Could not convert: (.+) = (.*)", gpuplan::tr_noop("{}: cannot read {}")},
    {"(.+): Should be true/false or a number", gpuplan::tr_noop("{} is a switch: give it alone, or =true or =false")},
    {"(.+) excludes (.+)", gpuplan::tr_noop("{} cannot be given with {}")},
    {"(.+) requires (.+)", gpuplan::tr_noop("{} needs {} too")},
};

// A CLI11 message in gpuplan's words, or as it is when no pattern knows it.
std::string cli11_words(const std::string& what) {
  for (const Cli11Message& m : kCli11Messages) {
    std::smatch match;
    if (!std::regex_match(what, match, std::regex(m.pattern))) continue;
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (std::size_t i = 1; i < match.size(); ++i) args.push_back(match[i].str());
    return fmt::vformat(gpuplan::tr(m.words), args);
  }
  return what;
}

}  // namespace

std::string usage_message(const CLI::App& app, const CLI::Error& e) {
  std::string what = e.what();
  // CLI11's words, said as gpuplan says things and in the reader's language.
  if (dynamic_cast<const CLI::ExtrasError*>(&e) == nullptr) what = cli11_words(what);
  else if (gpuplan::language() != gpuplan::Language::kEnglish)
    what = gpuplan::trf("not expected: {}", fmt::join(app.remaining(true), " "));
  return gpuplan::trf("gpuplan: {}\nRun with --help for more information.\n", what);
}

int run(const CLI::App& app, const std::vector<CLI::App*>& subs, Flags& f) {
  // GPUPLAN_TODAY pins "today" for reproducible output (tests, the manual's tour).
  if (!f.global.today) {
    const char* today = std::getenv("GPUPLAN_TODAY");
    if (today != nullptr && *today != '\0') f.global.today = today;
  }
  try {
    return dispatch(app, subs, f);
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
    fmt::print(stderr, "gpuplan: {}{}\n", gpuplan::tr("internal error: "), e.what());
    return kFailure;
  }
}

}  // namespace cli
