#include "gpuplan/report.h"

#include "gpuplan/i18n.h"

#include "gpuplan/html.h"

#include "gpuplan/error.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <span>
#include <fmt/format.h>
#include <stdexcept>

namespace gpuplan {

void Table::add_row(std::vector<Cell> row) {
  if (row.size() != columns.size())
    throw std::logic_error(fmt::format("table {}: row of {} cells under {} columns", name, row.size(), columns.size()));
  rows.push_back(std::move(row));
}

std::vector<std::size_t> Table::text_row_indices() const {
  std::vector<std::size_t> idx;
  const std::size_t n = rows.size();
  if (text_max_rows == 0 || n <= text_max_rows) {
    for (std::size_t i = 0; i < n; ++i) idx.push_back(i);
    return idx;
  }
  if (text_max_rows == 1) return {0};
  // k rows spread over 0..n−1: row i·(n−1)/(k−1), rounded to the nearest.
  const std::size_t k = text_max_rows;
  for (std::size_t i = 0; i < k; ++i) idx.push_back((i * (n - 1) + (k - 1) / 2) / (k - 1));
  return idx;
}

Format parse_format(std::string_view name) {
  if (name == "table") return Format::kTable;
  if (name == "csv") return Format::kCsv;
  if (name == "tsv") return Format::kTsv;
  if (name == "json") return Format::kJson;
  if (name == "md") return Format::kMd;
  if (name == "xlsx") return Format::kXlsx;
  if (name == "yaml") return Format::kYaml;
  if (name == "html") return Format::kHtml;
  if (name == "svg") return Format::kSvg;
  throw std::invalid_argument(trf("{} not in {{{}}}", name, kFormatNames));
}

namespace {

// `x` to `digits` significant digits, never in exponent form ("7640", "1.5").
std::string significant(double x, int digits) {
  const int magnitude = x == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::abs(x))));
  const int decimals = std::max(0, digits - 1 - magnitude);
  if (decimals == 0) {  // 999,999 to three digits is 1,000,000
    const double step = std::pow(10.0, magnitude - digits + 1);
    x = std::round(x / step) * step;
  }
  std::string s = fmt::format("{:.{}f}", x, decimals);
  if (decimals > 0) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

}  // namespace

std::string short_number(double v, int digits) {
  struct Unit {
    double size;
    const char* name;
  };
  static constexpr Unit kWestern[] = {{1e9, "B"}, {1e6, "M"}, {1e3, "k"}};
  static constexpr Unit kChinese[] = {{1e8, "亿"}, {1e4, "万"}};
  const std::span<const Unit> units =
      language() == Language::kChinese ? std::span<const Unit>(kChinese) : std::span<const Unit>(kWestern);
  // The unit is chosen after rounding, so 999,999 is "1M", never "1000k".
  const double a = std::abs(std::stod(significant(v, digits)));
  for (const Unit& u : units)
    if (a >= u.size) return significant(v / u.size, digits) + u.name;
  return significant(v, digits);
}

std::size_t display_width(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::uint32_t cp = c;
    std::size_t len = 1;
    if (c >= 0xF0 && i + 3 < text.size() + 0) {
      len = 4;
      cp = ((c & 0x07u) << 18) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 12) |
           ((static_cast<unsigned char>(text[i + 2]) & 0x3Fu) << 6) | (static_cast<unsigned char>(text[i + 3]) & 0x3Fu);
    } else if (c >= 0xE0 && i + 2 < text.size()) {
      len = 3;
      cp = ((c & 0x0Fu) << 12) | ((static_cast<unsigned char>(text[i + 1]) & 0x3Fu) << 6) |
           (static_cast<unsigned char>(text[i + 2]) & 0x3Fu);
    } else if (c >= 0xC0 && i + 1 < text.size()) {
      len = 2;
      cp = ((c & 0x1Fu) << 6) | (static_cast<unsigned char>(text[i + 1]) & 0x3Fu);
    }
    i += len;
    // Wide: CJK, Hangul, full-width forms (Unicode EAW "W"/"F", main blocks).
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    width += wide ? 2 : 1;
  }
  return width;
}

namespace {

bool is_numeric(const Cell& c) {
  return std::holds_alternative<std::int64_t>(c) || std::holds_alternative<double>(c) ||
         std::holds_alternative<Money>(c);
}

std::string plain_double(double d, int decimals) {
  if (!std::isfinite(d)) throw std::logic_error("a non-finite number reached the output");
  // decimals < 0: significant digits, for values whose scale varies (κ ≈ 1e-7, λ ≈ 1e3).
  if (decimals < 0) return fmt::format("{:.{}g}", d, -decimals);
  std::string s = fmt::format("{:.{}f}", d, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-') s.erase(0, 1);
  return s;
}

// Plain form: CSV, TSV, and the basis of the pretty form.
std::string plain(const Cell& cell, const Column& col) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) return "";
        else if constexpr (std::is_same_v<T, std::string>) return v;
        else if constexpr (std::is_same_v<T, std::int64_t>) return std::to_string(v);
        else if constexpr (std::is_same_v<T, double>) return plain_double(v, col.decimals);
        else if constexpr (std::is_same_v<T, Money>) return to_plain_string(v, col.decimals);
        else return v ? "true" : "false";
      },
      cell);
}

std::string pretty(const Cell& cell, const Column& col) {
  if (std::holds_alternative<std::monostate>(cell)) return "-";
  if (const bool* b = std::get_if<bool>(&cell)) return std::string(*b ? tr("yes") : tr("no"));
  if (is_numeric(cell)) return group_thousands(plain(cell, col));
  return plain(cell, col);
}

// A text cell that a spreadsheet would run as a formula is prefixed with a
// quote (OWASP CSV injection). Numbers are never text cells here.
std::string neutralise(std::string s) {
  if (!s.empty() && (s.front() == '=' || s.front() == '+' || s.front() == '-' || s.front() == '@' ||
                     s.front() == '\t' || s.front() == '\r'))
    s.insert(0, 1, '\'');
  return s;
}

std::string csv_field(const Cell& cell, const Column& col) {
  std::string s = plain(cell, col);
  if (std::holds_alternative<std::string>(cell)) s = neutralise(std::move(s));
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string render_csv(const Table& t) {
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += (i ? "," : "") + t.columns[i].key;
  if (t.currency) out += ",currency";
  out += "\r\n";
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out += ',';
      out += csv_field(row[i], t.columns[i]);
    }
    if (t.currency) out.append(",").append(t.currency->code());
    out += "\r\n";
  }
  return out;
}

std::string render_tsv(const Table& t) {
  std::string out;
  for (std::size_t i = 0; i < t.columns.size(); ++i) out += (i ? "\t" : "") + t.columns[i].key;
  if (t.currency) out += "\tcurrency";
  out += "\n";
  for (const auto& row : t.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      std::string s = plain(row[i], t.columns[i]);
      if (std::holds_alternative<std::string>(row[i])) s = neutralise(std::move(s));
      // TSV cannot escape these; refuse rather than corrupt the row.
      if (s.find_first_of("\t\r\n") != std::string::npos)
        throw InputError(
            SourceLocation{"--format tsv"}, t.columns[i].key,
            std::string(tr("a value contains a tab or newline, which TSV cannot hold (use --format csv)")));
      out += (i ? "\t" : "") + s;
    }
    if (t.currency) out.append("\t").append(t.currency->code());
    out += "\n";
  }
  return out;
}

std::vector<std::size_t> brief_columns(const Table& t) {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (t.columns[i].brief) idx.push_back(i);
  return idx;
}

std::string render_text_table(const Table& t, const RenderOptions& opt) {
  const std::vector<std::size_t> cols = brief_columns(t);
  const std::size_t nc = cols.size();
  // Cells are formatted once; widths in terminal columns (CJK counts 2).
  std::vector<std::string> cells;
  std::vector<std::size_t> cell_width;
  cells.reserve(t.rows.size() * nc);
  cell_width.reserve(t.rows.size() * nc);
  std::vector<std::size_t> width(nc);
  std::vector<bool> right(nc, false);
  for (std::size_t j = 0; j < nc; ++j) {
    width[j] = display_width(t.columns[cols[j]].label);
    right[j] = t.columns[cols[j]].numeric;
  }
  const std::vector<std::size_t> shown = t.text_row_indices();
  for (const std::size_t ri : shown) {
    const auto& row = t.rows[ri];
    for (std::size_t j = 0; j < nc; ++j) {
      const Cell& c = row[cols[j]];
      cells.push_back(pretty(c, t.columns[cols[j]]));
      cell_width.push_back(display_width(cells.back()));
      width[j] = std::max(width[j], cell_width.back());
      if (is_numeric(c)) right[j] = true;
    }
  }
  std::string out;
  std::size_t line_width = 0;
  for (const std::size_t w : width) line_width += w + 2;
  out.reserve((shown.size() + 3) * (line_width + 8));
  // One block of the table: these columns, header, rule and rows.
  const auto block = [&](const std::vector<std::size_t>& part) {
    const auto put_line = [&](const auto& text_of, const auto& width_of) {
      const std::size_t start = out.size();
      for (std::size_t k = 0; k < part.size(); ++k) {
        const std::size_t j = part[k];
        if (k > 0) out.append(2, ' ');
        const std::size_t fill = width[j] - width_of(j);
        if (right[j]) out.append(fill, ' ');
        out += text_of(j);
        if (!right[j]) out.append(fill, ' ');
      }
      std::size_t end = out.size();
      while (end > start && out[end - 1] == ' ') --end;  // no trailing blanks
      out.resize(end);
      out += '\n';
    };
    if (opt.color) out += "\033[1m";
    put_line([&](std::size_t j) -> const std::string& { return t.columns[cols[j]].label; },
             [&](std::size_t j) { return display_width(t.columns[cols[j]].label); });
    if (opt.color) {
      out.pop_back();
      out += "\033[0m\n";
    }
    for (std::size_t k = 0; k < part.size(); ++k) {
      if (k > 0) out.append(2, ' ');
      out.append(width[part[k]], '-');
    }
    out += '\n';
    for (std::size_t r = 0; r < shown.size(); ++r)
      put_line([&](std::size_t j) -> const std::string& { return cells[r * nc + j]; },
               [&](std::size_t j) { return cell_width[r * nc + j]; });
  };
  // Wider than the terminal: the columns in blocks that fit, each led by the
  // columns that name a row (nothing is cut or wrapped mid-cell).
  std::vector<std::size_t> lead;
  for (std::size_t j = 0; j < nc; ++j)
    if (t.lead.empty() ? j == 0 : std::find(t.lead.begin(), t.lead.end(), t.columns[cols[j]].key) != t.lead.end())
      lead.push_back(j);
  std::size_t lead_width = 0;
  for (const std::size_t j : lead) lead_width += width[j] + 2;
  std::vector<std::vector<std::size_t>> parts(1);
  std::size_t used = 0;
  for (std::size_t j = 0; j < nc; ++j) {
    const bool leads = std::find(lead.begin(), lead.end(), j) != lead.end();
    if (opt.width > 0 && !leads && parts.back().size() > lead.size() && used + width[j] > opt.width) {
      parts.push_back(lead);
      used = lead_width;
    }
    if (parts.size() == 1 || !leads) {
      parts.back().push_back(j);
      used += width[j] + 2;
    }
  }
  for (std::size_t p = 0; p < parts.size(); ++p) {
    if (p > 0) out += '\n';
    block(parts[p]);
  }
  return out;
}

std::string md_escape(std::string s) {
  std::string out;
  for (const char c : s) {
    if (c == '|') out += '\\';
    out += (c == '\n' || c == '\r') ? ' ' : c;
  }
  return out;
}

std::string render_md_table(const Table& t) {
  const std::vector<std::size_t> cols = brief_columns(t);
  std::vector<bool> right(cols.size(), false);
  for (std::size_t j = 0; j < cols.size(); ++j) right[j] = t.columns[cols[j]].numeric;
  for (const auto& row : t.rows)
    for (std::size_t j = 0; j < cols.size(); ++j)
      if (is_numeric(row[cols[j]])) right[j] = true;
  std::string out = "|";
  for (const std::size_t c : cols) out.append(" ").append(md_escape(t.columns[c].label)).append(" |");
  out += "\n|";
  for (std::size_t j = 0; j < cols.size(); ++j) out += right[j] ? "---:|" : "---|";
  out += "\n";
  for (const std::size_t ri : t.text_row_indices()) {
    const auto& row = t.rows[ri];
    out += "|";
    for (const std::size_t c : cols) out.append(" ").append(md_escape(pretty(row[c], t.columns[c]))).append(" |");
    out += "\n";
  }
  return out;
}

Json cell_json(const Cell& cell, const Column& col) {
  return std::visit(
      [&](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) return Json();
        else if constexpr (std::is_same_v<T, std::string>) return Json(v);
        else if constexpr (std::is_same_v<T, std::int64_t>) return Json(static_cast<long long>(v));
        else if constexpr (std::is_same_v<T, double>) return Json(Json::Decimal{plain_double(v, col.decimals)});
        else if constexpr (std::is_same_v<T, Money>) return Json::money(v, col.decimals);
        else return Json(v);
      },
      cell);
}

}  // namespace

Json to_json(const Report& report) {
  Json doc = Json::object();
  doc["schema_version"] = kSchemaVersion;
  doc["command"] = report.command;
  if (report.currency) doc["currency"] = std::string(report.currency->code());
  doc["inputs"] = report.inputs.is_null() ? Json::object() : report.inputs;
  for (const Table& t : report.tables) {
    if (doc.find(t.name) != nullptr)
      throw std::logic_error(fmt::format("table name '{}' shadows a JSON member", t.name));
    Json rows = Json::array();
    const std::size_t data_rows = t.last_row_is_total && !t.rows.empty() ? t.rows.size() - 1 : t.rows.size();
    const auto object = [&](const std::vector<Cell>& row, std::size_t first) {
      Json obj = Json::object();
      for (std::size_t i = first; i < row.size(); ++i) obj[t.columns[i].key] = cell_json(row[i], t.columns[i]);
      if (t.currency) obj["currency"] = std::string(t.currency->code());
      return obj;
    };
    for (std::size_t r = 0; r < data_rows; ++r) rows.push_back(object(t.rows[r], 0));
    doc[t.name] = std::move(rows);
    if (data_rows < t.rows.size()) doc[t.name + "_total"] = object(t.rows.back(), 1);  // the label cell is left out
  }
  if (const auto* extra = report.extra.as_object())
    for (const auto& [k, v] : *extra) {
      // A member named like a table would replace its rows in the JSON: a programming error, caught here.
      for (const Table& t : report.tables)
        if (t.name == k) throw std::logic_error(fmt::format("JSON member '{}' shadows a table", k));
      doc[k] = v;
    }
  Json notes = Json::array();
  for (const auto& n : report.notes) notes.push_back(n);
  doc["notes"] = std::move(notes);
  return doc;
}

namespace {
// Appends the value at `path` under `at`, one a line; "*" in place of an
// index takes every element of a list, in order (none for an empty list).
void append_field(const Json& at, std::string_view path, std::string_view full, const std::string& walked,
                  std::string& out) {
  const std::size_t dot = path.find('.');
  const std::string_view key = path.substr(0, dot);
  const auto descend = [&](const Json& next) {
    if (dot == std::string_view::npos) {
      out += next.to_text() + "\n";
      return;
    }
    append_field(next, path.substr(dot + 1), full, walked.empty() ? std::string(key) : walked + "." + std::string(key),
                 out);
  };
  std::vector<std::string> valid;
  if (const auto* obj = at.as_object()) {
    if (const Json* next = at.find(key)) return descend(*next);
    for (const auto& [k, v] : *obj) valid.push_back(k);
  } else if (const auto* arr = at.as_array()) {
    if (key == "*") {
      for (const Json& element : *arr) descend(element);
      return;
    }
    std::size_t index = 0;
    const auto [p, ec] = std::from_chars(key.data(), key.data() + key.size(), index);
    if (ec == std::errc() && p == key.data() + key.size() && index < arr->size()) return descend((*arr)[index]);
    valid.push_back(arr->empty() ? "(an empty list)" : fmt::format("0..{}, *", arr->size() - 1));
  }
  throw InputError(SourceLocation{"--field"}, std::string(full),
                   trf("no '{}'{}; valid here: {}", key, walked.empty() ? "" : " under " + walked,
                       valid.empty() ? "nothing (a value)" : trf("{}", fmt::join(valid, ", "))));
}
}  // namespace

std::string field_value(const Report& report, std::string_view path) {
  std::string out;
  append_field(to_json(report), path, path, "", out);
  return out;
}

void add_defaults_notes(Report& report, const std::vector<std::string>& defaults) {
  if (defaults.empty()) return;
  report.notes.push_back(std::string(tr("Defaults used:")));
  for (const auto& d : defaults) report.notes.push_back("  " + d);
}

[[maybe_unused]] constexpr const char* kConfidenceWords[] = {
    tr_noop("source confidence: high"), tr_noop("source confidence: medium"), tr_noop("source confidence: low"),
    tr_noop("source confidence: unrated")};

std::string translate_word(const Column& column, std::string_view text) {
  // English needs no lookup, and a lookup would load the message catalog.
  if (language() == Language::kEnglish) return std::string(text);
  if (column.context != nullptr) {
    const std::string key = column.context + std::string(text);
    if (has_translation(key)) return std::string(tr(key));
  }
  if (has_translation(text) || text.empty()) return std::string(tr(text));
  // Words joined by '+', each with a term after a space ("monthly 1y+hourly"):
  // each word translated, the terms kept.
  std::string out;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('+', start), text.size());
    const std::string_view part = text.substr(start, end - start);
    const std::size_t space = std::min(part.find(' '), part.size());
    out += std::string(tr(part.substr(0, space))) + std::string(part.substr(space));
    if (end < text.size()) out += '+';
    start = end + 1;
  }
  return out;
}

std::string cell_text(const Cell& cell, const Column& column) { return pretty(cell, column); }
bool cell_is_number(const Cell& cell) { return is_numeric(cell); }
std::vector<std::size_t> shown_columns(const Table& table) { return brief_columns(table); }

namespace {

// The report as a reader of the current language sees it: labels, titles and
// text cells that are messages of the catalog translated (names, ids and
// numbers are not messages and stay). Notes were written in the language already.
bool is_currency_code(std::string_view s) {
  return s.size() == 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
}

// A label with its currency ("total CNY", "CNY/used GPU-h"): the words translated, the code kept.
std::string translate_label(std::string_view label) {
  if (has_translation(label) || label.size() < 4) return std::string(tr(label));
  if (const std::string_view code = label.substr(label.size() - 3);
      label[label.size() - 4] == ' ' && is_currency_code(code))
    return std::string(tr(label.substr(0, label.size() - 4))) + " " + std::string(code);
  if (const std::string_view code = label.substr(0, 3); is_currency_code(code) && label[3] == '/')
    return std::string(code) + std::string(tr(label.substr(3)));
  return std::string(label);
}

Report for_reader(const Report& report) {
  Report r = report;
  auto translate = [](std::string& s) { s = std::string(tr(s)); };
  translate(r.title);
  for (Table& t : r.tables) {
    translate(t.title);
    for (Column& c : t.columns) c.label = translate_label(c.label);
    for (auto& row : t.rows)
      for (std::size_t j = 0; j < row.size() && j < t.columns.size(); ++j)
        if (auto* text = std::get_if<std::string>(&row[j]); text != nullptr && t.columns[j].words)
          *text = translate_word(t.columns[j], *text);
  }
  for (Chart& c : r.charts) {
    for (std::string* s : {&c.title, &c.x_label, &c.y_label, &c.marker_label}) translate(*s);
    if (c.band) translate(c.band->name);
    if (!c.words) continue;
    for (ChartSeries& s : c.series) translate(s.name);
    for (std::string& s : c.categories) translate(s);
  }
  return r;
}

// The report in the format, its text as it stands.
std::string render_as_is(const Report& report, Format format, const RenderOptions& options) {
  switch (format) {
    case Format::kCsv:
      return report.tables.empty() ? std::string() : render_csv(report.tables.at(report.primary));
    case Format::kTsv:
      return report.tables.empty() ? std::string() : render_tsv(report.tables.at(report.primary));
    case Format::kJson:
      return to_json(report).dump();
    case Format::kHtml:
      return render_html(report);
    case Format::kSvg:
      // The command's main chart alone, to paste into slides.
      if (report.charts.empty())
        throw UsageError(
            trf("--format svg: `gpuplan {}` draws no chart yet (compare, estimate, plan, sensitivity, serve and "
                "fit scaling do); --format html shows its tables",
                report.command));
      return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + render_svg(report.charts.front()) + "\n";
    case Format::kXlsx:
      if (!report.xlsx)
        throw UsageError(
            trf("--format xlsx: `gpuplan {}` has no workbook (compare, estimate, plan, prices and serve do)",
                report.command));
      return report.xlsx();
    case Format::kYaml:
      if (report.yaml.empty())
        throw UsageError(trf("--format yaml: `gpuplan {}` writes no YAML (catalog import does)", report.command));
      return report.yaml;
    case Format::kMd: {
      std::string out;
      if (!report.title.empty()) out += "**" + md_escape(report.title) + "**\n\n";
      for (const Table& t : report.tables) {
        if (!t.text) continue;
        if (report.tables.size() > 1 && !t.title.empty()) out += "### " + md_escape(t.title) + "\n\n";
        out += render_md_table(t) + "\n";
      }
      for (const auto& f : report.figures) out += "```\n" + f + "```\n\n";
      for (const auto& n : report.notes) out += md_escape(n) + "\n\n";
      while (out.size() >= 2 && out.ends_with("\n\n")) out.pop_back();
      return out;
    }
    case Format::kTable: {
      std::string out;
      if (!report.title.empty()) out += report.title + "\n\n";
      bool first = true;
      for (const Table& t : report.tables) {
        if (!t.text) continue;
        if (!first) out += "\n";
        first = false;
        if (report.tables.size() > 1 && !t.title.empty()) out += t.title + "\n";
        out += render_text_table(t, options);
      }
      for (const auto& f : report.figures) out += "\n" + f;
      if (!report.notes.empty()) out += "\n";
      for (const auto& n : report.notes) out += n + "\n";
      return out;
    }
  }
  throw std::logic_error("unknown format");
}

}  // namespace

std::vector<std::string> untranslated(const Report& report) {
  std::vector<std::string> out;
  // Only words need a translation: "-20%", "#" and "R²" read the same in both.
  auto check = [&](std::string_view english, std::string_view shown) {
    const bool words =
        std::any_of(english.begin(), english.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
    // Text written in the language already (trf at construction) holds wide characters.
    const auto code_points = std::count_if(english.begin(), english.end(), [](char c) { return (c & 0xC0) != 0x80; });
    const bool chinese = display_width(english) > static_cast<std::size_t>(code_points);
    if (words && !chinese && !is_currency_code(english) && shown == english && !has_translation(english))
      out.emplace_back(english);
  };
  for (const Table& t : report.tables) {
    if (!t.text) continue;
    if (!t.title.empty()) check(t.title, tr(t.title));
    for (const std::size_t j : shown_columns(t)) check(t.columns[j].label, translate_label(t.columns[j].label));
  }
  for (const Chart& c : report.charts)
    for (const std::string* s : {&c.title, &c.x_label, &c.y_label}) check(*s, tr(*s));
  return out;
}

std::string render(const Report& report, Format format, const RenderOptions& options) {
  const bool for_people =
      format == Format::kTable || format == Format::kMd || format == Format::kHtml || format == Format::kSvg;
  if (for_people && language() != Language::kEnglish) return render_as_is(for_reader(report), format, options);
  return render_as_is(report, format, options);
}

}  // namespace gpuplan
