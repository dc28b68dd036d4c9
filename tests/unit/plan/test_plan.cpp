// build_pair_plan on small hand-made inputs: the copies each backend's state
// send issues (offsets hand-computed from SGLang's addressing: source item
// length x slot, plus the byte blocks of disaggregation/utils.py
// compute_mamba_state_slice_byte_blocks), and the text it raises instead, in
// the order SGLang checks (disaggregation/{mooncake,mori,nixl}/conn.py, commits
// in docs/sglang-decisions.md). Expected SGLang texts are rendered from the
// catalog with the hand-computed values.
#include "plan/plan.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <vector>

using namespace pdcheck;
using namespace pdcheck::plan;

namespace {

using U64s = std::vector<std::uint64_t>;

/// A Copy as {src_entry, dst_entry, src_offset, dst_offset, length}, so that
/// lists of copies compare and print.
using CopyRow = std::array<std::int64_t, 5>;

std::vector<CopyRow> rows(const PairPlan& p)
{
  std::vector<CopyRow> out;
  for (const Copy& c : p.copies) {
    out.push_back({c.src_entry, c.dst_entry, c.src_offset, c.dst_offset, c.length});
  }
  return out;
}

/// One state entry per side (item length 100, no dims, layer 0), equal TP 1,
/// src slot 3, dst slot 5 (PairInput's defaults).
PairInput input(const char* profile, TransferBackend backend = TransferBackend::mooncake)
{
  const Profile* p = find_profile(profile);
  REQUIRE(p != nullptr);
  PairInput in;
  in.backend = backend;
  in.prefill_profile = *p;
  in.src.item_lens = {100};
  in.src.num_entries = 1;
  in.dst.item_lens = {100};
  in.dst.num_entries = 1;
  if (p->state_layer_ids) {
    in.src.layer_ids = {0};
    in.dst.layer_ids = {0};
  }
  return in;
}

/// Mooncake's transfer_worker re-raise of `message` (str(e) of what the send raised).
std::string thread_death(const std::string& message, int port = 8998)
{
  return render_delivered(MessageId::transfer_thread_failed, {{"error", message}, {"bootstrap_port", port}});
}

/// One GDN layer at prefill attention TP 2, rank 1, towards decode TP 4,
/// rank 3: a conv entry of 256 unsharded channels in shard groups q 64 | k 64 |
/// v 128, (K-1) = 3 bf16 per channel (6 bytes), and a temporal entry of 32
/// heads of 1024 bytes.
PairInput gdn_tp2_to_tp4(const char* profile)
{
  PairInput in = input(profile);
  in.prefill_attn_tp_size = 2;
  in.prefill_rank = 1;
  in.decode_attn_tp_size = 4;
  in.decode_rank = 3;
  in.src.item_lens = {128 * 6, 16 * 1024};
  in.src.dims = {128, 16};
  in.src.outer_counts = {1, 1};
  in.src.conv_shard_groups = {{64, 64, 128}, {}};
  in.src.num_entries = 2;
  in.dst.item_lens = {64 * 6, 8 * 1024};
  in.dst.dims = {64, 8};
  in.dst.num_entries = 2;
  if (in.prefill_profile.state_layer_ids) {
    in.src.layer_ids = {0, 0}; // conv and temporal of layer 0: the id repeats per tensor group
    in.dst.layer_ids = {0, 0};
  }
  return in;
}

} // namespace

TEST_CASE("plan::build_pair_plan: Mooncake equal TP copies whole items at item length x slot", "[plan]")
{
  PairInput in = input("0.5.20");
  // Two entries whose layer ids the decode registered in the other order:
  // entry 0 (layer 7) pairs with decode entry 1, entry 1 (layer 9) with 0.
  in.src.item_lens = {100, 200};
  in.src.dims = {4, 8};
  in.src.layer_ids = {7, 9};
  in.src.num_entries = 2;
  in.dst.item_lens = {200, 100};
  in.dst.dims = {8, 4};
  in.dst.layer_ids = {9, 7};
  in.dst.num_entries = 2;
  const PairPlan p = build_pair_plan(in);
  CHECK_FALSE(p.error);
  CHECK(p.path == PlanPath::whole_item);
  CHECK(p.function == "_send_mamba_state");
  CHECK_FALSE(p.logged);
  // src: 100 x 3 = 300, 200 x 3 = 600; dst: src item length x dst slot 5.
  CHECK(rows(p) == std::vector<CopyRow>{{0, 1, 300, 500, 100}, {1, 0, 600, 1000, 200}});
}

TEST_CASE("plan::build_pair_plan: Mooncake slot size check from v0.5.19, raised through the transfer thread", "[plan]")
{
  PairInput in = input("0.5.19");
  in.src.item_lens = {100};
  in.dst.item_lens = {50};
  in.src.dims = {4};
  in.dst.dims = {4};
  in.prefill_bootstrap_port = 9100;
  const PairPlan p = build_pair_plan(in);
  REQUIRE(p.error);
  CHECK(p.error->id == MessageId::mooncake_slot_size);
  CHECK(p.error->rule == RuleId::mooncake_slot_size);
  CHECK(p.error->function == "_send_mamba_state");
  CHECK(p.error->rendered() == render_delivered(MessageId::mooncake_slot_size, {{"src", 100}, {"dst", 50}}));
  CHECK(p.error->surfaced_as ==
        thread_death(render_message(MessageId::mooncake_slot_size, {{"src", 100}, {"dst", 50}}), 9100));
  CHECK(p.copies.empty());
  CHECK(p.path == PlanPath::none);

  SECTION("before the check (v0.5.15) the copy goes out addressed with the source length")
  {
    PairInput old = in;
    old.prefill_profile = *find_profile("0.5.15");
    const PairPlan q = build_pair_plan(old);
    CHECK_FALSE(q.error);
    CHECK(rows(q) == std::vector<CopyRow>{{0, 0, 300, 500, 100}});
  }
}

TEST_CASE("plan::build_pair_plan: Mooncake slice path for prefill TP 2 -> decode TP 4", "[plan]")
{
  const PairPlan p = build_pair_plan(gdn_tp2_to_tp4("0.5.20"));
  CHECK_FALSE(p.error);
  CHECK(p.path == PlanPath::slice);
  CHECK(p.function == "_send_mamba_state_slice");
  REQUIRE(p.logged);
  CHECK(*p.logged ==
        render_message(MessageId::mamba_slice_transfer, {{"prefill_attn_tp_size", 2}, {"decode_attn_tp_size", 4}}));
  // Conv, per shard group g (s = g/2 prefill channels, d = g/4 decode channels):
  // source start (decode rank 3 x d) mod s within the group. q: (3x16)%32 = 16,
  // k: 32 + 16 = 48, v: 64 + (3x32)%64 = 96; destinations 0, 16, 32; 6 bytes a
  // channel. Slot bases: src 768 x 3 = 2304, dst 384 x 5 = 1920.
  // Temporal: heads (3x8)%16 = 8..15 of the prefill's 16: 8 x 1024 from byte
  // 8192; bases 16384 x 3 = 49152 and 8192 x 5 = 40960.
  CHECK(rows(p) == std::vector<CopyRow>{{0, 0, 2304 + 96, 1920 + 0, 96},
                                        {0, 0, 2304 + 288, 1920 + 96, 96},
                                        {0, 0, 2304 + 576, 1920 + 192, 192},
                                        {1, 1, 49152 + 8192, 40960, 8192}});

  SECTION("before conv sub-group slicing (#30997, v0.5.15) the conv entry is one block")
  {
    // One block from channel (3 x 64) % 128 = 64: v channels where q, k and v belong.
    const PairPlan old = build_pair_plan(gdn_tp2_to_tp4("0.5.15"));
    CHECK_FALSE(old.error);
    CHECK(old.path == PlanPath::slice);
    CHECK(rows(old) == std::vector<CopyRow>{{0, 0, 2304 + 384, 1920, 384}, {1, 1, 49152 + 8192, 40960, 8192}});
  }
}

TEST_CASE("plan::build_pair_plan: aggregation offset uses the writer index from #20655", "[plan]")
{
  // Temporal only: prefill TP 4 rank 3 (8 heads of 1024 bytes) into decode TP 2
  // rank 1 (16 heads). Writer index 3 % (4/2) = 1: heads land from 8 x 1024.
  auto aggregation = [](const char* profile) {
    PairInput in = input(profile);
    in.prefill_attn_tp_size = 4;
    in.prefill_rank = 3;
    in.decode_attn_tp_size = 2;
    in.decode_rank = 1;
    in.src.item_lens = {8192};
    in.src.dims = {8};
    in.dst.item_lens = {16384};
    in.dst.dims = {16};
    return build_pair_plan(in);
  };
  // dst base 16384 x 5 = 81920; src base 8192 x 3 = 24576.
  CHECK(rows(aggregation("0.5.10")) == std::vector<CopyRow>{{0, 0, 24576, 81920 + 8192, 8192}});
  // v0.5.9 used the global rank 3: 3 x 8 x 1024 = 24576, past the 16384-byte slot.
  CHECK(rows(aggregation("0.5.9")) == std::vector<CopyRow>{{0, 0, 24576, 81920 + 24576, 8192}});
}

TEST_CASE("plan::build_pair_plan: unequal TP without dims degrades to whole items", "[plan]")
{
  PairInput in = input("0.5.20");
  in.prefill_attn_tp_size = 2;
  in.decode_attn_tp_size = 4;
  const PairPlan p = build_pair_plan(in);
  CHECK_FALSE(p.error);
  CHECK(p.path == PlanPath::whole_fallback);
  CHECK(p.function == "_send_mamba_state_slice");
  CHECK_FALSE(p.logged);
  CHECK(rows(p) == std::vector<CopyRow>{{0, 0, 300, 500, 100}});
}

TEST_CASE("plan::build_pair_plan: pre-dims Mooncake refuses unequal TP for every hybrid model in transfer_worker", "[plan]")
{
  PairInput in = input("0.5.6");
  in.prefill_attn_tp_size = 2;
  in.decode_attn_tp_size = 1;
  in.prefill_bootstrap_port = 9100;
  const PairPlan p = build_pair_plan(in);
  REQUIRE(p.error);
  CHECK(p.error->id == MessageId::mooncake_unequal_tp_hybrid);
  CHECK(p.error->rule == RuleId::mooncake_unequal_tp_hybrid);
  CHECK(p.error->function == "transfer_worker");
  CHECK(p.error->rendered() == render_delivered(MessageId::mooncake_unequal_tp_hybrid, {}));
  CHECK(p.error->surfaced_as == thread_death(render_message(MessageId::mooncake_unequal_tp_hybrid, {}), 9100));
  CHECK(p.copies.empty());

  SECTION("a hybrid-MLA prefill too: `not is_mla_backend` holds for its HybridLinearKVPool, whatever the text says")
  {
    in.hybrid_mla = true;
    const PairPlan mla = build_pair_plan(in);
    REQUIRE(mla.error);
    CHECK(mla.error->id == MessageId::mooncake_unequal_tp_hybrid);
    CHECK(mla.copies.empty());
  }
  SECTION("equal TP goes on to the whole-item send over the decode's pointers")
  {
    in.hybrid_mla = true;
    in.prefill_attn_tp_size = 1;
    const PairPlan equal = build_pair_plan(in);
    CHECK_FALSE(equal.error);
    CHECK(equal.path == PlanPath::whole_item);
    CHECK(rows(equal) == std::vector<CopyRow>{{0, 0, 300, 500, 100}});
  }
}

TEST_CASE("plan::build_pair_plan: Mooncake layouts that differ with no dims raise in maybe_send_extra", "[plan]")
{
  // A unified decode: one envelope entry, no dims.
  PairInput in = input("0.5.20");
  in.src.item_lens = {100, 200};
  in.src.dims = {4, 8};
  in.src.layer_ids = {0, 0};
  in.src.num_entries = 2;
  in.dst.item_lens = {300};
  in.dst.layer_ids = {};
  in.dst.unified = true;
  const PairPlan p = build_pair_plan(in);
  REQUIRE(p.error);
  CHECK(p.error->function == "maybe_send_extra");
  CHECK(p.error->rule == RuleId::mooncake_layout_no_dims);
  const std::string message =
    render_message(MessageId::mooncake_layout_no_dims, {{"src_item_lens", U64s{100, 200}}, {"dst_item_lens", U64s{300}}});
  CHECK(p.error->message == message);
  CHECK(p.error->rendered() == "RuntimeError: " + message);
  CHECK(p.error->surfaced_as == thread_death(message));
}

TEST_CASE("plan::build_pair_plan: unified memory checks, by release", "[plan]")
{
  SECTION("after PR #40500: a decode that sent a unified layout to a non-unified prefill")
  {
    PairInput in = input("0.5.21");
    in.dst.unified_layout_sent = true;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_validate_unified_peer_layout");
    CHECK(p.error->rendered() == render_delivered(MessageId::unified_peers_must_enable, {}));
    CHECK(p.error->rule == RuleId::unified_one_side);
  }
  SECTION("after PR #40500: a unified non-MLA prefill at unequal TP")
  {
    PairInput in = input("0.5.21");
    in.src.unified = true;
    in.prefill_attn_tp_size = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_validate_unified_peer_layout");
    CHECK(p.error->rendered() == render_delivered(MessageId::unified_unequal_tp_requirements, {}));
  }
  SECTION("v0.5.20: the envelope check is reached by hybrid-MLA models only")
  {
    PairInput in = input("0.5.20");
    in.src.unified = true;
    in.hybrid_mla = true;
    in.prefill_attn_tp_size = 4;
    in.decode_attn_tp_size = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_validate_envelope_kv_layout");
    CHECK(p.error->rendered() == render_delivered(MessageId::unified_unequal_tp, {{"prefill_attn_tp_size", 4},
                                                                                  {"decode_attn_tp_size", 2}}));
  }
  SECTION("v0.5.20: a non-MLA unified prefill at unequal TP meets the no-dims layout check")
  {
    PairInput in = input("0.5.20");
    in.src.unified = true;
    in.src.item_lens = {300};
    in.prefill_attn_tp_size = 4;
    in.decode_attn_tp_size = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->id == MessageId::mooncake_layout_no_dims);
    CHECK(p.error->message == render_message(MessageId::mooncake_layout_no_dims,
                                             {{"src_item_lens", U64s{300}}, {"dst_item_lens", U64s{100}}}));
  }
}

TEST_CASE("plan::build_pair_plan: Mooncake state index lists", "[plan]")
{
  SECTION("two prefill indices")
  {
    PairInput in = input("0.5.20");
    in.src_index_count = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_send_mamba_state");
    CHECK(p.error->rendered() == render_delivered(MessageId::single_state_index, {}));
    CHECK(p.error->surfaced_as == thread_death(render_message(MessageId::single_state_index, {})));
  }
  SECTION("an empty decode list fails indexing inside the send")
  {
    PairInput in = input("0.5.20");
    in.dst_index_count = 0;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::list_index, {}));
    CHECK(p.error->rule == RuleId::state_index_empty);
    CHECK(p.error->function == "_send_mamba_state");
    in.prefill_attn_tp_size = 2;
    const PairPlan slice = build_pair_plan(in);
    REQUIRE(slice.error);
    CHECK(slice.error->function == "_send_mamba_state_slice");
  }
}

TEST_CASE("plan::build_pair_plan: Mori with one state_type checks descriptor counts first", "[plan]")
{
  PairInput in = input("0.5.11", TransferBackend::mori);
  in.src.item_lens = {100, 200};
  in.src.num_entries = 2;
  in.dst.num_entries = 3;
  const PairPlan p = build_pair_plan(in);
  REQUIRE(p.error);
  CHECK(p.error->function == "send_state");
  CHECK(p.error->rule == RuleId::mori_descriptor_count);
  CHECK(p.error->rendered() ==
        render_delivered(MessageId::mori_descriptor_count, {{"local", 2}, {"remote", 3}, {"state_type", "mamba"}}));
  CHECK(p.error->surfaced_as.empty()); // Mori has no transfer-thread wrapper

  in.dst.num_entries = 0;
  in.prefill_attn_tp_size = 2;
  const PairPlan none = build_pair_plan(in);
  REQUIRE(none.error);
  CHECK(none.error->rendered() ==
        render_delivered(MessageId::mori_no_state_descriptors,
                         {{"state_type", "mamba"}, {"prefill_tp_size", 2}, {"decode_tp_size", 1}}));
}

TEST_CASE("plan::build_pair_plan: Mori per component: count, indices, and the unchecked decode length", "[plan]")
{
  SECTION("component counts differ")
  {
    PairInput in = input("0.5.20", TransferBackend::mori);
    in.dst.num_components = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::mori_component_count, {{"local", 1}, {"remote", 2}}));
  }
  SECTION("two decode indices")
  {
    PairInput in = input("0.5.20", TransferBackend::mori);
    in.dst_index_count = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_send_mamba_state");
    CHECK(p.error->rendered() == render_delivered(MessageId::mori_single_state_index, {{"src", 1}, {"dst", 2}}));
  }
  SECTION("an empty index list skips the component silently")
  {
    PairInput in = input("0.5.20", TransferBackend::mori);
    in.dst_index_count = 0;
    const PairPlan p = build_pair_plan(in);
    CHECK_FALSE(p.error);
    CHECK(p.skipped);
    CHECK(p.copies.empty());
    CHECK(p.path == PlanPath::none);
  }
  SECTION("equal TP: the decode's item length is never compared")
  {
    PairInput in = input("0.5.20", TransferBackend::mori);
    in.dst.item_lens = {50};
    const PairPlan p = build_pair_plan(in);
    CHECK_FALSE(p.error);
    CHECK(p.path == PlanPath::whole_item);
    CHECK(rows(p) == std::vector<CopyRow>{{0, 0, 300, 500, 100}});
  }
}

TEST_CASE("plan::build_pair_plan: NIXL index count, single index and unequal TP", "[plan]")
{
  SECTION("equal TP, two decode indices: the index-count assertion")
  {
    PairInput in = input("0.5.20", TransferBackend::nixl);
    in.dst_index_count = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "_send_mamba_state");
    CHECK(p.error->rule == RuleId::state_index_count);
    CHECK(p.error->rendered() == render_delivered(MessageId::state_index_count_mismatch, {}));
    CHECK(p.error->surfaced_as.empty());
  }
  SECTION("two prefill indices")
  {
    PairInput in = input("0.5.20", TransferBackend::nixl);
    in.src_index_count = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::single_state_index, {}));
  }
  SECTION("unequal TP with dims slices before the index count is looked at")
  {
    PairInput in = input("0.5.20", TransferBackend::nixl);
    in.dst_index_count = 2;
    in.decode_attn_tp_size = 2;
    in.decode_rank = 1;
    in.src.dims = {10};
    in.dst.item_lens = {50};
    in.dst.dims = {5};
    const PairPlan p = build_pair_plan(in);
    CHECK_FALSE(p.error);
    CHECK(p.path == PlanPath::slice);
    CHECK(p.function == "_send_mamba_state_slice");
    CHECK_FALSE(p.logged);
    // Channels (1 x 5) % 10 = 5..9 at 10 bytes each; bases 300 and 50 x 5 = 250.
    CHECK(rows(p) == std::vector<CopyRow>{{0, 0, 350, 250, 50}});
  }
  SECTION("before NIXL dims (#22240, v0.5.9) unequal TP is refused")
  {
    PairInput in = input("0.5.9", TransferBackend::nixl);
    in.prefill_attn_tp_size = 2;
    const PairPlan p = build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->function == "maybe_send_extra");
    CHECK(p.error->rendered() == render_delivered(MessageId::nixl_unequal_tp, {}));
  }
}

TEST_CASE("plan::own_metadata and registered_metadata follow the profile", "[plan]")
{
  model::RankLayout rank;
  model::StateTensor conv;
  conv.name = "conv";
  conv.outer_count = 3;
  conv.conv_shard_groups = {4, 4, 8};
  model::StateTensor temporal;
  temporal.name = "temporal";
  rank.tensors = {conv, temporal};
  rank.entries = {{0, 4, 48, 8}, {1, 4, 32, 2}};
  rank.state_item_lens = {{48, 32}};
  rank.state_dim_per_tensor = {{8, 2}};
  rank.state_layer_ids = {{4, 4}};

  const StateMetadata now = own_metadata(rank, *find_profile("0.5.20"));
  CHECK(now.item_lens == U64s{48, 32});
  CHECK(now.dims == U64s{8, 2});
  CHECK(now.layer_ids == U64s{4, 4});
  CHECK(now.outer_counts == std::vector<std::int64_t>{3, 1});
  CHECK(now.conv_shard_groups == std::vector<std::vector<std::int64_t>>{{4, 4, 8}, {}});
  CHECK(now.num_entries == 2);

  const StateMetadata old = own_metadata(rank, *find_profile("0.5.6"));
  CHECK(old.item_lens == U64s{48, 32});
  CHECK(old.dims.empty());
  CHECK(old.layer_ids.empty());
  CHECK(old.outer_counts == std::vector<std::int64_t>{1, 1});
  CHECK(old.conv_shard_groups == std::vector<std::vector<std::int64_t>>{{}, {}});

  const StateMetadata reg = registered_metadata(rank, *find_profile("0.5.20"));
  CHECK(reg.item_lens == U64s{48, 32});
  CHECK(reg.dims == U64s{8, 2});
  CHECK(reg.layer_ids == U64s{4, 4});
  CHECK(reg.num_entries == 2);
  CHECK_FALSE(reg.unified_layout_sent);
}

TEST_CASE("plan::plan_path_name", "[plan]")
{
  CHECK(plan_path_name(PlanPath::none) == "none");
  CHECK(plan_path_name(PlanPath::whole_item) == "whole_item");
  CHECK(plan_path_name(PlanPath::whole_fallback) == "whole_item_fallback");
  CHECK(plan_path_name(PlanPath::slice) == "slice");
}
