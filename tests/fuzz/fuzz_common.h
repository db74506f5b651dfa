// Shared by the fuzz targets: what "handled" means. Bad input must end in one
// of gpuplan's documented errors (InputError, InputErrors, FitError, or
// std::invalid_argument from a model documented to throw it); anything else
// escaping, a crash, a hang or a sanitizer report is a finding.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "gpuplan/error.h"

namespace gpuplan_fuzz {

/// Runs `body`; documented errors are fine, anything else aborts (a finding).
template <class Body>
void expect_handled(Body&& body) {
  try {
    body();
  } catch (const gpuplan::InputErrors&) {
  } catch (const gpuplan::InputError&) {
  } catch (const gpuplan::FitError&) {
  } catch (const gpuplan::UsageError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "unexpected exception: %s\n", e.what());
    std::abort();
  }
}

/// A result that reached this point must be a finite number.
inline void expect_finite(double v, const char* what) {
  if (!std::isfinite(v)) {
    std::fprintf(stderr, "non-finite %s\n", what);
    std::abort();
  }
}

/// The input as a file a reader can open: an in-memory file, rewritten per input.
inline std::string as_file(const std::uint8_t* data, std::size_t size) {
  static const int fd = ::memfd_create("fuzz-input", 0);
  if (fd < 0 || ::ftruncate(fd, 0) != 0 || (size > 0 && ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))) {
    std::perror("memfd");
    std::abort();
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace gpuplan_fuzz
