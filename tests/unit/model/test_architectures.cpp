// The architecture table (model/architectures.cpp) and the layouts of the
// architectures added with it, hand-computed at TP 1, 2, 4 and 8 from the
// formulas of SGLang's shape builders (configs/mamba_utils.py@02e208de:
// Mamba2StateShape.create, KimiLinearStateShape.create; SimpleGLAStateShape in
// configs/minicpm.py@b844e97b). Conv bf16 (2 bytes), temporal fp32 (4 bytes)
// unless a test says otherwise; the profile is v0.5.20 (zero-size tensors are
// not registered, dims are the sharded axis).
#include "model/architectures.hpp"
#include "model/catalog.hpp"
#include "model/layout.hpp"
#include "model/model_spec.hpp"
#include "core/profile.hpp"
#include "util/error.hpp"

#include "../../support/model_read.hpp"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pdcheck;
using namespace pdcheck::model;
using nlohmann::json;

namespace {

const std::string& k_origin = test::k_model_origin;
ModelSpec read(const json& config) { return test::read_model(config); }
InputError read_error(const json& config) { return test::read_model_error(config); }

/// One expected state tensor of one rank: its per-slot shape, item_len in
/// bytes and the dim it registers.
struct Tensor
{
  std::vector<std::int64_t> shape;
  std::int64_t item_len;
  std::int64_t dim;
};

Layout layout_of(const ModelSpec& m, int tp, const char* profile = "v0.5.20")
{
  LayoutInput in;
  in.model = m;
  in.profile = *find_profile(profile);
  in.tp_size = tp;
  return compute_layout(in);
}

/// Every rank at `tp` holds exactly `registered` (the tensors with bytes, in
/// SGLang's order) over `layers` state layers.
void check_at(const ModelSpec& m, int tp, const std::vector<Tensor>& registered)
{
  INFO(m.architecture << " at tp " << tp);
  const Layout layout = layout_of(m, tp);
  REQUIRE(layout.servable());
  REQUIRE(layout.ranks.size() == static_cast<std::size_t>(tp));
  const RankLayout& r = layout.ranks.front();
  std::vector<Tensor> got;
  std::int64_t per_layer = 0;
  for (const StateTensor& t : r.tensors) {
    if (t.registered) {
      got.push_back({t.per_slot_shape, t.item_len, t.registered_dim});
      per_layer += t.item_len;
    }
  }
  REQUIRE(got.size() == registered.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i].shape == registered[i].shape);
    CHECK(got[i].item_len == registered[i].item_len);
    CHECK(got[i].dim == registered[i].dim);
  }
  CHECK(r.bytes_per_request == per_layer * static_cast<std::int64_t>(m.state_layer_ids.size()));
}

json nemotron_nano_llm()
{
  // NVIDIA-Nemotron-Nano-9B-v2's Mamba keys on a 7-layer pattern.
  return json{{"hybrid_override_pattern", "M-M*-M-"},
              {"mamba_num_heads", 128},
              {"mamba_head_dim", 80},
              {"n_groups", 8},
              {"ssm_state_size", 128},
              {"conv_kernel", 4},
              {"num_attention_heads", 40},
              {"num_key_value_heads", 8}};
}

json jet_nemotron()
{
  // SGLang's own unit-test config (test/registered/unit/configs/test_jet_nemotron.py@c2334321).
  return json{{"architectures", {"JetNemotronForCausalLM"}},
              {"model_type", "jet_nemotron"},
              {"layer_types", {"attn", "jet", "swa", "jet"}},
              {"efficient_attention_config",
               {{"jet", {{"num_heads", 8}, {"head_dim", 16}, {"expand_v", 2.0}, {"conv_size", 4}}}}},
              {"num_attention_heads", 8},
              {"num_key_value_heads", 2}};
}

json kimi_text()
{
  return json{{"num_hidden_layers", 8},
              {"num_attention_heads", 64},
              {"linear_attn_config",
               {{"num_heads", 32}, {"head_dim", 128}, {"short_conv_kernel_size", 4}, {"kda_layers", {1, 2, 3, 5, 6, 7}}}}};
}

json bailing()
{
  return json{{"architectures", {"BailingMoeV2_5ForCausalLM"}},
              {"model_type", "bailing_hybrid"},
              {"num_hidden_layers", 8},
              {"layer_group_size", 4},
              {"num_attention_heads", 16},
              {"num_key_value_heads", 4},
              {"head_dim", 128}};
}

} // namespace

TEST_CASE("architectures: one row per architecture, each with its sources and a verdict")
{
  std::set<std::string_view> names;
  for (const Architecture& row : architectures()) {
    INFO(row.architecture);
    CHECK(names.insert(row.architecture).second);
    CHECK_FALSE(row.model_type.empty());
    // Every row cites SGLang files at a commit, supported or not.
    CHECK(row.sglang_source.find('@') != std::string_view::npos);
    if (row.reader == ConfigReader::refused) {
      CHECK_FALSE(row.refusal.empty());
      CHECK(row.confidence.empty());
    } else {
      CHECK(row.refusal.empty());
      CHECK((row.confidence == "high" || row.confidence == "medium"));
      // A medium row says what is not confirmed.
      CHECK(row.note.empty() == (row.confidence == "high"));
    }
    CHECK(find_architecture(row.architecture) == &row);
  }
  // The list, each either laid out or refused with a reason.
  for (const char* name :
       {"JambaForCausalLM", "BambaForCausalLM", "Mamba2ForCausalLM", "Nemotron3ForCausalLM", "NemotronH_Nano_VL_V2",
        "BailingMoeV2_5ForCausalLM", "BailingMoeV3ForCausalLM", "BailingMoeLinearV2ForCausalLM",
        "MiniMaxText01ForCausalLM", "MiniMaxM1ForCausalLM",
        "MiniMaxM3SparseForCausalLM", "MiniCPMSALAForCausalLM", "ZayaForCausalLM", "KimiK3ForConditionalGeneration",
        "Glm5NextForConditionalGeneration", "Qwen4ExpForConditionalGeneration", "JetNemotronForCausalLM",
        "JetVLMForConditionalGeneration", "InternS2PreviewForConditionalGeneration", "Lfm2VlForConditionalGeneration"}) {
    INFO(name);
    CHECK(find_architecture(name) != nullptr);
  }
}

TEST_CASE("architectures: a refused architecture says why, naming its sources")
{
  for (const Architecture& row : architectures()) {
    if (row.reader != ConfigReader::refused) {
      continue;
    }
    INFO(row.architecture);
    const InputError e = read_error(json{{"architectures", {row.architecture}}, {"model_type", row.model_type}});
    CHECK(e.where() == k_origin);
    CHECK(e.detail() == "architecture '" + std::string(row.architecture) + "' is not supported: " +
                          std::string(row.refusal) + " (" + std::string(row.sglang_source) + ")");
    // Without an architectures list, the model_type finds the same row.
    const InputError by_type = read_error(json{{"model_type", row.model_type}});
    CHECK(by_type.detail().find(std::string(row.refusal)) != std::string::npos);
  }
}

TEST_CASE("architectures: Mamba2ForCausalLM shards its state by the whole TP size")
{
  // Mamba-Codestral-7B's shape: hidden 4096, expand 2 -> I 8192; H 128, P 64,
  // N 128, G 8, K 4; every one of the 64 layers is Mamba2.
  const json config{{"architectures", {"Mamba2ForCausalLM"}}, {"model_type", "mamba2"}, {"num_hidden_layers", 64},
                    {"hidden_size", 4096}, {"expand", 2}, {"num_heads", 128}, {"head_dim", 64},
                    {"state_size", 128}, {"n_groups", 8}, {"conv_kernel", 4}};
  const ModelSpec m = read(config);
  CHECK(m.state_layer_ids.size() == 64);
  CHECK(m.confidence == "medium");
  CHECK(m.state_sharded_by_full_tp);
  CHECK_FALSE(m.config_ssm_dtype.has_value());
  // conv (I + 2*G*N)/tp = 10240/tp channels x 3 in bf16; temporal (128/tp, 64, 128) fp32.
  check_at(m, 1, {{{10240, 3}, 10240 * 3 * 2, 10240}, {{128, 64, 128}, 128 * 64 * 128 * 4, 128}});
  check_at(m, 2, {{{5120, 3}, 30720, 5120}, {{64, 64, 128}, 2097152, 64}});
  check_at(m, 4, {{{2560, 3}, 15360, 2560}, {{32, 64, 128}, 1048576, 32}});
  check_at(m, 8, {{{1280, 3}, 7680, 1280}, {{16, 64, 128}, 524288, 16}});
  // TP 16 does not divide the 8 groups, and 8 is not 1: the mixer refuses.
  const Layout at16 = layout_of(m, 16);
  REQUIRE_FALSE(at16.servable());
  CHECK(at16.findings.front().message == "n_groups 8 is not divisible by TP size 16 and is not 1");

  // With DP attention the attention TP is 2 while the state is cut four ways.
  LayoutInput dp;
  dp.model = m;
  dp.profile = *find_profile("v0.5.20");
  dp.tp_size = 4;
  dp.dp_size = 2;
  dp.enable_dp_attention = true;
  const Layout l = compute_layout(dp);
  REQUIRE(l.servable());
  CHECK(l.attn_tp_size == 2);
  REQUIRE(l.ranks.size() == 2);
  CHECK(l.ranks[0].tensors[0].per_slot_shape == std::vector<std::int64_t>{2560, 3});
}

TEST_CASE("architectures: Nemotron-3 and the Nano-VL wrapper read NemotronH keys")
{
  json n3 = nemotron_nano_llm();
  n3["architectures"] = {"Nemotron3ForCausalLM"};
  n3["model_type"] = "nemotron_3";
  // MTP layers live in their own list and own no state.
  n3["mtp_hybrid_override_pattern"] = "*E";
  const ModelSpec m3 = read(n3);
  CHECK(m3.state_layer_ids == std::vector<int>{0, 2, 5});
  CHECK(m3.num_attention_layers == 1);
  CHECK(m3.confidence == "medium");
  // The same Mamba2 keys as the Nano-VL below: conv 12288/tp, temporal (128/tp, 80, 128).
  check_at(m3, 1, {{{12288, 3}, 73728, 12288}, {{128, 80, 128}, 5242880, 128}});
  check_at(m3, 2, {{{6144, 3}, 36864, 6144}, {{64, 80, 128}, 2621440, 64}});
  check_at(m3, 4, {{{3072, 3}, 18432, 3072}, {{32, 80, 128}, 1310720, 32}});
  check_at(m3, 8, {{{1536, 3}, 9216, 1536}, {{16, 80, 128}, 655360, 16}});
  // Nemotron-3 names its layers in layers_block_type instead of the pattern.
  json blocks = n3;
  blocks.erase("hybrid_override_pattern");
  blocks["layers_block_type"] = {"mamba", "mlp", "mamba", "attention", "moe", "mamba", "mlp"};
  CHECK(read(blocks).state_layer_ids == std::vector<int>{0, 2, 5});

  const json vl{{"architectures", {"NemotronH_Nano_VL_V2"}},
                {"model_type", "NemotronH_Nano_VL_V2"},
                {"llm_config", nemotron_nano_llm()},
                {"vision_config", {{"hidden_size", 1280}}}};
  const ModelSpec m = read(vl);
  CHECK(m.family == StateFamily::mamba2);
  CHECK(m.state_layer_ids == std::vector<int>{0, 2, 5});
  CHECK(m.confidence == "high");
  // I = 128 * 80 = 10240; conv 10240 + 2*8*128 = 12288 channels; temporal (128, 80, 128).
  check_at(m, 1, {{{12288, 3}, 73728, 12288}, {{128, 80, 128}, 5242880, 128}});
  check_at(m, 2, {{{6144, 3}, 36864, 6144}, {{64, 80, 128}, 2621440, 64}});
  check_at(m, 4, {{{3072, 3}, 18432, 3072}, {{32, 80, 128}, 1310720, 32}});
  check_at(m, 8, {{{1536, 3}, 9216, 1536}, {{16, 80, 128}, 655360, 16}});

  // The SSM dtype is the language model's own key.
  json bf16 = vl;
  bf16["llm_config"]["mamba_ssm_dtype"] = "bfloat16";
  CHECK(read(bf16).config_ssm_dtype == Dtype::bfloat16);

  json bare = vl;
  bare.erase("llm_config");
  CHECK(read_error(bare).detail() == "missing key 'llm_config' (expected an object) for NemotronH_Nano_VL_V2");
  bare["llm_config"] = "nemotron";
  CHECK(read_error(bare).detail() ==
        "key 'llm_config' must be an object, got \"nemotron\" for NemotronH_Nano_VL_V2");
  json partial = vl;
  partial["llm_config"].erase("mamba_head_dim");
  CHECK(read_error(partial).detail() ==
        "missing key 'llm_config.mamba_head_dim' (expected a positive integer) for NemotronH_Nano_VL_V2");
}

TEST_CASE("architectures: Jet-Nemotron and JetVLM are GDN without conv shard groups")
{
  const ModelSpec m = read(jet_nemotron());
  CHECK(m.family == StateFamily::gdn);
  CHECK(m.state_layer_ids == std::vector<int>{1, 3});
  CHECK(m.num_attention_layers == 2);
  CHECK_FALSE(m.gdn_conv_shard_groups);
  // Dv = int(16 * 2.0) = 32; I = 8 * 32 = 256; G = H = 8, so conv 256 + 2*8*16 = 512
  // channels; temporal (8, 32, 16) with the value dim before the key dim.
  check_at(m, 1, {{{512, 3}, 3072, 512}, {{8, 32, 16}, 16384, 8}});
  check_at(m, 2, {{{256, 3}, 1536, 256}, {{4, 32, 16}, 8192, 4}});
  check_at(m, 4, {{{128, 3}, 768, 128}, {{2, 32, 16}, 4096, 2}});
  check_at(m, 8, {{{64, 3}, 384, 64}, {{1, 32, 16}, 2048, 1}});
  // No [key, key, value] groups: newer transfers slice the conv as one block.
  CHECK(layout_of(m, 2).ranks[0].tensors[0].conv_shard_groups.empty());

  json vlm{{"architectures", {"JetVLMForConditionalGeneration"}}, {"model_type", "jet_vlm"}};
  vlm["text_config"] = jet_nemotron();
  const ModelSpec v = read(vlm);
  CHECK(v.state_layer_ids == m.state_layer_ids);
  CHECK(v.intermediate_size == 256);
  check_at(v, 1, {{{512, 3}, 3072, 512}, {{8, 32, 16}, 16384, 8}});
  check_at(v, 2, {{{256, 3}, 1536, 256}, {{4, 32, 16}, 8192, 4}});
  check_at(v, 4, {{{128, 3}, 768, 128}, {{2, 32, 16}, 4096, 2}});
  check_at(v, 8, {{{64, 3}, 384, 64}, {{1, 32, 16}, 2048, 1}});

  json bad = jet_nemotron();
  bad["efficient_attention_config"]["jet"]["expand_v"] = "2";
  CHECK(read_error(bad).detail() == "key 'efficient_attention_config.jet.expand_v' must be a positive number, got "
                                    "\"2\" for JetNemotronForCausalLM");
}

TEST_CASE("architectures: Intern-S2-Preview is Qwen3.5-MoE's GDN under text_config")
{
  const json config{{"architectures", {"InternS2PreviewForConditionalGeneration"}},
                    {"model_type", "intern_s2_preview"},
                    {"text_config",
                     {{"num_hidden_layers", 8}, {"full_attention_interval", 4}, {"linear_num_value_heads", 32},
                      {"linear_num_key_heads", 16}, {"linear_value_head_dim", 128}, {"linear_key_head_dim", 128},
                      {"linear_conv_kernel_dim", 4}, {"num_attention_heads", 16}, {"num_key_value_heads", 2}}}};
  const ModelSpec m = read(config);
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  // conv (32*128 + 2*16*128)/tp = 8192/tp; temporal (32/tp, 128, 128).
  check_at(m, 1, {{{8192, 3}, 49152, 8192}, {{32, 128, 128}, 2097152, 32}});
  check_at(m, 2, {{{4096, 3}, 24576, 4096}, {{16, 128, 128}, 1048576, 16}});
  check_at(m, 4, {{{2048, 3}, 12288, 2048}, {{8, 128, 128}, 524288, 8}});
  check_at(m, 8, {{{1024, 3}, 6144, 1024}, {{4, 128, 128}, 262144, 4}});
  CHECK(layout_of(m, 2).ranks[0].tensors[0].conv_shard_groups == std::vector<std::int64_t>{2048, 2048, 4096});

  json bare = config;
  bare.erase("text_config");
  CHECK(read_error(bare).detail() ==
        "missing key 'text_config' (expected an object) for InternS2PreviewForConditionalGeneration");
}

TEST_CASE("architectures: Intern-S2-Mobius is GDN under text_config, its layers from full_attention_interval")
{
  // configs/interns2_mobius.py@252129ae: a Qwen3.5-MoE text config. 12 layers,
  // interval 4: state on 0,1,2,4,5,6,8,9,10. Hv 16 x Dv 128, Hk 8 x Dk 128:
  // conv (16*128 + 2*8*128)/tp = 4096/tp; temporal (16/tp, 128, 128) fp32.
  const json config{{"architectures", {"InternS2MobiusForConditionalGeneration"}},
                    {"model_type", "interns2_mobius"},
                    {"mamba_ssm_dtype", "bfloat16"}, // a wrapper's key: never read
                    {"text_config",
                     {{"num_hidden_layers", 12}, {"full_attention_interval", 4}, {"linear_num_value_heads", 16},
                      {"linear_num_key_heads", 8}, {"linear_value_head_dim", 128}, {"linear_key_head_dim", 128},
                      {"linear_conv_kernel_dim", 4}, {"num_attention_heads", 16}, {"num_key_value_heads", 2}}}};
  const ModelSpec m = read(config);
  CHECK(m.confidence == "medium");
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6, 8, 9, 10});
  CHECK_FALSE(m.config_ssm_dtype.has_value());
  check_at(m, 1, {{{4096, 3}, 24576, 4096}, {{16, 128, 128}, 1048576, 16}});
  check_at(m, 2, {{{2048, 3}, 12288, 2048}, {{8, 128, 128}, 524288, 8}});
  check_at(m, 4, {{{1024, 3}, 6144, 1024}, {{4, 128, 128}, 262144, 4}});
  check_at(m, 8, {{{512, 3}, 3072, 512}, {{2, 128, 128}, 131072, 2}});
  // 16 value heads stop at TP 32.
  CHECK_FALSE(layout_of(m, 32).servable());

  // layer_types that agree with the interval are fine; any other are refused.
  json periodic = config;
  json types = json::array();
  for (int i = 0; i < 12; ++i) {
    types.push_back((i + 1) % 4 == 0 ? "full_attention" : "linear_attention");
  }
  periodic["text_config"]["layer_types"] = types;
  CHECK(read(periodic).state_layer_ids == m.state_layer_ids);
  periodic["text_config"]["layer_types"][0] = "full_attention";
  CHECK(read_error(periodic).detail() ==
        "key 'text_config.layer_types' makes 8 layers linear attention, but full_attention_interval 4 gives the Mamba "
        "pool 9 state layers; SGLang's InternS2MobiusForConditionalGeneration takes the model's layers from the one "
        "and the pool's from the other, so the state layout is undefined");
}

TEST_CASE("architectures: Kimi-K3 is Kimi-Linear under text_config")
{
  json config{{"architectures", {"KimiK3ForConditionalGeneration"}}, {"model_type", "kimi_k3"}};
  config["text_config"] = kimi_text();
  const ModelSpec m = read(config);
  CHECK(m.family == StateFamily::kda);
  CHECK(m.hybrid_mla);
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6}); // kda_layers is 1-based
  CHECK(m.confidence == "medium");
  // One conv (K-1, 3*H*D/tp) = (3, 12288/tp), sliced on axis 1; temporal (32/tp, 128, 128).
  check_at(m, 1, {{{3, 12288}, 73728, 12288}, {{32, 128, 128}, 2097152, 32}});
  check_at(m, 2, {{{3, 6144}, 36864, 6144}, {{16, 128, 128}, 1048576, 16}});
  check_at(m, 4, {{{3, 3072}, 18432, 3072}, {{8, 128, 128}, 524288, 8}});
  check_at(m, 8, {{{3, 1536}, 9216, 1536}, {{4, 128, 128}, 262144, 4}});

  json bad = config;
  bad["text_config"]["linear_attn_config"]["kda_layers"] = {0, 2};
  CHECK(read_error(bad).detail() == "key 'text_config.linear_attn_config.kda_layers' holds 0, outside 1..8 (the list "
                                    "is 1-based) for KimiK3ForConditionalGeneration");
}

TEST_CASE("architectures: GLM-5-Next lays KDA out from linear_* keys or a 0-based kda_layers")
{
  // The class defaults: 64 heads of 128, kernel 4; every fourth layer full attention.
  json config{{"architectures", {"Glm5NextForConditionalGeneration"}}, {"model_type", "glm5_next"},
              {"num_hidden_layers", 8}, {"num_attention_heads", 64}};
  const ModelSpec m = read(config);
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  CHECK(m.kda_num_heads == 64);
  // conv (3, 3*64*128/tp) = (3, 24576/tp); temporal (64/tp, 128, 128).
  check_at(m, 1, {{{3, 24576}, 147456, 24576}, {{64, 128, 128}, 4194304, 64}});
  check_at(m, 2, {{{3, 12288}, 73728, 12288}, {{32, 128, 128}, 2097152, 32}});
  check_at(m, 4, {{{3, 6144}, 36864, 6144}, {{16, 128, 128}, 1048576, 16}});
  check_at(m, 8, {{{3, 3072}, 18432, 3072}, {{8, 128, 128}, 524288, 8}});

  // The same keys under text_config, with layer_types.
  json wrapped{{"architectures", {"Glm5NextForConditionalGeneration"}}, {"model_type", "glm5_next"}};
  wrapped["text_config"] = {{"num_hidden_layers", 4},
                            {"num_attention_heads", 64},
                            {"linear_num_heads", 32},
                            {"layer_types", {"linear_attention", "full_attention", "linear_attention", "full_attention"}}};
  const ModelSpec w = read(wrapped);
  CHECK(w.state_layer_ids == std::vector<int>{0, 2});
  CHECK(w.kda_num_heads == 32);

  // A nested linear_attn_config counts layers from 0, unlike Kimi's.
  json nested = config;
  nested["linear_attn_config"] = {{"num_heads", 16}, {"head_dim", 64}, {"short_conv_kernel_size", 4},
                                  {"kda_layers", {0, 1, 2}}};
  CHECK(read(nested).state_layer_ids == std::vector<int>{0, 1, 2});
  nested["linear_attn_config"]["kda_layers"] = {8};
  CHECK(read_error(nested).detail() == "key 'linear_attn_config.kda_layers' holds 8, outside 0..7 (the list is "
                                       "0-based) for Glm5NextForConditionalGeneration");
}

TEST_CASE("architectures: GLM-5-Next's text config takes the top-level keys text_config leaves out")
{
  // Glm5NextConfig builds its text config from {listed top-level keys,
  // text_config's keys} (configs/glm5_next.py@16e1767c). Top level: 32 heads
  // of 64; text_config: 8 layers (every fourth full attention: 0,1,2,4,5,6).
  // conv (3, 3*32*64/tp) = (3, 6144/tp); temporal (32/tp, 64, 64) fp32.
  json config{{"architectures", {"Glm5NextForConditionalGeneration"}}, {"model_type", "glm5_next"},
              {"linear_num_heads", 32}, {"linear_head_dim", 64}, {"num_hidden_layers", 45}};
  config["text_config"] = {{"num_hidden_layers", 8}, {"num_attention_heads", 64}};
  const ModelSpec m = read(config);
  CHECK(m.num_hidden_layers == 8); // text_config's own key wins
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  check_at(m, 1, {{{3, 6144}, 36864, 6144}, {{32, 64, 64}, 524288, 32}});
  check_at(m, 2, {{{3, 3072}, 18432, 3072}, {{16, 64, 64}, 262144, 16}});
  check_at(m, 4, {{{3, 1536}, 9216, 1536}, {{8, 64, 64}, 131072, 8}});
  check_at(m, 8, {{{3, 768}, 4608, 768}, {{4, 64, 64}, 65536, 4}});

  // A top-level key is named by its own path when it is wrong.
  json bad = config;
  bad["linear_num_heads"] = "many";
  CHECK(read_error(bad).detail() ==
        "key 'linear_num_heads' must be a positive integer, got \"many\" for Glm5NextForConditionalGeneration");
  // text_config's own key wins over the top-level one.
  json both = config;
  both["text_config"]["linear_num_heads"] = 16;
  CHECK(read(both).kda_num_heads == 16);
}

TEST_CASE("architectures: RWKV-7, two whole token shifts and a WKV state sharded by head, all float32")
{
  // Rwkv7StateShape.create (configs/mamba_utils.py@02e208de) from
  // configs/rwkv7.py@5e00420b: hidden 2048, head_dim 64, "num_heads": null
  // -> 2048 // 64 = 32 heads; every one of the 24 layers holds state.
  // shift_tm and shift_cm (2048, 1) fp32 = 8192 bytes on every rank, dim 2048;
  // temporal (32/tp, 64, 64) fp32 = 32/tp * 16384 bytes.
  const json config{{"architectures", {"RWKV7ForCausalLM"}}, {"model_type", "rwkv7"}, {"hidden_size", 2048},
                    {"head_dim", 64},  {"num_heads", nullptr},  {"num_hidden_layers", 24}};
  ModelSpec m = read(config);
  CHECK(m.family == StateFamily::rwkv7);
  CHECK(m.state_layer_ids.size() == 24);
  CHECK(m.num_attention_layers == 0);
  CHECK(m.num_heads == 32);
  CHECK(m.fixed_state_dtype == Dtype::float32);
  CHECK(m.confidence == "medium");
  // The config class fixes float32 for both; what a side's flags would pick is
  // applied in sglang::layout_input, so the test sets it as that does.
  const auto at = [&](int tp, const std::vector<Tensor>& expected) {
    LayoutInput in;
    in.model = m;
    in.profile = *find_profile("v0.5.20");
    in.tp_size = tp;
    in.conv_dtype = in.ssm_dtype = Dtype::float32;
    const Layout l = compute_layout(in);
    REQUIRE(l.servable());
    for (const RankLayout& r : l.ranks) {
      REQUIRE(r.tensors.size() == expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        CHECK(r.tensors[i].per_slot_shape == expected[i].shape);
        CHECK(r.tensors[i].item_len == expected[i].item_len);
        CHECK(r.tensors[i].registered_dim == expected[i].dim);
      }
      CHECK(r.tensors[0].replicated);
      CHECK(r.tensors[1].replicated);
      CHECK_FALSE(r.tensors[2].replicated);
    }
  };
  at(1, {{{2048, 1}, 8192, 2048}, {{2048, 1}, 8192, 2048}, {{32, 64, 64}, 524288, 32}});
  at(2, {{{2048, 1}, 8192, 2048}, {{2048, 1}, 8192, 2048}, {{16, 64, 64}, 262144, 16}});
  at(4, {{{2048, 1}, 8192, 2048}, {{2048, 1}, 8192, 2048}, {{8, 64, 64}, 131072, 8}});
  at(8, {{{2048, 1}, 8192, 2048}, {{2048, 1}, 8192, 2048}, {{4, 64, 64}, 65536, 4}});
  // 32 heads stop at TP 64.
  const Layout wide = layout_of(m, 64);
  REQUIRE_FALSE(wide.servable());
  CHECK(wide.findings.front().message == "RWKV-7 heads 32 is not divisible by attention TP size 64");

  // The class's refusals, with its texts.
  json hybrid = config;
  hybrid["attn"] = {{"layers", {1}}};
  CHECK(read_error(hybrid).detail() ==
        "key 'attn' is set; SGLang's Rwkv7Config raises \"fla hybrid-attention RWKV-7 variants (config 'attn' set) "
        "are not supported by this implementation\" for RWKV7ForCausalLM");
  json post_norm = config;
  post_norm["norm_first"] = false;
  CHECK(read_error(post_norm).detail() ==
        "key 'norm_first' is false; SGLang's Rwkv7Config raises \"RWKV-7 checkpoints with norm_first=False are not "
        "supported\" for RWKV7ForCausalLM");
  json no_head_dim = config;
  no_head_dim["head_dim"] = nullptr;
  CHECK(read_error(no_head_dim).detail() ==
        "key 'head_dim' is null; SGLang's Rwkv7Config raises \"Rwkv7Config requires head_dim (checkpoint config)\" "
        "for RWKV7ForCausalLM");
  // Rwkv7ForCausalLM is the same class under SGLang's other EntryClass name.
  json other = config;
  other["architectures"] = {"Rwkv7ForCausalLM"};
  CHECK(read(other).state_layer_ids == m.state_layer_ids);
}

TEST_CASE("architectures: LFM2-VL is LFM2's short conv under text_config")
{
  const json config{{"architectures", {"Lfm2VlForConditionalGeneration"}},
                    {"model_type", "lfm2_vl"},
                    {"text_config",
                     {{"num_hidden_layers", 3}, {"layer_types", {"conv", "full_attention", "conv"}},
                      {"hidden_size", 1024}, {"conv_L_cache", 3}, {"num_attention_heads", 16},
                      {"num_key_value_heads", 8}}}};
  const ModelSpec m = read(config);
  CHECK(m.family == StateFamily::short_conv);
  CHECK(m.state_layer_ids == std::vector<int>{0, 2});
  // conv (1024/tp, 2) bf16; the temporal (1, 1024, 0) has no bytes and v0.5.20 does not register it.
  check_at(m, 1, {{{1024, 2}, 4096, 1024}});
  check_at(m, 2, {{{512, 2}, 2048, 512}});
  check_at(m, 4, {{{256, 2}, 1024, 256}});
  check_at(m, 8, {{{128, 2}, 512, 128}});
}

TEST_CASE("architectures: BailingHybrid's lightning state has no conv bytes")
{
  const ModelSpec m = read(bailing());
  CHECK(m.family == StateFamily::lightning);
  // (l+1) % layer_group_size != 0 is linear: 0, 1, 2, 4, 5, 6 of 8.
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  CHECK(m.num_attention_layers == 2);
  // Mamba2StateShape.create(I=0, G=0, H=16, P=N=128, K=1): conv (0, 0), temporal (16/tp, 128, 128).
  check_at(m, 1, {{{16, 128, 128}, 1048576, 16}});
  check_at(m, 2, {{{8, 128, 128}, 524288, 8}});
  check_at(m, 4, {{{4, 128, 128}, 262144, 4}});
  check_at(m, 8, {{{2, 128, 128}, 131072, 2}});
  // A release that registers zero-size tensors sends the empty conv too.
  const Layout old = layout_of(m, 2, "v0.5.11");
  REQUIRE(old.servable());
  CHECK(old.ranks[0].tensors[0].item_len == 0);
  CHECK(old.ranks[0].tensors[0].registered);

  json one_group = bailing();
  one_group["layer_group_size"] = 1;
  CHECK(read_error(one_group).detail() ==
        "BailingMoeV2_5ForCausalLM config has layer_group_size 1, which makes every layer full attention: it is not "
        "a hybrid model, so SGLang allocates no Mamba state to check");
}

TEST_CASE("architectures: the KDA Bailing (Ling-V3) and a per-layer layer_group_size")
{
  // configs/bailing_hybrid.py@0f6954e8: short_conv_kernel_size makes it KDA,
  // KimiLinearStateShape.create(H=num_attention_heads 16, D=head_dim 128, K=4):
  // conv (3, 3*16*128/tp) = (3, 6144/tp) bf16, temporal (16/tp, 128, 128) fp32.
  json v3 = bailing();
  v3["architectures"] = {"BailingMoeV3ForCausalLM"};
  v3["short_conv_kernel_size"] = 4;
  const ModelSpec m = read(v3);
  CHECK(m.family == StateFamily::kda);
  CHECK(m.confidence == "medium");
  CHECK(m.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  check_at(m, 1, {{{3, 6144}, 36864, 6144}, {{16, 128, 128}, 1048576, 16}});
  check_at(m, 2, {{{3, 3072}, 18432, 3072}, {{8, 128, 128}, 524288, 8}});
  check_at(m, 4, {{{3, 1536}, 9216, 1536}, {{4, 128, 128}, 262144, 4}});
  check_at(m, 8, {{{3, 768}, 4608, 768}, {{2, 128, 128}, 131072, 2}});
  // 16 heads stop at TP 32.
  CHECK_FALSE(layout_of(m, 32).servable());

  // A list schedules each layer: 1 is linear attention, anything else full.
  json listed = v3;
  listed["layer_group_size"] = {1, 1, 0, 1, 2, 1, 1, 0};
  CHECK(read(listed).state_layer_ids == std::vector<int>{0, 1, 3, 5, 6});
  listed["layer_group_size"] = {1, 0};
  CHECK(read_error(listed).detail() ==
        "key 'layer_group_size' lists 2 layers, not num_hidden_layers 8; BailingHybridConfig asserts \"When "
        "layer_group_size is a list, its length must be equal to num_hidden_layers\" for BailingMoeV3ForCausalLM");
}

TEST_CASE("architectures: MiniCPM-SALA's SimpleGLA state is temporal only")
{
  const CatalogEntry* e = find_catalog_entry("minicpm-sala");
  REQUIRE(e != nullptr);
  const ModelSpec m = read_model_config(json::parse(e->config_json), "minicpm-sala", "minicpm-sala");
  CHECK(m.family == StateFamily::simple_gla);
  // mixer_types: minicpm4 at 0, 9, 16, 17, 22, 29, 30 and 31; lightning-attn at the other 24.
  CHECK(m.state_layer_ids.size() == 24);
  CHECK(m.num_attention_layers == 8);
  CHECK(m.state_layer_ids.front() == 1);
  CHECK(m.state_layer_ids.back() == 28);
  // temporal (lightning_nkv/tp, 128, 128) fp32: 32*128*128*4 = 2 MiB at tp 1.
  check_at(m, 1, {{{32, 128, 128}, 2097152, 32}});
  check_at(m, 2, {{{16, 128, 128}, 1048576, 16}});
  check_at(m, 4, {{{8, 128, 128}, 524288, 8}});
  check_at(m, 8, {{{4, 128, 128}, 262144, 4}});
  // 32 heads over 64 ranks do not divide.
  CHECK_FALSE(layout_of(m, 64).servable());

  json no_mixers = json::parse(e->config_json);
  no_mixers.erase("mixer_types");
  CHECK(read_error(no_mixers).detail() == "MiniCPMSALAForCausalLM config has no 'mixer_types': it is not a hybrid "
                                          "model, so SGLang allocates no Mamba state to check");
}

TEST_CASE("architectures: medium rows carry their note into the spec")
{
  for (const Architecture& row : architectures()) {
    if (row.confidence != "medium") {
      continue;
    }
    INFO(row.architecture);
    CHECK_FALSE(row.note.empty());
  }
  json n3 = nemotron_nano_llm();
  n3["architectures"] = {"Nemotron3ForCausalLM"};
  const ModelSpec m = read(n3);
  CHECK(m.confidence_note == std::string(find_architecture("Nemotron3ForCausalLM")->note));
  CHECK(m.sglang_source == std::string(find_architecture("Nemotron3ForCausalLM")->sglang_source));
}

TEST_CASE("architectures: ZAYA1's CCA state, one conv sharded by TP and one whole on every rank")
{
  // ZayaConfig's defaults (configs/zaya.py@09a71bec), as examples/models/zaya1-defaults has them.
  json config{{"architectures", {"ZayaForCausalLM"}}, {"model_type", "zaya"}, {"hidden_size", 2048},
              {"num_attention_heads", 8}, {"num_key_value_heads", 2}, {"head_dim", 128}, {"cca_time0", 2},
              {"cca_time1", 2}, {"num_hidden_layers", 80}};
  json q_heads = json::array();
  json layers = json::array();
  for (int i = 0; i < 40; ++i) {
    q_heads.push_back(8);
    q_heads.push_back(0);
    layers.push_back("a");
    layers.push_back(16);
  }
  config["cca_num_q_heads"] = q_heads;
  config["zaya_layers"] = layers;
  const ModelSpec m = read(config);
  CHECK(m.family == StateFamily::cca);
  CHECK(m.state_layer_ids.size() == 40);
  CHECK(m.state_layer_ids[1] == 2);
  // C = (8 + 2) * 128 = 1280 conv channels, window (2-1) + (2-1) = 2; the
  // previous hidden state (2048, 1) is whole on every rank and registers
  // dim 2048; the temporal (1, 1, 0) has no bytes.
  check_at(m, 1, {{{1280, 2}, 5120, 1280}, {{2048, 1}, 4096, 2048}});
  check_at(m, 2, {{{640, 2}, 2560, 640}, {{2048, 1}, 4096, 2048}});
  CHECK(layout_of(m, 2).ranks[1].tensors[1].replicated);
  // The model asserts num_query_groups % tp: 2 KV heads stop TP 4 and 8.
  for (const int tp : {4, 8}) {
    const Layout l = layout_of(m, tp);
    REQUIRE_FALSE(l.servable());
    CHECK(l.findings.front().message == "CCA key/value heads 2 is not divisible by TP size " + std::to_string(tp));
  }
  // Attention DP is refused by the model.
  LayoutInput dp;
  dp.model = m;
  dp.profile = *find_profile("v0.5.20");
  dp.tp_size = 2;
  dp.dp_size = 2;
  dp.enable_dp_attention = true;
  const Layout l = compute_layout(dp);
  REQUIRE_FALSE(l.servable());
  CHECK(l.findings.front().message ==
        "ZayaForCausalLM needs attention TP size 1 to equal TP size 2: attention DP is not supported for ZAYA1");

  // The transformers-native schema: one layer_types entry per attention + MoE pair.
  json native{{"architectures", {"ZayaForCausalLM"}}, {"model_type", "zaya"},
              {"layer_types", {"attention", "attention", "attention"}}, {"num_attention_heads", 8},
              {"num_key_value_heads", 2}};
  const ModelSpec n = read(native);
  CHECK(n.num_hidden_layers == 6);
  CHECK(n.state_layer_ids == std::vector<int>{0, 2, 4});

  // moe_intermediate_size alone marks the native schema: 40 native layers
  // become 80, of which the even ones (0, 2, ..., 78) hold state.
  json moe{{"architectures", {"ZayaForCausalLM"}}, {"model_type", "zaya"}, {"num_hidden_layers", 40},
           {"moe_intermediate_size", 2048}};
  const ModelSpec mo = read(moe);
  CHECK(mo.num_hidden_layers == 80);
  CHECK(mo.state_layer_ids.size() == 40);
  CHECK(mo.state_layer_ids.back() == 78);
  // A legacy marker wins: layer_types then does not double anything, and the
  // layers are num_hidden_layers' even ones.
  json hand_merged = native;
  hand_merged["ffn_hidden_size"] = 4096;
  hand_merged["num_hidden_layers"] = 10;
  const ModelSpec hm = read(hand_merged);
  CHECK(hm.num_hidden_layers == 10);
  CHECK(hm.state_layer_ids == std::vector<int>{0, 2, 4, 6, 8});

  // head_dim defaults to 128 when absent, kv_channels notwithstanding:
  // conv (8 + 2) * 128 / tp = 1280 / tp. Only an explicit null reads kv_channels:
  // (8 + 2) * 64 / tp = 640 / tp.
  json channels = native;
  channels["kv_channels"] = 64;
  check_at(read(channels), 1, {{{1280, 2}, 5120, 1280}, {{2048, 1}, 4096, 2048}});
  check_at(read(channels), 2, {{{640, 2}, 2560, 640}, {{2048, 1}, 4096, 2048}});
  channels["head_dim"] = nullptr;
  check_at(read(channels), 1, {{{640, 2}, 2560, 640}, {{2048, 1}, 4096, 2048}});
  check_at(read(channels), 2, {{{320, 2}, 1280, 320}, {{2048, 1}, 4096, 2048}});

  // The legacy schema's query groups must equal the KV heads (ZayaConfig asserts it).
  json groups = config;
  groups["num_query_groups"] = 4;
  CHECK(read_error(groups).detail() ==
        "the query groups (4) differ from num_key_value_heads (2); SGLang's ZayaConfig asserts \"num_query_groups "
        "must equal num_key_value_heads for ZAYA1 checkpoints\" for ZayaForCausalLM");
}
