#include "io/side_file.hpp"
#include "plan/meaning.hpp"
#include "probe/pattern.hpp"
#include "sglang/side_layout.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstring>
#include <vector>

using namespace pdcheck;
using namespace pdcheck::probe;

namespace {

struct Rank
{
  sglang::Side side;
  model::Layout layout;
};

Rank load(const std::string& pair, const std::string& which)
{
  Rank r;
  r.side = io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/examples/pairs/" + pair + "/" + which + ".yaml");
  r.layout = model::compute_layout(sglang::layout_input(r.side));
  return r;
}

} // namespace

TEST_CASE("probe::verify_slot: a filled slot verifies against the same meaning", "[probe]")
{
  const Rank r = load("hetero-tp-scatter-works", "decode");
  const plan::RankMeaning m(r.side.model, r.layout.ranks[0], r.layout.attn_tp_size);
  for (int e = 0; e < std::min(4, m.entry_count()); ++e) {
    std::vector<std::uint8_t> slot(static_cast<std::size_t>(m.item_len(e)));
    fill_slot(m, e, 3, slot.data());
    VerifyTally t;
    verify_slot(m, 0, e, 3, slot.data(), t);
    CHECK(t.clean());
    CHECK(t.bytes == m.item_len(e));
    // Every value is odd, so zero always means "never written".
    CHECK(std::find(slot.begin(), slot.end(), k_poison) == slot.end());
  }
}

TEST_CASE("probe::verify_slot: names wrong, missing and wrong-slot bytes", "[probe]")
{
  const Rank r = load("hetero-tp-scatter-works", "decode");
  const plan::RankMeaning m(r.side.model, r.layout.ranks[0], r.layout.attn_tp_size);
  const int e = 0;
  const auto n = static_cast<std::size_t>(m.item_len(e));
  std::vector<std::uint8_t> slot(n);
  fill_slot(m, e, 1, slot.data());

  SECTION("bytes shifted by one element are wrong data")
  {
    std::memmove(slot.data() + 100, slot.data() + 102, 64);
    VerifyTally t;
    verify_slot(m, 0, e, 1, slot.data(), t);
    CHECK(t.wrong > 0);
    CHECK(t.unwritten == 0);
    REQUIRE_FALSE(t.ranges.empty());
    CHECK_FALSE(t.ranges[0].never_arrived);
    CHECK(t.ranges[0].layer == r.layout.ranks[0].entries[0].layer_id);
  }
  SECTION("zeros are state that never arrived")
  {
    std::memset(slot.data(), 0, n);
    VerifyTally t;
    verify_slot(m, 0, e, 1, slot.data(), t);
    CHECK(t.unwritten == static_cast<std::int64_t>(n));
    REQUIRE(t.ranges.size() >= 1);
    CHECK(t.ranges[0].never_arrived);
    CHECK(describe_range(t.ranges[0]).find("never arrived") != std::string::npos);
  }
  SECTION("another source slot's state does not pass")
  {
    VerifyTally t;
    verify_slot(m, 0, e, 2, slot.data(), t);
    CHECK(t.wrong > static_cast<std::int64_t>(n) / 2);
  }
}

TEST_CASE("probe::verify_untouched: counts stray bytes", "[probe]")
{
  std::vector<std::uint8_t> buf(4096, 0);
  VerifyTally t;
  verify_untouched(0, 0, "conv", buf.data(), 4096, 0, t);
  CHECK(t.clean());
  buf[1000] = 7;
  buf[1001] = 9;
  verify_untouched(0, 0, "conv", buf.data(), 4096, 0, t);
  CHECK(t.stray == 2);
  REQUIRE(t.ranges.size() == 1);
  CHECK(t.ranges[0].offset == 1000);
}
