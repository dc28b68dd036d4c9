#include "util/word_positions.hpp"

#include <catch2/catch.hpp>

using pdcheck::locate_words;
using pdcheck::TextPosition;

namespace {

std::string at(const std::optional<TextPosition>& p)
{
  return p ? std::to_string(p->line) + ":" + std::to_string(p->column) : "-";
}

std::vector<std::string> places(std::string_view text, const std::vector<std::string>& words, std::size_t begin = 0)
{
  std::vector<std::string> out;
  for (const auto& p : locate_words(text, begin, text.size(), words)) {
    out.push_back(at(p));
  }
  return out;
}

} // namespace

TEST_CASE("locate_words: each flag of a folded YAML scalar on its own line", "[util]")
{
  const std::string text = "role: decode\n"
                           "args: >-\n"
                           "  --tp 4\n"
                           "  --enable-unified-memory\n"
                           "  --page-size 64\n";
  CHECK(places(text, {"--tp", "4", "--enable-unified-memory", "--page-size", "64"}, text.find(">-")) ==
        std::vector<std::string>{"3:3", "3:8", "4:3", "5:3", "5:15"});
}

TEST_CASE("locate_words: a word must stand alone, not inside a longer one", "[util]")
{
  // "4" first occurs inside "--tp-size4x"; the standalone one is on line 2.
  CHECK(places("--tp-size4x a\n  4", {"4"}) == std::vector<std::string>{"2:3"});
  // Quotes bound a word, as the shell split removed them.
  CHECK(places("--json '{\"a\": 1}'", {"--json", "{\"a\": 1}"}) == std::vector<std::string>{"1:1", "1:9"});
}

TEST_CASE("locate_words: after a word the split changed, nothing is guessed", "[util]")
{
  // The backslash escape makes the word "a b", which is not in the text as written.
  CHECK(places("--x a\\ b --tp 2", {"--x", "a b", "--tp", "2"}) == std::vector<std::string>{"1:1", "-", "-", "-"});
  // Words are searched only inside [begin, end).
  const std::string text = "args: --tp\nenv: 4";
  const auto found = locate_words(text, 0, text.find("env"), {"--tp", "4"});
  CHECK(at(found[0]) == "1:7");
  CHECK(at(found[1]) == "-");
}
