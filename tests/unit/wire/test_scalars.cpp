#include "wire/base64.hpp"
#include "wire/bytes.hpp"
#include "wire/msgpack.hpp"
#include "wire/scalars.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace pdcheck::wire;

TEST_CASE("ASCII integers: strict is str(n), SGLang is int()", "[wire][scalars]")
{
  CHECK(decode_ascii_int(to_bytes("17853")).value == 17853);
  CHECK(decode_ascii_int(to_bytes("-1")).value == -1);
  CHECK(encode_ascii_int(-42) == to_bytes("-42"));

  SECTION("non-decimal")
  {
    const auto d = decode_ascii_int(to_bytes("12a"));
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 2: expected a decimal digit, got b'a' in b'12a'");
    CHECK(d.sglang.describe() == "SGLang would raise ValueError: invalid literal for int() with base 10: '12a'");
  }
  SECTION("non-ASCII")
  {
    const auto d = decode_ascii_int(Bytes{'1', 0xff});
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 1: expected an ASCII decimal integer, got the non-ASCII byte 0xff");
    CHECK(d.sglang.describe() == "SGLang would raise UnicodeDecodeError: 'ascii' codec can't decode byte 0xff in "
                                 "position 1: ordinal not in range(128)");
  }
  SECTION("empty")
  {
    const auto d = decode_ascii_int(Bytes{});
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 0: expected an ASCII decimal integer, got an empty frame");
    CHECK(d.sglang.describe() == "SGLang would raise ValueError: invalid literal for int() with base 10: ''");
  }
  SECTION("what int() accepts but str() never writes")
  {
    const auto d = decode_ascii_int(to_bytes(" +1_000\n"));
    REQUIRE(d.issue);
    CHECK(d.sglang_value == 1000);
    CHECK(d.sglang.describe() == "SGLang would ignore the surrounding whitespace");
    CHECK(decode_ascii_int(to_bytes("007")).issue->message() ==
          "byte 0: expected a decimal integer as str() writes it, got a leading zero in b'007'");
    CHECK(decode_ascii_int(to_bytes("007")).sglang_value == 7);
  }
  SECTION("beyond 64 bits")
  {
    const auto d = decode_ascii_int(to_bytes("99999999999999999999"));
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 0: expected an integer that fits 64 bits, got b'99999999999999999999'");
  }
}

TEST_CASE("native arrays", "[wire][scalars]")
{
  const Bytes q = encode_native_array({1, 0x7f0000000000}, IntFormat::u64);
  CHECK(q.size() == 16);
  CHECK(decode_native_array(q, IntFormat::u64).value == std::vector<std::uint64_t>{1, 0x7f0000000000});
  Bytes bad = q;
  bad.push_back(0);
  const auto d = decode_native_array(bad, IntFormat::u64);
  REQUIRE(d.issue);
  CHECK(d.issue->message() == "byte 16: expected a native 'Q' array (8 bytes per element), got 1 byte left over");
  CHECK(d.sglang.describe() == "SGLang would raise struct.error: unpack requires a buffer of 16 bytes");
  const auto i = decode_int32_array(Bytes{1, 0, 0, 0, 2});
  REQUIRE(i.issue);
  CHECK(i.sglang.describe() == "SGLang would raise ValueError: buffer size must be a multiple of element size");
  CHECK(decode_int32_array(encode_int32_array({-3, 5})).value == std::vector<std::int32_t>{-3, 5});
}

TEST_CASE("base64 and hex are strict and round-trip", "[wire][base64]")
{
  std::mt19937 rng(7);
  for (int n = 0; n < 40; ++n) {
    Bytes b(static_cast<std::size_t>(n));
    for (auto& x : b) {
      x = static_cast<std::uint8_t>(rng());
    }
    WireIssue issue;
    CHECK(base64_decode(base64_encode(b), &issue) == b);
    CHECK(hex_decode(hex_encode(b), &issue) == b);
  }
  CHECK(base64_encode(to_bytes("None")) == "Tm9uZQ==");

  WireIssue issue;
  CHECK_FALSE(base64_decode("Tm9u!Q==", &issue));
  CHECK(issue.message() ==
        "byte 4: expected a base64 character (A-Z, a-z, 0-9, '+', '/') or '=' padding, got '!'");
  CHECK_FALSE(base64_decode("Tm9uZQ", &issue));
  CHECK(issue.message() ==
        "byte 6: expected base64 text whose length is a multiple of 4, got 6 characters (missing '=' padding?)");
  CHECK_FALSE(base64_decode("Tm=uZQ==", &issue));
  CHECK(issue.message() == "byte 2: expected '=' padding only at the end of the base64 text");
  CHECK_FALSE(base64_decode("Tm9uZR==", &issue));
  CHECK(issue.message() == "byte 5: expected the unused bits of the last base64 character to be zero (non-canonical "
                           "base64)");
  CHECK_FALSE(hex_decode("4e6g", &issue));
  CHECK(issue.message() == "byte 3: expected a hex digit (0-9, a-f), got 'g'");
  CHECK_FALSE(hex_decode("4e6", &issue));
  CHECK(issue.message() == "byte 3: expected an even number of hex digits, got 3");
}

TEST_CASE("msgpack descriptor lists keep their shape", "[wire][msgpack]")
{
  Bytes nested;
  append_msgpack_array_header(nested, 2);
  append_msgpack_array_header(nested, 1);
  append_msgpack_bin(nested, to_bytes("desc-a"));
  append_msgpack_array_header(nested, 0);
  const auto d = decode_desc_list(nested);
  REQUIRE(d.ok());
  CHECK(d.value.nested);
  CHECK(d.value.counts == std::vector<std::size_t>{1, 0});

  Bytes flat;
  append_msgpack_array_header(flat, 20);
  for (int i = 0; i < 20; ++i) {
    append_msgpack_bin(flat, to_bytes("x"));
  }
  const auto f = decode_desc_list(flat);
  REQUIRE(f.ok());
  CHECK_FALSE(f.value.nested);
  CHECK(f.value.counts == std::vector<std::size_t>{20});

  SECTION("a hostile count")
  {
    const Bytes hostile{0xdd, 0x7f, 0xff, 0xff, 0xff, 0xc4};
    const auto h = decode_desc_list(hostile);
    REQUIRE(h.issue);
    CHECK(h.issue->message() == "byte 0: expected at most 1 descriptors in the bytes left, got a count of 2147483647");
  }
  SECTION("truncated payload")
  {
    const Bytes truncated{0x91, 0xc4, 0x05, 'a'};
    const auto t = decode_desc_list(truncated);
    REQUIRE(t.issue);
    CHECK(t.issue->message() == "byte 1: expected 5 payload bytes, but only 1 remain");
  }
}

TEST_CASE("is_str_int, is_ascii and is_int32_array are the strict decoders' verdicts", "[wire][property]")
{
  // Hand-picked edges first: the int64 limits and one past them, signs,
  // leading zeros, spaces, underscores and non-ASCII bytes.
  std::vector<std::string> texts = {"0",     "-0",   "00",  "-",   "",     "+1",   " 1",  "1 ",  "1_0", "007",
                                    "-01",   "12a",  "\xb5", "9223372036854775807", "9223372036854775808",
                                    "-9223372036854775808", "-9223372036854775809", "99999999999999999999"};
  std::mt19937 rng(20261206);
  const std::string alphabet = "0123456789-+ _a\x80";
  for (int n = 0; n < 4000; ++n) {
    std::string t(rng() % 22, ' ');
    for (auto& c : t) {
      c = alphabet[rng() % (n % 2 == 0 ? 10 : alphabet.size())]; // half digits only: many valid ones
    }
    texts.push_back(t);
  }
  for (const std::string& t : texts) {
    const Bytes b = to_bytes(t);
    INFO(python_bytes_repr(b));
    CHECK(is_str_int(b) == !decode_ascii_int(b).issue);
    CHECK(is_ascii(b) == !decode_ascii_text(b).issue);
    CHECK(is_int32_array(b) == !decode_int32_array(b).issue);
  }
  CHECK(is_str_int(to_bytes("-9223372036854775808")));
  CHECK_FALSE(is_str_int(to_bytes("9223372036854775808")));
}
