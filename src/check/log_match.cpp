#include "check/log_match.hpp"

#include <cstdint>

namespace pdcheck::check {

namespace {

using json = nlohmann::ordered_json;
using Type = TemplatePiece::Type;

bool parse_int(std::string_view s, std::size_t& pos, std::int64_t& out)
{
  std::size_t p = pos;
  bool neg = false;
  if (p < s.size() && s[p] == '-') {
    neg = true;
    ++p;
  }
  const std::size_t digits = p;
  std::int64_t v = 0;
  while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
    // A number past int64 (a corrupt or hostile log) is no value of any
    // template: the line does not match rather than carry a wrapped number.
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s[p] - '0', &v)) {
      return false;
    }
    ++p;
  }
  if (p == digits) {
    return false;
  }
  out = neg ? -v : v;
  pos = p;
  return true;
}

bool parse_list(std::string_view s, std::size_t& pos, json& out)
{
  if (pos >= s.size() || s[pos] != '[') {
    return false;
  }
  std::size_t p = pos + 1;
  out = json::array();
  while (p < s.size() && s[p] == ' ') {
    ++p;
  }
  if (p < s.size() && s[p] == ']') {
    pos = p + 1;
    return true;
  }
  while (true) {
    std::int64_t v = 0;
    if (!parse_int(s, p, v)) {
      return false;
    }
    out.push_back(v);
    while (p < s.size() && s[p] == ' ') {
      ++p;
    }
    if (p < s.size() && s[p] == ']') {
      pos = p + 1;
      return true;
    }
    if (p >= s.size() || s[p] != ',') {
      return false;
    }
    ++p;
    while (p < s.size() && s[p] == ' ') {
      ++p;
    }
  }
}

/// Matches `pieces` against `line` starting with the literal at `start`.
std::optional<TemplateMatch> match_at(const std::vector<TemplatePiece>& pieces, std::string_view line,
                                      std::size_t start)
{
  TemplateMatch c;
  c.begin = start;
  std::size_t pos = start;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const TemplatePiece& p = pieces[k];
    const std::string name(p.name);
    switch (p.type) {
    case Type::literal:
      if (line.substr(pos, p.literal.size()) != p.literal) {
        return std::nullopt;
      }
      pos += p.literal.size();
      break;
    case Type::integer: {
      std::int64_t v = 0;
      if (!parse_int(line, pos, v)) {
        return std::nullopt;
      }
      c.values[name] = v;
      break;
    }
    case Type::list: {
      json list;
      if (!parse_list(line, pos, list)) {
        return std::nullopt;
      }
      c.values[name] = std::move(list);
      break;
    }
    case Type::word:
    case Type::text: {
      const std::string_view* next = k + 1 < pieces.size() ? &pieces[k + 1].literal : nullptr;
      const std::size_t end = next ? line.find(*next, pos) : line.size();
      if (end == std::string_view::npos) {
        return std::nullopt;
      }
      std::string_view value = line.substr(pos, end - pos);
      if (!next) {
        while (!value.empty() && (value.back() == ' ' || value.back() == '\r' || value.back() == '"')) {
          value.remove_suffix(1);
        }
      }
      if (p.type == Type::word && (value.empty() || value.find(' ') != std::string_view::npos)) {
        return std::nullopt;
      }
      c.values[name] = std::string(value);
      pos = end;
      break;
    }
    }
  }
  c.end = pos;
  return c;
}

} // namespace

std::optional<TemplateMatch> find_template(const std::vector<TemplatePiece>& pieces, std::string_view line)
{
  const bool leading_value = pieces.front().type != Type::literal;
  const bool leading_word = pieces.front().type == Type::word;
  const std::string_view first = leading_value ? pieces[1].literal : pieces.front().literal;
  auto belongs = [&](char c) {
    return leading_word ? (c != ' ' && c != '\t' && c != ':' && c != '"' && c != '\'') : (c >= '0' && c <= '9');
  };
  std::size_t at = line.find(first);
  while (at != std::string_view::npos) {
    std::size_t start = at;
    if (leading_value) {
      while (start > 0 && belongs(line[start - 1])) {
        --start;
      }
      if (start == at) {
        at = line.find(first, at + 1);
        continue;
      }
    }
    if (auto c = match_at(pieces, line, start)) {
      return c;
    }
    at = line.find(first, at + 1);
  }
  return std::nullopt;
}

} // namespace pdcheck::check
