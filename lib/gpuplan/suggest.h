// "Did you mean …?": the nearest known name to a misspelt one, by edit
// distance (Levenshtein: insertions, deletions and substitutions count one).
// Used for subcommands, input fields and catalog keys alike.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace gpuplan {

std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest to `word`, at most `max_distance` edits away (the
/// first of equals), or "" when none is that close.
std::string_view nearest(std::string_view word, std::span<const std::string_view> candidates,
                         std::size_t max_distance = 2);

}  // namespace gpuplan
