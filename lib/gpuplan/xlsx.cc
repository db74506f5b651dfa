#include "gpuplan/xlsx.h"
#include "gpuplan/i18n.h"

#include <array>
#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

namespace gpuplan::xlsx {
namespace {

std::string escape(std::string_view s) { return escape_xml(s); }

constexpr const char* kMainNs = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
constexpr const char* kRelNs = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

// Shortest text that reads back as the same double, never locale-dependent.
std::string number_text(double v) {
  if (!std::isfinite(v)) throw std::logic_error("a non-finite number reached a workbook");
  return fmt::format("{}", v);
}

// A sheet name as a formula or a defined name refers to it.
std::string sheet_ref(const std::string& name) {
  for (const char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return "'" + name + "'";
  return name;
}

constexpr const char* kChartNs = "http://schemas.openxmlformats.org/drawingml/2006/chart";
constexpr const char* kDrawingNs = "http://schemas.openxmlformats.org/drawingml/2006/main";

std::string rich_text(const std::string& text) {
  return fmt::format("<c:tx><c:rich><a:bodyPr/><a:p><a:r><a:t>{}</a:t></a:r></a:p></c:rich></c:tx>", escape(text));
}

// A column's rows as a formula reference, with its cached numbers.
std::string number_ref(const LineChart& c, int col, const std::vector<double>& values) {
  std::string out = fmt::format(
      "<c:numRef><c:f>{}!{}:{}</c:f><c:numCache><c:formatCode>General</c:formatCode>"
      "<c:ptCount val=\"{}\"/>",
      escape(sheet_ref(c.data_sheet)), cell_ref(c.first_row, col, true), cell_ref(c.last_row, col, true),
      values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out += fmt::format("<c:pt idx=\"{}\"><c:v>{}</c:v></c:pt>", i, number_text(values[i]));
  return out + "</c:numCache></c:numRef>";
}

std::string chart_xml(const LineChart& c) {
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<c:chartSpace xmlns:c=\"{}\" "
      "xmlns:a=\"{}\" xmlns:r=\"{}\"><c:chart><c:title>{}<c:overlay val=\"0\"/></c:title>"
      "<c:autoTitleDeleted val=\"0\"/><c:plotArea><c:layout/><c:lineChart><c:grouping val=\"standard\"/>"
      "<c:varyColors val=\"0\"/>",
      kChartNs, kDrawingNs, kRelNs, rich_text(std::string(tr(c.title))));
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const LineChart::Series& s = c.series[i];
    out += fmt::format(
        "<c:ser><c:idx val=\"{0}\"/><c:order val=\"{0}\"/><c:tx><c:strRef><c:f>{1}!{2}</c:f><c:strCache>"
        "<c:ptCount val=\"1\"/><c:pt idx=\"0\"><c:v>{3}</c:v></c:pt></c:strCache></c:strRef></c:tx>"
        "<c:marker><c:symbol val=\"none\"/></c:marker><c:cat>{4}</c:cat><c:val>{5}</c:val>"
        "<c:smooth val=\"0\"/></c:ser>",
        i, escape(sheet_ref(c.data_sheet)), cell_ref(s.name_row, s.name_col, true),
        escape(tr(s.name)),  // as Sheet::text wrote the cell
        number_ref(c, c.category_col, c.categories), number_ref(c, s.col, s.values));
  }
  const auto axis_title = [](const std::string& t) {
    return fmt::format("<c:title>{}<c:overlay val=\"0\"/></c:title>", rich_text(std::string(tr(t))));
  };
  out += fmt::format(
      "<c:marker val=\"1\"/><c:axId val=\"1001\"/><c:axId val=\"1002\"/></c:lineChart>"
      "<c:catAx><c:axId val=\"1001\"/><c:scaling><c:orientation val=\"minMax\"/></c:scaling><c:delete val=\"0\"/>"
      "<c:axPos val=\"b\"/>{}<c:numFmt formatCode=\"General\" sourceLinked=\"1\"/><c:tickLblPos val=\"nextTo\"/>"
      "<c:crossAx val=\"1002\"/><c:crosses val=\"autoZero\"/><c:auto val=\"1\"/><c:lblAlgn val=\"ctr\"/>"
      "<c:lblOffset val=\"100\"/></c:catAx>"
      "<c:valAx><c:axId val=\"1002\"/><c:scaling><c:orientation val=\"minMax\"/></c:scaling><c:delete val=\"0\"/>"
      "<c:axPos val=\"l\"/><c:majorGridlines/>{}<c:numFmt formatCode=\"#,##0\" sourceLinked=\"0\"/>"
      "<c:tickLblPos val=\"nextTo\"/><c:crossAx val=\"1001\"/><c:crosses val=\"autoZero\"/>"
      "<c:crossBetween val=\"between\"/></c:valAx></c:plotArea><c:legend><c:legendPos val=\"r\"/>"
      "<c:overlay val=\"0\"/></c:legend><c:plotVisOnly val=\"1\"/></c:chart></c:chartSpace>",
      axis_title(c.x_title), axis_title(c.y_title));
  return out;
}

// The drawing that anchors chart `rId1` between two cells of its sheet.
std::string drawing_xml(const LineChart& c) {
  const auto corner = [](const char* tag, int row, int col) {
    return fmt::format(
        "<xdr:{0}><xdr:col>{1}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>{2}</xdr:row>"
        "<xdr:rowOff>0</xdr:rowOff></xdr:{0}>",
        tag, col, row);
  };
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<xdr:wsDr "
      "xmlns:xdr=\"http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing\" xmlns:a=\"{}\">"
      "<xdr:twoCellAnchor>{}{}<xdr:graphicFrame macro=\"\"><xdr:nvGraphicFramePr><xdr:cNvPr id=\"2\" "
      "name=\"{}\"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr><xdr:xfrm><a:off x=\"0\" y=\"0\"/>"
      "<a:ext cx=\"0\" cy=\"0\"/></xdr:xfrm><a:graphic><a:graphicData uri=\"{}\"><c:chart xmlns:c=\"{}\" "
      "xmlns:r=\"{}\" r:id=\"rId1\"/></a:graphicData></a:graphic></xdr:graphicFrame><xdr:clientData/>"
      "</xdr:twoCellAnchor></xdr:wsDr>",
      kDrawingNs, corner("from", c.top, c.left), corner("to", c.bottom, c.right), escape(c.title), kChartNs, kChartNs,
      kRelNs);
}

std::string one_relationship(const char* type, const std::string& target) {
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Relationships "
      "xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship Id=\"rId1\" "
      "Type=\"{}/{}\" Target=\"{}\"/></Relationships>",
      kRelNs, type, target);
}

void put16(std::string& out, std::uint32_t v) {
  out += static_cast<char>(v & 0xFF);
  out += static_cast<char>((v >> 8) & 0xFF);
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

}  // namespace

// Shared with the HTML page (html.cc), whose text needs the same escapes.
std::string escape_xml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // XML 1.0 allows no control characters but tab, newline and return.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') continue;
        out += c;
    }
  }
  return out;
}

double date_serial(int year, unsigned month, unsigned day) {
  const std::chrono::sys_days d{std::chrono::year{year} / std::chrono::month{month} / std::chrono::day{day}};
  const std::chrono::sys_days epoch{std::chrono::year{1899} / std::chrono::December / std::chrono::day{30}};
  return static_cast<double>((d - epoch).count());
}

std::string round_half_even(const std::string& x, int digits) {
  const std::string scale = fmt::format("1E{}", digits);
  const std::string a = fmt::format("ABS(ROUND({},6))*{}", x, scale);
  return fmt::format("IF(ABS(MOD({0},1)-0.5)<1E-7,SIGN({1})*(INT({0})+MOD(INT({0}),2))/{2},ROUND({1},{3}))", a, x,
                     scale, digits);
}

std::string with_half_even_rounding(std::string_view f) {
  std::string out;
  std::size_t i = 0;
  while (i < f.size()) {
    const std::size_t at = f.find("ROUND(", i);
    // Only the function itself, not ROUNDUP( or a name ending in ROUND(.
    if (at == std::string_view::npos) break;
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(f[at - 1])) || f[at - 1] == '_')) {
      out += f.substr(i, at + 6 - i);
      i = at + 6;
      continue;
    }
    // The matching parenthesis and the last top-level comma.
    int depth = 0;
    std::size_t close = std::string_view::npos, comma = std::string_view::npos;
    for (std::size_t k = at + 5; k < f.size(); ++k) {
      if (f[k] == '(') ++depth;
      else if (f[k] == ')' && --depth == 0) {
        close = k;
        break;
      } else if (f[k] == ',' && depth == 1) {
        comma = k;
      }
    }
    const std::string_view digits = comma == std::string_view::npos || close == std::string_view::npos
                                        ? ""
                                        : f.substr(comma + 1, close - comma - 1);
    if (digits.size() != 1 || digits[0] < '0' || digits[0] > '5') {
      out += f.substr(i, at + 6 - i);
      i = at + 6;
      continue;
    }
    out += f.substr(i, at - i);
    out += round_half_even(with_half_even_rounding(f.substr(at + 6, comma - at - 6)), digits[0] - '0');
    i = close + 1;
  }
  out += f.substr(i);
  return out;
}

std::string column_letters(int col) {
  std::string s;
  for (int c = col + 1; c > 0; c = (c - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (c - 1) % 26));
  return s;
}

std::string cell_ref(int row, int col, bool absolute) {
  return absolute ? fmt::format("${}${}", column_letters(col), row + 1)
                  : fmt::format("{}{}", column_letters(col), row + 1);
}

void Sheet::put(int row, int col, Cell cell) {
  if (row < 0 || col < 0 || row >= 1'048'576 || col >= 16'384) throw std::logic_error("cell outside a worksheet");
  cells_[{row, col}] = std::move(cell);
}

void Sheet::number(int row, int col, double value, Style style) {
  number_text(value);  // refuses non-finite values now, not at save time
  put(row, col, Cell{Cell::Kind::kNumber, value, {}, {}, style});
}

void Sheet::money(int row, int col, Money value, Style style) { number(row, col, value.units(), style); }

void Sheet::label(int row, int col, std::string_view message, Style style) {
  text(row, col, std::string(tr(message)), style);
}

void Sheet::text(int row, int col, std::string value, Style style) {
  // Text that a spreadsheet could mistake for a formula is marked as text.
  if (!value.empty() && (value[0] == '=' || value[0] == '+' || value[0] == '-' || value[0] == '@') &&
      style == Style::kDefault)
    style = Style::kQuotedText;
  put(row, col, Cell{Cell::Kind::kText, 0, std::move(value), {}, style});
}

void Sheet::formula(int row, int col, std::string formula, double cached, Style style) {
  number_text(cached);
  put(row, col, Cell{Cell::Kind::kFormula, cached, with_half_even_rounding(formula), {}, style});
}

void Sheet::formula_text(int row, int col, std::string formula, std::string cached, Style style) {
  put(row, col, Cell{Cell::Kind::kFormulaText, 0, with_half_even_rounding(formula), std::move(cached), style});
}

void Sheet::validate(int row, int col, double lo, double hi, bool whole, std::string message) {
  validations_.push_back(Validation{row, col, lo, hi, whole, std::move(message)});
}

std::string Sheet::xml() const {
  std::string out = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<worksheet xmlns=\"{}\" "
      "xmlns:r=\"{}\">",
      kMainNs, kRelNs);
  out += "<sheetViews><sheetView workbookViewId=\"0\">";
  const auto [fr, fc] = freeze_;
  if (fr > 0 || fc > 0) {
    const char* pane = fr > 0 && fc > 0 ? "bottomRight" : fr > 0 ? "bottomLeft" : "topRight";
    out += "<pane";
    if (fc > 0) out += fmt::format(" xSplit=\"{}\"", fc);
    if (fr > 0) out += fmt::format(" ySplit=\"{}\"", fr);
    out += fmt::format(" topLeftCell=\"{}\" activePane=\"{}\" state=\"frozen\"/>", cell_ref(fr, fc), pane);
  }
  out += "</sheetView></sheetViews><sheetFormatPr defaultRowHeight=\"15\"/>";
  if (!widths_.empty()) {
    out += "<cols>";
    for (const auto& [c, w] : widths_)
      out += fmt::format("<col min=\"{}\" max=\"{}\" width=\"{:.1f}\" customWidth=\"1\"/>", c + 1, c + 1, w);
    out += "</cols>";
  }
  out += "<sheetData>";
  int current = -1;
  for (const auto& [rc, cell] : cells_) {
    const auto [r, c] = rc;
    if (r != current) {
      if (current >= 0) out += "</row>";
      out += fmt::format("<row r=\"{}\">", r + 1);
      current = r;
    }
    const std::string at = cell_ref(r, c);
    const int s = static_cast<int>(cell.style);
    switch (cell.kind) {
      case Cell::Kind::kNumber:
        out += fmt::format("<c r=\"{}\" s=\"{}\"><v>{}</v></c>", at, s, number_text(cell.number));
        break;
      case Cell::Kind::kText:
        out += fmt::format("<c r=\"{}\" s=\"{}\" t=\"inlineStr\"><is><t xml:space=\"preserve\">{}</t></is></c>", at, s,
                           escape(cell.text));
        break;
      case Cell::Kind::kFormula:
        out += fmt::format("<c r=\"{}\" s=\"{}\"><f>{}</f><v>{}</v></c>", at, s, escape(cell.text),
                           number_text(cell.number));
        break;
      case Cell::Kind::kFormulaText:
        out += fmt::format("<c r=\"{}\" s=\"{}\" t=\"str\"><f>{}</f><v>{}</v></c>", at, s, escape(cell.text),
                           escape(cell.cached));
        break;
    }
  }
  if (current >= 0) out += "</row>";
  out += "</sheetData>";
  if (!validations_.empty()) {
    out += fmt::format("<dataValidations count=\"{}\">", validations_.size());
    for (const Validation& v : validations_) {
      const bool has_lo = std::isfinite(v.lo), has_hi = std::isfinite(v.hi);
      const char* op = has_lo && has_hi ? "between" : has_lo ? "greaterThanOrEqual" : "lessThanOrEqual";
      out += fmt::format(
          "<dataValidation type=\"{}\" operator=\"{}\" allowBlank=\"0\" showErrorMessage=\"1\" "
          "errorTitle=\"gpuplan\" error=\"{}\" sqref=\"{}\"><formula1>{}</formula1>",
          v.whole ? "whole" : "decimal", op, escape(v.message), cell_ref(v.row, v.col),
          number_text(has_lo ? v.lo : v.hi));
      if (has_lo && has_hi) out += fmt::format("<formula2>{}</formula2>", number_text(v.hi));
      out += "</dataValidation>";
    }
    out += "</dataValidations>";
  }
  if (chart_) out += "<drawing r:id=\"rId1\"/>";  // the sheet's only relationship (Workbook::bytes)
  out += "</worksheet>";
  return out;
}

Sheet& Workbook::add_sheet(std::string name) {
  if (name.empty() || name.size() > 31 || name.find_first_of("[]:*?/\\'") != std::string::npos)
    throw std::logic_error(fmt::format("'{}' is not a worksheet name", name));
  sheets_.push_back(std::make_unique<Sheet>(std::move(name)));
  return *sheets_.back();
}

void Workbook::define_name(const std::string& name, const Sheet& sheet, int row, int col) {
  // Letters, digits, '_' and '.', starting with a letter or '_', and not a cell
  // reference (AB12) or R1C1 reference.
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (const char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
  std::size_t letters = 0;
  while (letters < name.size() && std::isalpha(static_cast<unsigned char>(name[letters]))) ++letters;
  const bool digits_after = letters < name.size() && name.find_first_not_of("0123456789", letters) == std::string::npos;
  if (!ok || (letters <= 3 && digits_after) || name == "R" || name == "C" || name == "r" || name == "c")
    throw std::logic_error(fmt::format("'{}' is not a defined name a spreadsheet accepts", name));
  names_.emplace_back(name, fmt::format("{}!{}", sheet_ref(sheet.name()), cell_ref(row, col, true)));
}

std::string Workbook::bytes() const {
  std::vector<std::pair<std::string, std::string>> files;
  std::string types = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Types "
      "xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      "<Override PartName=\"/xl/workbook.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
      "<Override PartName=\"/xl/styles.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>");
  for (std::size_t i = 0; i < sheets_.size(); ++i) {
    types += fmt::format(
        "<Override PartName=\"/xl/worksheets/sheet{}.xml\" "
        "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>",
        i + 1);
    // A sheet's chart: drawingN.xml anchors chartN.xml (N the sheet's number).
    if (sheets_[i]->line_chart())
      types += fmt::format(
          "<Override PartName=\"/xl/drawings/drawing{0}.xml\" "
          "ContentType=\"application/vnd.openxmlformats-officedocument.drawing+xml\"/><Override "
          "PartName=\"/xl/charts/chart{0}.xml\" "
          "ContentType=\"application/vnd.openxmlformats-officedocument.drawingml.chart+xml\"/>",
          i + 1);
  }
  types += "</Types>";
  files.emplace_back("[Content_Types].xml", types);
  files.emplace_back("_rels/.rels",
                     fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Relationships "
                                 "xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\"><Relationship "
                                 "Id=\"rId1\" Type=\"{}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>",
                                 kRelNs));
  std::string wb = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<workbook xmlns=\"{}\" "
      "xmlns:r=\"{}\"><bookViews><workbookView/></bookViews><sheets>",
      kMainNs, kRelNs);
  std::string rels =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Relationships "
      "xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">";
  for (std::size_t i = 0; i < sheets_.size(); ++i) {
    wb += fmt::format("<sheet name=\"{}\" sheetId=\"{}\" r:id=\"rId{}\"/>", escape(sheets_[i]->name()), i + 1, i + 1);
    rels += fmt::format("<Relationship Id=\"rId{}\" Type=\"{}/worksheet\" Target=\"worksheets/sheet{}.xml\"/>", i + 1,
                        kRelNs, i + 1);
  }
  wb += "</sheets>";
  if (!names_.empty()) {
    wb += "<definedNames>";
    for (const auto& [n, ref] : names_) wb += fmt::format("<definedName name=\"{}\">{}</definedName>", n, escape(ref));
    wb += "</definedNames>";
  }
  // Ask spreadsheet programs to recalculate when they open the file.
  wb += "<calcPr calcId=\"191029\" fullCalcOnLoad=\"1\"/></workbook>";
  rels += fmt::format("<Relationship Id=\"rId{}\" Type=\"{}/styles\" Target=\"styles.xml\"/></Relationships>",
                      sheets_.size() + 1, kRelNs);
  files.emplace_back("xl/workbook.xml", wb);
  files.emplace_back("xl/_rels/workbook.xml.rels", rels);
  // Styles, in the order of the Style enum. Number formats: 3 = #,##0 and 4 =
  // #,##0.00 are built in; 164 money in the workbook's currency, 165 six
  // decimals, 166 a percentage with one decimal.
  const int digits = currency_.minor_digits();
  const std::string money_fmt = fmt::format("#,##0{}{} &quot;{}&quot;", digits > 0 ? "." : "",
                                            std::string(static_cast<std::size_t>(digits), '0'), currency_.code());
  // Inputs (unit prices: 0.6248 per kWh) show up to four more decimals than the currency's.
  const std::string input_fmt = fmt::format(
      "#,##0.{}## &quot;{}&quot;", std::string(static_cast<std::size_t>(std::max(digits, 2)), '0'), currency_.code());
  const std::string styles = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<styleSheet xmlns=\"{}\">"
      "<numFmts count=\"5\"><numFmt numFmtId=\"164\" formatCode=\"{}\"/><numFmt numFmtId=\"165\" "
      "formatCode=\"0.000000\"/><numFmt numFmtId=\"166\" formatCode=\"0.0%\"/><numFmt numFmtId=\"167\" "
      "formatCode=\"yyyy-mm-dd\"/><numFmt numFmtId=\"168\" formatCode=\"{}\"/></numFmts>"
      "<fonts count=\"4\"><font><sz val=\"11\"/><name val=\"Calibri\"/></font><font><b/><sz val=\"11\"/><name "
      "val=\"Calibri\"/></font><font><b/><sz val=\"14\"/><name val=\"Calibri\"/></font><font><i/><sz val=\"11\"/><name "
      "val=\"Calibri\"/></font></fonts>"
      "<fills count=\"3\"><fill><patternFill patternType=\"none\"/></fill><fill><patternFill "
      "patternType=\"gray125\"/></fill><fill><patternFill patternType=\"solid\"><fgColor rgb=\"FFFFF2CC\"/><bgColor "
      "indexed=\"64\"/></patternFill></fill></fills>"
      "<borders count=\"1\"><border><left/><right/><top/><bottom/><diagonal/></border></borders>"
      "<cellStyleXfs count=\"1\"><xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\"/></cellStyleXfs>"
      "<cellXfs count=\"15\">"
      "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\"/>"
      "<xf numFmtId=\"0\" fontId=\"1\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/>"
      "<xf numFmtId=\"0\" fontId=\"2\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/>"
      "<xf numFmtId=\"0\" fontId=\"3\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyFont=\"1\"/>"
      "<xf numFmtId=\"3\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"4\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"165\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"164\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"166\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"168\" fontId=\"0\" fillId=\"2\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\" "
      "applyFill=\"1\"/>"
      "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"2\" borderId=\"0\" xfId=\"0\" applyFill=\"1\"/>"
      "<xf numFmtId=\"166\" fontId=\"0\" fillId=\"2\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\" "
      "applyFill=\"1\"/>"
      "<xf numFmtId=\"0\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" quotePrefix=\"1\"/>"
      "<xf numFmtId=\"167\" fontId=\"0\" fillId=\"0\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\"/>"
      "<xf numFmtId=\"167\" fontId=\"0\" fillId=\"2\" borderId=\"0\" xfId=\"0\" applyNumberFormat=\"1\" "
      "applyFill=\"1\"/>"
      "</cellXfs><cellStyles count=\"1\"><cellStyle name=\"Normal\" xfId=\"0\" builtinId=\"0\"/></cellStyles>"
      "</styleSheet>",
      kMainNs, money_fmt, input_fmt);
  files.emplace_back("xl/styles.xml", styles);
  for (std::size_t i = 0; i < sheets_.size(); ++i) {
    files.emplace_back(fmt::format("xl/worksheets/sheet{}.xml", i + 1), sheets_[i]->xml());
    if (const auto& chart = sheets_[i]->line_chart()) {
      files.emplace_back(fmt::format("xl/worksheets/_rels/sheet{}.xml.rels", i + 1),
                         one_relationship("drawing", fmt::format("../drawings/drawing{}.xml", i + 1)));
      files.emplace_back(fmt::format("xl/drawings/drawing{}.xml", i + 1), drawing_xml(*chart));
      files.emplace_back(fmt::format("xl/drawings/_rels/drawing{}.xml.rels", i + 1),
                         one_relationship("chart", fmt::format("../charts/chart{}.xml", i + 1)));
      files.emplace_back(fmt::format("xl/charts/chart{}.xml", i + 1), chart_xml(*chart));
    }
  }
  return zip_stored(files);
}

Value Assumptions::input(const std::string& name, const std::string& label, double value, Style style,
                         const std::string& unit, const std::string& note) {
  s_.label(row_, 0, label);
  s_.number(row_, 1, value, style);
  s_.label(row_, 2, unit);
  if (!note.empty()) s_.label(row_, 3, note, Style::kNote);
  wb_.define_name(name, s_, row_, 1);
  ++row_;
  return Value{name, value};
}

Value Assumptions::derived(const std::string& name, const std::string& label, const std::string& formula, double value,
                           Style style, const std::string& unit) {
  s_.label(row_, 0, label);
  s_.formula(row_, 1, formula, value, style);
  s_.label(row_, 2, unit);
  s_.text(row_, 3, "=" + formula, Style::kNote);
  wb_.define_name(name, s_, row_, 1);
  ++row_;
  return Value{name, value};
}

void Assumptions::limit(double lo, double hi, bool whole) {
  const auto shown = [](double x) { return fmt::format("{:g}", x); };
  if (lo == hi) {
    s_.validate(row_ - 1, 1, lo, hi, whole, trf("locked at {}: change it with gpuplan and export again", shown(lo)));
    return;
  }
  const std::string message = std::isfinite(lo) && std::isfinite(hi)
                                  ? trf("gpuplan accepts {} to {}", shown(lo), shown(hi))
                              : std::isfinite(lo) ? trf("gpuplan accepts {} or more", shown(lo))
                                                  : trf("gpuplan accepts {} or less", shown(hi));
  s_.validate(row_ - 1, 1, lo, hi, whole, whole ? trf("{} (whole numbers)", message) : message);
}

void Assumptions::set_as(const std::string& setting) { s_.text(row_ - 1, 4, setting, Style::kNote); }

void Assumptions::heading(const std::string& text) {
  ++row_;
  s_.label(row_++, 0, text, Style::kHeader);
}

int assumptions_header(Sheet& a, const std::string& title, bool formula_notes) {
  a.text(0, 0, title, Style::kTitle);
  a.label(1, 0,
          formula_notes
              ? tr_noop("Edit the yellow cells: the other sheets recalculate. Grey notes show each formula "
                        "(ROUND rounds as gpuplan does: half to even).")
              : tr_noop("Edit the yellow cells (here and on the other sheets): the other sheets recalculate."),
          Style::kNote);
  a.label(3, 0, tr_noop("input"), Style::kHeader);
  a.label(3, 1, tr_noop("value"), Style::kHeader);
  a.label(3, 2, tr_noop("unit"), Style::kHeader);
  a.label(3, 3, tr_noop("note"), Style::kHeader);
  a.label(3, 4, tr_noop("gpuplan --set"), Style::kHeader);
  a.freeze(4);
  a.width(0, 44);
  a.width(1, 16);
  a.width(2, 20);
  a.width(3, 70);
  a.width(4, 44);
  return 4;
}

std::uint32_t crc32(std::string_view data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const char ch : data) c = table[(c ^ static_cast<unsigned char>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::string zip_stored(const std::vector<std::pair<std::string, std::string>>& entries) {
  // PKWARE APPNOTE 4.3: local headers and data, then the central directory, then its end.
  constexpr std::uint32_t kDosDate = (0u << 9) | (1u << 5) | 1u;  // 1980-01-01: the same bytes every time
  std::string out, central;
  for (const auto& entry : entries) {
    const std::string& name = entry.first;  // named, not bound: clang 14 cannot capture bindings
    const std::string& data = entry.second;
    if (data.size() > 0xFFFFFFFEu || out.size() > 0xFFFFFFFEu) throw std::length_error("workbook too large for ZIP32");
    const std::uint32_t crc = crc32(data);
    const auto size = static_cast<std::uint32_t>(data.size());
    const auto offset = static_cast<std::uint32_t>(out.size());
    const auto header = [&](std::string& h, bool local) {
      put32(h, local ? 0x04034b50u : 0x02014b50u);
      if (!local) put16(h, 20);  // version made by
      put16(h, 20);              // version needed: 2.0
      put16(h, 0);               // flags
      put16(h, 0);               // stored
      put16(h, 0);               // time
      put16(h, kDosDate);
      put32(h, crc);
      put32(h, size);
      put32(h, size);
      put16(h, static_cast<std::uint32_t>(name.size()));
      put16(h, 0);  // extra
      if (!local) {
        put16(h, 0);  // comment
        put16(h, 0);  // disk
        put16(h, 0);  // internal attributes
        put32(h, 0);  // external attributes
        put32(h, offset);
      }
      h += name;
    };
    header(out, true);
    out += data;
    header(central, false);
  }
  const auto cd_offset = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50u);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put16(out, static_cast<std::uint32_t>(entries.size()));
  put32(out, static_cast<std::uint32_t>(central.size()));
  put32(out, cd_offset);
  put16(out, 0);
  return out;
}

}  // namespace gpuplan::xlsx
