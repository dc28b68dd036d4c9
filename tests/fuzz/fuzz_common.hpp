#pragma once

// Shared by the libFuzzer targets: how one fuzz input becomes ZMQ frames.

#include "wire/bytes.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

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

/// Writes a fuzz input to a file of this process (the readers under test take
/// paths, as pdcheck's command line gives them) and returns its path. One
/// suffix per target: the path is fixed for the process.
inline std::string input_file(const std::uint8_t* data, std::size_t size, const char* suffix)
{
  static const std::string path = "/tmp/pdcheck-fuzz-" + std::to_string(::getpid()) + suffix;
  // Removed when the fuzzer exits (libFuzzer ends with exit(), which runs this).
  static const struct Remover
  {
    ~Remover() { ::unlink(path.c_str()); }
  } remover;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    invariant_broken("cannot write the fuzz input file");
  }
  if (size > 0 && std::fwrite(data, 1, size, f) != size) {
    invariant_broken("cannot write the fuzz input file");
  }
  std::fclose(f);
  return path;
}

} // namespace pdcheck::fuzz
