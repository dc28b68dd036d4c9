#include "probe/pattern_kernels.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
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

// Each loop runs 16 bytes a step where SSE2 is there; the scalar loop after it
// (the definition, pattern_byte) takes the tail, or the whole run without SSE2.

void fill_pattern_run(std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
#if defined(__SSE2__)
  for (Pattern16 gen(x0); i + 16 <= n; i += 16) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p + i), gen.bytes());
    gen.advance();
  }
#endif
  for (; i < n; ++i) {
    p[i] = pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step);
  }
}

bool pattern_run_matches(const std::uint8_t* p, std::int64_t n, std::uint32_t x0)
{
  std::int64_t i = 0;
#if defined(__SSE2__)
  __m128i wide = _mm_setzero_si128();
  for (Pattern16 gen(x0); i + 16 <= n; i += 16) {
    const __m128i got = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    wide = _mm_or_si128(wide, _mm_xor_si128(got, gen.bytes()));
    gen.advance();
  }
  if (!is_zero(wide)) {
    return false;
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
