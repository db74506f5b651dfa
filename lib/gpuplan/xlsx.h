// A small XLSX (Office Open XML SpreadsheetML) writer: numbers, text,
// formulas with their cached results (so viewers that do not recalculate still
// show the right numbers), workbook-level defined names for editable inputs,
// number formats for money, shares and counts, frozen header rows and column
// widths. The package is a ZIP archive of stored (uncompressed) entries with
// fixed timestamps, so the same workbook is the same bytes every time.
//
// Why not libxlsxwriter: Debian 12 packages it only as a shared library that
// loads libcrypto, libminizip and libz, which would add about 0.9 ms to every
// start of gpuplan (budget scripts call it in loops; the executable is static
// for that reason), and the subset needed here is small. The tests open every
// workbook in LibreOffice and openpyxl.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/money.h"

namespace gpuplan::xlsx {

enum class Style : std::uint8_t {
  kDefault,
  kHeader,        ///< bold
  kTitle,         ///< bold, larger
  kNote,          ///< italic
  kInteger,       ///< #,##0
  kNumber,        ///< #,##0.00
  kPrecise,       ///< 0.000000 (rates, factors)
  kMoney,         ///< #,##0.00 "CNY" (the workbook's currency)
  kPercent,       ///< 0.0%
  kInputMoney,    ///< an editable assumption: money on a yellow fill, up to 4 decimals
  kInputNumber,   ///< an editable assumption: a number on a yellow fill
  kInputPercent,  ///< an editable assumption: a share on a yellow fill
  kQuotedText,    ///< text that begins with = + - @, shown as text (quotePrefix)
  kDate,          ///< yyyy-mm-dd (a serial day number, see date_serial)
  kInputDate,     ///< an editable assumption: a date on a yellow fill
};

/// Text as XML character data or an attribute value: & < > " escaped, the
/// control characters XML 1.0 forbids (all but tab, newline, return) dropped.
std::string escape_xml(std::string_view text);

/// A date as a spreadsheet serial number (days since 1899-12-30).
double date_serial(int year, unsigned month, unsigned day);

/// "B3" for row 2, column 1 (0-based); "$B$3" when absolute.
std::string cell_ref(int row, int col, bool absolute = false);
/// "B" for column 1.
std::string column_letters(int col);

/// A formula rounding `x` to `digits` decimals the way gpuplan does (money.h):
/// to the micro-unit first, then half to even. Spreadsheets' ROUND rounds half
/// away from zero, which would put exact half cents (10% of 4,092.45) one cent
/// away from gpuplan's totals. A tie is a remainder within 1e-7 of a half,
/// which after rounding to the micro-unit only an exact half can be.
std::string round_half_even(const std::string& x, int digits = 2);
/// `formula` with every ROUND(x, d), d a literal below 6, replaced by round_half_even(x, d).
std::string with_half_even_rounding(std::string_view formula);

/// A native line chart (DrawingML): series over shared categories, each a
/// range of cells, so a spreadsheet redraws it when an edit recalculates
/// them; the values gpuplan computed are cached for viewers that do not.
struct LineChart {
  struct Series {
    std::string name{};
    int name_row = 0, name_col = 0;  ///< the cell holding the name
    int col = 0;                     ///< the values: this column, rows first_row..last_row
    std::vector<double> values{};
  };
  std::string title{}, x_title{}, y_title{};
  std::string data_sheet{};  ///< the sheet the ranges are on
  int first_row = 0, last_row = 0;
  int category_col = 0;  ///< the x values, same rows
  std::vector<double> categories{};
  std::vector<Series> series{};
  int top = 0, left = 0, bottom = 20, right = 10;  ///< where it sits on its own sheet (cells)
};

class Sheet {
 public:
  explicit Sheet(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  /// Throws std::logic_error for a non-finite value: no NaN or inf reaches a workbook.
  void number(int row, int col, double value, Style style = Style::kNumber);
  void money(int row, int col, Money value, Style style = Style::kMoney);
  void text(int row, int col, std::string value, Style style = Style::kDefault);
  /// A label (a message, marked tr_noop): text in the reader's language. Data
  /// and flags that formulas compare ("yes") go through text(), never translated.
  void label(int row, int col, std::string_view message, Style style = Style::kDefault);
  /// A formula (without '=') and the value gpuplan computed for it. Every
  /// ROUND(x, d) in it (d < 6) is written as round_half_even(x, d): the
  /// workbook rounds as gpuplan does.
  void formula(int row, int col, std::string formula, double cached, Style style = Style::kNumber);
  void formula_text(int row, int col, std::string formula, std::string cached, Style style = Style::kDefault);
  void width(int col, double characters) { widths_[col] = characters; }
  /// Rows (from the top) and columns (from the left) that stay in view.
  void freeze(int rows, int cols = 0) { freeze_ = {rows, cols}; }
  /// Data validation of one cell: a spreadsheet refuses a typed value outside
  /// lo..hi (an infinite bound is no bound; `whole`: whole numbers only) with `message`.
  void validate(int row, int col, double lo, double hi, bool whole, std::string message);
  /// Places a chart on this sheet (one a sheet).
  void chart(LineChart c) { chart_ = std::move(c); }
  const std::optional<LineChart>& line_chart() const { return chart_; }

  std::string xml() const;

 private:
  struct Cell {
    enum class Kind : std::uint8_t { kNumber, kText, kFormula, kFormulaText } kind = Kind::kNumber;
    double number = 0;
    std::string text{};    ///< text, or the formula
    std::string cached{};  ///< a text formula's cached result
    Style style = Style::kDefault;
  };
  void put(int row, int col, Cell cell);
  std::string name_;
  std::map<std::pair<int, int>, Cell> cells_{};  ///< (row, col), in row-major order
  std::map<int, double> widths_{};
  std::pair<int, int> freeze_{0, 0};
  struct Validation {
    int row = 0, col = 0;
    double lo = 0, hi = 0;
    bool whole = false;
    std::string message{};
  };
  std::vector<Validation> validations_{};
  std::optional<LineChart> chart_{};
};

class Workbook {
 public:
  explicit Workbook(Currency currency) : currency_(currency) {}
  /// Sheets keep their address: add all, then fill them.
  Sheet& add_sheet(std::string name);
  /// A workbook-level name for a cell ("utilisation" -> Assumptions!$B$5).
  /// Throws std::logic_error for a name a spreadsheet would not accept.
  void define_name(const std::string& name, const Sheet& sheet, int row, int col);
  /// The .xlsx file's bytes.
  std::string bytes() const;

 private:
  Currency currency_;
  std::vector<std::unique_ptr<Sheet>> sheets_{};
  std::vector<std::pair<std::string, std::string>> names_{};  ///< name, reference
};

/// A value in a workbook: how formulas refer to it (a defined name, a cell,
/// or a literal) and the number gpuplan computed for it.
struct Value {
  std::string ref;
  double v = 0;
};

/// An assumptions sheet filled top to bottom: each input a labelled, named,
/// editable cell with its unit and a note; each derived quantity a named
/// formula with its cached value, the formula repeated as a note.
class Assumptions {
 public:
  Assumptions(Workbook& wb, Sheet& sheet, int first_row) : wb_(wb), s_(sheet), row_(first_row) {}
  Value input(const std::string& name, const std::string& label, double value, Style style, const std::string& unit,
              const std::string& note = "");
  Value derived(const std::string& name, const std::string& label, const std::string& formula, double value,
                Style style = Style::kNumber, const std::string& unit = "");
  /// The last input accepts only lo..hi (the CLI's range for the field).
  void limit(double lo, double hi, bool whole = false);
  /// The last input's gpuplan setting, in column E: "buy.lead_time={}mo" (the
  /// value goes where {} is), so a change here can be reproduced with --set.
  void set_as(const std::string& setting);
  void heading(const std::string& text);
  int row() const { return row_; }

 private:
  Workbook& wb_;
  Sheet& s_;
  int row_;
};

/// Writes the usual header of an assumptions sheet (title, how to use it,
/// column heads) and sets its widths; returns the first row for inputs.
/// `formula_notes`: whether the sheet's derived values carry their formula as a note.
int assumptions_header(Sheet& sheet, const std::string& title, bool formula_notes = true);

/// CRC-32 (IEEE 802.3), as ZIP needs it.
std::uint32_t crc32(std::string_view data);
/// A ZIP archive of stored entries (name, content), in the order given.
std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace gpuplan::xlsx
