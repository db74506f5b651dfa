// Reading measurements from CSV: a header row, comma- or tab-separated
// (detected from the header), `#` comment lines, RFC 4180 quoting, CRLF line
// ends and a UTF-8 byte-order mark tolerated; columns chosen by name. A bad
// cell is an InputError at FILE:LINE:COL naming the column.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

class CsvTable {
 public:
  /// Parses `text` (from `file`, for messages). Throws InputError for an empty
  /// file, a header without columns, a ragged row or an unterminated quote.
  static CsvTable parse(std::string_view text, std::string file);
  /// Reads `path` ("-" is standard input) and parses it.
  static CsvTable load(const std::string& path);

  const std::vector<std::string>& header() const { return header_; }
  std::size_t rows() const { return line_.size(); }
  /// Whether the table has a column of that name (case-insensitive).
  bool has(std::string_view column) const;
  /// The column as finite numbers; throws InputError at the bad cell
  /// ("FILE:LINE:COL: column: 'abc' is not a number").
  std::vector<double> numbers(std::string_view column) const;
  /// The column as text.
  std::vector<std::string> text(std::string_view column) const;
  /// Where a cell is, for messages.
  struct Place {
    int line;
    int column;
  };
  Place place(std::size_t row, std::string_view column) const;
  /// The 1-based line of a data row, for messages.
  int line(std::size_t row) const { return line_.at(row); }
  const std::string& file() const { return file_; }
  /// The 1-based line of the header (after comments and blank lines).
  int header_line() const { return header_line_; }

 private:
  std::size_t index(std::string_view column) const;
  std::string file_;
  std::vector<std::string> header_;
  int header_line_ = 1;
  // Cells are views into the text (shared, so copies of the table stay valid);
  // quoted cells with doubled quotes are unescaped into `unescaped_`.
  std::shared_ptr<const std::string> text_;
  std::shared_ptr<std::deque<std::string>> unescaped_;
  std::vector<std::string_view> cells_;  ///< row-major, header_.size() per row
  std::vector<int> line_;
  std::vector<int> column_;  ///< 1-based character column of each cell, like cells_
};

class InputStream;

/// The same grammar read one record at a time from a file or stream of any
/// size ("-" is standard input): memory is one block and one line, never the
/// file. Cells are views valid until the next call to next().
class CsvStream {
 public:
  /// Opens `path` and reads through the header; InputError as CsvTable::parse.
  explicit CsvStream(const std::string& path);
  ~CsvStream();
  CsvStream(const CsvStream&) = delete;
  CsvStream& operator=(const CsvStream&) = delete;

  const std::vector<std::string>& header() const { return header_; }
  int header_line() const { return header_line_; }
  const std::string& file() const { return file_; }
  bool has(std::string_view column) const;
  /// The position of a column in the header; InputError naming the columns there are.
  std::size_t index(std::string_view column) const;

  /// Reads the next data record; false at the end of the input.
  bool next();
  /// The current record's cell as a finite number; InputError at the cell.
  double number(std::size_t column) const;
  /// The current record's cell as text.
  std::string_view cell(std::size_t column) const { return cells_.at(column); }
  /// The current record's line, and where a cell of it is.
  int line() const { return line_no_; }
  CsvTable::Place place(std::size_t column) const;
  /// Data records read so far.
  std::int64_t rows() const { return rows_; }

  /// For a named regular file of at least `min_bytes`: the records from the
  /// first line after the middle, as a second stream (same header, line
  /// numbers that continue this one's), and this stream then ends before
  /// them, so two threads can read the halves. None for a stream, a small
  /// file, or one with no line after its middle.
  std::unique_ptr<CsvStream> split_off(std::size_t min_bytes = 4u << 20);

 private:
  CsvStream(const CsvStream& first, std::unique_ptr<InputStream> in);
  static constexpr std::size_t kBlock = 1u << 16, kMaxLine = 1u << 20;
  bool next_line(std::string_view& line);
  bool plain_record(std::string_view line);
  std::unique_ptr<InputStream> in_;
  std::string file_;
  std::string buf_{};
  std::size_t pos_ = 0;
  bool eof_ = false;
  bool plain_ = false;  ///< the unread bytes are ASCII without NUL: lines need no text check
  int line_no_ = 0;
  int header_line_ = 1;
  std::int64_t rows_ = 0;
  char sep_ = ',';
  std::vector<std::string> header_{};
  std::vector<std::string_view> cells_{};
  std::vector<int> columns_{};
  std::deque<std::string> unescaped_{};
};

}  // namespace gpuplan
