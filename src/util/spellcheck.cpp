#include "util/spellcheck.hpp"

#include <algorithm>
#include <cctype>

namespace pdcheck {

namespace {

char fold(char c)
{
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

} // namespace

std::size_t edit_distance(std::string_view a, std::string_view b)
{
  // Three rolling rows are enough: the transposition case looks two rows back.
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), previous(n + 1), current(n + 1);
  for (std::size_t j = 0; j <= n; ++j) {
    previous[j] = j;
  }
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && fold(a[i - 1]) == fold(b[j - 2]) && fold(a[i - 2]) == fold(b[j - 1])) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[n];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates)
{
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  const std::string* best = nullptr;
  std::size_t best_distance = limit + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    if (distance == 0 && candidate.size() == word.size() && std::equal(candidate.begin(), candidate.end(), word.begin())) {
      // The word is valid as written: nothing to suggest.
      return std::nullopt;
    }
    if (distance < best_distance) {
      best = &candidate;
      best_distance = distance;
    }
  }
  if (best == nullptr) {
    return std::nullopt;
  }
  return *best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates, std::string_view otherwise)
{
  if (const std::optional<std::string> hint = closest_match(word, candidates)) {
    return " (did you mean '" + *hint + "'?)";
  }
  return otherwise.empty() ? "" : " (" + std::string(otherwise) + ")";
}

} // namespace pdcheck
