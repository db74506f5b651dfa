#include "gpuplan/csv.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <fmt/format.h>
#include <limits>

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
      if (!closed)
        throw InputError(SourceLocation{file, line_no, columns.back()}, "",
                         std::string(tr("unterminated quoted field")));
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
      std::size_t end = i;  // cells are short: a plain loop beats a memchr call
      while (end < s.size() && s[end] != sep) ++end;
      cells.push_back(trim(s.substr(i, end - i)));
      i = end;
    }
    if (i >= s.size()) break;
    if (s[i] != sep)
      throw InputError(SourceLocation{file, line_no, static_cast<int>(i) + 1}, "",
                       std::string(tr("expected a separator after a quoted field")));
    ++i;
    if (i == s.size()) {  // a trailing separator: one more, empty, cell
      columns.push_back(static_cast<int>(i) + 1);
      cells.emplace_back();
      break;
    }
  }
}

enum class LineKind { kSkip, kHeader, kRecord };

// One line of the grammar, shared by the whole-text table and the stream:
// blank and `#` lines are skipped; the first other line is the header (its
// separator decides the file's); later ones are records of as many cells.
LineKind read_line(std::string_view line, int line_no, const std::string& file, char& sep,
                   std::vector<std::string>& header, std::vector<std::string_view>& cells, std::vector<int>& columns,
                   std::deque<std::string>& unescaped) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const std::size_t first = !line.empty() && line[0] != ' ' && line[0] != '\t' ? 0 : line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] == '#') return LineKind::kSkip;
  cells.clear();
  columns.clear();
  if (!header.empty()) {
    split(line, sep, file, line_no, cells, columns, unescaped);
    if (cells.size() != header.size())
      throw InputError(SourceLocation{file, line_no, 1}, "",
                       trf("has {} fields, the header has {}", cells.size(), header.size()));
    return LineKind::kRecord;
  }
  // Tab-separated when the header has a tab and no comma.
  sep = line.find('\t') != std::string_view::npos && line.find(',') == std::string_view::npos ? '\t' : ',';
  split(line, sep, file, line_no, cells, columns, unescaped);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].empty())
      throw InputError(SourceLocation{file, line_no, columns[i]}, "",
                       std::string(tr("the header has an empty column name")));
    for (std::size_t k = 0; k < i; ++k)
      if (id_equals(cells[k], cells[i]))
        throw InputError(SourceLocation{file, line_no, columns[i]}, std::string(cells[i]),
                         std::string(tr("the column name is given twice")));
    header.emplace_back(cells[i]);
  }
  return LineKind::kHeader;
}

std::size_t column_index(const std::vector<std::string>& header, std::string_view column, const std::string& file,
                         int header_line) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (id_equals(header[i], column)) return i;
  throw InputError(SourceLocation{file, header_line, 0}, std::string(column),
                   trf("no such column (the header has: {})", fmt::join(header, ", ")));
}

bool has_column(const std::vector<std::string>& header, std::string_view column) {
  return std::any_of(header.begin(), header.end(), [&](const std::string& h) { return id_equals(h, column); });
}

// The common case of a measurement, exactly and without parse_number's
// checks: an optional minus, at most 15 significant digits with at most one
// point, no leading zero. Clinger's fast path (Clinger 1990): m and 10^k are
// exact doubles (m < 2^53, k <= 22), so m / 10^k, one IEEE division, is the
// correctly rounded value, as from_chars would give. Anything else (an
// exponent, more digits, a unit, a typo) goes the long way and its checks.
inline std::optional<double> plain_decimal(std::string_view cell) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char *p = cell.data(), *end = p + cell.size();
  const bool negative = p != end && *p == '-';
  if (negative) ++p;
  if (p != end && *p == '0' && p + 1 != end && p[1] != '.') return std::nullopt;  // a leading zero
  std::uint64_t m = 0;
  const char* first = p;
  for (; p != end && *p >= '0' && *p <= '9'; ++p) m = m * 10 + static_cast<std::uint64_t>(*p - '0');
  long digits = p - first, fraction = 0;
  if (p != end && *p == '.') {
    const char* point = ++p;
    for (; p != end && *p >= '0' && *p <= '9'; ++p) m = m * 10 + static_cast<std::uint64_t>(*p - '0');
    fraction = p - point;
    digits += fraction;
  }
  if (p != end || digits == 0 || digits > 15) return std::nullopt;  // overflowed m is never used
  const auto exact =
      static_cast<double>(static_cast<std::int64_t>(m));  // m < 10^15: a signed conversion is exact and cheaper
  const double v = fraction == 0 ? exact : exact / kPow10[fraction];
  return negative ? -v : v;
}

// A cell as a finite number, or InputError at the cell naming the column
// (the location built only then: a stream reads millions of cells).
double cell_number(std::string_view cell, const std::string& file, int line, int col, const std::string& column) {
  if (const auto v = plain_decimal(cell)) return *v;
  if (cell.empty()) throw InputError(SourceLocation{file, line, col}, column, std::string(tr("the cell is empty")));
  try {
    return parse_number(cell);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{file, line, col}, column, e.what());
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
  int line_no = 0;
  std::vector<std::string_view> cells;
  std::vector<int> columns;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const LineKind kind =
        read_line(text.substr(pos, end - pos), ++line_no, t.file_, sep, t.header_, cells, columns, *t.unescaped_);
    pos = end + 1;
    if (kind == LineKind::kHeader) t.header_line_ = line_no;
    if (kind != LineKind::kRecord) continue;
    t.cells_.insert(t.cells_.end(), cells.begin(), cells.end());
    t.column_.insert(t.column_.end(), columns.begin(), columns.end());
    t.line_.push_back(line_no);
  }
  if (t.header_.empty())
    throw InputError(SourceLocation{t.file_}, "", std::string(tr("is empty: expected a header row and data rows")));
  return t;
}

CsvTable CsvTable::load(const std::string& path) {
  return parse(read_input_file(path), path == "-" ? "<stdin>" : path);
}

bool CsvTable::has(std::string_view column) const { return has_column(header_, column); }

std::size_t CsvTable::index(std::string_view column) const {
  return column_index(header_, column, file_, header_line_);
}

std::vector<double> CsvTable::numbers(std::string_view column) const {
  const std::size_t c = index(column);
  std::vector<double> out;
  const std::size_t w = header_.size();
  out.reserve(line_.size());
  for (std::size_t r = 0; r < line_.size(); ++r)
    out.push_back(cell_number(cells_[r * w + c], file_, line_[r], column_[r * w + c], header_[c]));
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

CsvStream::CsvStream(const std::string& path)
    : in_(std::make_unique<InputStream>(path, std::numeric_limits<std::size_t>::max())),
      file_(path == "-" ? "<stdin>" : path) {
  while (header_.empty()) {
    std::string_view line;
    if (!next_line(line))
      throw InputError(SourceLocation{file_}, "", std::string(tr("is empty: expected a header row and data rows")));
    if (line_no_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    if (read_line(line, line_no_, file_, sep_, header_, cells_, columns_, unescaped_) == LineKind::kHeader)
      header_line_ = line_no_;
  }
}

CsvStream::~CsvStream() = default;

std::unique_ptr<CsvStream> CsvStream::split_off(std::size_t min_bytes) {
  const auto size = in_->regular_size();
  if (!size || *size < min_bytes || eof_) return nullptr;
  // The second part starts at the first line after the middle: records never
  // span lines, so a line start is a record start.
  const std::size_t middle = std::max(*size / 2, in_->position());
  std::string block(1u << 16, '\0');
  std::optional<std::size_t> boundary;
  for (std::size_t at = middle; !boundary;) {
    const std::size_t n = in_->read_at(at, block.data(), block.size());
    if (n == 0) return nullptr;  // no line starts after the middle
    if (const auto nl = std::string_view(block.data(), n).find('\n'); nl != std::string_view::npos)
      boundary = at + nl + 1;
    at += n;
  }
  if (*boundary >= *size) return nullptr;
  // Its line numbers continue this part's: count the lines before it.
  std::int64_t lines = 0;
  for (std::size_t at = 0; at < *boundary;) {
    const std::size_t n = in_->read_at(at, block.data(), std::min(block.size(), *boundary - at));
    if (n == 0) return nullptr;
    lines += std::count(block.data(), block.data() + n, '\n');
    at += n;
  }
  if (lines >= std::numeric_limits<int>::max()) return nullptr;
  auto second = std::unique_ptr<CsvStream>(new CsvStream(*this, in_->reopen_at(*boundary)));
  second->line_no_ = static_cast<int>(lines);
  in_->stop_at(*boundary);
  return second;
}

CsvStream::CsvStream(const CsvStream& first, std::unique_ptr<InputStream> in)
    : in_(std::move(in)),
      file_(first.file_),
      header_line_(first.header_line_),
      sep_(first.sep_),
      header_(first.header_) {}

bool CsvStream::next_line(std::string_view& line) {
  for (;;) {
    const std::size_t end = buf_.find('\n', pos_);
    if (end != std::string::npos || (eof_ && pos_ < buf_.size())) {
      const std::size_t stop = end == std::string::npos ? buf_.size() : end;
      line = std::string_view(buf_).substr(pos_, stop - pos_);
      pos_ = stop + 1;
      if (line_no_ == std::numeric_limits<int>::max())
        throw InputError(SourceLocation{file_}, "", std::string(tr("has more lines than can be numbered (2^31)")));
      ++line_no_;
      if (!plain_) check_text(line, file_, line_no_);
      return true;
    }
    if (eof_) return false;
    // Keep the unread tail, then read another block after it.
    buf_.erase(0, pos_);
    pos_ = 0;
    if (buf_.size() > kMaxLine)
      throw InputError(SourceLocation{file_, line_no_ + 1, 0}, "",
                       std::string(tr("has a line longer than 1 MiB: is it CSV?")));
    const std::size_t have = buf_.size();
    buf_.resize(have + kBlock);
    const std::size_t n = in_->read(buf_.data() + have, kBlock);
    buf_.resize(have + n);
    eof_ = n == 0;
    // ASCII without NUL needs no line-by-line check (what is left of the last
    // block was in it); a block with anything else is checked line by line.
    plain_ = (have == 0 || plain_) && plain_ascii(std::string_view(buf_).substr(have));
  }
}

// A record with nothing to unquote or trim (no quote, space, tab or CR, not
// a comment) splits in one pass; anything else takes read_line, the grammar.
bool CsvStream::plain_record(std::string_view line) {
  // The bytes that end a cell or need the grammar: a table, so a byte costs a load and a branch.
  static constexpr auto kStop = [] {
    std::array<bool, 256> t{};
    for (const char c : {',', '\t', '"', ' ', '\r'}) t[static_cast<unsigned char>(c)] = true;
    return t;
  }();
  // A leading tab may make a line of only tabs, which the grammar reads as blank (found by fuzz_csv).
  if (line.empty() || line[0] == '#' || line[0] == '\t') return false;
  const std::size_t w = header_.size();
  if (cells_.size() != w) cells_.resize(w), columns_.resize(w);
  std::size_t k = 0;
  const char *p = line.data(), *end = p + line.size(), *start = p;
  for (;; ++p) {
    if (p != end && !kStop[static_cast<unsigned char>(*p)]) continue;
    if (p != end && *p != sep_) return false;
    if (k == w) return false;
    cells_[k] = std::string_view(start, static_cast<std::size_t>(p - start));
    columns_[k++] = static_cast<int>(start - line.data()) + 1;
    if (p == end) break;
    start = p + 1;
  }
  return k == w;
}

bool CsvStream::next() {
  std::string_view line;
  while (next_line(line)) {
    if (plain_record(line)) {
      ++rows_;
      return true;
    }
    unescaped_.clear();
    if (read_line(line, line_no_, file_, sep_, header_, cells_, columns_, unescaped_) == LineKind::kRecord) {
      ++rows_;
      return true;
    }
  }
  return false;
}

bool CsvStream::has(std::string_view column) const { return has_column(header_, column); }

std::size_t CsvStream::index(std::string_view column) const {
  return column_index(header_, column, file_, header_line_);
}

double CsvStream::number(std::size_t column) const {
  const std::string_view cell = cells_.at(column);
  if (const auto v = plain_decimal(cell)) return *v;  // inlined: a stream reads millions of cells
  return cell_number(cell, file_, line_no_, columns_[column], header_[column]);
}

CsvTable::Place CsvStream::place(std::size_t column) const { return {line_no_, columns_.at(column)}; }

}  // namespace gpuplan
