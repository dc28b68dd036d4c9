// RankMeaning on tiny hand-made models: where each byte of a rank's slot sits
// in the unsharded state. The channel orders are those of SGLang's state
// shapes (configs/mamba_utils.py Mamba2StateShape.create / KimiLinearStateShape.create
// at 02e208de, docs/sglang-decisions.md) and of the mixers that shard them:
// Mamba2 conv [x | B | C] with B and C by group (replicated when TP does not
// divide the groups), GDN conv [q | k | v] by key head and value head, KDA conv
// [q | k | v] with the window rows before the channel axis.
#include "plan/meaning.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace pdcheck;
using namespace pdcheck::plan;

namespace {

model::StateTensor tensor(const char* name, std::vector<std::int64_t> shape, Dtype dtype, int slice_axis = 0)
{
  model::StateTensor t;
  t.name = name;
  t.per_slot_shape = shape;
  t.dtype = dtype;
  t.slice_axis = slice_axis;
  t.slice_dim = shape[static_cast<std::size_t>(slice_axis)];
  t.outer_count = 1;
  for (int a = 0; a < slice_axis; ++a) {
    t.outer_count *= shape[static_cast<std::size_t>(a)];
  }
  t.item_len = dtype_size(dtype);
  for (std::int64_t s : shape) {
    t.item_len *= s;
  }
  return t;
}

/// One rank holding `tensors` for layer 4, one entry per tensor.
model::RankLayout rank_of(int tp_rank, std::vector<model::StateTensor> tensors)
{
  model::RankLayout r;
  r.attn_tp_rank = tp_rank;
  r.layer_ids = {4};
  r.tensors = std::move(tensors);
  for (std::size_t i = 0; i < r.tensors.size(); ++i) {
    r.entries.push_back({static_cast<int>(i), 4, r.tensors[i].item_len, r.tensors[i].slice_dim});
  }
  return r;
}

/// Mamba2 with I = 8, G = groups, N = 2, K = 4: conv_dim = 8 + 2 x G x 2.
model::ModelSpec mamba2(std::int64_t groups)
{
  model::ModelSpec m;
  m.family = model::StateFamily::mamba2;
  m.intermediate_size = 8;
  m.n_groups = groups;
  m.state_size = 2;
  m.conv_kernel = 4;
  return m;
}

LogicalByte at(int space, int layer, std::int64_t outer, std::int64_t channel, std::int64_t byte, int itemsize)
{
  return LogicalByte{space, layer, outer, channel, byte, itemsize};
}

/// Segments as {local_start, count, global_start} rows.
std::vector<std::vector<std::int64_t>> segments(const RankMeaning& m, std::size_t tensor)
{
  std::vector<std::vector<std::int64_t>> out;
  for (const ChannelSegment& s : m.tensors().at(tensor).segments) {
    out.push_back({s.local_start, s.count, s.global_start});
  }
  return out;
}

} // namespace

TEST_CASE("plan::RankMeaning: Mamba2 conv at TP 2, rank 1: x, then this rank's B and C groups", "[plan][meaning]")
{
  // 16 channels unsharded: x 0..7, B 8..11 (2 groups of 2), C 12..15. Rank 1 of
  // 2 holds x 4..7, B group 1 (10, 11), C group 1 (14, 15): 8 channels of 3 bf16.
  const model::ModelSpec m = mamba2(2);
  const model::RankLayout r = rank_of(1, {tensor("conv", {8, 3}, Dtype::bfloat16)});
  const RankMeaning meaning(m, r, 2);
  CHECK(meaning.entry_count() == 1);
  CHECK(meaning.item_len(0) == 48);
  CHECK(meaning.tensors()[0].inner_bytes == 6);
  CHECK(segments(meaning, 0) == std::vector<std::vector<std::int64_t>>{{0, 4, 4}, {4, 2, 10}, {6, 2, 14}});

  const Located first = meaning.locate(0, 0);
  CHECK(first.at == at(0, 4, 0, 4, 0, 2));
  CHECK(first.run == 24); // the 4 x channels, 6 bytes each
  const Located b = meaning.locate(0, 25); // local channel 4, byte 1
  CHECK(b.at == at(0, 4, 0, 10, 1, 2));
  CHECK(b.run == 11);
  const Located last = meaning.locate(0, 47); // local channel 7, byte 5
  CHECK(last.at == at(0, 4, 0, 15, 5, 2));
  CHECK(last.run == 1);
}

TEST_CASE("plan::RankMeaning: one Mamba2 group at TP 2 is replicated on both ranks", "[plan][meaning]")
{
  // 12 channels unsharded: x 0..7, B 8..9, C 10..11; each rank: 4 x, B, C.
  const model::ModelSpec m = mamba2(1);
  const model::RankLayout r0 = rank_of(0, {tensor("conv", {8, 3}, Dtype::bfloat16)});
  const model::RankLayout r1 = rank_of(1, {tensor("conv", {8, 3}, Dtype::bfloat16)});
  const RankMeaning m0(m, r0, 2);
  const RankMeaning m1(m, r1, 2);
  CHECK(segments(m0, 0) == std::vector<std::vector<std::int64_t>>{{0, 4, 0}, {4, 2, 8}, {6, 2, 10}});
  CHECK(segments(m1, 0) == std::vector<std::vector<std::int64_t>>{{0, 4, 4}, {4, 2, 8}, {6, 2, 10}});
  CHECK(m0.locate(0, 24).at == m1.locate(0, 24).at); // B channel 8 on both
  CHECK_FALSE(m0.locate(0, 0).at == m1.locate(0, 0).at);
}

TEST_CASE("plan::RankMeaning: GDN conv at TP 2, rank 1: q and k by key head, v by value head", "[plan][meaning]")
{
  // Hk = 2, Dk = 2 (key dim 4), Hv x Dv = 8: q 0..3, k 4..7, v 8..15 unsharded.
  model::ModelSpec m;
  m.family = model::StateFamily::gdn;
  m.n_groups = 2;
  m.state_size = 2;
  m.intermediate_size = 8;
  const model::RankLayout r = rank_of(1, {tensor("conv", {8, 3}, Dtype::bfloat16)});
  const RankMeaning meaning(m, r, 2);
  CHECK(segments(meaning, 0) == std::vector<std::vector<std::int64_t>>{{0, 2, 2}, {2, 2, 6}, {4, 4, 12}});
  const Located v = meaning.locate(0, 30); // local channel 5: v's second
  CHECK(v.at == at(0, 4, 0, 13, 0, 2));
  CHECK(v.run == 18);
}

TEST_CASE("plan::RankMeaning: temporal heads and KDA conv window rows", "[plan][meaning]")
{
  SECTION("temporal (H/tp = 2, P = 2, N = 2) float32 at rank 1: heads 2 and 3, 16 bytes each")
  {
    const model::ModelSpec m = mamba2(2);
    const model::RankLayout r = rank_of(1, {tensor("temporal", {2, 2, 2}, Dtype::float32)});
    const RankMeaning meaning(m, r, 2);
    const Located l = meaning.locate(0, 17);
    CHECK(l.at == at(1, 4, 0, 3, 1, 4));
    CHECK(l.run == 15);
    CHECK(describe(l.at) == "temporal layer 4 head 3 byte 1 (4-byte elements)");
  }
  SECTION("KDA single conv (3, 4) at TP 2, rank 1: q 2..3, k 5, v 7 in each of 3 rows")
  {
    // H = 2, D = 2 (q 0..3), Hk = 2, Dk = 1 (k 4..5, v 6..7) unsharded.
    model::ModelSpec m;
    m.family = model::StateFamily::kda;
    m.kda_num_heads = 2;
    m.kda_head_dim = 2;
    m.kda_num_k_heads = 2;
    m.kda_head_k_dim = 1;
    const model::RankLayout r = rank_of(1, {tensor("conv", {3, 4}, Dtype::bfloat16, 1)});
    const RankMeaning meaning(m, r, 2);
    CHECK(meaning.tensors()[0].outer_count == 3);
    CHECK(segments(meaning, 0) == std::vector<std::vector<std::int64_t>>{{0, 2, 2}, {2, 1, 5}, {3, 1, 7}});
    // 8 bytes a row: offset 19 is row 2, local channel 1, byte 1.
    const Located q = meaning.locate(0, 19);
    CHECK(q.at == at(0, 4, 2, 3, 1, 2));
    CHECK(q.run == 1);
    CHECK(meaning.locate(0, 13).at == at(0, 4, 1, 5, 1, 2));
    CHECK(meaning.locate(0, 22).at == at(0, 4, 2, 7, 0, 2));
    CHECK(describe(q.at) == "conv layer 4 row 2 channel 3 byte 1 (2-byte elements)");
  }
}

TEST_CASE("plan::RankMeaning: the unified envelope is every layer of tensor 0, then of tensor 1", "[plan][meaning]")
{
  const model::ModelSpec m = mamba2(2);
  model::RankLayout r;
  r.attn_tp_rank = 1;
  r.layer_ids = {4, 7};
  r.unified = true;
  r.tensors = {tensor("conv", {8, 3}, Dtype::bfloat16), tensor("temporal", {2, 2, 2}, Dtype::float32)};
  r.entries = {{-1, -1, 2 * 48 + 2 * 32, 0}};
  const RankMeaning meaning(m, r, 2);
  CHECK(meaning.item_len(0) == 160);
  // [conv L4 0..47][conv L7 48..95][temporal L4 96..127][temporal L7 128..159]
  const Located conv7 = meaning.locate(0, 50);
  CHECK(conv7.at == at(0, 7, 0, 4, 2, 2));
  CHECK(conv7.run == 22);
  const Located temporal4 = meaning.locate(0, 100);
  CHECK(temporal4.at == at(1, 4, 0, 2, 4, 4));
  CHECK(temporal4.run == 28);
  const Located temporal7 = meaning.locate(0, 130);
  CHECK(temporal7.at == at(1, 7, 0, 2, 2, 4));
  CHECK(temporal7.run == 30);
  CHECK(meaning.locate(0, 160).run == 0); // past the envelope: nothing
}
