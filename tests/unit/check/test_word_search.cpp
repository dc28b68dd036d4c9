// The multi-word search under `explain`: the AVX2, SSSE3 and portable paths
// give the same first position as the one-word-at-a-time search, on random
// texts with words planted anywhere (at the edges of the 16-byte steps, cut
// off by the end of the text, overlapping one another), and on hand cases.
#include "check/word_search.hpp"

#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <string>

using pdcheck::check::WordSearch;

namespace {

const std::vector<std::string_view> k_words = {"Error", "error", "ERROR",    "failed", "must",     "Mamba",
                                               "mamba", "does not", "differ", "NIXL_ERR", "Traceback"};

/// Text whose bytes come from `alphabet`, with words planted at random places.
std::string random_text(std::mt19937& rng, std::size_t size, std::string_view alphabet, int plants)
{
  std::string text(size, ' ');
  std::uniform_int_distribution<std::size_t> letter(0, alphabet.size() - 1);
  for (char& c : text) {
    c = alphabet[letter(rng)];
  }
  std::uniform_int_distribution<std::size_t> word(0, k_words.size() - 1);
  for (int p = 0; p < plants && size > 0; ++p) {
    const std::string_view w = k_words[word(rng)];
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, size - 1)(rng);
    text.replace(at, std::min(w.size(), size - at), w.substr(0, std::min(w.size(), size - at)));
  }
  return text;
}

} // namespace

TEST_CASE("word search: hand cases", "[explain][word_search]")
{
  const WordSearch search(k_words);
  CHECK(search.find("", 0) == 0);
  CHECK(search.find("mus", 0) == 3);                         // too short for any word
  CHECK(search.find("must", 0) == 0);
  CHECK(search.find("xxmust", 0) == 2);
  CHECK(search.find("xxmust", 3) == 6);                      // from past the word's start
  CHECK(search.find("the transfer faile", 0) == 18);          // cut off by the end
  // Position 17 is the last start of the first 16-byte step: "Error" there
  // spans into the next step's bytes.
  CHECK(search.find(std::string(17, '.') + "Error" + std::string(40, '.'), 0) == 17);
  CHECK(search.find(std::string(16, '.') + "Error" + std::string(40, '.'), 0) == 16);
  CHECK(search.find(std::string(100, 'a') + "NIXL_ER", 0) == 107);
  CHECK(search.find(std::string(100, 'a') + "NIXL_ERR", 0) == 100);
  // Case counts: only the words as given.
  CHECK(search.find("MUST EeRrOr Mamba", 0) == 12);
  CHECK_THROWS_AS(WordSearch({"abc"}), std::invalid_argument);
}

TEST_CASE("word search: every path this CPU has agrees with the simple search", "[explain][word_search]")
{
  WordSearch fast(k_words); // the widest path this CPU has
  WordSearch ssse3(k_words);
  ssse3.limit_to("ssse3");
  WordSearch portable(k_words);
  portable.limit_to("portable");
  std::mt19937 rng(20261204);
  // Letters the words are made of, so that most positions pass some of the
  // fingerprint and reach the comparison; and plain log bytes.
  const std::string_view alphabets[] = {"EeRrOofailedmustMbNIXL_ 	", "abcdefghijklmnopqrstuvwxyz0123456789 .:#[]-\n"};
  for (int round = 0; round < 3000; ++round) {
    const std::size_t size = std::uniform_int_distribution<std::size_t>(0, 300)(rng);
    const std::string text = random_text(rng, size, alphabets[round % 2], round % 4);
    std::size_t from = std::uniform_int_distribution<std::size_t>(0, size + 2)(rng);
    // Walk through every occurrence, as the scanner does.
    for (int step = 0; step < 50; ++step) {
      const std::size_t expected = fast.find_simply(text, from);
      INFO("text '" << text << "' from " << from);
      REQUIRE(fast.find(text, from) == expected);
      REQUIRE(ssse3.find(text, from) == expected);
      REQUIRE(portable.find(text, from) == expected);
      if (expected >= text.size()) {
        break;
      }
      from = expected + 1;
    }
  }
}
