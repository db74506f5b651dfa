#include "gpuplan/commands/flags.h"
#include "gpuplan/i18n.h"

#include <cmath>
#include <fmt/format.h>
#include <stdexcept>

#include "gpuplan/error.h"
#include "gpuplan/units.h"

namespace gpuplan {

double flag_number(const std::string& flag, const std::string& text, bool positive) {
  try {
    const double v = parse_count(text);
    if (positive && !(v > 0)) throw std::invalid_argument(trf("{} must be greater than zero", text));
    return v;
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{fmt::format("{} {}", flag, text)}, "", e.what());
  }
}

std::uint64_t flag_whole(const std::string& flag, const std::string& text, double lo, double hi) {
  try {
    const double v = parse_count(text);
    if (v != std::floor(v)) throw std::invalid_argument(trf("{} is not a whole number", text));
    if (v < lo || v > hi) throw std::invalid_argument(trf("{} is outside {:g}..{:g}", text, lo, hi));
    return static_cast<std::uint64_t>(v);
  } catch (const std::invalid_argument& e) {
    throw InputError(SourceLocation{fmt::format("{} {}", flag, text)}, "", e.what());
  }
}

}  // namespace gpuplan
