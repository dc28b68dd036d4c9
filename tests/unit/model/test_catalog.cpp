#include "model/catalog.hpp"
#include "model/layout.hpp"
#include "core/profile.hpp"
#include "model/model_spec.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

using namespace pdcheck;
using namespace pdcheck::model;

namespace {

ModelSpec catalog_spec(std::string_view name)
{
  const CatalogEntry* entry = find_catalog_entry(name);
  REQUIRE(entry != nullptr);
  return read_model_config(nlohmann::json::parse(entry->config_json), std::string(entry->name),
                           std::string(entry->name));
}

// The per-slot byte sizes of SGLang's Mamba2StateShape.create
// (python/sglang/srt/configs/mamba_utils.py at 02e208de; conv bf16, temporal
// fp32), computed here independently of model/layout so that the catalog's
// numbers are checked against SGLang's formulas directly.
std::int64_t mamba2_conv_item(const ModelSpec& m, std::int64_t tp)
{
  const std::int64_t groups = m.n_groups % tp == 0 ? m.n_groups : tp;
  const std::int64_t conv_dim = m.intermediate_size + 2 * groups * m.state_size;
  return conv_dim / tp * (m.conv_kernel - 1) * 2;
}

std::int64_t mamba2_temporal_item(const ModelSpec& m, std::int64_t tp)
{
  return m.num_heads / tp * m.head_dim * m.state_size * 4;
}

std::vector<int> ids_where(int count, bool (*keep)(int))
{
  std::vector<int> ids;
  for (int i = 0; i < count; ++i) {
    if (keep(i)) {
      ids.push_back(i);
    }
  }
  return ids;
}

/// Lays `spec` out at `tp` on v0.5.20, which must be servable.
Layout catalog_layout(const ModelSpec& spec, int tp)
{
  LayoutInput in;
  in.model = spec;
  in.profile = *find_profile("v0.5.20");
  in.tp_size = tp;
  Layout layout = compute_layout(in);
  REQUIRE(layout.servable());
  return layout;
}

} // namespace

TEST_CASE("model::catalog: every entry parses and is a supported hybrid model")
{
  REQUIRE(catalog().size() >= 10);
  std::set<std::string> names;
  for (const CatalogEntry& entry : catalog()) {
    INFO(entry.name);
    CHECK(names.insert(std::string(entry.name)).second);
    for (const char c : entry.name) {
      CHECK_FALSE(std::isupper(static_cast<unsigned char>(c)));
    }
    // The source names the repository's config.json on the Hub.
    CHECK(entry.source.find("https://huggingface.co/" + std::string(entry.hf_repo) + "/") == 0);
    const nlohmann::json config = nlohmann::json::parse(entry.config_json);
    const ModelSpec spec = read_model_config(config, std::string(entry.name), std::string(entry.name));
    CHECK_FALSE(spec.state_layer_ids.empty());
    CHECK(spec.num_hidden_layers > 0);
    // A pure Mamba2 model has no attention layer, so no heads to count.
    CHECK((spec.num_attention_heads > 0) == (spec.num_attention_layers > 0));
  }
}

TEST_CASE("model::catalog: every entry lays out at every attention TP size it claims, and no larger")
{
  for (const CatalogEntry& entry : catalog()) {
    INFO(entry.name << " claims " << entry.attention_tp_sizes);
    REQUIRE_FALSE(entry.attention_tp_sizes.empty());
    LayoutInput in;
    in.model = read_model_config(nlohmann::json::parse(entry.config_json), std::string(entry.name),
                                 std::string(entry.name));
    in.profile = *find_profile("v0.5.20");
    std::vector<int> claimed;
    std::string_view rest = entry.attention_tp_sizes;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      claimed.push_back(std::stoi(std::string(rest.substr(0, comma))));
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
    for (int expect = 1; const int tp : claimed) {
      CHECK(tp == expect); // every power of two from 1, none skipped
      expect *= 2;
      in.tp_size = tp;
      const Layout layout = compute_layout(in);
      CHECK(layout.servable());
      CHECK(layout.ranks.size() == static_cast<std::size_t>(tp));
    }
    in.tp_size = claimed.back() * 2;
    CHECK_FALSE(compute_layout(in).servable());
  }
}

TEST_CASE("model::find_catalog_entry: matches name or HF repo without regard to case")
{
  const CatalogEntry* by_name = find_catalog_entry("Nemotron-H-8B");
  REQUIRE(by_name != nullptr);
  CHECK(by_name->name == "nemotron-h-8b");
  const CatalogEntry* by_repo = find_catalog_entry("qwen/qwen3-next-80b-a3b-instruct");
  REQUIRE(by_repo != nullptr);
  CHECK(by_repo->name == "qwen3-next-80b-a3b");
  CHECK(find_catalog_entry("nemotron-h") == nullptr);
  CHECK(find_catalog_entry("") == nullptr);
}

TEST_CASE("model::catalog_revision: is a date")
{
  const std::string_view revision = catalog_revision();
  REQUIRE(revision.size() == 10);
  CHECK(revision[4] == '-');
  CHECK(revision[7] == '-');
}

TEST_CASE("model::catalog: Qwen3-Next-80B-A3B has 36 GDN layers of 48")
{
  const ModelSpec spec = catalog_spec("qwen3-next-80b-a3b");
  CHECK(spec.architecture == "Qwen3NextForCausalLM");
  CHECK(spec.family == StateFamily::gdn);
  CHECK(spec.num_hidden_layers == 48);
  CHECK(spec.state_layer_ids == ids_where(48, [](int i) { return (i + 1) % 4 != 0; }));
  CHECK(spec.state_layer_ids.size() == 36);
  CHECK(spec.state_layer_ids.front() == 0);
  CHECK(spec.state_layer_ids[3] == 4);
  CHECK(spec.state_layer_ids.back() == 46);
  CHECK(spec.intermediate_size + 2 * spec.n_groups * spec.state_size == 8192); // conv_dim
  CHECK(spec.num_heads == 32);
  CHECK(spec.head_dim == 128);
  CHECK(spec.state_size == 128);
  CHECK(spec.conv_kernel == 4);
  // "no layer_types, no mamba_ssm_dtype"
  CHECK_FALSE(spec.config_ssm_dtype.has_value());
  CHECK(mamba2_conv_item(spec, 1) == 49152);
  CHECK(mamba2_conv_item(spec, 8) == 6144);
  CHECK(mamba2_temporal_item(spec, 1) == 2097152);
  CHECK(mamba2_temporal_item(spec, 8) == 262144);
  CHECK(spec.num_attention_heads == 16);
  CHECK(spec.num_key_value_heads == 2);
}

TEST_CASE("model::catalog: Qwen3.5 entries: state layers, float32 SSM and slot sizes")
{
  const ModelSpec moe = catalog_spec("qwen3.5-35b-a3b");
  CHECK(moe.architecture == "Qwen3_5MoeForConditionalGeneration");
  CHECK(moe.state_layer_ids.size() == 30);
  CHECK(moe.config_ssm_dtype == Dtype::float32);
  CHECK(mamba2_conv_item(moe, 1) == 49152);
  CHECK(mamba2_temporal_item(moe, 1) == 2097152);
  CHECK(mamba2_conv_item(moe, 2) == 24576);
  CHECK(mamba2_temporal_item(moe, 8) == 262144);

  const ModelSpec dense = catalog_spec("qwen3.5-27b");
  CHECK(dense.architecture == "Qwen3_5ForConditionalGeneration");
  CHECK(dense.state_layer_ids.size() == 48);
  CHECK(dense.config_ssm_dtype == Dtype::float32);
  CHECK(mamba2_conv_item(dense, 1) == 61440);
  CHECK(mamba2_temporal_item(dense, 1) == 3145728);
  CHECK(mamba2_conv_item(dense, 8) == 7680);
  CHECK(mamba2_temporal_item(dense, 8) == 393216);
}

TEST_CASE("model::catalog: Nemotron-H-8B has 24 Mamba layers of 52")
{
  const ModelSpec spec = catalog_spec("nemotron-h-8b");
  CHECK(spec.architecture == "NemotronHForCausalLM");
  CHECK(spec.num_hidden_layers == 52);
  CHECK(spec.state_layer_ids ==
        std::vector<int>{0, 2, 4, 6, 9, 11, 13, 15, 17, 20, 22, 24, 26, 28, 31, 33, 35, 37, 39, 42, 44, 46, 48, 50});
  CHECK(spec.num_attention_layers == 4);
  CHECK(spec.intermediate_size + 2 * spec.n_groups * spec.state_size == 10240);
  CHECK(mamba2_conv_item(spec, 1) == 61440);
  CHECK(mamba2_conv_item(spec, 2) == 30720);
  CHECK(mamba2_conv_item(spec, 4) == 15360);
  CHECK(mamba2_conv_item(spec, 8) == 7680);
  CHECK(mamba2_temporal_item(spec, 1) == 4194304);
  CHECK(mamba2_temporal_item(spec, 8) == 524288);
  CHECK(spec.n_groups == 8);
  CHECK_FALSE(spec.config_ssm_dtype.has_value());
}

TEST_CASE("model::catalog: Nemotron-Nano-9B-v2 has 27 Mamba and 4 attention layers")
{
  const ModelSpec spec = catalog_spec("nemotron-nano-9b-v2");
  CHECK(spec.num_hidden_layers == 56);
  CHECK(spec.state_layer_ids.size() == 27);
  CHECK(spec.num_attention_layers == 4);
  CHECK(spec.intermediate_size + 2 * spec.n_groups * spec.state_size == 12288);
  CHECK(mamba2_conv_item(spec, 1) == 73728);
  CHECK(mamba2_conv_item(spec, 8) == 9216);
  CHECK(mamba2_temporal_item(spec, 1) == 5242880);
  CHECK(mamba2_temporal_item(spec, 8) == 655360);
}

TEST_CASE("model::catalog: Nemotron-3-Nano-30B-A3B has 23 Mamba layers and no config SSM dtype")
{
  const ModelSpec spec = catalog_spec("nemotron-3-nano-30b-a3b");
  CHECK(spec.num_hidden_layers == 52);
  CHECK(spec.state_layer_ids.size() == 23);
  // The checkpoint's mamba_ssm_cache_dtype is not a key SGLang reads.
  CHECK_FALSE(spec.config_ssm_dtype.has_value());
  CHECK(mamba2_conv_item(spec, 1) == 36864);
  CHECK(mamba2_conv_item(spec, 2) == 18432);
  CHECK(mamba2_conv_item(spec, 4) == 9216);
  CHECK(mamba2_conv_item(spec, 8) == 4608);
  CHECK(mamba2_temporal_item(spec, 1) == 2097152);
  CHECK(mamba2_temporal_item(spec, 8) == 262144);
}

TEST_CASE("model::catalog: Falcon-H1 entries give every layer state")
{
  const ModelSpec big = catalog_spec("falcon-h1-7b");
  CHECK(big.num_hidden_layers == 44);
  CHECK(big.state_layer_ids.size() == 44);
  CHECK(big.num_attention_layers == 44);
  CHECK(big.n_groups == 1);
  // G == 1 is replicated to tp groups, so the conv width grows with tp.
  CHECK(mamba2_conv_item(big, 1) == 21504);
  CHECK(mamba2_conv_item(big, 2) == 12288);
  CHECK(mamba2_conv_item(big, 4) == 7680);
  CHECK(mamba2_conv_item(big, 8) == 5376);
  CHECK(mamba2_temporal_item(big, 1) == 3145728);
  CHECK(mamba2_temporal_item(big, 8) == 393216);
  CHECK(big.num_attention_heads == 12);

  const ModelSpec small = catalog_spec("falcon-h1-1.5b");
  CHECK(small.state_layer_ids.size() == 24);
  CHECK(mamba2_conv_item(small, 1) == 21504);
  CHECK(mamba2_conv_item(small, 8) == 5376);
  CHECK(mamba2_temporal_item(small, 1) == 3145728);
  CHECK(mamba2_temporal_item(small, 2) == 1572864);
  CHECK(mamba2_temporal_item(small, 4) == 786432);
  CHECK(mamba2_temporal_item(small, 8) == 393216);
}

TEST_CASE("model::catalog: Kimi-Linear-48B-A3B has 20 KDA layers")
{
  const ModelSpec spec = catalog_spec("kimi-linear-48b-a3b");
  CHECK(spec.family == StateFamily::kda);
  CHECK(spec.hybrid_mla);
  CHECK(spec.num_hidden_layers == 27);
  CHECK(spec.state_layer_ids ==
        std::vector<int>{0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25});
  CHECK(spec.num_attention_layers == 7);
  CHECK(spec.kda_num_heads == 32);
  CHECK(spec.kda_head_dim == 128);
  CHECK(spec.kda_num_k_heads == 32);
  CHECK(spec.kda_head_k_dim == 128);
  CHECK(spec.conv_kernel == 4);
  // Recent single conv tensor: (K-1, proj + 2*proj_k) bf16 at tp 1.
  const std::int64_t proj = spec.kda_num_heads * spec.kda_head_dim;
  const std::int64_t proj_k = spec.kda_num_k_heads * spec.kda_head_k_dim;
  CHECK((spec.conv_kernel - 1) * (proj + 2 * proj_k) * 2 == 73728);
  CHECK(spec.kda_num_heads * spec.kda_head_dim * spec.kda_head_dim * 4 == 2097152);
}

TEST_CASE("model::catalog: LFM2-2.6B has 22 conv layers of 30")
{
  const ModelSpec spec = catalog_spec("lfm2-2.6b");
  CHECK(spec.family == StateFamily::short_conv);
  CHECK(spec.num_hidden_layers == 30);
  CHECK(spec.state_layer_ids ==
        std::vector<int>{0, 1, 3, 4, 6, 7, 8, 10, 11, 12, 14, 15, 16, 18, 19, 20, 22, 23, 25, 26, 28, 29});
  CHECK(spec.num_attention_layers == 8);
  CHECK(spec.intermediate_size == 2048);
  CHECK(spec.conv_kernel == 3);
  CHECK(spec.intermediate_size * (spec.conv_kernel - 1) * 2 == 8192); // conv (2048, 2) bf16 at tp 1
  CHECK(spec.state_size == 0);
}

TEST_CASE("model::catalog: Granite-4.0-H-Tiny is identified by model_type")
{
  const ModelSpec spec = catalog_spec("granite-4.0-h-tiny");
  CHECK(spec.architecture == "granitemoehybrid");
  CHECK(spec.num_hidden_layers == 40);
  CHECK(spec.state_layer_ids.size() == 36);
  CHECK(spec.num_attention_layers == 4);
  CHECK(std::find(spec.state_layer_ids.begin(), spec.state_layer_ids.end(), 5) == spec.state_layer_ids.end());
  CHECK(spec.intermediate_size == 3072);
  CHECK(spec.num_heads == 48);
  CHECK(spec.head_dim == 64);
  CHECK(spec.n_groups == 1);
}

TEST_CASE("model::catalog: Jet-Nemotron-2B has 24 JetBlock layers of 28, 12 heads that stop at TP 4")
{
  const ModelSpec spec = catalog_spec("jet-nemotron-2b");
  CHECK(spec.family == StateFamily::gdn);
  CHECK(spec.num_hidden_layers == 28);
  // layer_types: "jet" at 0-13, 15-18 and 22-27; "attn" at 14 and 19, "swa" at 20 and 21.
  CHECK(spec.state_layer_ids == std::vector<int>{0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                                 12, 13, 15, 16, 17, 18, 22, 23, 24, 25, 26, 27});
  CHECK(spec.num_attention_layers == 4);
  // Value head dim int(96 * 2.6666666667) = int(256.0000000032) = 256; I = 12 * 256 = 3072;
  // G = H = 12, so the conv has 3072 + 2 * 12 * 96 = 5376 channels.
  CHECK(spec.head_dim == 256);
  CHECK(spec.state_size == 96);
  CHECK(spec.intermediate_size == 3072);
  CHECK(spec.n_groups == 12);
  CHECK(spec.conv_kernel == 4);
  // Per slot at TP t: conv (5376/t, 3) bf16 = 32256/t bytes; temporal (12/t, 256, 96)
  // fp32 = 1179648/t bytes. TP 8 would need 12 % 8 == 0.
  for (const int tp : {1, 2, 4}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 2);
    CHECK(tensors[0].item_len == 32256 / tp);
    CHECK(tensors[1].item_len == 1179648 / tp);
  }
}

TEST_CASE("model::catalog: Mamba-Codestral-7B is 64 Mamba2 layers sharded by the whole TP")
{
  const ModelSpec spec = catalog_spec("mamba-codestral-7b");
  CHECK(spec.family == StateFamily::mamba2);
  CHECK(spec.state_sharded_by_full_tp);
  CHECK(spec.state_layer_ids.size() == 64);
  // conv channels I + 2*G*N = 8192 + 2*8*128 = 10240; temporal (128, 64, 128).
  for (const int tp : {1, 2, 4, 8}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 2);
    CHECK(tensors[0].per_slot_shape == std::vector<std::int64_t>{10240 / tp, 3});
    CHECK(tensors[0].item_len == 10240 / tp * 3 * 2); // bf16: 61440 at tp 1
    CHECK(tensors[1].per_slot_shape == std::vector<std::int64_t>{128 / tp, 64, 128});
    CHECK(tensors[1].item_len == 128 / tp * 64 * 128 * 4); // fp32: 4194304 at tp 1
    CHECK(tensors[0].item_len == mamba2_conv_item(spec, tp));
    CHECK(tensors[1].item_len == mamba2_temporal_item(spec, tp));
  }
}

TEST_CASE("model::catalog: ZAYA1-8B's native schema is 40 CCA layers of 80, TP 1 or 2")
{
  const ModelSpec spec = catalog_spec("zaya1-8b");
  // moe_intermediate_size marks the native schema: 40 "hybrid" entries are 80
  // layers, the CCA attention on the even ones.
  CHECK(spec.num_hidden_layers == 80);
  CHECK(spec.state_layer_ids == ids_where(80, [](int i) { return i % 2 == 0; }));
  // conv (heads + kv) * head_dim = (8 + 2) * 128 = 1280 channels, (2-1) + (2-1) = 2
  // taps; prev_hs (hidden 2048, 1), whole on every rank.
  for (const int tp : {1, 2}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 3);
    CHECK(tensors[0].per_slot_shape == std::vector<std::int64_t>{1280 / tp, 2});
    CHECK(tensors[0].item_len == 1280 / tp * 2 * 2);
    CHECK(tensors[1].name == "prev_hs");
    CHECK(tensors[1].replicated);
    CHECK(tensors[1].item_len == 2048 * 2);
  }
}

TEST_CASE("model::catalog: LFM2-8B-A1B has 18 conv layers of 24")
{
  const ModelSpec spec = catalog_spec("lfm2-8b-a1b");
  CHECK(spec.family == StateFamily::short_conv);
  CHECK(spec.architecture == "lfm2_moe");
  // layer_types: full_attention at 2, 6, 10, 14, 18 and 21.
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 3, 4, 5, 7, 8, 9, 11, 12, 13, 15, 16, 17, 19, 20, 22, 23});
  CHECK(spec.num_attention_layers == 6);
  // conv (hidden 2048 / tp, conv_L_cache 3 - 1) bf16: 8192 bytes at tp 1.
  for (const int tp : {1, 2, 4, 8, 16, 32}) {
    INFO("tp " << tp);
    CHECK(catalog_layout(spec, tp).ranks[0].tensors[0].item_len == 2048 / tp * 2 * 2);
  }
}

TEST_CASE("model::catalog: Kimi-K3 has 69 KDA layers of 93, numbered from 1 in its config")
{
  const ModelSpec spec = catalog_spec("kimi-k3");
  CHECK(spec.family == StateFamily::kda);
  CHECK(spec.hybrid_mla);
  CHECK(spec.num_hidden_layers == 93);
  // kda_layers 1-91 without the multiples of 4, 1-based: 0-based ids 0-90 without 3, 7, ..., 87.
  CHECK(spec.state_layer_ids == ids_where(91, [](int i) { return (i + 1) % 4 != 0; }));
  CHECK(spec.num_attention_layers == 24);
  // Per slot at TP t: conv (3, 3 * 96 * 128 / t) bf16 = 221184/t bytes; temporal
  // (96/t, 128, 128) fp32 = 6291456/t bytes. 96 heads stop at TP 32.
  for (const int tp : {1, 2, 4, 8, 16, 32}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 2);
    CHECK(tensors[0].per_slot_shape == std::vector<std::int64_t>{3, 36864 / tp});
    CHECK(tensors[0].item_len == 221184 / tp);
    CHECK(tensors[1].item_len == 6291456 / tp);
  }
}

TEST_CASE("model::catalog: Qwen3.6-27B has 48 GDN layers of 64 with 48 value heads")
{
  const ModelSpec spec = catalog_spec("qwen3.6-27b");
  CHECK(spec.family == StateFamily::gdn);
  CHECK(spec.state_layer_ids == ids_where(64, [](int i) { return (i + 1) % 4 != 0; }));
  CHECK(spec.config_ssm_dtype == Dtype::float32);
  // conv channels 2 * 16 * 128 + 48 * 128 = 10240 (the checkpoint's conv1d is 10240
  // wide); temporal (48, 128, 128) fp32. 24 attention heads stop at TP 8.
  for (const int tp : {1, 2, 4, 8}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 2);
    CHECK(tensors[0].item_len == 10240 / tp * 3 * 2);
    CHECK(tensors[1].per_slot_shape == std::vector<std::int64_t>{48 / tp, 128, 128});
    CHECK(tensors[1].item_len == 48 / tp * 128 * 128 * 4);
  }
}

TEST_CASE("model::catalog: Qwen3.6-35B-A3B has 30 GDN layers of 40, up to TP 16")
{
  const ModelSpec spec = catalog_spec("qwen3.6-35b-a3b");
  CHECK(spec.state_layer_ids == ids_where(40, [](int i) { return (i + 1) % 4 != 0; }));
  // conv 2 * 16 * 128 + 32 * 128 = 8192 channels (the checkpoint's conv1d width);
  // temporal (32, 128, 128) fp32. 16 attention heads stop at TP 16.
  for (const int tp : {1, 2, 4, 8, 16}) {
    INFO("tp " << tp);
    const Layout layout = catalog_layout(spec, tp);
    const auto& tensors = layout.ranks[0].tensors;
    REQUIRE(tensors.size() == 2);
    CHECK(tensors[0].item_len == 8192 / tp * 3 * 2);
    CHECK(tensors[1].item_len == 32 / tp * 128 * 128 * 4);
  }
}

TEST_CASE("model::catalog: ZAYA1-8B's two published schemas register the same state")
{
  // The legacy Megatron-style config (80 layers, attention on the even ones) and
  // the native one (40 hybrid layers, doubled) describe one checkpoint. The
  // legacy config's mamba_cache_dtype "float32" is vLLM's key: ZayaConfig's
  // mamba2_state_dtype(self) (configs/zaya.py@09a71bec) never reads it, so the
  // conv tensors stay bfloat16 in both.
  const ModelSpec legacy = catalog_spec("zaya1-8b-legacy");
  const ModelSpec native = catalog_spec("zaya1-8b");
  CHECK(legacy.num_hidden_layers == 80);
  CHECK(legacy.state_layer_ids == native.state_layer_ids);
  for (const int tp : {1, 2}) {
    INFO("tp " << tp);
    const Layout a = catalog_layout(legacy, tp);
    const Layout b = catalog_layout(native, tp);
    REQUIRE(a.ranks[0].tensors.size() == b.ranks[0].tensors.size());
    for (std::size_t i = 0; i < a.ranks[0].tensors.size(); ++i) {
      CHECK(a.ranks[0].tensors[i].per_slot_shape == b.ranks[0].tensors[i].per_slot_shape);
      CHECK(a.ranks[0].tensors[i].item_len == b.ranks[0].tensors[i].item_len);
    }
  }
}
