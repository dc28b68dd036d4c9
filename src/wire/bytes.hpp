#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::wire {

/// One ZMQ frame: raw bytes exactly as they travel.
using Bytes = std::vector<std::uint8_t>;
/// A read-only view of frame bytes; decoders never copy more than they return.
using ByteView = std::span<const std::uint8_t>;
/// One ZMQ multipart message, frame 0 first (a guard frame included, as on the wire).
using Frames = std::vector<Bytes>;

/// Lists of lists as SGLang keeps them per state component: one inner list per component.
using U64Lists = std::vector<std::vector<std::uint64_t>>;
/// Signed 32-bit index lists (per-request `state_indices`, format 'i').
using I32Lists = std::vector<std::vector<std::int32_t>>;

/// The bytes of a string, unchanged (ZMQ frames built from ASCII text).
inline Bytes to_bytes(std::string_view text)
{
  return Bytes(text.begin(), text.end());
}

/// The bytes as a std::string, unchanged (callers check ASCII first when it matters).
inline std::string to_string(ByteView bytes)
{
  return std::string(bytes.begin(), bytes.end());
}

/// Whether the bytes spell `text` exactly (no string built to compare).
inline bool bytes_equal(ByteView bytes, std::string_view text)
{
  return bytes.size() == text.size() && std::equal(bytes.begin(), bytes.end(), text.begin(),
                                                   [](std::uint8_t b, char c) { return b == static_cast<std::uint8_t>(c); });
}

/// Little-endian reads; the caller has checked that `at + width <= bytes.size()`.
inline std::uint32_t read_le32(ByteView bytes, std::size_t at)
{
  return static_cast<std::uint32_t>(bytes[at]) | (static_cast<std::uint32_t>(bytes[at + 1]) << 8) |
         (static_cast<std::uint32_t>(bytes[at + 2]) << 16) | (static_cast<std::uint32_t>(bytes[at + 3]) << 24);
}

inline std::uint64_t read_le64(ByteView bytes, std::size_t at)
{
  return static_cast<std::uint64_t>(read_le32(bytes, at)) | (static_cast<std::uint64_t>(read_le32(bytes, at + 4)) << 32);
}

inline void append_le32(Bytes& out, std::uint32_t value)
{
  for (int i = 0; i < 4; ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

inline void append_le64(Bytes& out, std::uint64_t value)
{
  for (int i = 0; i < 8; ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

/// Python's repr of a `bytes` object (b'None', b'\x01\x00'), cut to `max_bytes`
/// bytes with "..." after, for error messages that show what was found.
std::string python_bytes_repr(ByteView bytes, std::size_t max_bytes = 24);

/// Python's repr of an ASCII `str` ('12', "it's"), as `ValueError` messages show it.
std::string python_str_repr(std::string_view text);

/// "0x7f0000000000".
std::string hex_u64(std::uint64_t value);

} // namespace pdcheck::wire
