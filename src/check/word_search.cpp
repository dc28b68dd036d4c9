#include "check/word_search.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#if defined(__x86_64__) || defined(__i386__)
#define PDCHECK_WORD_SEARCH_SSSE3 1
#include <immintrin.h>
#endif

namespace pdcheck::check {

WordSearch::WordSearch(std::vector<std::string_view> words) : m_words(std::move(words))
{
  for (std::string_view w : m_words) {
    if (w.size() < k_min_word) {
      throw std::invalid_argument("WordSearch: a word shorter than 4 bytes");
    }
  }
  // Words next to each other in sorted order share their first bytes, so
  // giving each bucket a run of them keeps its nibble sets (and so the
  // positions that pass for nothing) small.
  std::vector<std::string_view> sorted = m_words;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t per_bucket = (sorted.size() + k_buckets - 1) / k_buckets;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const std::size_t b = i / std::max<std::size_t>(per_bucket, 1);
    m_bucket_words[b].push_back(sorted[i]);
    for (std::size_t j = 0; j < k_min_word; ++j) {
      const auto byte = static_cast<unsigned char>(sorted[i][j]);
      m_low[j][byte & 15u] |= static_cast<std::uint8_t>(1u << b);
      m_high[j][byte >> 4] |= static_cast<std::uint8_t>(1u << b);
    }
  }
#if PDCHECK_WORD_SEARCH_SSSE3
  m_ssse3 = __builtin_cpu_supports("ssse3") != 0;
  m_avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
}

bool WordSearch::word_at(const char* data, std::size_t n, std::size_t pos, unsigned buckets) const
{
  for (; buckets != 0; buckets &= buckets - 1) {
    for (std::string_view w : m_bucket_words[static_cast<std::size_t>(__builtin_ctz(buckets))]) {
      if (w.size() <= n - pos && std::memcmp(data + pos, w.data(), w.size()) == 0) {
        return true;
      }
    }
  }
  return false;
}

std::optional<std::size_t> WordSearch::word_in_lanes(const char* data, std::size_t n, std::size_t pos,
                                                      unsigned lanes, const std::uint8_t* per_lane) const
{
  for (; lanes != 0; lanes &= lanes - 1) {
    const auto lane = static_cast<std::size_t>(__builtin_ctz(lanes));
    if (word_at(data, n, pos + lane, per_lane[lane])) {
      return pos + lane;
    }
  }
  return std::nullopt;
}

std::size_t WordSearch::find(std::string_view text, std::size_t from) const
{
  return m_avx2    ? find_avx2(text.data(), text.size(), from)
         : m_ssse3 ? find_ssse3(text.data(), text.size(), from)
                   : find_portable(text.data(), text.size(), from);
}

std::size_t WordSearch::find_simply(std::string_view text, std::size_t from) const
{
  for (std::size_t pos = from; pos < text.size(); ++pos) {
    for (std::string_view w : m_words) {
      if (text.substr(pos, w.size()) == w) {
        return pos;
      }
    }
  }
  return text.size();
}

std::size_t WordSearch::find_portable(const char* data, std::size_t n, std::size_t from) const
{
  for (std::size_t pos = from; pos + k_min_word <= n; ++pos) {
    unsigned buckets = 0xFF;
    for (std::size_t j = 0; j < k_min_word && buckets != 0; ++j) {
      const auto byte = static_cast<unsigned char>(data[pos + j]);
      buckets &= m_low[j][byte & 15u] & m_high[j][byte >> 4];
    }
    if (buckets != 0 && word_at(data, n, pos, buckets)) {
      return pos;
    }
  }
  return n;
}

#if PDCHECK_WORD_SEARCH_SSSE3

__attribute__((target("ssse3"))) std::size_t WordSearch::find_ssse3(const char* data, std::size_t n,
                                                                    std::size_t from) const
{
  const __m128i nibble = _mm_set1_epi8(0x0F);
  __m128i low[k_min_word];
  __m128i high[k_min_word];
  for (std::size_t j = 0; j < k_min_word; ++j) {
    low[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(m_low[j].data()));
    high[j] = _mm_load_si128(reinterpret_cast<const __m128i*>(m_high[j].data()));
  }
  std::size_t pos = from;
  // Sixteen start positions a step; the loads reach 3 bytes past them.
  while (pos + 16 + k_min_word - 1 <= n) {
    __m128i buckets = _mm_set1_epi8(static_cast<char>(0xFF));
    for (std::size_t j = 0; j < k_min_word; ++j) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + pos + j));
      const __m128i lo = _mm_and_si128(x, nibble);
      const __m128i hi = _mm_and_si128(_mm_srli_epi16(x, 4), nibble);
      buckets = _mm_and_si128(buckets, _mm_and_si128(_mm_shuffle_epi8(low[j], lo), _mm_shuffle_epi8(high[j], hi)));
    }
    const auto lanes = static_cast<unsigned>(~_mm_movemask_epi8(_mm_cmpeq_epi8(buckets, _mm_setzero_si128())) & 0xFFFF);
    if (lanes != 0) {
      alignas(16) std::uint8_t per_lane[16];
      _mm_store_si128(reinterpret_cast<__m128i*>(per_lane), buckets);
      if (const auto at = word_in_lanes(data, n, pos, lanes, per_lane)) {
        return *at;
      }
    }
    pos += 16;
  }
  return find_portable(data, n, pos);
}

// The same step over 32 positions: the tables are repeated in both 128-bit
// halves, as vpshufb looks up within each half.
__attribute__((target("avx2"))) std::size_t WordSearch::find_avx2(const char* data, std::size_t n,
                                                                  std::size_t from) const
{
  const __m256i nibble = _mm256_set1_epi8(0x0F);
  __m256i low[k_min_word];
  __m256i high[k_min_word];
  for (std::size_t j = 0; j < k_min_word; ++j) {
    low[j] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(m_low[j].data())));
    high[j] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(m_high[j].data())));
  }
  std::size_t pos = from;
  while (pos + 32 + k_min_word - 1 <= n) {
    __m256i buckets = _mm256_set1_epi8(static_cast<char>(0xFF));
    for (std::size_t j = 0; j < k_min_word; ++j) {
      const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + pos + j));
      const __m256i lo = _mm256_and_si256(x, nibble);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble);
      buckets = _mm256_and_si256(buckets,
                                 _mm256_and_si256(_mm256_shuffle_epi8(low[j], lo), _mm256_shuffle_epi8(high[j], hi)));
    }
    const auto lanes = ~static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(buckets, _mm256_setzero_si256())));
    if (lanes != 0) {
      alignas(32) std::uint8_t per_lane[32];
      _mm256_store_si256(reinterpret_cast<__m256i*>(per_lane), buckets);
      if (const auto at = word_in_lanes(data, n, pos, lanes, per_lane)) {
        return *at;
      }
    }
    pos += 32;
  }
  return find_ssse3(data, n, pos);
}

#else

std::size_t WordSearch::find_ssse3(const char* data, std::size_t n, std::size_t from) const
{
  return find_portable(data, n, from);
}

std::size_t WordSearch::find_avx2(const char* data, std::size_t n, std::size_t from) const
{
  return find_portable(data, n, from);
}

#endif

} // namespace pdcheck::check
