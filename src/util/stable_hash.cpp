#include "util/stable_hash.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace pdcheck {

std::string stable_hash(std::string_view text)
{
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

std::string fold_digits(std::string_view text)
{
  std::string out;
  for (char c : text) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !out.empty() && out.back() == '#') {
      continue;
    }
    out += digit ? '#' : c;
  }
  return out;
}

} // namespace pdcheck
