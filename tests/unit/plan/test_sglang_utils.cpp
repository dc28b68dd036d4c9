// SGLang's slice arithmetic (python/sglang/srt/disaggregation/utils.py:
// compute_mamba_state_slice_blocks, compute_mamba_state_slice_byte_blocks,
// should_send_replicated_state and build_transfer_entry_pairs at 6d8ea7e3, see
// docs/sglang-decisions.md), on hand-computed Qwen3-Next examples; the error
// texts are the catalog's rows rendered with the expected values.
#include "plan/sglang_utils.hpp"

#include <catch2/catch.hpp>

#include <deque>
#include <map>
#include <optional>
#include <random>

using namespace pdcheck;
using namespace pdcheck::plan;

namespace {

const std::vector<std::int64_t> k_gdn_groups = {2048, 2048, 4096};

std::vector<ByteBlock> blocks(Outcome<std::vector<ByteBlock>> r)
{
  REQUIRE(std::holds_alternative<std::vector<ByteBlock>>(r));
  return std::get<std::vector<ByteBlock>>(r);
}

SglangError error_of(const auto& r)
{
  REQUIRE(std::holds_alternative<SglangError>(r));
  return std::get<SglangError>(r);
}

} // namespace

TEST_CASE("plan::mamba_slice_byte_blocks: GDN conv scatter TP1 -> TP2 splits q, k and v", "[plan]")
{
  // decode rank 1: conv item 24576 (dim 4096), prefill item 49152 (dim 8192)
  CHECK(blocks(mamba_slice_byte_blocks(49152, 24576, 8192, 4096, 1, 2, 0, 1, 1, k_gdn_groups, true)) ==
        std::vector<ByteBlock>{{6144, 0, 6144}, {18432, 6144, 6144}, {36864, 12288, 12288}});
  CHECK(blocks(mamba_slice_byte_blocks(49152, 24576, 8192, 4096, 1, 2, 0, 0, 1, k_gdn_groups, true)) ==
        std::vector<ByteBlock>{{0, 0, 6144}, {12288, 6144, 6144}, {24576, 12288, 12288}});
}

TEST_CASE("plan::mamba_slice_byte_blocks: temporal scatter takes the rank's heads", "[plan]")
{
  CHECK(blocks(mamba_slice_byte_blocks(2097152, 1048576, 32, 16, 1, 2, 0, 1, 1, {}, true)) ==
        std::vector<ByteBlock>{{1048576, 0, 1048576}});
}

TEST_CASE("plan::mamba_slice_byte_blocks: GDN conv aggregation TP2 -> TP1 writes each group in place", "[plan]")
{
  CHECK(blocks(mamba_slice_byte_blocks(24576, 49152, 4096, 8192, 2, 1, 1, 0, 1, k_gdn_groups, true)) ==
        std::vector<ByteBlock>{{0, 6144, 6144}, {6144, 18432, 6144}, {12288, 36864, 12288}});
  CHECK(blocks(mamba_slice_byte_blocks(1048576, 2097152, 16, 32, 2, 1, 1, 0, 1, {}, true)) ==
        std::vector<ByteBlock>{{0, 1048576, 1048576}});
}

TEST_CASE("plan::mamba_slice_blocks: groups that do not add up are ignored; pre-#20655 aggregation offset",
          "[plan]")
{
  CHECK(mamba_slice_blocks(4096, 8192, 2, 1, 1, 0, {1, 2, 3}, true) == std::vector<DimBlock>{{0, 4096, 4096}});
  // Before the writer-index fix the offset used the global rank: out of bounds at rank 3 of 4 -> 2.
  CHECK(mamba_slice_blocks(2048, 4096, 4, 2, 3, 1, {}, false) == std::vector<DimBlock>{{0, 6144, 2048}});
  CHECK(mamba_slice_blocks(2048, 4096, 4, 2, 3, 1, {}, true) == std::vector<DimBlock>{{0, 2048, 2048}});
}

TEST_CASE("plan::mamba_slice_byte_blocks: KDA conv repeats the blocks for each window row", "[plan]")
{
  // (3, 12288) per slot at TP1 -> (3, 6144) at TP2, groups 4096 each, 2-byte elements.
  const auto b = blocks(mamba_slice_byte_blocks(73728, 36864, 12288, 6144, 1, 2, 0, 1, 3, {4096, 4096, 4096}, true));
  REQUIRE(b.size() == 9);
  CHECK(b[0] == ByteBlock{4096, 0, 4096});
  CHECK(b[3] == ByteBlock{24576 + 4096, 12288, 4096});
}

TEST_CASE("plan::mamba_slice_byte_blocks: replication metadata errors", "[plan]")
{
  const SglangError metadata = error_of(mamba_slice_byte_blocks(100, 100, 0, 4, 1, 2, 0, 0, 1, {}, true));
  CHECK(metadata.rendered() == render_delivered(MessageId::replication_metadata, {}));
  CHECK(metadata.function == "compute_mamba_state_slice_byte_blocks");
  CHECK(metadata.rule == RuleId::state_slice);
  CHECK(error_of(mamba_slice_byte_blocks(100, 200, 0, 0, 1, 2, 0, 0, 1, {}, true)).rendered() ==
        render_delivered(MessageId::replicated_item_lens, {{"src_item_len", 100}, {"dst_item_len", 200}}));
  CHECK(blocks(mamba_slice_byte_blocks(100, 100, 0, 0, 2, 1, 1, 0, 1, {}, true)).empty());
  CHECK(blocks(mamba_slice_byte_blocks(100, 100, 0, 0, 2, 1, 0, 0, 1, {}, true)) == std::vector<ByteBlock>{{0, 0, 100}});
}

TEST_CASE("plan::should_send_replicated_state: S1-S3", "[plan]")
{
  CHECK(error_of(should_send_replicated_state(0, 2, 0)).rendered() ==
        render_delivered(MessageId::replicated_tp_positive, {}));
  CHECK(error_of(should_send_replicated_state(3, 2, 0)).rendered() ==
        render_delivered(MessageId::replicated_tp_divide, {{"src_attn_tp_size", 3}, {"dst_attn_tp_size", 2}}));
  CHECK(error_of(should_send_replicated_state(2, 1, 2)).rendered() ==
        render_delivered(MessageId::replicated_rank_range, {{"rank", 2}, {"size", 2}}));
  CHECK(std::get<bool>(should_send_replicated_state(4, 2, 2)));
  CHECK_FALSE(std::get<bool>(should_send_replicated_state(4, 2, 1)));
}

TEST_CASE("plan::build_transfer_entry_pairs: pairs by layer id, consuming repeats in order", "[plan]")
{
  const auto pairs = build_transfer_entry_pairs({4, 5, 4, 5}, {0, 4, 5, 0, 4, 5}, 4, 6, false);
  REQUIRE(std::holds_alternative<EntryPairs>(pairs));
  CHECK(std::get<EntryPairs>(pairs) == EntryPairs{{0, 1}, {1, 2}, {2, 4}, {3, 5}});
}

TEST_CASE("plan::build_transfer_entry_pairs: random layer ids pair as SGLang's dict of lists pairs them", "[plan]")
{
  // SGLang keeps, per layer id, the decode entries in order and takes the
  // first unused one for each prefill entry; a missing or used-up id raises.
  std::mt19937 rng(1204);
  for (int round = 0; round < 2000; ++round) {
    const auto ids = [&](int n) {
      std::vector<std::uint64_t> v(static_cast<std::size_t>(n));
      for (auto& id : v) {
        id = std::uniform_int_distribution<std::uint64_t>(0, 5)(rng);
      }
      return v;
    };
    const int n_src = std::uniform_int_distribution<int>(1, 10)(rng);
    const int n_dst = std::uniform_int_distribution<int>(1, 10)(rng);
    const std::vector<std::uint64_t> src = ids(n_src);
    const std::vector<std::uint64_t> dst = ids(n_dst);
    std::map<std::uint64_t, std::deque<int>> by_id;
    for (int j = 0; j < n_dst; ++j) {
      by_id[dst[static_cast<std::size_t>(j)]].push_back(j);
    }
    EntryPairs expected;
    std::optional<std::uint64_t> missing;
    for (int i = 0; i < n_src && !missing; ++i) {
      auto& left = by_id[src[static_cast<std::size_t>(i)]];
      if (left.empty()) {
        missing = src[static_cast<std::size_t>(i)];
      } else {
        expected.emplace_back(i, left.front());
        left.pop_front();
      }
    }
    const auto got = build_transfer_entry_pairs(src, dst, n_src, n_dst, false);
    if (missing) {
      CHECK(error_of(got).rendered() == render_delivered(MessageId::missing_layer, {{"layer_id", *missing}}));
    } else {
      REQUIRE(std::holds_alternative<EntryPairs>(got));
      CHECK(std::get<EntryPairs>(got) == expected);
    }
  }
}

TEST_CASE("plan::build_transfer_entry_pairs: B1-B4 messages", "[plan]")
{
  CHECK(error_of(build_transfer_entry_pairs({1}, {}, 1, 1, false)).rendered() ==
        render_delivered(MessageId::layer_ids_one_side, {}));
  CHECK(error_of(build_transfer_entry_pairs({1, 2}, {1}, 2, 2, false)).rendered() ==
        render_delivered(MessageId::layer_metadata_length,
                         {{"src_metadata", 2}, {"src_entries", 2}, {"dst_metadata", 1}, {"dst_entries", 2}}));
  const SglangError missing = error_of(build_transfer_entry_pairs({7}, {1}, 1, 1, false));
  CHECK(missing.rendered() == render_delivered(MessageId::missing_layer, {{"layer_id", 7}}));
  CHECK(missing.function == "build_transfer_entry_pairs");
  CHECK(missing.rule == RuleId::layer_pairing);
  CHECK(error_of(build_transfer_entry_pairs({}, {}, 4, 2, true)).rendered() ==
        render_delivered(MessageId::pp_heterogeneous, {{"src_entries", 4}, {"dst_entries", 2}}));
  // With the positional fallback (pp 1), ids on one side only are dropped.
  CHECK(std::get<EntryPairs>(build_transfer_entry_pairs({1, 2}, {}, 2, 2, true)) == EntryPairs{{0, 0}, {1, 1}});
  CHECK(std::get<EntryPairs>(build_transfer_entry_pairs({}, {}, 0, 0, false)).empty());
}

TEST_CASE("plan::python_list: renders like Python's repr", "[plan]")
{
  CHECK(python_list({}) == "[]");
  CHECK(python_list({24576, 1048576}) == "[24576, 1048576]");
}
