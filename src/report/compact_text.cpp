#include "report/compact_text.hpp"

#include <fmt/format.h>

#include <vector>

namespace pdcheck::report {

namespace {

bool is_integer(std::string_view s)
{
  if (!s.empty() && s.front() == '-') {
    s.remove_prefix(1);
  }
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (c < '0' || c > '9') {
      return false;
    }
  }
  return true;
}

/// The items of "a, b, c" when every one is an integer; empty otherwise.
std::vector<std::string_view> integer_items(std::string_view inside)
{
  std::vector<std::string_view> items;
  while (true) {
    const std::size_t comma = inside.find(',');
    std::string_view item = inside.substr(0, comma);
    while (!item.empty() && item.front() == ' ') {
      item.remove_prefix(1);
    }
    if (!is_integer(item)) {
      return {};
    }
    items.push_back(item);
    if (comma == std::string_view::npos) {
      return items;
    }
    inside.remove_prefix(comma + 1);
  }
}

} // namespace

std::string compact_int_lists(std::string_view text)
{
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t open = text.find('[', pos);
    const std::size_t close = open == std::string_view::npos ? open : text.find(']', open);
    if (close == std::string_view::npos) {
      out.append(text.substr(pos));
      break;
    }
    out.append(text.substr(pos, open - pos));
    const std::vector<std::string_view> items = integer_items(text.substr(open + 1, close - open - 1));
    if (items.empty()) {
      out.append(text.substr(open, close + 1 - open));
    } else {
      std::vector<std::string> runs;
      for (std::size_t i = 0; i < items.size();) {
        std::size_t j = i;
        while (j < items.size() && items[j] == items[i]) {
          ++j;
        }
        const std::size_t n = j - i;
        if (n >= 3) {
          runs.push_back(fmt::format("{} ×{}", items[i], n));
        } else {
          for (std::size_t k = i; k < j; ++k) {
            runs.emplace_back(items[k]);
          }
        }
        i = j;
      }
      out += fmt::format("[{}]", fmt::join(runs, ", "));
    }
    pos = close + 1;
  }
  return out;
}

} // namespace pdcheck::report
