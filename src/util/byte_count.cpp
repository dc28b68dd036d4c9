#include "util/byte_count.hpp"

#include <algorithm>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace pdcheck::util {

std::size_t count_byte(std::string_view text, char byte)
{
  const char* p = text.data();
  std::size_t n = text.size();
  std::size_t total = 0;
#if defined(__SSE2__)
  // Each equal byte compares to 0xFF (-1): subtracting the comparison counts
  // it in one of sixteen byte lanes, which are summed (psadbw) before any of
  // them can pass 255.
  const __m128i wanted = _mm_set1_epi8(byte);
  while (n >= 16) {
    const std::size_t steps = std::min<std::size_t>(n / 16, 255);
    __m128i lanes = _mm_setzero_si128();
    for (std::size_t s = 0; s < steps; ++s, p += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(x, wanted));
    }
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    total += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
             static_cast<std::size_t>(_mm_cvtsi128_si32(_mm_srli_si128(sums, 8)));
    n -= steps * 16;
  }
#endif
  return total + static_cast<std::size_t>(std::count(p, p + n, byte));
}

} // namespace pdcheck::util
