#pragma once

#include <charconv>
#include <optional>
#include <string_view>

namespace pdcheck {

/// `text` as a non-negative int when it is exactly one (digits only, no sign,
/// no spaces, in range); nullopt otherwise. Callers word their own error.
inline std::optional<int> whole_number(std::string_view text)
{
  int value = -1;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) {
    return std::nullopt;
  }
  return value;
}

} // namespace pdcheck
