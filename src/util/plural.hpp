#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

namespace pdcheck {

/// "1 rank pair", "2 rank pairs": a count with its noun in the right number.
/// `plural` defaults to the singular with an s.
inline std::string counted(long long n, std::string_view singular, std::string_view plural = {})
{
  if (n == 1) {
    return fmt::format("1 {}", singular);
  }
  return plural.empty() ? fmt::format("{} {}s", n, singular) : fmt::format("{} {}", n, plural);
}

} // namespace pdcheck
