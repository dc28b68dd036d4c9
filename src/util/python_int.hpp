#pragma once

#include <optional>
#include <string_view>

namespace pdcheck {

/// Python's int(text) for decimal text: surrounding whitespace, a sign, and
/// single underscores between digits are accepted; nullopt where int() raises,
/// and for values outside long long (no launch value or layer count is that big).
std::optional<long long> python_int(std::string_view text);

} // namespace pdcheck
