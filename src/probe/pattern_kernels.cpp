#include "probe/pattern_kernels.hpp"

#include <atomic>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#define PDCHECK_PATTERN_AVX2 1
#include <immintrin.h>
#endif

namespace pdcheck::probe {

#if defined(__SSE2__)

namespace {

// Sixteen pattern bytes per step: four 4-lane Weyl states, each lane folded
// to its byte (pattern_byte without the final |1) and masked to 0..255, then
// narrowed 32 -> 16 -> 8 bits with two saturating packs (exact, as every lane
// is already in range), and the low bit set once for all sixteen.
struct Pattern16
{
  __m128i a, b, c, d;

  explicit Pattern16(std::uint32_t x0)
  {
    const __m128i step4 = _mm_set1_epi32(static_cast<int>(4 * k_pattern_step));
    a = _mm_add_epi32(_mm_set1_epi32(static_cast<int>(x0)),
                      _mm_setr_epi32(0, static_cast<int>(k_pattern_step), static_cast<int>(2 * k_pattern_step),
                                     static_cast<int>(3 * k_pattern_step)));
    b = _mm_add_epi32(a, step4);
    c = _mm_add_epi32(b, step4);
    d = _mm_add_epi32(c, step4);
  }

  static __m128i fold(__m128i x)
  {
    return _mm_and_si128(_mm_xor_si128(_mm_srli_epi32(x, 24), _mm_srli_epi32(x, 13)), _mm_set1_epi32(0xFF));
  }

  __m128i bytes() const
  {
    const __m128i lo = _mm_packs_epi32(fold(a), fold(b));
    const __m128i hi = _mm_packs_epi32(fold(c), fold(d));
    return _mm_or_si128(_mm_packus_epi16(lo, hi), _mm_set1_epi8(1));
  }

  void advance()
  {
    const __m128i step16 = _mm_set1_epi32(static_cast<int>(16 * k_pattern_step));
    a = _mm_add_epi32(a, step16);
    b = _mm_add_epi32(b, step16);
    c = _mm_add_epi32(c, step16);
    d = _mm_add_epi32(d, step16);
  }
};

/// True when every byte of v is zero.
bool is_zero(__m128i v)
{
  return _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) == 0xFFFF;
}

} // namespace

#endif

namespace {

#if PDCHECK_PATTERN_AVX2

// Thirty-two pattern bytes per step. AVX2's packs work within each 128-bit
// half, so each register holds the states of four bytes of the low half and
// the four bytes sixteen further on: a = bytes 0-3 and 16-19, b = 4-7 and
// 20-23, ... and the two packs then leave bytes 0-15 and 16-31 in order.
struct Pattern32
{
  __m256i a, b, c, d;

  __attribute__((target("avx2"))) explicit Pattern32(std::uint32_t x0)
  {
    const auto s = [](std::uint32_t k) { return static_cast<int>(k * k_pattern_step); };
    const __m256i base = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(x0)),
                                          _mm256_setr_epi32(s(0), s(1), s(2), s(3), s(16), s(17), s(18), s(19)));
    const __m256i step4 = _mm256_set1_epi32(s(4));
    a = base;
    b = _mm256_add_epi32(a, step4);
    c = _mm256_add_epi32(b, step4);
    d = _mm256_add_epi32(c, step4);
  }

  __attribute__((target("avx2"))) static __m256i fold(__m256i x)
  {
    return _mm256_and_si256(_mm256_xor_si256(_mm256_srli_epi32(x, 24), _mm256_srli_epi32(x, 13)),
                            _mm256_set1_epi32(0xFF));
  }

  __attribute__((target("avx2"))) __m256i bytes() const
  {
    const __m256i lo = _mm256_packs_epi32(fold(a), fold(b));
    const __m256i hi = _mm256_packs_epi32(fold(c), fold(d));
    return _mm256_or_si256(_mm256_packus_epi16(lo, hi), _mm256_set1_epi8(1));
  }

  __attribute__((target("avx2"))) void advance()
  {
    const __m256i step32 = _mm256_set1_epi32(static_cast<int>(32 * k_pattern_step));
    a = _mm256_add_epi32(a, step32);
    b = _mm256_add_epi32(b, step32);
    c = _mm256_add_epi32(c, step32);
    d = _mm256_add_epi32(d, step32);
  }
};

/// The bytes filled: a multiple of 32, the rest left to the narrower loops.
__attribute__((target("avx2"))) std::int64_t fill_avx2(std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
  for (Pattern32 gen(x0); i + 32 <= n; i += 32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p + i), gen.bytes());
    gen.advance();
  }
  return i;
}

/// The bytes checked (a multiple of 32), or -1 when one of them differs.
__attribute__((target("avx2"))) std::int64_t matches_avx2(const std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
  __m256i wide = _mm256_setzero_si256();
  for (Pattern32 gen(x0); i + 32 <= n; i += 32) {
    const __m256i got = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    wide = _mm256_or_si256(wide, _mm256_xor_si256(got, gen.bytes()));
    gen.advance();
  }
  return _mm256_testz_si256(wide, wide) ? i : -1;
}

#endif

/// The widest path allowed (tests narrow it): 2 AVX2, 1 SSE2, 0 scalar.
std::atomic<int> g_widest{2};

bool use_avx2()
{
#if PDCHECK_PATTERN_AVX2
  static const bool has = __builtin_cpu_supports("avx2") != 0;
  return has && g_widest.load(std::memory_order_relaxed) >= 2;
#else
  return false;
#endif
}

bool use_sse2()
{
#if defined(__SSE2__)
  return g_widest.load(std::memory_order_relaxed) >= 1;
#else
  return false;
#endif
}

} // namespace

const char* pattern_kernels_path()
{
  return use_avx2() ? "avx2" : use_sse2() ? "sse2" : "scalar";
}

void limit_pattern_kernels(const char* path)
{
  const std::string_view p = path;
  g_widest.store(p == "scalar" ? 0 : p == "sse2" ? 1 : 2, std::memory_order_relaxed);
}

// Each loop runs 32 bytes a step with AVX2, then 16 with SSE2; the scalar
// loop after them (the definition, pattern_byte) takes the tail, or the whole
// run where neither is there.

void fill_pattern_run(std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
#if PDCHECK_PATTERN_AVX2
  if (use_avx2()) {
    i = fill_avx2(p, n, x0);
  }
#endif
#if defined(__SSE2__)
  if (use_sse2()) {
    for (Pattern16 gen(x0 + static_cast<std::uint32_t>(i) * k_pattern_step); i + 16 <= n; i += 16) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i), gen.bytes());
      gen.advance();
    }
  }
#endif
  for (; i < n; ++i) {
    p[i] = pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step);
  }
}

bool pattern_run_matches(const std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
#if PDCHECK_PATTERN_AVX2
  if (use_avx2()) {
    i = matches_avx2(p, n, x0);
    if (i < 0) {
      return false;
    }
  }
#endif
#if defined(__SSE2__)
  if (use_sse2()) {
    __m128i wide = _mm_setzero_si128();
    for (Pattern16 gen(x0 + static_cast<std::uint32_t>(i) * k_pattern_step); i + 16 <= n; i += 16) {
      const __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
      wide = _mm_or_si128(wide, _mm_xor_si128(got, gen.bytes()));
      gen.advance();
    }
    if (!is_zero(wide)) {
      return false;
    }
  }
#endif
  std::uint8_t diff = 0;
  for (; i < n; ++i) {
    diff |= static_cast<std::uint8_t>(p[i] ^ pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step));
  }
  return diff == 0;
}

bool all_zero(const std::uint8_t* p, std::int64_t n)
{
  std::int64_t i = 0;
#if defined(__SSE2__)
  __m128i wide = _mm_setzero_si128();
  for (; i + 16 <= n; i += 16) {
    wide = _mm_or_si128(wide, _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)));
  }
  if (!is_zero(wide)) {
    return false;
  }
#endif
  std::uint8_t any = 0;
  for (; i < n; ++i) {
    any |= p[i];
  }
  return any == 0;
}

} // namespace pdcheck::probe
