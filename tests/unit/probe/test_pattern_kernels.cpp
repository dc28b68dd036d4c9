// The optimised pattern loops (32 bytes per step with AVX2, 16 with SSE2)
// against the one scalar definition, pattern_byte, over random starts,
// lengths and corruptions: each path in turn, down to the scalar one.

#include "probe/pattern_kernels.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <vector>

using namespace pdcheck::probe;

TEST_CASE("probe::pattern_byte: the pattern both ends agree on, worked by hand", "[probe]")
{
  // x = 0: (0 >> 24) ^ (0 >> 13) = 0, | 1 = 0x01.
  CHECK(pattern_byte(0) == 0x01);
  // x = 0x9E3779B1: x >> 24 = 0x9E; x >> 13 = 0x4F1BB, low byte 0xBB;
  // 0x9E ^ 0xBB = 0x25, already odd.
  CHECK(pattern_byte(k_pattern_step) == 0x25);
  // x = 0xFFFFFFFF: 0xFF ^ 0x7FFFF -> low byte 0xFF ^ 0xFF = 0x00, | 1 = 0x01.
  CHECK(pattern_byte(0xFFFFFFFFu) == 0x01);
}

TEST_CASE("probe::fill_pattern_run and pattern_run_matches follow pattern_byte byte for byte", "[probe]")
{
  // Every path this machine has, narrowest last; the widest again at the end.
  struct Widest
  {
    ~Widest() { limit_pattern_kernels("avx2"); }
  } restore;
  const char* path = GENERATE("avx2", "sse2", "scalar");
  limit_pattern_kernels(path);
  INFO("path " << pattern_kernels_path() << " (at most " << path << ")");
  std::mt19937_64 rng(20261203);
  std::uniform_int_distribution<std::uint32_t> any_state;
  std::vector<std::int64_t> lengths = {0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 4096, 65537};
  for (int i = 0; i < 40; ++i) {
    lengths.push_back(std::uniform_int_distribution<std::int64_t>(0, 3000)(rng));
  }
  for (const std::int64_t n : lengths) {
    const std::uint32_t x0 = any_state(rng);
    // One guard byte either side: the fill writes exactly n bytes.
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(n) + 2, 0xEE);
    std::uint8_t* run = buf.data() + 1;
    fill_pattern_run(run, n, x0);
    INFO("n = " << n << ", x0 = " << x0);
    CHECK(buf.front() == 0xEE);
    CHECK(buf.back() == 0xEE);
    std::int64_t differing = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      differing += run[i] != pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step);
    }
    CHECK(differing == 0);
    CHECK(pattern_run_matches(run, n, x0));
    CHECK(!all_zero(run, n) == (n > 0));
    if (n == 0) {
      continue;
    }
    // Any one changed byte, in the 32- or 16-byte body or the tail, is caught.
    for (int k = 0; k < 8; ++k) {
      const auto at = std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng);
      const auto flip = static_cast<std::uint8_t>(std::uniform_int_distribution<int>(1, 255)(rng));
      run[at] ^= flip;
      CHECK_FALSE(pattern_run_matches(run, n, x0));
      run[at] ^= flip;
    }
    // Checked from a start 2 << 24 further on, every byte differs: x >> 24
    // gains 2 (bit 1 always flips, which the |1 cannot hide) while the low
    // byte of x >> 13 stays the same.
    CHECK_FALSE(pattern_run_matches(run, n, x0 + (2u << 24)));
  }
}

TEST_CASE("probe::all_zero sees one non-zero byte anywhere", "[probe]")
{
  std::mt19937_64 rng(7);
  for (const std::int64_t n : {1, 15, 16, 17, 100, 4099}) {
    std::vector<std::uint8_t> buf(static_cast<std::size_t>(n), 0);
    CHECK(all_zero(buf.data(), n));
    for (int k = 0; k < 6; ++k) {
      const auto at = static_cast<std::size_t>(std::uniform_int_distribution<std::int64_t>(0, n - 1)(rng));
      buf[at] = 0x80;
      CHECK_FALSE(all_zero(buf.data(), n));
      buf[at] = 0;
    }
  }
}
