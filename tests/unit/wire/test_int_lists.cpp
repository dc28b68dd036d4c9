#include "wire/int_lists.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace pdcheck::wire;

namespace {

Bytes bytes(std::initializer_list<int> values)
{
  Bytes out;
  for (int v : values) {
    out.push_back(static_cast<std::uint8_t>(v));
  }
  return out;
}

} // namespace

TEST_CASE("pack_int_lists writes SGLang's layout", "[wire][int_lists]")
{
  SECTION("no lists is an empty frame")
  {
    CHECK(pack_int_lists(U64Lists{}, IntFormat::u64).empty());
  }
  SECTION("one empty list is a count and a zero length")
  {
    CHECK(pack_int_lists(U64Lists{{}}, IntFormat::u32) == bytes({1, 0, 0, 0, 0, 0, 0, 0}));
  }
  SECTION("lengths are in bytes, bodies little-endian")
  {
    const Bytes packed = pack_int_lists(U64Lists{{1, 2}, {0x01020304}}, IntFormat::u32);
    CHECK(packed == bytes({2, 0, 0, 0, 8, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 4, 3, 2, 1}));
  }
  SECTION("Q is 8 bytes per element")
  {
    const Bytes packed = pack_int_lists(U64Lists{{0x7f0000000000}}, IntFormat::u64);
    CHECK(packed == bytes({1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0, 0}));
  }
  SECTION("i is signed")
  {
    CHECK(pack_int_lists(I32Lists{{-1}}) == bytes({1, 0, 0, 0, 4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}));
  }
  SECTION("a value that does not fit 'I' is refused, as struct.pack refuses it")
  {
    CHECK_THROWS_WITH(pack_int_lists(U64Lists{{1ull << 32}}, IntFormat::u32),
                      "pack_int_lists: value 4294967296 does not fit format 'I' (struct.error: argument out of range)");
  }
}

TEST_CASE("unpack_int_lists inverts pack_int_lists", "[wire][int_lists]")
{
  std::mt19937_64 rng(20260530);
  for (int round = 0; round < 200; ++round) {
    U64Lists lists(rng() % 4);
    for (auto& list : lists) {
      list.resize(rng() % 6);
      for (auto& v : list) {
        v = rng() & 0xffffffffu;
      }
    }
    for (IntFormat f : {IntFormat::u64, IntFormat::u32}) {
      const Decoded<U64Lists> d = unpack_int_lists(pack_int_lists(lists, f), f);
      REQUIRE(d.ok());
      CHECK(d.value == lists);
      CHECK(d.sglang_value == lists);
      CHECK(d.sglang.describe() == "SGLang reads the same values");
    }
  }
  const Decoded<I32Lists> signed_lists = unpack_int_lists_i32(pack_int_lists(I32Lists{{-5, 7}, {}, {3}}));
  REQUIRE(signed_lists.ok());
  CHECK(signed_lists.value == I32Lists{{-5, 7}, {}, {3}});
  CHECK(unpack_int_lists(Bytes{}, IntFormat::u64).value.empty());
  CHECK(unpack_int_lists(bytes({1, 0, 0, 0, 0, 0, 0, 0}), IntFormat::u64).value == U64Lists{{}});
}

TEST_CASE("unpack_int_lists says what is wrong and what SGLang does instead", "[wire][int_lists]")
{
  SECTION("header too short")
  {
    const auto d = unpack_int_lists(bytes({1, 0, 0}), IntFormat::u32);
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 0: expected a 4-byte little-endian sub-list count (pack_int_lists header), got 3 bytes");
    CHECK(d.sglang.describe() == "SGLang would raise struct.error: unpack requires a buffer of 4 bytes");
    CHECK_FALSE(d.sglang_value);
  }
  SECTION("an absurd count is refused before anything is allocated")
  {
    const auto d = unpack_int_lists(bytes({0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0}), IntFormat::u64);
    REQUIRE(d.issue);
    CHECK(d.issue->message() ==
          "byte 0: expected a sub-list count of at most 2 (a 12-byte frame holds no more lengths), got 2147483648");
    CHECK(d.sglang.describe() == "SGLang would raise struct.error: unpack requires a buffer of 8589934592 bytes");
  }
  SECTION("a body that is not a whole number of elements")
  {
    const auto d = unpack_int_lists(bytes({1, 0, 0, 0, 6, 0, 0, 0, 1, 2, 3, 4, 5, 6}), IntFormat::u32);
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 4: sub-list 0 declares 6 bytes, expected a multiple of 4 (format 'I')");
    CHECK(d.sglang.describe() == "SGLang would raise struct.error: unpack requires a buffer of 4 bytes");
  }
  SECTION("a body that runs past the frame is silently truncated by SGLang")
  {
    const auto d = unpack_int_lists(bytes({2, 0, 0, 0, 4, 0, 0, 0, 8, 0, 0, 0, 7, 0, 0, 0, 9, 0, 0, 0}),
                                    IntFormat::u32);
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 8: sub-list 1 declares 8 bytes at byte 16, but only 4 bytes remain");
    CHECK(d.sglang.describe() == "SGLang would silently truncate sub-list 1 to 4 of its 8 declared bytes");
    CHECK(d.sglang_value == U64Lists{{7}, {9}});
  }
  SECTION("trailing bytes are ignored by SGLang")
  {
    const auto d = unpack_int_lists(bytes({1, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 0xaa, 0xbb, 0xcc}), IntFormat::u32);
    REQUIRE(d.issue);
    CHECK(d.issue->message() == "byte 12: expected the frame to end after 1 sub-list, got 3 more bytes");
    CHECK(d.sglang.describe() == "SGLang would ignore 3 trailing bytes");
    CHECK(d.sglang_value == U64Lists{{7}});
  }
  SECTION("a flat native Q array read as pack_int_lists: count 0 and everything else ignored")
  {
    // A pointer whose low 32 bits are zero reads as "no sub-lists".
    const auto d = unpack_int_lists(bytes({0, 0, 0, 0, 0, 0x7f, 0, 0}), IntFormat::u64);
    REQUIRE(d.issue);
    CHECK(d.issue->message() ==
          "byte 0: expected b'' for no sub-lists (pack_int_lists writes no header then), got a count of 0");
    CHECK(d.sglang_value == U64Lists{});
    CHECK(d.sglang.describe() == "SGLang would ignore 4 trailing bytes");
  }
}

TEST_CASE("is_sane_int_lists tells pack_int_lists from flat arrays", "[wire][int_lists]")
{
  CHECK(is_sane_int_lists(Bytes{}, 8));
  CHECK(is_sane_int_lists(pack_int_lists(U64Lists{{1, 2, 3}}, IntFormat::u64), 8));
  CHECK_FALSE(is_sane_int_lists(bytes({0, 0, 0, 0, 0, 0x7f, 0, 0}), 8));
  CHECK(describe_lists_shape(U64Lists{std::vector<std::uint64_t>(72)}) == "1 component, 72 entries");
  CHECK(describe_lists_shape(U64Lists{{1, 2}, {3}}) == "2 components, 2 + 1 entries");
}
