// Layout numbers hand-computed from SGLang's state shapes
// (python/sglang/srt/configs/mamba_utils.py Mamba2StateShape.create and
// KimiLinearStateShape.create at 02e208de; registration order and dims from
// mem_cache/memory_pool.py at v0.5.20, see docs/sglang-decisions.md) with conv
// bf16, temporal fp32 unless stated, checked for every catalog architecture at
// attention TP 1, 2, 4 and 8.
#include "model/catalog.hpp"
#include "model/layout.hpp"
#include "core/profile.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <random>

using namespace pdcheck;
using namespace pdcheck::model;

namespace {

ModelSpec catalog_model(const char* name)
{
  const CatalogEntry* e = find_catalog_entry(name);
  REQUIRE(e != nullptr);
  return read_model_config(nlohmann::json::parse(e->config_json), std::string(e->name), std::string(e->source));
}

LayoutInput input_for(const char* model, int tp, const char* profile = "v0.5.20")
{
  LayoutInput in;
  in.model = catalog_model(model);
  in.profile = *find_profile(profile);
  in.tp_size = tp;
  return in;
}

struct Expected
{
  int tp;
  std::int64_t conv_item;
  std::int64_t conv_dim;
  std::int64_t temporal_item;
  std::int64_t temporal_dim;
};

void check_rank(const RankLayout& r, std::size_t layers, const Expected& e)
{
  REQUIRE(r.layer_ids.size() == layers);
  REQUIRE(r.state_item_lens.size() == 1);
  const auto& items = r.state_item_lens[0];
  const auto& dims = r.state_dim_per_tensor[0];
  REQUIRE(items.size() == 2 * layers);
  REQUIRE(dims.size() == 2 * layers);
  for (std::size_t i = 0; i < layers; ++i) {
    CHECK(items[i] == static_cast<std::uint64_t>(e.conv_item));
    CHECK(dims[i] == static_cast<std::uint64_t>(e.conv_dim));
    CHECK(items[layers + i] == static_cast<std::uint64_t>(e.temporal_item));
    CHECK(dims[layers + i] == static_cast<std::uint64_t>(e.temporal_dim));
  }
  CHECK(r.bytes_per_request == static_cast<std::int64_t>(layers) * (e.conv_item + e.temporal_item));
}

void check_model(const char* model, std::size_t layers, const std::vector<Expected>& rows)
{
  for (const Expected& e : rows) {
    DYNAMIC_SECTION(model << " at tp " << e.tp)
    {
      const Layout layout = compute_layout(input_for(model, e.tp));
      REQUIRE(layout.servable());
      REQUIRE(layout.attn_tp_size == e.tp);
      REQUIRE(layout.ranks.size() == static_cast<std::size_t>(e.tp));
      for (const RankLayout& r : layout.ranks) {
        check_rank(r, layers, e);
      }
    }
  }
}

} // namespace

TEST_CASE("model::compute_layout: Qwen3-Next-80B-A3B matches the hand-computed table", "[model]")
{
  check_model("qwen3-next-80b-a3b", 36,
              {{1, 49152, 8192, 2097152, 32}, {2, 24576, 4096, 1048576, 16}, {4, 12288, 2048, 524288, 8},
               {8, 6144, 1024, 262144, 4}});
  const Layout tp4 = compute_layout(input_for("qwen3-next-80b-a3b", 4));
  CHECK(tp4.ranks[0].bytes_per_request == 19316736);
  CHECK(tp4.ranks[0].tensors[0].conv_shard_groups == std::vector<std::int64_t>{2048, 2048, 4096});
  CHECK(tp4.ranks[0].layer_ids.front() == 0);
  CHECK(tp4.ranks[0].layer_ids[3] == 4);
  CHECK(tp4.ranks[0].state_layer_ids[0].size() == 72);
}

TEST_CASE("model::compute_layout: Qwen3.5 models match the hand-computed table", "[model]")
{
  check_model("qwen3.5-35b-a3b", 30,
              {{1, 49152, 8192, 2097152, 32}, {2, 24576, 4096, 1048576, 16}, {4, 12288, 2048, 524288, 8},
               {8, 6144, 1024, 262144, 4}});
  check_model("qwen3.5-27b", 48,
              {{1, 61440, 10240, 3145728, 48}, {2, 30720, 5120, 1572864, 24}, {4, 15360, 2560, 786432, 12},
               {8, 7680, 1280, 393216, 6}});
}

TEST_CASE("model::compute_layout: Nemotron-H models match the hand-computed table", "[model]")
{
  check_model("nemotron-h-8b", 24,
              {{1, 61440, 10240, 4194304, 128}, {2, 30720, 5120, 2097152, 64}, {4, 15360, 2560, 1048576, 32},
               {8, 7680, 1280, 524288, 16}});
  check_model("nemotron-nano-9b-v2", 27,
              {{1, 73728, 12288, 5242880, 128}, {2, 36864, 6144, 2621440, 64}, {4, 18432, 3072, 1310720, 32},
               {8, 9216, 1536, 655360, 16}});
  check_model("nemotron-3-nano-30b-a3b", 23,
              {{1, 36864, 6144, 2097152, 64}, {2, 18432, 3072, 1048576, 32}, {4, 9216, 1536, 524288, 16},
               {8, 4608, 768, 262144, 8}});
}

TEST_CASE("model::compute_layout: Falcon-H1 conv width depends on TP because its single group is replicated",
          "[model]")
{
  // tp 8 is refused by the attention layers (12 heads), so only 1, 2, 4 here.
  check_model("falcon-h1-7b",
              44, {{1, 21504, 3584, 3145728, 24}, {2, 12288, 2048, 1572864, 12}, {4, 7680, 1280, 786432, 6}});
  check_model("falcon-h1-1.5b", 24,
              {{1, 21504, 3584, 3145728, 48}, {2, 12288, 2048, 1572864, 24}, {4, 7680, 1280, 786432, 12},
               {8, 5376, 896, 393216, 6}});
}

TEST_CASE("model::compute_layout: Falcon-H1-7B at tp 8 is refused by its 12 attention heads", "[model]")
{
  const Layout layout = compute_layout(input_for("falcon-h1-7b", 8));
  REQUIRE_FALSE(layout.servable());
  REQUIRE(layout.findings.size() == 1);
  CHECK(layout.findings[0].rule == "startup-attention-heads");
  CHECK(layout.findings[0].message == "12 attention heads are not divisible by attention TP size 8");
  CHECK(layout.ranks.empty());
}

TEST_CASE("model::compute_layout: Nemotron-H-8B at tp 16 cannot start", "[model]")
{
  const Layout layout = compute_layout(input_for("nemotron-h-8b", 16));
  REQUIRE_FALSE(layout.servable());
  REQUIRE(layout.findings.size() == 1);
  // G_eff = 16 when 8 groups do not divide: conv_dim = 8192 + 2*16*128 = 12288,
  // which divides; the mixer refuses n_groups 8 instead.
  bool groups_finding = false;
  for (const auto& f : layout.findings) {
    groups_finding |= f.rule == "startup-mamba-groups" &&
                      f.message == "n_groups 8 is not divisible by attention TP size 16 and is not 1";
  }
  CHECK(groups_finding);
}

TEST_CASE("model::compute_layout: Kimi-Linear single conv (v0.5.20) and three convs (older)", "[model]")
{
  SECTION("v0.5.20: one (3, 12288/tp) conv, dim = channels, outer count 3")
  {
    for (int tp : {1, 2, 4, 8}) {
      const Layout layout = compute_layout(input_for("kimi-linear-48b-a3b", tp));
      REQUIRE(layout.servable());
      const RankLayout& r = layout.ranks[0];
      REQUIRE(r.layer_ids.size() == 20);
      REQUIRE(r.tensors.size() == 2);
      CHECK(r.tensors[0].per_slot_shape == std::vector<std::int64_t>{3, 12288 / tp});
      CHECK(r.tensors[0].item_len == 73728 / tp);
      CHECK(r.tensors[0].registered_dim == 12288 / tp);
      CHECK(r.tensors[0].outer_count == 3);
      CHECK(r.tensors[0].conv_shard_groups == std::vector<std::int64_t>{4096, 4096, 4096});
      CHECK(r.tensors[1].item_len == 2097152 / tp);
      CHECK(r.state_item_lens[0].size() == 40);
    }
    CHECK(compute_layout(input_for("kimi-linear-48b-a3b", 1)).ranks[0].layer_ids.front() == 0);
  }
  SECTION("components: three (3, 4096/tp) convs whose registered dim is the window, 3")
  {
    const Layout layout = compute_layout(input_for("kimi-linear-48b-a3b", 1, "components"));
    const RankLayout& r = layout.ranks[0];
    REQUIRE(r.tensors.size() == 4);
    for (int i = 0; i < 3; ++i) {
      CHECK(r.tensors[static_cast<std::size_t>(i)].item_len == 24576);
      CHECK(r.tensors[static_cast<std::size_t>(i)].registered_dim == 3);
    }
    CHECK(r.state_item_lens[0].size() == 80);
    CHECK(r.state_dim_per_tensor[0][0] == 3);
    CHECK(r.state_dim_per_tensor[0][60] == 32);
  }
}

TEST_CASE("model::compute_layout: LFM2 temporal is zero-size: kept before v0.5.20, dropped from it", "[model]")
{
  for (int tp : {1, 2, 4, 8}) {
    const Layout old_layout = compute_layout(input_for("lfm2-2.6b", tp, "components"));
    REQUIRE(old_layout.servable());
    const RankLayout& r = old_layout.ranks[0];
    REQUIRE(r.layer_ids.size() == 22);
    REQUIRE(r.state_item_lens[0].size() == 44);
    CHECK(r.state_item_lens[0][0] == static_cast<std::uint64_t>(8192 / tp));
    CHECK(r.state_dim_per_tensor[0][0] == static_cast<std::uint64_t>(2048 / tp));
    CHECK(r.state_item_lens[0][22] == 0);
    CHECK(r.state_dim_per_tensor[0][22] == 1);

    const Layout new_layout = compute_layout(input_for("lfm2-2.6b", tp, "v0.5.20"));
    CHECK(new_layout.ranks[0].state_item_lens[0].size() == 22);
    CHECK(new_layout.ranks[0].bytes_per_request == 22 * 8192 / tp);
  }
  const Layout l = compute_layout(input_for("lfm2-2.6b", 1));
  CHECK(l.ranks[0].layer_ids == std::vector<int>{0, 1, 3, 4, 6, 7, 8, 10, 11, 12, 14, 15, 16, 18, 19, 20, 22, 23, 25,
                                                 26, 28, 29});
}

TEST_CASE("model::compute_layout: profiles change what is registered", "[model]")
{
  SECTION("pre-dims registers pointers only")
  {
    const Layout l = compute_layout(input_for("qwen3-next-80b-a3b", 2, "pre-dims"));
    CHECK(l.ranks[0].state_item_lens.empty());
    CHECK(l.ranks[0].state_dim_per_tensor.empty());
    CHECK(l.ranks[0].entries.size() == 72);
  }
  SECTION("flat has no layer ids; components has them")
  {
    CHECK(compute_layout(input_for("qwen3-next-80b-a3b", 2, "flat")).ranks[0].state_layer_ids.empty());
    const Layout c = compute_layout(input_for("qwen3-next-80b-a3b", 2, "components"));
    REQUIRE(c.ranks[0].state_layer_ids.size() == 1);
    CHECK(c.ranks[0].state_layer_ids[0][36] == 0);
  }
  SECTION("flat with speculative decoding appends draft-token dims")
  {
    LayoutInput in = input_for("qwen3-next-80b-a3b", 2, "flat");
    in.speculative_num_draft_tokens = 4;
    const Layout l = compute_layout(in);
    CHECK(l.ranks[0].state_item_lens[0].size() == 72);
    REQUIRE(l.ranks[0].state_dim_per_tensor[0].size() == 144);
    CHECK(l.ranks[0].state_dim_per_tensor[0][143] == 4);
  }
}

TEST_CASE("model::compute_layout: unified memory registers one envelope per slot", "[model]")
{
  LayoutInput in = input_for("qwen3-next-80b-a3b", 1);
  in.enable_unified_memory = true;
  const Layout l = compute_layout(in);
  const RankLayout& r = l.ranks[0];
  REQUIRE(r.entries.size() == 1);
  CHECK(r.state_item_lens == std::vector<std::vector<std::uint64_t>>{{77266944}});
  CHECK(r.state_dim_per_tensor == std::vector<std::vector<std::uint64_t>>{{}});
  CHECK(r.bytes_per_request == 77266944);
}

TEST_CASE("model::compute_layout: DP attention and PP stages", "[model]")
{
  SECTION("attention TP = tp / dp with DP attention")
  {
    LayoutInput in = input_for("qwen3-next-80b-a3b", 8);
    in.dp_size = 4;
    in.enable_dp_attention = true;
    const Layout l = compute_layout(in);
    CHECK(l.attn_tp_size == 2);
    CHECK(l.ranks.size() == 2);
    CHECK(l.ranks[0].state_item_lens[0][0] == 24576);
  }
  SECTION("tp not divisible by dp with DP attention")
  {
    LayoutInput in = input_for("qwen3-next-80b-a3b", 6);
    in.dp_size = 4;
    in.enable_dp_attention = true;
    const Layout l = compute_layout(in);
    REQUIRE(l.findings.size() == 1);
    CHECK(l.findings[0].rule == "startup-parallel-sizes");
    CHECK(l.findings[0].message == "tp size 6 is not divisible by attention DP size 4 times attention CP size 1");
  }
  SECTION("pp 2 splits Qwen3-Next's 48 layers 24/24")
  {
    LayoutInput in = input_for("qwen3-next-80b-a3b", 2);
    in.pp_size = 2;
    const Layout l = compute_layout(in);
    REQUIRE(l.ranks.size() == 4);
    CHECK(l.ranks[0].layer_ids.size() == 18);
    CHECK(l.ranks[2].pp_rank == 1);
    CHECK(l.ranks[2].layer_ids.front() == 24);
    CHECK(l.ranks[2].state_layer_ids[0][0] == 24);
  }
}

TEST_CASE("model::pp_stage_sizes: SGLang's get_pp_indices per release", "[model][pp]")
{
  // Up to v0.5.5.post3 the last stage takes the whole remainder.
  CHECK(pp_stage_sizes(56, 3, PpSplit::last_takes_remainder, std::nullopt).sizes == std::vector<long long>{18, 18, 20});
  CHECK(pp_stage_sizes(11, 4, PpSplit::last_takes_remainder, std::nullopt).sizes == std::vector<long long>{2, 2, 2, 5});
  // From v0.5.6 (PR #13977) the last `remainder` stages take one extra layer each.
  CHECK(pp_stage_sizes(56, 3, PpSplit::last_stages_one_extra, std::nullopt).sizes == std::vector<long long>{18, 19, 19});
  CHECK(pp_stage_sizes(11, 4, PpSplit::last_stages_one_extra, std::nullopt).sizes == std::vector<long long>{2, 3, 3, 3});
  CHECK(pp_stage_sizes(48, 2, PpSplit::last_stages_one_extra, std::nullopt).sizes == std::vector<long long>{24, 24});
  CHECK(pp_layer_range(std::vector<long long>{18, 19, 19}, 1) == std::pair<long long, long long>{18, 37});
  CHECK(pp_layer_range(std::vector<long long>{18, 19, 19}, 2) == std::pair<long long, long long>{37, 56});
  CHECK(pp_layer_range(std::vector<long long>{18, 19, 19}, 3) == std::pair<long long, long long>{0, 0});
}

TEST_CASE("model::pp_stage_sizes: SGLANG_PP_LAYER_PARTITION as get_pp_indices reads it", "[model][pp]")
{
  const auto split = PpSplit::last_stages_one_extra;
  CHECK(pp_stage_sizes(10, 2, split, "4,6").sizes == std::vector<long long>{4, 6});
  // Python's int(): blanks, a sign and digit underscores are fine.
  CHECK(pp_stage_sizes(48, 2, split, " 20 ,+2_8").sizes == std::vector<long long>{20, 28});
  CHECK(pp_stage_sizes(48, 2, split, "0,48").sizes == std::vector<long long>{0, 48});
  CHECK(*pp_stage_sizes(48, 2, split, "24,24,").value_error == "Invalid partition string: 24,24,");
  CHECK(*pp_stage_sizes(48, 2, split, "").value_error == "Invalid partition string: ");
  CHECK(*pp_stage_sizes(48, 2, split, "24;24").value_error == "Invalid partition string: 24;24");
  CHECK(*pp_stage_sizes(48, 2, split, "24,2__4").value_error == "Invalid partition string: 24,2__4");
  CHECK(*pp_stage_sizes(48, 2, split, "16,16,16").value_error == "len(partitions)=3 does not match pp_size=2.");
  CHECK(*pp_stage_sizes(48, 2, split, "20,20").value_error == "sum(partitions)=40 does not match num_hidden_layers=48.");
  // Python's integers: any values that sum right are taken as they are.
  CHECK(pp_stage_sizes(56, 2, split, "3000000000,-2999999944").sizes == std::vector<long long>{3000000000, -2999999944});
  CHECK(pp_layer_range(pp_stage_sizes(56, 2, split, "3000000000,-2999999944").sizes, 1) ==
        std::pair<long long, long long>{3000000000, 56});
  CHECK(*pp_stage_sizes(56, 2, split, "9223372036854775807,9223372036854775807").value_error ==
        "sum(partitions)=18446744073709551614 does not match num_hidden_layers=56.");
  // The partition is read even at pp 1.
  CHECK(*pp_stage_sizes(48, 1, split, "24,24").value_error == "len(partitions)=2 does not match pp_size=1.");
}

TEST_CASE("model::pp_stage_sizes: stages tile the layers as the release's rule says (property)", "[model][pp]")
{
  std::mt19937 rng(20261201);
  for (int trial = 0; trial < 2000; ++trial) {
    const int layers = std::uniform_int_distribution<int>(1, 200)(rng);
    const int pp = std::uniform_int_distribution<int>(1, std::min(layers, 16))(rng);
    for (PpSplit split : {PpSplit::last_takes_remainder, PpSplit::last_stages_one_extra}) {
      const PpStageSizes s = pp_stage_sizes(layers, pp, split, std::nullopt);
      REQUIRE(static_cast<int>(s.sizes.size()) == pp);
      int next = 0;
      for (int r = 0; r < pp; ++r) {
        const auto [start, end] = pp_layer_range(s.sizes, r);
        REQUIRE(start == next); // contiguous, no gap, no overlap
        next = end;
        const int base = layers / pp;
        const int remainder = layers % pp;
        if (split == PpSplit::last_takes_remainder) {
          REQUIRE(end - start == base + (r == pp - 1 ? remainder : 0));
        } else {
          REQUIRE(end - start == base + (r >= pp - remainder ? 1 : 0));
        }
      }
      REQUIRE(next == layers);
    }
  }
}

TEST_CASE("model::compute_layout: a bad SGLANG_PP_LAYER_PARTITION stops every rank with SGLang's ValueError", "[model][pp]")
{
  LayoutInput in = input_for("qwen3-next-80b-a3b", 2);
  in.pp_size = 2;
  in.pp_layer_partition = "20,20";
  const Layout l = compute_layout(in);
  REQUIRE(l.findings.size() == 1);
  CHECK(l.findings[0].rule == "startup-pp-layers");
  CHECK(*l.findings[0].runtime_error ==
        render_delivered(MessageId::pp_partition_sum, {{"sum", 20 + 20}, {"num_hidden_layers", 48}}));
  CHECK(l.ranks.empty());
}

TEST_CASE("model::compute_layout: stage layer ids follow the profile's PP split", "[model][pp]")
{
  LayoutInput in = input_for("qwen3-next-80b-a3b", 1);
  in.model.num_hidden_layers = 56;
  in.model.state_layer_ids.clear();
  for (int i = 0; i < 56; ++i) {
    in.model.state_layer_ids.push_back(i);
  }
  in.pp_size = 3;
  in.profile.pp_split = PpSplit::last_takes_remainder;
  Layout old_split = compute_layout(in);
  REQUIRE(old_split.ranks.size() == 3);
  CHECK(old_split.ranks[2].layer_ids.size() == 20);
  CHECK(old_split.ranks[2].layer_ids.front() == 36);
  in.profile.pp_split = PpSplit::last_stages_one_extra;
  Layout new_split = compute_layout(in);
  CHECK(new_split.ranks[1].layer_ids.size() == 19);
  CHECK(new_split.ranks[1].layer_ids.front() == 18);
  CHECK(new_split.ranks[2].layer_ids.front() == 37);
}
