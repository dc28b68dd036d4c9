// simulate_decode_rank on hand-made plans over a tiny temporal tensor: 4 heads
// of 2 float32 (8 bytes a head, 32 bytes a slot), so that every count below can
// be checked on paper.
#include "check/simulate.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace pdcheck;
using namespace pdcheck::check;

namespace {

/// One temporal entry of `heads` heads of 2 float32 at attention-TP rank `rank`
/// (global heads rank x heads ...), layer 0.
model::RankLayout temporal_rank(int rank, std::int64_t heads)
{
  model::RankLayout r;
  r.attn_tp_rank = rank;
  r.layer_ids = {0};
  model::StateTensor t;
  t.name = "temporal";
  t.per_slot_shape = {heads, 2};
  t.dtype = Dtype::float32;
  t.item_len = heads * 8;
  t.slice_axis = 0;
  t.slice_dim = heads;
  r.tensors = {t};
  r.entries = {{0, 0, heads * 8, heads}};
  return r;
}

plan::PairPlan plan_of(std::vector<plan::Copy> copies)
{
  plan::PairPlan p;
  p.path = plan::PlanPath::whole_item;
  p.copies = std::move(copies);
  return p;
}

plan::LogicalByte temporal_byte(std::int64_t head, std::int64_t byte)
{
  plan::LogicalByte b;
  b.space = 1;
  b.layer = 0;
  b.channel = head;
  b.byte = byte;
  b.itemsize = 4;
  return b;
}

constexpr std::int64_t k_src_slot = 3;
constexpr std::int64_t k_dst_slot = 5;

} // namespace

TEST_CASE("check::simulate_decode_rank: a whole-item copy of the right slot is clean", "[check][simulate]")
{
  const model::ModelSpec m{};
  const model::RankLayout src = temporal_rank(0, 4);
  const model::RankLayout dst = temporal_rank(0, 4);
  const plan::RankMeaning sm(m, src, 1);
  const plan::RankMeaning dm(m, dst, 1);
  const plan::PairPlan p = plan_of({{0, 0, 32 * k_src_slot, 32 * k_dst_slot, 32}});
  const SimulationResult r = simulate_decode_rank(dm, k_dst_slot, {{0, 0, &sm, &p, k_src_slot}});
  CHECK(r.slot_bytes == 32);
  CHECK(r.correct == 32);
  CHECK(r.wrong == 0);
  CHECK(r.unwritten == 0);
  CHECK(r.written_twice == 0);
  CHECK(r.outside_slot == 0);
  CHECK(r.wrong_source_slot == 0);
  CHECK(r.clean());
  CHECK_FALSE(r.first_wrong);
  CHECK_FALSE(r.first_unwritten);
  CHECK_FALSE(r.first_outside);
}

TEST_CASE("check::simulate_decode_rank: wrong, unwritten, written twice and outside the slot", "[check][simulate]")
{
  const model::ModelSpec m{};
  const model::RankLayout src = temporal_rank(0, 4);
  const model::RankLayout dst = temporal_rank(0, 4);
  const plan::RankMeaning sm(m, src, 1);
  const plan::RankMeaning dm(m, dst, 1);
  const std::int64_t s = 32 * k_src_slot; // 96
  const std::int64_t d = 32 * k_dst_slot; // 160
  const plan::PairPlan p = plan_of({
    {0, 0, s + 8, d + 0, 8},  // head 1 onto head 0: 8 wrong
    {0, 0, s + 8, d + 8, 8},  // head 1 onto head 1: 8 correct
    {0, 0, s + 8, d + 8, 4},  // its first 4 bytes again: 4 correct, 4 written twice
    {0, 0, s + 24, d + 24, 8}, // head 3: 8 correct; head 2 (bytes 16..23) never written
    {0, 0, s, 32 * 6, 8},     // into slot 6: 8 outside
  });
  const SimulationResult r = simulate_decode_rank(dm, k_dst_slot, {{2, 0, &sm, &p, k_src_slot}});
  CHECK(r.slot_bytes == 32);
  CHECK(r.correct == 20);
  CHECK(r.wrong == 8);
  CHECK(r.written_twice == 4);
  CHECK(r.unwritten == 8);
  CHECK(r.outside_slot == 8);
  CHECK(r.wrong_source_slot == 0);
  CHECK_FALSE(r.clean());

  REQUIRE(r.first_wrong);
  CHECK(r.first_wrong->dst_entry == 0);
  CHECK(r.first_wrong->offset == 0);
  CHECK(r.first_wrong->prefill_rank == 2);
  CHECK(r.first_wrong->expected == temporal_byte(0, 0));
  CHECK(r.first_wrong->got == temporal_byte(1, 0));

  REQUIRE(r.first_unwritten);
  CHECK(r.first_unwritten->offset == 16);
  CHECK(r.first_unwritten->prefill_rank == -1);
  CHECK(r.first_unwritten->expected == temporal_byte(2, 0));

  REQUIRE(r.first_outside);
  CHECK(r.first_outside->offset == 32); // 192 - 5 x 32: just past the slot
  CHECK(r.first_outside->prefill_rank == 2);
}

TEST_CASE("check::simulate_decode_rank: reading another request's prefill slot is wrong", "[check][simulate]")
{
  const model::ModelSpec m{};
  const model::RankLayout src = temporal_rank(0, 4);
  const model::RankLayout dst = temporal_rank(0, 4);
  const plan::RankMeaning sm(m, src, 1);
  const plan::RankMeaning dm(m, dst, 1);
  // The right heads, but from prefill slot 4 instead of 3.
  const plan::PairPlan p = plan_of({{0, 0, 32 * 4, 32 * k_dst_slot, 32}});
  const SimulationResult r = simulate_decode_rank(dm, k_dst_slot, {{0, 0, &sm, &p, k_src_slot}});
  CHECK(r.correct == 0);
  CHECK(r.wrong == 32);
  CHECK(r.wrong_source_slot == 32);
  CHECK(r.unwritten == 0);
  REQUIRE(r.first_wrong);
  CHECK(r.first_wrong->got == r.first_wrong->expected); // same logical byte, wrong request
}

TEST_CASE("check::simulate_decode_rank: two prefill ranks aggregate into one decode rank", "[check][simulate]")
{
  // Prefill TP 2 (2 heads, 16 bytes each rank) into decode TP 1 (4 heads).
  const model::ModelSpec m{};
  const model::RankLayout src0 = temporal_rank(0, 2);
  const model::RankLayout src1 = temporal_rank(1, 2);
  const model::RankLayout dst = temporal_rank(0, 4);
  const plan::RankMeaning sm0(m, src0, 2);
  const plan::RankMeaning sm1(m, src1, 2);
  const plan::RankMeaning dm(m, dst, 1);
  const plan::PairPlan p0 = plan_of({{0, 0, 16 * k_src_slot, 32 * k_dst_slot, 16}});

  SECTION("each at its writer index: clean")
  {
    const plan::PairPlan p1 = plan_of({{0, 0, 16 * k_src_slot, 32 * k_dst_slot + 16, 16}});
    const SimulationResult r =
      simulate_decode_rank(dm, k_dst_slot, {{0, 0, &sm0, &p0, k_src_slot}, {1, 0, &sm1, &p1, k_src_slot}});
    CHECK(r.correct == 32);
    CHECK(r.clean());
  }
  SECTION("both at offset 0: rank 1's heads 2, 3 overwrite heads 0, 1 and the rest is never written")
  {
    const plan::PairPlan p1 = plan_of({{0, 0, 16 * k_src_slot, 32 * k_dst_slot, 16}});
    const SimulationResult r =
      simulate_decode_rank(dm, k_dst_slot, {{0, 0, &sm0, &p0, k_src_slot}, {1, 0, &sm1, &p1, k_src_slot}});
    CHECK(r.correct == 16);
    CHECK(r.wrong == 16);
    CHECK(r.written_twice == 16);
    CHECK(r.unwritten == 16);
    REQUIRE(r.first_wrong);
    CHECK(r.first_wrong->prefill_rank == 1);
    CHECK(r.first_wrong->expected == temporal_byte(0, 0));
    CHECK(r.first_wrong->got == temporal_byte(2, 0));
    REQUIRE(r.first_unwritten);
    CHECK(r.first_unwritten->offset == 16);
  }
}

TEST_CASE("check::simulate_decode_rank: a copy to an entry the decode does not have is outside", "[check][simulate]")
{
  const model::ModelSpec m{};
  const model::RankLayout src = temporal_rank(0, 4);
  const model::RankLayout dst = temporal_rank(0, 4);
  const plan::RankMeaning sm(m, src, 1);
  const plan::RankMeaning dm(m, dst, 1);
  const plan::PairPlan p = plan_of({{0, 1, 32 * k_src_slot, 32 * k_dst_slot, 32}});
  const SimulationResult r = simulate_decode_rank(dm, k_dst_slot, {{0, 0, &sm, &p, k_src_slot}});
  CHECK(r.outside_slot == 32);
  CHECK(r.unwritten == 32);
  CHECK(r.correct == 0);
  CHECK_FALSE(r.first_outside); // no byte of a real entry was addressed
}
