#include "util/python_int.hpp"

#include <limits>

namespace pdcheck {

namespace {

bool is_python_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

} // namespace

std::optional<long long> python_int(std::string_view text)
{
  while (!text.empty() && is_python_space(text.front())) {
    text.remove_prefix(1);
  }
  while (!text.empty() && is_python_space(text.back())) {
    text.remove_suffix(1);
  }
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() == '_' || text.back() == '_') {
    return std::nullopt;
  }
  long long value = 0;
  char previous = 0;
  for (char c : text) {
    if (c == '_') {
      if (previous == '_') {
        return std::nullopt;
      }
    } else if (c >= '0' && c <= '9') {
      if (value > (std::numeric_limits<long long>::max() - (c - '0')) / 10) {
        return std::nullopt;
      }
      value = value * 10 + (c - '0');
    } else {
      return std::nullopt;
    }
    previous = c;
  }
  return negative ? -value : value;
}

} // namespace pdcheck
