// Shared by the fuzz targets: what "handled" means. Bad input must end in one
// of gpuplan's documented errors (InputError, InputErrors, FitError, or
// std::invalid_argument from a model documented to throw it); anything else
// escaping, a crash, a hang or a sanitizer report is a finding.
#pragma once

#include <cmath>
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

}  // namespace gpuplan_fuzz
