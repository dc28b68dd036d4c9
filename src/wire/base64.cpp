#include "wire/base64.hpp"

#include <fmt/format.h>

namespace pdcheck::wire {

namespace {

constexpr std::string_view k_alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int base64_value(char c)
{
  if (c >= 'A' && c <= 'Z') {
    return c - 'A';
  }
  if (c >= 'a' && c <= 'z') {
    return c - 'a' + 26;
  }
  if (c >= '0' && c <= '9') {
    return c - '0' + 52;
  }
  if (c == '+') {
    return 62;
  }
  if (c == '/') {
    return 63;
  }
  return -1;
}

int hex_value(char c)
{
  if (c >= '0' && c <= '9') {
    return c - '0';
  }
  if (c >= 'a' && c <= 'f') {
    return c - 'a' + 10;
  }
  if (c >= 'A' && c <= 'F') {
    return c - 'A' + 10;
  }
  return -1;
}

// How a character is shown in messages: printable ASCII quoted, others as code.
std::string show_char(char c)
{
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) {
    return fmt::format("'{}'", c);
  }
  return fmt::format("the byte {:#04x}", u);
}

bool fail(WireIssue* issue, std::size_t offset, std::string what)
{
  if (issue != nullptr) {
    *issue = WireIssue{offset, std::move(what)};
  }
  return false;
}

} // namespace

std::string base64_encode(ByteView bytes)
{
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (static_cast<std::uint32_t>(bytes[i]) << 16) |
                            (static_cast<std::uint32_t>(bytes[i + 1]) << 8) | bytes[i + 2];
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += k_alphabet[(v >> 6) & 63];
    out += k_alphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const std::uint32_t v = static_cast<std::uint32_t>(bytes[i]) << 16;
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    const std::uint32_t v = (static_cast<std::uint32_t>(bytes[i]) << 16) | (static_cast<std::uint32_t>(bytes[i + 1]) << 8);
    out += k_alphabet[(v >> 18) & 63];
    out += k_alphabet[(v >> 12) & 63];
    out += k_alphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<Bytes> base64_decode(std::string_view text, WireIssue* issue)
{
  // Characters are checked before the length, so a stray character is named
  // even when it also breaks the length.
  std::size_t padding = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '=') {
      ++padding;
      continue;
    }
    if (base64_value(c) < 0) {
      fail(issue, i,
           fmt::format("expected a base64 character (A-Z, a-z, 0-9, '+', '/') or '=' padding, got {}", show_char(c)));
      return std::nullopt;
    }
    if (padding > 0) {
      fail(issue, i - padding, "expected '=' padding only at the end of the base64 text");
      return std::nullopt;
    }
  }
  if (text.size() % 4 != 0) {
    fail(issue, text.size(),
         fmt::format("expected base64 text whose length is a multiple of 4, got {} characters (missing '=' padding?)",
                     text.size()));
    return std::nullopt;
  }
  if (padding > 2) {
    fail(issue, text.size() - padding, fmt::format("expected at most 2 '=' padding characters, got {}", padding));
    return std::nullopt;
  }

  Bytes out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    std::uint32_t v = 0;
    int real = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      v <<= 6;
      if (c != '=') {
        v |= static_cast<std::uint32_t>(base64_value(c));
        ++real;
      }
    }
    out.push_back(static_cast<std::uint8_t>(v >> 16));
    if (real >= 3) {
      out.push_back(static_cast<std::uint8_t>(v >> 8));
    }
    if (real == 4) {
      out.push_back(static_cast<std::uint8_t>(v));
    }
    // Unused low bits of the last character must be zero, or two texts decode
    // to the same bytes and the capture is not what an encoder wrote.
    if ((real == 2 && (v & 0xffff) != 0) || (real == 3 && (v & 0xff) != 0)) {
      fail(issue, i + static_cast<std::size_t>(real) - 1,
           "expected the unused bits of the last base64 character to be zero (non-canonical base64)");
      return std::nullopt;
    }
  }
  return out;
}

std::string hex_encode(ByteView bytes)
{
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) {
    out += fmt::format("{:02x}", b);
  }
  return out;
}

std::optional<Bytes> hex_decode(std::string_view text, WireIssue* issue)
{
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (hex_value(text[i]) < 0) {
      fail(issue, i, fmt::format("expected a hex digit (0-9, a-f), got {}", show_char(text[i])));
      return std::nullopt;
    }
  }
  if (text.size() % 2 != 0) {
    fail(issue, text.size(), fmt::format("expected an even number of hex digits, got {}", text.size()));
    return std::nullopt;
  }
  Bytes out;
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(hex_value(text[i]) * 16 + hex_value(text[i + 1])));
  }
  return out;
}

} // namespace pdcheck::wire
