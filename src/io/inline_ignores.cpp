#include "io/inline_ignores.hpp"

#include "core/rules.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>

namespace pdcheck::io {

namespace {

constexpr std::string_view k_marker = "pdcheck:";
constexpr std::string_view k_ignore = "ignore=";

bool is_space(char c)
{
  return c == ' ' || c == '\t';
}

std::size_t skip_spaces(std::string_view s, std::size_t i)
{
  while (i < s.size() && is_space(s[i])) {
    ++i;
  }
  return i;
}

std::string where(const std::string& path, int line, std::size_t column)
{
  return fmt::format("{}:{}:{}", path, line, column + 1);
}

/// Where a comment starts in a line: a `#` at its start or after whitespace
/// (YAML's rule; a `#` inside a word is text).
std::size_t comment_start(std::string_view line)
{
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) {
      return i;
    }
  }
  return std::string_view::npos;
}

void read_rule_list(std::string_view line, std::size_t at, const std::string& path, int line_no,
                    std::map<std::string, sglang::SourceLocation>& out)
{
  std::vector<std::string> ids;
  for (const Rule& r : rules()) {
    ids.emplace_back(r.id);
  }
  std::size_t i = at;
  while (true) {
    const std::size_t begin = i;
    while (i < line.size() && line[i] != ',' && !is_space(line[i])) {
      ++i;
    }
    const std::string id(line.substr(begin, i - begin));
    if (id.empty()) {
      throw InputError(where(path, line_no, begin), "expected a rule id after 'ignore=' (pdcheck rules lists them)");
    }
    if (find_rule(id) == nullptr) {
      const auto hint = closest_match(id, ids);
      throw InputError(where(path, line_no, begin),
                       fmt::format("unknown rule '{}' in '# pdcheck: ignore='{}", id,
                                   hint ? fmt::format(" (did you mean '{}'?)", *hint) : " (pdcheck rules lists them)"));
    }
    out.emplace(id, sglang::SourceLocation{path, line_no, static_cast<int>(begin + 1)});
    if (i >= line.size() || line[i] != ',') {
      return;
    }
    i = skip_spaces(line, i + 1);
  }
}

} // namespace

std::map<std::string, sglang::SourceLocation> read_inline_ignores(const std::string& text, const std::string& path)
{
  std::map<std::string, sglang::SourceLocation> out;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line(text.data() + pos, eol - pos);
    ++line_no;
    pos = eol + 1;
    const std::size_t hash = comment_start(line);
    if (hash == std::string_view::npos) {
      continue;
    }
    std::size_t i = skip_spaces(line, hash + 1);
    if (line.substr(i, k_marker.size()) != k_marker) {
      continue; // an ordinary comment
    }
    i = skip_spaces(line, i + k_marker.size());
    if (line.substr(i, k_ignore.size()) != k_ignore) {
      std::size_t end = i;
      while (end < line.size() && !is_space(line[end])) {
        ++end;
      }
      throw InputError(where(path, line_no, i),
                       fmt::format("unknown pdcheck directive '{}'; expected 'ignore=RULE[,RULE...]'",
                                   line.substr(i, end - i)));
    }
    read_rule_list(line, i + k_ignore.size(), path, line_no, out);
  }
  return out;
}

} // namespace pdcheck::io
