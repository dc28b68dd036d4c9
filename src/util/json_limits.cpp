#include "util/json_limits.hpp"

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

} // namespace pdcheck
