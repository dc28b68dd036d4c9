#include "core/version.hpp"

#include <cctype>
#include <charconv>
#include <tuple>

namespace pdcheck {

namespace {

bool read_number(std::string_view& text, long& value)
{
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || ptr == first) {
    return false;
  }
  text.remove_prefix(static_cast<std::size_t>(ptr - first));
  return true;
}

bool read_tagged(std::string_view& text, std::string_view tag, long& value)
{
  std::string_view rest = text;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
  }
  if (rest.substr(0, tag.size()) != tag) {
    return false;
  }
  rest.remove_prefix(tag.size());
  if (!read_number(rest, value)) {
    return false;
  }
  text = rest;
  return true;
}

} // namespace

std::optional<Version> parse_version(std::string_view text)
{
  Version v;
  for (std::size_t i = 0; i < 3; ++i) {
    if (i > 0) {
      if (text.empty() || text.front() != '.') {
        return std::nullopt;
      }
      text.remove_prefix(1);
    }
    if (!read_number(text, v.release[i])) {
      return std::nullopt;
    }
  }
  read_tagged(text, "post", v.post);
  read_tagged(text, "rc", v.rc);
  read_tagged(text, "dev", v.dev);
  if (!text.empty()) {
    return std::nullopt;
  }
  return v;
}

std::string normalise_version(std::string_view text)
{
  std::string s;
  for (char c : text) {
    s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!s.empty() && s[0] == 'v' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))) {
    s.erase(0, 1);
  }
  return s;
}

bool release_before(const Version& a, const Version& b)
{
  return std::tie(a.release, a.post) < std::tie(b.release, b.post);
}

bool same_release(const Version& a, const Version& b)
{
  return a.release == b.release && a.post == b.post;
}

} // namespace pdcheck
