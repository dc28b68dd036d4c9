#include "util/untrusted_text.hpp"

#include <fmt/format.h>

namespace pdcheck {

namespace {

/// Length of the well-formed UTF-8 sequence at `s[i]` (1..4), or 0 when the
/// bytes there are not one (stray continuation byte, overlong form, surrogate,
/// truncated sequence, beyond U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i)
{
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t n = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    lo = b0 == 0xE0 ? 0xA0 : 0x80; // no overlong forms
    hi = b0 == 0xED ? 0x9F : 0xBF; // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    lo = b0 == 0xF0 ? 0x90 : 0x80;
    hi = b0 == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) {
    return 0;
  }
  if (byte(i + 1) < lo || byte(i + 1) > hi) {
    return 0;
  }
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) {
      return 0;
    }
  }
  return n;
}

} // namespace

std::string printable_untrusted(std::string_view text, std::size_t max_bytes)
{
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence_length(text, i);
    const std::size_t taken = n == 0 ? 1 : n;
    if (i + taken > max_bytes) {
      break;
    }
    const auto b0 = static_cast<unsigned char>(text[i]);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", b0);
    } else if (n == 1 && (b0 < 0x20 || b0 == 0x7F)) {
      switch (b0) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += fmt::format("\\x{:02x}", b0);
      }
    } else if (n == 2 && b0 == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      // C1 controls: some terminals take U+009B as CSI, the start of an escape sequence.
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[i + 1]));
    } else {
      out.append(text.substr(i, n));
    }
    i += taken;
  }
  if (i < text.size()) {
    const std::size_t rest = text.size() - i;
    out += fmt::format("… ({} {} more)", rest, rest == 1 ? "byte" : "bytes");
  }
  return out;
}

} // namespace pdcheck
