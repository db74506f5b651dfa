#include "gpuplan/csv.h"

#include <algorithm>
#include <fmt/format.h>

#include "gpuplan/catalog.h"
#include "gpuplan/error.h"
#include "gpuplan/io.h"
#include "gpuplan/units.h"

namespace gpuplan {
namespace {

// Splits one record into `cells` (views into `s`, or into `unescaped` for
// quoted fields with doubled quotes) and their 1-based character columns.
// Records spanning lines are not supported: measurements have none.
void split(std::string_view s, char sep, const std::string& file, int line_no, std::vector<std::string_view>& cells,
           std::vector<int>& columns, std::deque<std::string>& unescaped) {
  std::size_t i = 0;
  const auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  while (true) {
    columns.push_back(static_cast<int>(i) + 1);
    if (i < s.size() && s[i] == '"') {
      const std::size_t start = ++i;
      bool closed = false, doubled = false;
      while (i < s.size()) {
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            doubled = true;
            i += 2;
            continue;
          }
          closed = true;
          break;
        }
        ++i;
      }
      if (!closed) throw InputError(SourceLocation{file, line_no, columns.back()}, "", "unterminated quoted field");
      std::string_view body = s.substr(start, i - start);
      ++i;  // the closing quote
      if (doubled) {
        std::string u;
        for (std::size_t k = 0; k < body.size(); ++k) {
          u += body[k];
          if (body[k] == '"') ++k;
        }
        unescaped.push_back(std::move(u));
        body = unescaped.back();
      }
      cells.push_back(body);
    } else {
      const std::size_t end = s.find(sep, i);
      cells.push_back(trim(s.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i)));
      i = end == std::string_view::npos ? s.size() : end;
    }
    if (i >= s.size()) break;
    if (s[i] != sep)
      throw InputError(SourceLocation{file, line_no, static_cast<int>(i) + 1}, "",
                       "expected a separator after a quoted field");
    ++i;
    if (i == s.size()) {  // a trailing separator: one more, empty, cell
      columns.push_back(static_cast<int>(i) + 1);
      cells.emplace_back();
      break;
    }
  }
}

}  // namespace

CsvTable CsvTable::parse(std::string_view input, std::string file) {
  CsvTable t;
  t.file_ = std::move(file);
  t.text_ = std::make_shared<const std::string>(input);
  t.unescaped_ = std::make_shared<std::deque<std::string>>();
  std::string_view text = *t.text_;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  check_text(text, t.file_);
  char sep = ',';
  bool have_header = false;
  int line_no = 0;
  std::size_t pos = 0;
  std::vector<std::string_view> cells;
  std::vector<int> columns;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') {
      if (end == text.size()) break;
      continue;
    }
    cells.clear();
    columns.clear();
    if (!have_header) {
      // Tab-separated when the header has a tab and no comma.
      sep = line.find('\t') != std::string_view::npos && line.find(',') == std::string_view::npos ? '\t' : ',';
      split(line, sep, t.file_, line_no, cells, columns, *t.unescaped_);
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i].empty())
          throw InputError(SourceLocation{t.file_, line_no, columns[i]}, "", "the header has an empty column name");
        for (std::size_t k = 0; k < i; ++k)
          if (id_equals(cells[k], cells[i]))
            throw InputError(SourceLocation{t.file_, line_no, columns[i]}, std::string(cells[i]),
                             "the column name is given twice");
        t.header_.emplace_back(cells[i]);
      }
      t.header_line_ = line_no;
      have_header = true;
    } else {
      split(line, sep, t.file_, line_no, cells, columns, *t.unescaped_);
      if (cells.size() != t.header_.size())
        throw InputError(SourceLocation{t.file_, line_no, 1}, "",
                         fmt::format("has {} fields, the header has {}", cells.size(), t.header_.size()));
      t.cells_.insert(t.cells_.end(), cells.begin(), cells.end());
      t.column_.insert(t.column_.end(), columns.begin(), columns.end());
      t.line_.push_back(line_no);
    }
    if (end == text.size()) break;
  }
  if (!have_header) throw InputError(SourceLocation{t.file_}, "", "is empty: expected a header row and data rows");
  return t;
}

CsvTable CsvTable::load(const std::string& path) {
  return parse(read_input_file(path), path == "-" ? "<stdin>" : path);
}

bool CsvTable::has(std::string_view column) const {
  return std::any_of(header_.begin(), header_.end(), [&](const std::string& h) { return id_equals(h, column); });
}

std::size_t CsvTable::index(std::string_view column) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (id_equals(header_[i], column)) return i;
  throw InputError(SourceLocation{file_, header_line_, 0}, std::string(column),
                   fmt::format("no such column (the header has: {})", fmt::join(header_, ", ")));
}

std::vector<double> CsvTable::numbers(std::string_view column) const {
  const std::size_t c = index(column);
  std::vector<double> out;
  const std::size_t w = header_.size();
  out.reserve(line_.size());
  for (std::size_t r = 0; r < line_.size(); ++r) {
    const std::string_view cell = cells_[r * w + c];
    try {
      if (cell.empty()) throw std::invalid_argument("is empty");
      out.push_back(parse_number(cell));
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      throw InputError(SourceLocation{file_, line_[r], column_[r * w + c]}, header_[c],
                       what == "is empty" ? "the cell is empty" : what);
    }
  }
  return out;
}

CsvTable::Place CsvTable::place(std::size_t row, std::string_view column) const {
  return {line_.at(row), column_.at(row * header_.size() + index(column))};
}

std::vector<std::string> CsvTable::text(std::string_view column) const {
  const std::size_t c = index(column);
  std::vector<std::string> out;
  for (std::size_t r = 0; r < line_.size(); ++r) out.emplace_back(cells_[r * header_.size() + c]);
  return out;
}

}  // namespace gpuplan
