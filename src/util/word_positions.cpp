#include "util/word_positions.hpp"

#include <algorithm>

namespace pdcheck {

namespace {

bool separates(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'';
}

TextPosition position_of(std::string_view text, std::size_t at)
{
  TextPosition p;
  p.line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  const std::size_t line_start = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  p.column = 1 + static_cast<int>(line_start == std::string_view::npos ? at : at - line_start - 1);
  return p;
}

} // namespace

std::vector<std::optional<TextPosition>> locate_words(std::string_view text, std::size_t begin, std::size_t end,
                                                      const std::vector<std::string>& words)
{
  std::vector<std::optional<TextPosition>> found(words.size());
  end = std::min(end, text.size());
  std::size_t from = std::min(begin, end);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word.empty()) {
      return found;
    }
    std::size_t at = text.find(word, from);
    while (at != std::string_view::npos && at + word.size() <= end) {
      const bool starts = at == begin || separates(text[at - 1]);
      const bool ends = at + word.size() == end || separates(text[at + word.size()]);
      if (starts && ends) {
        break;
      }
      at = text.find(word, at + 1);
    }
    if (at == std::string_view::npos || at + word.size() > end) {
      return found;
    }
    found[i] = position_of(text, at);
    from = at + word.size();
  }
  return found;
}

} // namespace pdcheck
