#include "util/json_limits.hpp"
#include "util/untrusted_text.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace pdcheck;

TEST_CASE("util::printable_untrusted: control characters are escaped, text is kept", "[util]")
{
  CHECK(printable_untrusted("layouts differ (rank 0)") == "layouts differ (rank 0)");
  CHECK(printable_untrusted("a\nb\rc\td") == "a\\nb\\rc\\td");
  // ESC [ 2 J clears a terminal; BEL, NUL and DEL are escaped the same way.
  CHECK(printable_untrusted("\x1b[2J\x07") == "\\x1b[2J\\x07");
  CHECK(printable_untrusted(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(printable_untrusted("x\x7fy") == "x\\x7fy");
  // U+009B (CSI in C1) arrives as the UTF-8 bytes C2 9B.
  CHECK(printable_untrusted("x\xc2\x9by") == "x\\u009by");
  // Printable UTF-8 passes: é, €, 😀.
  CHECK(printable_untrusted("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST_CASE("util::printable_untrusted: bytes that are not UTF-8 are escaped one by one", "[util]")
{
  CHECK(printable_untrusted("a\xff" "b") == "a\\xffb");
  CHECK(printable_untrusted("\xc3") == "\\xc3");                  // truncated sequence
  CHECK(printable_untrusted("\xc0\xaf") == "\\xc0\\xaf");         // overlong '/'
  CHECK(printable_untrusted("\xed\xa0\x80") == "\\xed\\xa0\\x80"); // UTF-16 surrogate
}

TEST_CASE("util::printable_untrusted: long text is cut at a character boundary with the rest counted", "[util]")
{
  CHECK(printable_untrusted(std::string(512, 'x')) == std::string(512, 'x'));
  CHECK(printable_untrusted(std::string(513, 'x')) == std::string(512, 'x') + "… (1 byte more)");
  CHECK(printable_untrusted(std::string(10'000'000, 'x')) == std::string(512, 'x') + "… (9999488 bytes more)");
  // The limit counts the bytes received, not the escaped text: 3 bytes of
  // "\x1b" read as 12 characters, and a 2-byte "é" that would cross the limit
  // is left out whole.
  CHECK(printable_untrusted("\x1b\x1b\x1bzz", 4) == "\\x1b\\x1b\\x1bz… (1 byte more)");
  CHECK(printable_untrusted("ab\xc3\xa9", 3) == "ab… (2 bytes more)");
}

TEST_CASE("util::json_shape: finds the bracket that opens one level too many", "[util]")
{
  CHECK_FALSE(json_shape(R"({"a": [1, {"b": [2]}]})", 4).too_deep_at);
  CHECK(json_shape(R"({"a": [1, {"b": [2]}]})", 3).too_deep_at == std::size_t{16});
  CHECK(json_shape(R"({"a": [1, {"b": [2]}]})", 2).too_deep_at == std::size_t{10});
  // Brackets inside strings, escaped quotes included, are text.
  CHECK_FALSE(json_shape(R"(["[[[[", "\"[[[["])", 1).too_deep_at);
  CHECK(json_shape(std::string(65, '['), k_max_json_depth).too_deep_at == std::size_t{64});
  CHECK_FALSE(json_shape(std::string(64, '[') + std::string(64, ']')).too_deep_at);
  // Closers do not take the depth below zero: "]]][" is one level deep.
  CHECK_FALSE(json_shape("]]][", 1).too_deep_at);
}

TEST_CASE("util::json_shape: counts the values a parse would make nodes of", "[util]")
{
  CHECK(json_shape("").values == 0);
  CHECK(json_shape(" 7 ").values == 1);
  CHECK(json_shape("[]").values == 1);
  CHECK(json_shape("[0,0,0]").values == 4);
  // Keys are not values; empty containers are values with no elements.
  CHECK(json_shape(R"({"a": 1, "b": {}, "c": [[], [1, 2]]})").values == 8);
  // Commas and brackets in strings are text.
  CHECK(json_shape(R"(["a,b", "[c]", "\",{"])").values == 4);
}
