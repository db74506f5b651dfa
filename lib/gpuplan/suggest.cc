#include "gpuplan/suggest.h"

#include <algorithm>
#include <array>
#include <vector>

namespace gpuplan {

namespace {

// Levenshtein distance, or limit + 1 as soon as it must exceed `limit`: the
// distance is at least the difference in length, and a row's minimum never
// falls in later rows. One row of the table at a time, on the stack for names
// of ordinary length (nearest() runs for every unknown key a file has).
std::size_t bounded_distance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t over = limit + 1;
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit) return over;
  std::array<std::size_t, 64> small{};
  std::vector<std::size_t> large;
  std::size_t* row = small.data();
  if (b.size() + 1 > small.size()) {
    large.resize(b.size() + 1);
    row = large.data();
  }
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    std::size_t least = row[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
      least = std::min(least, row[j]);
    }
    if (least > limit) return over;
  }
  return std::min(row[b.size()], over);
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  return bounded_distance(a, b, std::max(a.size(), b.size()));
}

std::string_view nearest(std::string_view word, std::span<const std::string_view> candidates,
                         std::size_t max_distance) {
  std::string_view best;
  std::size_t limit = max_distance;  // a later candidate must be strictly closer
  for (const std::string_view c : candidates) {
    const std::size_t d = bounded_distance(word, c, limit);
    if (d <= limit) {
      best = c;
      if (d == 0) break;
      limit = d - 1;
    }
  }
  return best;
}

}  // namespace gpuplan
