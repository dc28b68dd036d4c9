#pragma once
// Counting one byte value in a large buffer (newlines in a log chunk) at
// memory speed: the line numbers `explain` reports cost a pass over every byte.
#include <cstddef>
#include <string_view>

namespace pdcheck::util {

/// How many bytes of `text` equal `byte`.
std::size_t count_byte(std::string_view text, char byte);

} // namespace pdcheck::util
