#pragma once

// Shared by the libFuzzer targets: how one fuzz input becomes ZMQ frames.

#include "wire/bytes.hpp"

#include <cstddef>
#include <cstdint>

namespace pdcheck::fuzz {

/// Splits a fuzz input into frames: each frame is a little-endian u16 length
/// followed by that many bytes; a length running past the end takes the rest.
/// At most 64 frames, so inputs stay small. make_corpus.py writes seeds this way.
inline wire::Frames split_frames(const std::uint8_t* data, std::size_t size)
{
  wire::Frames frames;
  std::size_t at = 0;
  while (at < size && frames.size() < 64) {
    std::size_t length = data[at];
    if (at + 1 < size) {
      length |= static_cast<std::size_t>(data[at + 1]) << 8;
    }
    at += 2;
    if (at > size) {
      at = size;
    }
    const std::size_t take = length < size - at ? length : size - at;
    frames.emplace_back(data + at, data + at + take);
    at += take;
  }
  return frames;
}

/// Stops the fuzzer with a crash that names the broken invariant.
[[noreturn]] inline void invariant_broken(const char* what)
{
  __builtin_printf("invariant broken: %s\n", what);
  __builtin_trap();
}

} // namespace pdcheck::fuzz
