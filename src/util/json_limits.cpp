#include "util/json_limits.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck {

JsonShape json_shape(std::string_view text, int max_depth)
{
  // values = the root + for each non-empty container its first element + one
  // per comma between elements.
  JsonShape shape;
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  bool just_opened = false; // the last token opened a container
  bool any = false;         // a value has started
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    }
    if (!any) {
      any = true;
      shape.values = 1;
    }
    if (just_opened && c != ']' && c != '}') {
      shape.values += 1;
    }
    just_opened = false;
    switch (c) {
    case '"': in_string = true; break;
    case ',': shape.values += 1; break;
    case '[':
    case '{':
      if (++depth > max_depth) {
        shape.too_deep_at = i;
        return shape;
      }
      just_opened = true;
      break;
    case ']':
    case '}':
      // An unbalanced closer is a syntax error the parser reports.
      depth = depth > 0 ? depth - 1 : 0;
      break;
    default: break;
    }
  }
  return shape;
}

std::pair<std::size_t, std::size_t> json_line_column(std::string_view text, std::size_t byte)
{
  const std::size_t offset = std::min(byte == 0 ? 0 : byte - 1, text.size());
  std::size_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return {line, offset - line_start + 1};
}

void refuse_unmeasurable_json(std::string_view text, const std::string& origin, std::string_view kind)
{
  const JsonShape shape = json_shape(text);
  if (shape.too_deep_at) {
    const auto [line, column] = json_line_column(text, *shape.too_deep_at + 1);
    throw InputError(fmt::format("{}:{}:{}", origin, line, column),
                     fmt::format("JSON nested deeper than the limit of {} levels", k_max_json_depth));
  }
  if (shape.values > k_max_json_values) {
    throw InputError(origin, fmt::format("expected a {} of at most {} JSON values, got {}", kind, k_max_json_values,
                                         shape.values));
  }
}

} // namespace pdcheck
