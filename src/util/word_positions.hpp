#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

/// A position in a text: 1-based line, 1-based column in bytes.
struct TextPosition
{
  int line = 0;
  int column = 0;
};

/// Where each word of a command line split from text[begin, end) was written,
/// so that a finding can point at the line of one flag inside a multi-line
/// YAML scalar. Words are looked for in order, each after the previous one and
/// standing alone (bounded by the range's ends, blanks or quotes). A word the
/// split changed (a backslash escape, quotes inside it) is not found: it and
/// every word after it get nullopt, since a later match could then be a guess.
std::vector<std::optional<TextPosition>> locate_words(std::string_view text, std::size_t begin, std::size_t end,
                                                      const std::vector<std::string>& words);

} // namespace pdcheck
