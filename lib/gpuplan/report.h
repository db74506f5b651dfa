// Reports are data; renderers only format (hledger's "compute once, then
// case format of"). A command builds a Report of Tables once; render() turns
// it into table, csv, tsv, json or md. CSV and JSON carry every column with
// plain numbers, units in the keys (`gpu_hours`) and the currency in a column
// of its own; the terminal table and Markdown show the brief columns with
// thousands separators and the currency in the headers.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "gpuplan/json.h"
#include "gpuplan/money.h"

namespace gpuplan {

/// Empty (monostate) renders as "" in CSV, null in JSON and "-" in tables.
using Cell = std::variant<std::monostate, std::string, std::int64_t, double, Money, bool>;

struct Column {
  std::string
      key;  ///< snake_case with the unit ("gpu_hours"; money: "price", see Table::currency); CSV header and JSON key.
  std::string label;  ///< header in tables and Markdown: "CNY/GPU-h".
  int decimals =
      2;  ///< for double and Money cells; Money < 0 means exact, double < 0 means -decimals significant digits.
  bool brief = true;     ///< shown in the terminal table and Markdown (CSV/JSON show all).
  bool numeric = false;  ///< right-aligned even when no cell has a number (a column of "-")
  bool words = false;    ///< its text cells are messages ("power"), translated for people; else data (names, ids)
  /// With words: each cell is looked up as context + text first, for a word
  /// whose translation depends on the column ("default quality: low").
  const char* context = nullptr;
};

/// A word cell of `column` in the reader's language (see Column::context).
std::string translate_word(const Column& column, std::string_view text);

/// What a catalog record's own confidence ("high", "medium", "low", "unrated")
/// is looked up as in a column of them.
inline constexpr const char* kConfidenceContext = "source confidence: ";

struct Table {
  std::string name{};   ///< JSON key of the rows: "offers".
  std::string title{};  ///< heading above the table when a report has several.
  std::vector<Column> columns{};
  std::vector<std::vector<Cell>> rows{};
  bool text = true;  ///< shown in the terminal table and Markdown (JSON always has it)
  /// Keys of the columns that name a row (empty: the first): a table wider than
  /// the terminal repeats them in every block of columns.
  std::vector<std::string> lead{};
  /// 0: every row. Otherwise the terminal table and Markdown show at most this
  /// many rows, evenly spaced with the first and last kept (CSV and JSON show all).
  std::size_t text_max_rows = 0;
  /// The last row holds column totals: CSV and tables print it as a row; JSON
  /// puts it apart, as `<name>_total`, so that the array holds only data rows.
  bool last_row_is_total = false;
  /// The currency of the table's money columns, which are named without it
  /// (`total`, not `total_cny`): CSV, TSV and JSON rows end with a
  /// `currency` column holding its code (contract v3).
  std::optional<Currency> currency{};
  /// Throws std::logic_error when the row's width differs from the header's.
  void add_row(std::vector<Cell> row);
  /// The rows the terminal table and Markdown show (see text_max_rows).
  std::vector<std::size_t> text_row_indices() const;
};

/// A chart a report can draw where pictures are possible (HTML, SVG): lines
/// of (x, y) points on shared axes with a vertical marker (a break-even), or
/// stacked bars, one a category, each series a layer (x = the category's index).
struct ChartSeries {
  std::string name{};
  std::vector<std::pair<double, double>> points{};
  bool line = true;  ///< false: dots alone (measurements), drawn over the lines
};
/// A shaded range behind the lines (a fit's 95% prediction band): at each x, low to high.
struct ChartBand {
  std::string name{};
  std::vector<std::array<double, 3>> points{};  ///< x, low, high
};
struct Chart {
  /// kTornado: a row a category, each series a bar from zero to its change (points: row, change);
  /// kBars: the same rows with one scale from zero (amounts: NPVs side by side).
  enum class Kind { kLines, kStackedBars, kTornado, kBars } kind = Kind::kLines;
  std::string name{};                     ///< an id: "cumulative_cost"
  std::vector<std::string> categories{};  ///< stacked bars: one bar each
  std::string title{}, x_label{}, y_label{};
  std::vector<ChartSeries> series{};
  std::optional<ChartBand> band{};  ///< lines: drawn first, in the first series' colour
  std::optional<double> marker_x{};
  std::string marker_label{};
  bool dots = false;   ///< lines: a dot at every point (a frontier of plans; a one-point series shows)
  bool words = false;  ///< series and category names are messages ("power", "buy"), translated for people
};

struct Report {
  std::string command{};               ///< "prices": the JSON `command`.
  std::string title{};                 ///< first line of the terminal table.
  Json inputs{};                       ///< echoed in JSON: what the report was computed from.
  std::optional<Currency> currency{};  ///< the display currency of its amounts: JSON `currency`
  std::vector<Table> tables{};
  std::size_t primary = 0;             ///< the table CSV and TSV print
  std::vector<std::string> figures{};  ///< terminal charts, printed after the tables (table and md)
  std::vector<Chart> charts{};         ///< drawn as SVG in HTML (the terminal has `figures`)
  Json extra{};                        ///< further JSON members (an object), e.g. "fx_rates".
  std::vector<std::string> notes{};    ///< printed under tables and Markdown; JSON "notes".
  /// What may make the result wrong (a defaulted input that decides it, a
  /// value that looks mistyped): always on stderr, whatever the format and -q.
  std::vector<std::string> warnings{};
  /// The report as an XLSX workbook with live formulas, for the commands that
  /// have one; built only when --format xlsx asks for it.
  std::function<std::string()> xlsx{};
  /// The report as a document of its own (catalog import: a catalog), for --format yaml.
  std::string yaml{};
};

/// The tables in order, each moved in: a braced list would copy every one.
template <class... Tables>
std::vector<Table> tables_of(Tables&&... tables) {
  std::vector<Table> v;
  v.reserve(sizeof...(tables));
  (v.push_back(std::forward<Tables>(tables)), ...);
  return v;
}

enum class Format { kTable, kCsv, kTsv, kJson, kMd, kXlsx, kYaml, kHtml, kSvg };

/// "table" -> kTable ...; throws std::invalid_argument for anything else.
Format parse_format(std::string_view name);
inline constexpr std::string_view kFormatNames = "table, csv, tsv, json, md, xlsx, yaml, html, svg";

struct RenderOptions {
  bool color = false;  ///< ANSI bold headers, only when stdout is a terminal.
  /// Terminal columns a table line may take (COLUMNS, or the terminal's); 0 = no limit.
  /// A wider table is printed in blocks of columns that fit, each led by its first column.
  std::size_t width = 0;
};

/// Appends "Defaults used:" and one indented line per default, when there are any.
void add_defaults_notes(Report& report, const std::vector<std::string>& defaults);

/// The whole output document. CSV and TSV hold the report's primary table only
/// (one header row, RFC 4180); a report whose other tables matter says so.
std::string render(const Report& report, Format format, const RenderOptions& options = {});

/// The labels of the columns people see, the tables' titles and the charts'
/// words that have no translation into the current language (tests keep it
/// empty for Chinese).
std::vector<std::string> untranslated(const Report& report);

/// JSON document of the report: schema_version, command, inputs, tables, extra, notes.
Json to_json(const Report& report);

/// One value of the report's JSON document by path: "break_even.month",
/// "options.0.total" (array elements by index; "options.*.total" every
/// element's, one a line). Scalars print as plain text, objects and arrays as
/// compact JSON. Throws InputError at --field for
/// an unknown path, listing the keys valid at the point where it went wrong.
std::string field_value(const Report& report, std::string_view path);

/// A cell as the terminal table and Markdown show it ("1,234.50", "yes", "-").
std::string cell_text(const Cell& cell, const Column& column);
/// Whether a cell holds a number (right-aligned).
bool cell_is_number(const Cell& cell);
/// The columns the terminal table, Markdown and HTML show (the brief ones).
std::vector<std::size_t> shown_columns(const Table& table);

/// Columns a terminal needs for `text` (East Asian wide characters count 2).
std::size_t display_width(std::string_view text);

/// A number in a few characters, for a chart's axis or a label beside a bar:
/// "764k", "1.5M", "2B" (`digits` significant digits); for a Chinese reader in
/// the units a Chinese reader counts in, "76.4万", "1.5亿".
std::string short_number(double v, int digits = 3);

inline constexpr int kSchemaVersion = 3;

}  // namespace gpuplan
