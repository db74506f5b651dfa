#include "gpuplan/io.h"
#include "gpuplan/i18n.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuplan/error.h"

namespace gpuplan {
namespace {

InputError file_error(const std::string& path, const std::string& what) {
  return InputError(SourceLocation{path, 0, 0}, "", what);
}

std::string errno_text(int err) {
  switch (err) {
    case ENOENT:
      return std::string(tr("no such file"));
    case EACCES:
      return std::string(tr("permission denied"));
    case EISDIR:
      return std::string(tr("is a directory"));
    case ENOSPC:
      return std::string(tr("no space left on device"));
    case EROFS:
      return std::string(tr("read-only file system"));
    default:
      return std::strerror(err);
  }
}

bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// The temporary file being written, for the signal handler: a fixed buffer
// (no allocation in a handler) and a flag it reads atomically.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_live = 0;

extern "C" void remove_temp_and_die(int sig) {
  if (g_temp_live) ::unlink(g_temp_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

TempFileGuard::TempFileGuard() {
  // Only where the default action (termination) is in force: a caller that
  // ignores or handles a signal keeps it.
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    ::sigaction(sig, nullptr, &old);
    if (old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temp_and_die;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

int TempFileGuard::create(std::string& tmpl) {
  if (tmpl.size() >= sizeof g_temp_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  // Block the signals while the name is published, so the handler never
  // sees a half-copied path, and create the file inside that window.
  sigset_t block, old;
  sigemptyset(&block);
  for (const int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, sig);
  ::sigprocmask(SIG_BLOCK, &block, &old);
  const int fd = ::mkstemp(tmpl.data());
  const int err = errno;
  if (fd >= 0) {
    std::memcpy(g_temp_path, tmpl.c_str(), tmpl.size() + 1);
    g_temp_live = 1;
    path_ = tmpl;
  }
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  errno = err;
  return fd;
}

void TempFileGuard::release() {
  g_temp_live = 0;
  path_.clear();
}

TempFileGuard::~TempFileGuard() {
  if (path_.empty()) return;
  g_temp_live = 0;
  ::unlink(path_.c_str());
}

InputStream::InputStream(const std::string& path, std::size_t max_bytes) : path_(path), max_bytes_(max_bytes) {
  if (path != "-") {
    // O_NONBLOCK: opening a FIFO with no writer must not hang (it then reads as empty).
    fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) throw file_error(path, errno_text(errno));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail(errno_text(errno));
  if (path == "-") return;
  if (S_ISDIR(st.st_mode)) fail(std::string(tr("is a directory, not a file")));
  if (S_ISBLK(st.st_mode)) fail("is a block device, not a file");
  // A FIFO, pipe (`compare <(…)`), socket or character device is read as a
  // stream, as standard input is, up to the same size; one with no writer
  // reads as empty (and is refused as holding no document), never a hang.
  if (S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) > max_bytes) fail(too_large());
  if (S_ISREG(st.st_mode)) regular_size_ = static_cast<std::size_t>(st.st_size);
  const int flags = ::fcntl(fd_, F_GETFL);
  ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
}

InputStream::~InputStream() {
  if (fd_ > 0) ::close(fd_);
}

std::string InputStream::too_large() const {
  return fmt::format("is larger than the {} MiB an input may be", max_bytes_ >> 20);
}

void InputStream::fail(const std::string& what) {
  if (fd_ > 0) ::close(fd_);
  fd_ = -1;
  throw file_error(path_, what);
}

std::unique_ptr<InputStream> InputStream::reopen_at(std::size_t offset) const {
  auto in = std::make_unique<InputStream>(path_, max_bytes_);
  if (::lseek(in->fd_, static_cast<off_t>(offset), SEEK_SET) < 0) in->fail(errno_text(errno));
  in->start_ = offset;
  return in;
}

std::size_t InputStream::read_at(std::size_t offset, char* buf, std::size_t size) {
  for (;;) {
    const ssize_t n = ::pread(fd_, buf, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno_text(errno));
    return static_cast<std::size_t>(n);
  }
}

std::size_t InputStream::read(char* buf, std::size_t size) {
  if (stop_) size = std::min(size, *stop_ - std::min(*stop_, position()));
  if (size == 0) return 0;
  for (;;) {
    const ssize_t n = ::read(fd_, buf, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno_text(errno));
    done_ += static_cast<std::size_t>(n);
    if (done_ > max_bytes_) fail(too_large());
    return static_cast<std::size_t>(n);
  }
}

std::string read_input_file(const std::string& path, std::size_t max_bytes) {
  InputStream in(path, max_bytes);
  std::string out;
  char buf[65536];
  while (const std::size_t n = in.read(buf, sizeof buf)) out.append(buf, n);
  return out;
}

void write_output_file(const std::string& requested, const std::string& content,
                       const std::vector<std::string>& inputs) {
  if (requested.empty())
    throw file_error("-o", "the output file name is empty (leave -o out to write to standard output)");
  std::string path = requested;
  // /dev/stdout, /proc/self/fd/N and the like are streams: write through them.
  const bool stream_path = path.starts_with("/dev/") || path.starts_with("/proc/");
  // A symlink is followed: the file it points to is replaced, not the link.
  struct stat link_st {};
  if (!stream_path && ::lstat(path.c_str(), &link_st) == 0 && S_ISLNK(link_st.st_mode)) {
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  }
  struct stat out_st {};
  const bool exists = ::stat(path.c_str(), &out_st) == 0;
  if (exists) {
    if (S_ISDIR(out_st.st_mode)) throw file_error(path, std::string(tr("output path is a directory")));
    for (const std::string& in : inputs) {
      struct stat in_st {};
      if (in != "-" && ::stat(in.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
          in_st.st_ino == out_st.st_ino)
        throw file_error(path, fmt::format("output would overwrite the input {}", in));
    }
    // A read-only file is kept: replacing it by rename would bypass its mode
    // (root's access() says yes to anything, so the mode bits decide too).
    if (S_ISREG(out_st.st_mode) && ((out_st.st_mode & 0222) == 0 || ::access(path.c_str(), W_OK) != 0))
      throw file_error(path, "is read-only: it is kept (make it writable, or write elsewhere)");
    if (!S_ISREG(out_st.st_mode) || stream_path) {
      // A device or FIFO (e.g. /dev/null, /dev/full): write in place, checked.
      const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | (S_ISREG(out_st.st_mode) ? O_TRUNC : O_NONBLOCK));
      if (fd < 0) throw file_error(path, errno_text(errno));
      const bool ok = write_all(fd, content);
      const int err = errno;
      if (::close(fd) != 0 || !ok) throw file_error(path, errno_text(ok ? errno : err));
      return;
    }
  }
  const std::size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  std::string tmpl = dir + "/.gpuplan-XXXXXX";
  TempFileGuard guard;
  const int fd = guard.create(tmpl);
  if (fd < 0) throw file_error(path, trf("cannot create a file in {}: {}", dir, errno_text(errno)));
  const bool ok = write_all(fd, content) && ::fsync(fd) == 0;
  const int err = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) throw file_error(path, errno_text(ok ? errno : err));
  // Keep the permissions an existing file had; a new one gets 0666 & ~umask.
  mode_t mode = 0;
  if (exists) {
    mode = out_st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  ::chmod(tmpl.c_str(), mode);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) throw file_error(path, errno_text(errno));
  guard.release();
}

void write_stdout(const std::string& content) {
  // Exit 3, as an -o file that cannot be written: one code for output that did not get out.
  if (!write_all(1, content)) throw InputError(SourceLocation{"standard output"}, "", errno_text(errno));
}

std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return 1;
  // UTF-8 (RFC 3629): lead byte ranges and the second byte's allowed range.
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c == 0xE0) len = 3, lo = 0xA0;
  else if (c >= 0xE1 && c <= 0xEC) len = 3;
  else if (c == 0xED) len = 3, hi = 0x9F;  // no surrogates
  else if (c >= 0xEE && c <= 0xEF) len = 3;
  else if (c == 0xF0) len = 4, lo = 0x90;
  else if (c >= 0xF1 && c <= 0xF3) len = 4;
  else if (c == 0xF4) len = 4, hi = 0x8F;  // nothing past U+10FFFF
  else return 0;
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return 0;
  }
  return len;
}

namespace {

// The length of the run of bytes 0x01..0x7F `s` starts with: eight bytes at a
// time (one word's high bits, and the classic zero-byte test (Mycroft 1987):
// (w − 0x01…01) & ~w & 0x80…80 is non-zero exactly when a byte of w is zero),
// then the word that ends the run a byte at a time. A fuzzer's coverage
// tracing pays per comparison: this makes one per word, not three per byte.
std::size_t ascii_run(std::string_view s) {
  constexpr std::uint64_t kOnes = 0x0101010101010101, kHighs = 0x8080808080808080;
  std::size_t i = 0;
  for (std::uint64_t w; i + 8 <= s.size(); i += 8) {
    std::memcpy(&w, s.data() + i, 8);
    if (((w | ((w - kOnes) & ~w)) & kHighs) != 0) break;
  }
  while (i < s.size() && static_cast<unsigned char>(s[i]) - 1u < 0x7Fu) ++i;
  return i;
}

// Line and column (in characters) of byte `at` of a text valid up to there.
SourceLocation place(std::string_view text, std::size_t at, const std::string& file, int first_line) {
  const std::string_view before = text.substr(0, at);
  const std::size_t newline = before.rfind('\n');
  const std::string_view last = newline == std::string_view::npos ? before : before.substr(newline + 1);
  const auto lines = std::count(before.begin(), before.end(), '\n');
  // Every character but the continuation bytes (10xxxxxx) of a multi-byte one.
  const auto chars =
      std::count_if(last.begin(), last.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  return SourceLocation{file, first_line + static_cast<int>(lines), 1 + static_cast<int>(chars)};
}

}  // namespace

bool plain_ascii(std::string_view s) { return ascii_run(s) == s.size(); }

// The first byte that is no UTF-8 is found first; its line and column are
// counted only then (a valid text, the common case, is never counted).
void check_text(std::string_view text, const std::string& file, int first_line) {
  for (std::size_t i = ascii_run(text); i < text.size(); i += ascii_run(text.substr(i))) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0)
      throw InputError(place(text, i, file, first_line), "",
                       std::string(tr("is not a text file (it contains NUL bytes)")));
    const std::size_t len = utf8_sequence(text, i);
    if (len == 0)
      throw InputError(place(text, i, file, first_line), "",
                       trf("is not UTF-8 text (byte 0x{:02X}); save the file as UTF-8", c));
    i += len;
  }
}

}  // namespace gpuplan
