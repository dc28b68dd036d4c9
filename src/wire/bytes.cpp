#include "wire/bytes.hpp"

#include <fmt/format.h>

namespace pdcheck::wire {

namespace {

// Python escapes the quote it chose, the backslash, \t \n \r, and every byte
// outside printable ASCII as \xNN; everything else prints as itself.
void append_escaped(std::string& out, unsigned char c, char quote)
{
  if (c == static_cast<unsigned char>(quote) || c == '\\') {
    out += '\\';
    out += static_cast<char>(c);
  } else if (c == '\t') {
    out += "\\t";
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c < 0x20 || c >= 0x7f) {
    out += fmt::format("\\x{:02x}", c);
  } else {
    out += static_cast<char>(c);
  }
}

// Python prefers single quotes and switches to double quotes only when the
// text has a single quote and no double quote.
char choose_quote(std::string_view text)
{
  const bool has_single = text.find('\'') != std::string_view::npos;
  const bool has_double = text.find('"') != std::string_view::npos;
  return (has_single && !has_double) ? '"' : '\'';
}

} // namespace

std::string python_bytes_repr(ByteView bytes, std::size_t max_bytes)
{
  const std::size_t shown = bytes.size() < max_bytes ? bytes.size() : max_bytes;
  const std::string_view as_text(reinterpret_cast<const char*>(bytes.data()), shown);
  const char quote = choose_quote(as_text);
  std::string out = "b";
  out += quote;
  for (std::size_t i = 0; i < shown; ++i) {
    append_escaped(out, bytes[i], quote);
  }
  out += quote;
  if (shown < bytes.size()) {
    out += "...";
  }
  return out;
}

std::string python_str_repr(std::string_view text)
{
  const char quote = choose_quote(text);
  std::string out(1, quote);
  for (char c : text) {
    append_escaped(out, static_cast<unsigned char>(c), quote);
  }
  out += quote;
  return out;
}

std::string hex_u64(std::uint64_t value)
{
  return fmt::format("{:#x}", value);
}

} // namespace pdcheck::wire
