// Numbers given as command-line flags, read by gpuplan's own strict parsers
// rather than CLI11's (which accept 0x10, 010 as ten, nan and inf). A problem
// is an InputError at "--flag TEXT" (exit 3).
#pragma once

#include <cstdint>
#include <string>

namespace gpuplan {

/// A finite number, with an optional K/M/B/T suffix ("1e5", "7B"); greater than zero when `positive`.
double flag_number(const std::string& flag, const std::string& text, bool positive = true);
/// A whole number within [lo, hi] ("1000", "10K").
std::uint64_t flag_whole(const std::string& flag, const std::string& text, double lo, double hi);

}  // namespace gpuplan
