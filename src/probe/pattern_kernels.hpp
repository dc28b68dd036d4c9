#pragma once

// The inner loops of the probe's byte pattern, kept apart from pattern.cpp's
// geometry so the optimised paths can be tested byte for byte against the one
// scalar definition (`pattern_byte`) that every path follows.
//
// A run of the pattern walks a Weyl sequence: byte i of a run that starts at
// state x0 is pattern_byte(x0 + i * k_pattern_step). The fill and the check
// generate it on the fly (no second buffer to compare against), 32 bytes per
// step with AVX2, 16 with SSE2.

#include <cstdint>

namespace pdcheck::probe {

/// Golden-ratio increment: neighbouring bytes differ in every bit of the state.
inline constexpr std::uint32_t k_pattern_step = 0x9E3779B1u;

/// The pattern byte at Weyl state x. The high bits of a Weyl sequence already
/// look random from byte to byte; two shifts and an xor fold them into a byte
/// without a multiply (SSE2, the x86-64 baseline, has no 32-bit one), and the
/// low bit is forced so that a pattern byte is never the pools' initial zero.
constexpr std::uint8_t pattern_byte(std::uint32_t x)
{
  return static_cast<std::uint8_t>(((x >> 24) ^ (x >> 13)) | 1u);
}

/// Writes n pattern bytes starting at state x0.
void fill_pattern_run(std::uint8_t* p, std::int64_t n, std::uint32_t x0);

/// True when the n bytes at p hold exactly the pattern starting at state x0.
bool pattern_run_matches(const std::uint8_t* p, std::int64_t n, std::uint32_t x0);

/// The widest loop in use: "avx2" (32 bytes a step, where the CPU has it),
/// "sse2" (16) or "scalar".
const char* pattern_kernels_path();

/// For tests: no loop wider than `path` ("scalar", "sse2" or "avx2") from now
/// on, so every path is checked on a machine that has the widest.
void limit_pattern_kernels(const char* path);

/// True when the n bytes at p are all zero.
bool all_zero(const std::uint8_t* p, std::int64_t n);

} // namespace pdcheck::probe
