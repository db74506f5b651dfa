// Reading inputs and writing outputs safely. Inputs: files, or streams (a
// FIFO, a pipe from `<(…)`, standard input), size-capped; a directory is refused. Outputs:
// written whole or not at all (a temporary file in the same directory, then
// rename), never over one of the inputs (same device and inode, not name),
// and every write and the close are checked (/dev/full must fail).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

inline constexpr std::size_t kMaxInputBytes = 64u * 1024u * 1024u;

/// An input read in pieces: a file, or a stream (a FIFO, `<(…)`, standard
/// input for "-"), checked as read_input_file checks it. InputError naming
/// the file for every failure.
class InputStream {
 public:
  explicit InputStream(const std::string& path, std::size_t max_bytes = kMaxInputBytes);
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;
  /// Up to `size` bytes into `buf`; 0 at the end (or at the stop).
  std::size_t read(char* buf, std::size_t size);

  // For reading a regular file in parts (two threads, two halves):
  /// The file's size when it is a named regular file; none for a stream.
  std::optional<std::size_t> regular_size() const { return path_ == "-" ? std::nullopt : regular_size_; }
  /// The offset in the file of the next byte read() returns.
  std::size_t position() const { return start_ + done_; }
  /// read() ends at this offset.
  void stop_at(std::size_t offset) { stop_ = offset; }
  /// The same file opened again, reading from `offset`.
  std::unique_ptr<InputStream> reopen_at(std::size_t offset) const;
  /// Up to `size` bytes from `offset`, not moving position().
  std::size_t read_at(std::size_t offset, char* buf, std::size_t size);

 private:
  [[noreturn]] void fail(const std::string& what);
  std::string too_large() const;
  std::string path_;
  std::size_t max_bytes_;
  std::size_t start_ = 0, done_ = 0;
  std::optional<std::size_t> regular_size_{}, stop_{};
  int fd_ = 0;  ///< 0: standard input, never closed
};

/// The whole file, or InputError naming the file ("is a directory", "not found"...).
/// "-" reads standard input.
std::string read_input_file(const std::string& path, std::size_t max_bytes = kMaxInputBytes);

/// Checks that an input is text: no NUL bytes, and well-formed UTF-8 (no
/// overlong forms, surrogates or code points past U+10FFFF). Throws InputError
/// at the first bad byte's line and column, naming the byte.
/// `first_line`: the line `text` starts at (a stream checks line by line).
void check_text(std::string_view text, const std::string& file, int first_line = 1);

/// A temporary output file that does not outlive its writer: removed by the
/// destructor unless released (renamed into place), and by SIGINT, SIGTERM or
/// SIGHUP while it exists (the signal then terminates the process as before).
class TempFileGuard {
 public:
  TempFileGuard();
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  /// mkstemp(tmpl): the descriptor, or -1 with errno.
  int create(std::string& tmpl);
  /// The file was renamed into place: nothing to remove.
  void release();

 private:
  std::string path_;
};

/// Whether every byte is ASCII and none is NUL (a loop the compiler vectorises):
/// such a text passes check_text without a look at each character.
bool plain_ascii(std::string_view s);

/// The length of the well-formed UTF-8 sequence at text[i] (1 to 4), or 0
/// when the bytes there are not UTF-8 (check_text's rules).
std::size_t utf8_sequence(std::string_view text, std::size_t i);

/// Writes `content` to `path` atomically. Refuses a path that is one of
/// `inputs` (same file by device and inode). Throws InputError on failure
/// (exit 3: the output path is a bad value), leaving any existing file intact.
void write_output_file(const std::string& path, const std::string& content, const std::vector<std::string>& inputs);

/// Writes to standard output and checks the result (a closed pipe or full
/// device is an error, not a silent truncation). Throws InputError (exit 3, as for -o).
void write_stdout(const std::string& content);

}  // namespace gpuplan
