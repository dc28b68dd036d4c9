#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

/// Edit distance between two strings where swapping two neighbouring
/// characters counts as one edit (optimal string alignment), compared without
/// regard to ASCII case, so that "modle" is one edit from "model".
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, for "did you mean ...?" hints. Returns
/// nothing when the best candidate needs more than max(2, word.size() / 3)
/// edits, or when `word` is itself a candidate. Ties go to the earlier candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// The hint an error message ends with: " (did you mean 'X'?)" for the
/// closest candidate, else " (<otherwise>)", or "" when `otherwise` is empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view otherwise = "");

} // namespace pdcheck
