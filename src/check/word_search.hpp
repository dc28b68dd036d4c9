#pragma once
// Finding the first of a fixed set of words in a large text: the filter that
// lets `explain` skip the ordinary lines of a server log at several GB/s.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pdcheck::check {

/// A set of up to a few dozen words, each at least 4 bytes long, searched for
/// all at once. Every position is first tested against a fingerprint of the
/// words' first four bytes (two 16-entry nibble tables per byte, one bit per
/// bucket of words, as in Hyperscan's "Teddy"), 32 positions per AVX2 step or
/// sixteen per SSSE3 step where the CPU has them; only positions that pass are
/// compared with the words of the buckets that matched.
class WordSearch
{
public:
  static constexpr std::size_t k_min_word = 4;
  static constexpr std::size_t k_buckets = 8;

  /// Words shorter than k_min_word are a programming error (std::invalid_argument).
  /// The words are viewed, not copied: their text must outlive the search.
  explicit WordSearch(std::vector<std::string_view> words);

  /// The first position at or after `from` where one of the words starts and
  /// ends inside `text`; text.size() when there is none.
  std::size_t find(std::string_view text, std::size_t from) const;

  /// The same answer, one position and one word at a time: what `find` is
  /// tested against.
  std::size_t find_simply(std::string_view text, std::size_t from) const;

  /// The widest path this CPU runs: "avx2", "ssse3" or "portable".
  const char* path() const { return m_avx2 ? "avx2" : m_ssse3 ? "ssse3" : "portable"; }

  /// For tests: the paths wider than `path` off ("ssse3" or "portable").
  void limit_to(std::string_view path)
  {
    m_avx2 = false;
    m_ssse3 = m_ssse3 && path == "ssse3";
  }

private:
  std::size_t find_portable(const char* data, std::size_t n, std::size_t from) const;
  std::size_t find_ssse3(const char* data, std::size_t n, std::size_t from) const;
  std::size_t find_avx2(const char* data, std::size_t n, std::size_t from) const;
  bool word_at(const char* data, std::size_t n, std::size_t pos, unsigned buckets) const;
  /// The first flagged lane (bit i of `lanes`: position pos + i, its buckets
  /// in per_lane[i]) where a word starts.
  std::optional<std::size_t> word_in_lanes(const char* data, std::size_t n, std::size_t pos, unsigned lanes,
                                           const std::uint8_t* per_lane) const;

  std::vector<std::string_view> m_words;
  std::array<std::vector<std::string_view>, k_buckets> m_bucket_words;
  // Per fingerprint byte j: bit b of low[j][x] is set when some word of bucket
  // b has a byte j whose low nibble is x; high[j] likewise for the high nibble.
  alignas(16) std::array<std::array<std::uint8_t, 16>, k_min_word> m_low{};
  alignas(16) std::array<std::array<std::uint8_t, 16>, k_min_word> m_high{};
  bool m_ssse3 = false;
  bool m_avx2 = false;
};

} // namespace pdcheck::check
