#include "model/model_spec.hpp"
#include "util/error.hpp"

#include "../../support/model_read.hpp"

#include <catch2/catch.hpp>

#include <set>

#include <nlohmann/json.hpp>

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

std::vector<int> range_ids(int begin, int end)
{
  std::vector<int> ids;
  for (int i = begin; i < end; ++i) {
    ids.push_back(i);
  }
  return ids;
}

json qwen3_next_config()
{
  return json{
    {"architectures", {"Qwen3NextForCausalLM"}},
    {"model_type", "qwen3_next"},
    {"num_hidden_layers", 8},
    {"full_attention_interval", 4},
    {"linear_num_value_heads", 32},
    {"linear_num_key_heads", 16},
    {"linear_value_head_dim", 128},
    {"linear_key_head_dim", 64},
    {"linear_conv_kernel_dim", 4},
    {"num_attention_heads", 16},
    {"num_key_value_heads", 2},
  };
}

json nemotron_h_config()
{
  return json{
    {"architectures", {"NemotronHForCausalLM"}},
    {"model_type", "nemotron_h"},
    {"hybrid_override_pattern", "M-M*-ME"},
    {"num_hidden_layers", 7},
    {"mamba_num_heads", 16},
    {"mamba_head_dim", 64},
    {"n_groups", 4},
    {"ssm_state_size", 128},
    {"conv_kernel", 4},
    {"expand", 2},
    {"hidden_size", 1024},
    {"num_attention_heads", 8},
    {"num_key_value_heads", 2},
  };
}

json falcon_h1_config()
{
  return json{
    {"architectures", {"FalconH1ForCausalLM"}},
    {"model_type", "falcon_h1"},
    {"num_hidden_layers", 4},
    {"hidden_size", 1024},
    {"mamba_d_ssm", 1536},
    {"mamba_expand", 2},
    {"mamba_n_heads", 24},
    {"mamba_d_head", 64},
    {"mamba_n_groups", 1},
    {"mamba_d_state", 128},
    {"mamba_d_conv", 4},
    {"num_attention_heads", 8},
    {"num_key_value_heads", 2},
  };
}

json granite_config()
{
  return json{
    {"architectures", {"GraniteMoeHybridForCausalLM"}},
    {"model_type", "granitemoehybrid"},
    {"num_hidden_layers", 4},
    {"layer_types", {"mamba", "attention", "mamba", "mamba"}},
    {"hidden_size", 1536},
    {"mamba_expand", 2},
    {"mamba_n_heads", 48},
    {"mamba_d_head", 64},
    {"mamba_n_groups", 1},
    {"mamba_d_state", 128},
    {"mamba_d_conv", 4},
    {"num_attention_heads", 12},
    {"num_key_value_heads", 4},
  };
}

json kimi_config()
{
  return json{
    {"architectures", {"KimiLinearForCausalLM"}},
    {"model_type", "kimi_linear"},
    {"num_hidden_layers", 6},
    {"num_attention_heads", 32},
    {"num_key_value_heads", 32},
    {"linear_attn_config",
     {{"num_heads", 32}, {"head_dim", 128}, {"short_conv_kernel_size", 4}, {"kda_layers", {1, 2, 3, 5, 6}}}},
  };
}

json lfm2_config()
{
  return json{
    {"architectures", {"Lfm2ForCausalLM"}},
    {"model_type", "lfm2"},
    {"num_hidden_layers", 5},
    {"layer_types", {"conv", "conv", "full_attention", "short_conv", "full_attention"}},
    {"hidden_size", 2048},
    {"conv_L_cache", 3},
    {"num_attention_heads", 32},
    {"num_key_value_heads", 8},
  };
}

} // namespace

TEST_CASE("model::read_model_config: Qwen3-Next takes GDN layers from full_attention_interval")
{
  const ModelSpec spec = read(qwen3_next_config());
  CHECK(spec.name == "test-model");
  CHECK(spec.source == k_origin);
  CHECK(spec.architecture == "Qwen3NextForCausalLM");
  CHECK(spec.model_type == "qwen3_next");
  CHECK(spec.family == StateFamily::gdn);
  CHECK(spec.num_hidden_layers == 8);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  CHECK(spec.num_attention_layers == 2);
  // I = Hv*Dv, G = Hk, H = Hv, P = Dv, N = Dk, K = linear_conv_kernel_dim.
  CHECK(spec.intermediate_size == 32 * 128);
  CHECK(spec.n_groups == 16);
  CHECK(spec.num_heads == 32);
  CHECK(spec.head_dim == 128);
  CHECK(spec.state_size == 64);
  CHECK(spec.conv_kernel == 4);
  CHECK_FALSE(spec.config_ssm_dtype.has_value());
  CHECK(spec.num_attention_heads == 16);
  CHECK(spec.num_key_value_heads == 2);
  CHECK_FALSE(spec.hybrid_mla);
}

TEST_CASE("model::read_model_config: GDN ignores layer_types")
{
  json config = qwen3_next_config();
  // A contradicting list: SGLang derives the layers from the interval only.
  config["layer_types"] = json::array();
  for (int i = 0; i < 8; ++i) {
    config["layer_types"].push_back("full_attention");
  }
  CHECK(read(config).state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
}

TEST_CASE("model::read_model_config: GDN reads mamba_ssm_dtype only in SGLang's exact spellings")
{
  json config = qwen3_next_config();
  config["mamba_ssm_dtype"] = "bfloat16";
  CHECK(read(config).config_ssm_dtype == Dtype::bfloat16);
  config["mamba_ssm_dtype"] = "float16";
  CHECK(read(config).config_ssm_dtype == Dtype::float16);
  config["mamba_ssm_dtype"] = "bf16"; // not in SGLang's table: ignored
  CHECK_FALSE(read(config).config_ssm_dtype.has_value());
}

TEST_CASE("model::read_model_config: Qwen3.5 reads its keys from text_config")
{
  json text = qwen3_next_config();
  text.erase("architectures");
  text["model_type"] = "qwen3_5_text";
  text["mamba_ssm_dtype"] = "float32";
  const json config{
    {"architectures", {"Qwen3_5ForConditionalGeneration"}},
    {"model_type", "qwen3_5"},
    {"text_config", text},
    {"vision_config", {{"depth", 27}}},
  };
  const ModelSpec spec = read(config);
  CHECK(spec.architecture == "Qwen3_5ForConditionalGeneration");
  CHECK(spec.model_type == "qwen3_5");
  CHECK(spec.family == StateFamily::gdn);
  CHECK(spec.num_hidden_layers == 8);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5, 6});
  CHECK(spec.intermediate_size == 4096);
  CHECK(spec.config_ssm_dtype == Dtype::float32);
  CHECK(spec.num_attention_heads == 16);
}

TEST_CASE("model::read_model_config: Qwen3.5-MoE names a missing text_config key by its path")
{
  json text = qwen3_next_config();
  text.erase("architectures");
  text.erase("linear_num_value_heads");
  const json config{{"architectures", {"Qwen3_5MoeForConditionalGeneration"}}, {"text_config", text}};
  const InputError e = read_error(config);
  CHECK(e.where() == k_origin);
  CHECK(e.detail() ==
        "missing key 'text_config.linear_num_value_heads' (expected a positive integer) for "
        "Qwen3_5MoeForConditionalGeneration");
}

TEST_CASE("model::read_model_config: Qwen3.5 ignores a top-level mamba_ssm_dtype")
{
  // SGLang hands the text config to mamba2_state_dtype, which has no
  // text_config of its own and never sees the wrapper's key.
  json text = qwen3_next_config();
  text.erase("architectures");
  json config{
    {"architectures", {"Qwen3_5ForConditionalGeneration"}}, {"mamba_ssm_dtype", "bfloat16"}, {"text_config", text}};
  CHECK_FALSE(read(config).config_ssm_dtype.has_value());
  config["text_config"]["mamba_ssm_dtype"] = "float16";
  CHECK(read(config).config_ssm_dtype == Dtype::float16);
}

TEST_CASE("model::read_model_config: NemotronH takes layers from the pattern")
{
  const ModelSpec spec = read(nemotron_h_config());
  CHECK(spec.family == StateFamily::mamba2);
  CHECK(spec.num_hidden_layers == 7);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 2, 5});
  CHECK(spec.num_attention_layers == 1);
  // I = mamba_num_heads * mamba_head_dim, not expand * hidden (2048 here).
  CHECK(spec.intermediate_size == 16 * 64);
  CHECK(spec.n_groups == 4);
  CHECK(spec.num_heads == 16);
  CHECK(spec.head_dim == 64);
  CHECK(spec.state_size == 128);
  CHECK(spec.conv_kernel == 4);
  CHECK(spec.num_attention_heads == 8);
  CHECK(spec.num_key_value_heads == 2);
}

TEST_CASE("model::read_model_config: NemotronH reads layers_block_type when there is no pattern")
{
  json config = nemotron_h_config();
  config.erase("hybrid_override_pattern");
  config["layers_block_type"] = {"mamba", "mlp", "mamba", "attention", "moe", "mamba", "moe"};
  const ModelSpec spec = read(config);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 2, 5});
  CHECK(spec.num_attention_layers == 1);
  CHECK(spec.num_hidden_layers == 7);
}

TEST_CASE("model::read_model_config: NemotronH takes layers_block_type over the pattern when both are given")
{
  // configs/nemotron_h.py @ 01144484: _resolve_layers_block_type reads the
  // pattern only when layers_block_type is None.
  json config = nemotron_h_config();
  config["hybrid_override_pattern"] = "M-M*-";
  config["layers_block_type"] = {"attention", "mamba", "mlp"};
  config.erase("num_hidden_layers");
  const ModelSpec spec = read(config);
  CHECK(spec.state_layer_ids == std::vector<int>{1});
  CHECK(spec.num_attention_layers == 1);
  CHECK(spec.num_hidden_layers == 3);
}

TEST_CASE("model::read_model_config: NemotronH conv kernel falls back to mamba_d_conv, then 4")
{
  json config = nemotron_h_config();
  config.erase("conv_kernel");
  config["mamba_d_conv"] = 3;
  CHECK(read(config).conv_kernel == 3);
  config.erase("mamba_d_conv");
  CHECK(read(config).conv_kernel == 4);
}

TEST_CASE("model::read_model_config: NemotronH reads mamba_ssm_dtype but not mamba_ssm_cache_dtype")
{
  json config = nemotron_h_config();
  config["mamba_ssm_cache_dtype"] = "bfloat16";
  CHECK_FALSE(read(config).config_ssm_dtype.has_value());
  config["mamba_ssm_dtype"] = "bfloat16";
  CHECK(read(config).config_ssm_dtype == Dtype::bfloat16);
}

TEST_CASE("model::read_model_config: NemotronH pattern length must match num_hidden_layers")
{
  json config = nemotron_h_config();
  config["num_hidden_layers"] = 8;
  const InputError e = read_error(config);
  CHECK(e.detail() ==
        "key 'hybrid_override_pattern' has 7 entries but 'num_hidden_layers' is 8 for NemotronHForCausalLM");
}

TEST_CASE("model::read_model_config: NemotronH rejects an unknown pattern character")
{
  json config = nemotron_h_config();
  config["hybrid_override_pattern"] = "M-X";
  config.erase("num_hidden_layers");
  const InputError e = read_error(config);
  CHECK(e.detail() ==
        "key 'hybrid_override_pattern' has 'X' at position 2; expected M (Mamba), * (attention), - (MLP) or E "
        "(MoE) for NemotronHForCausalLM");
}

TEST_CASE("model::read_model_config: NemotronH without a layer list is rejected")
{
  json config = nemotron_h_config();
  config.erase("hybrid_override_pattern");
  const InputError e = read_error(config);
  CHECK(e.detail() ==
        "missing key 'hybrid_override_pattern' (expected a string such as \"M-M*-\", or a 'layers_block_type' "
        "list) for NemotronHForCausalLM");
}

TEST_CASE("model::read_model_config: FalconH1 gives every layer state and attention")
{
  const ModelSpec spec = read(falcon_h1_config());
  CHECK(spec.family == StateFamily::mamba2);
  CHECK(spec.state_layer_ids == range_ids(0, 4));
  CHECK(spec.num_attention_layers == 4);
  CHECK(spec.intermediate_size == 1536);
  CHECK(spec.n_groups == 1);
  CHECK(spec.num_heads == 24);
  CHECK(spec.head_dim == 64);
  CHECK(spec.state_size == 128);
  CHECK(spec.conv_kernel == 4);
  CHECK(spec.num_attention_heads == 8);
}

TEST_CASE("model::read_model_config: FalconH1 null mamba_d_ssm means mamba_expand * hidden_size")
{
  json config = falcon_h1_config();
  config["mamba_d_ssm"] = nullptr;
  config["mamba_n_heads"] = 32;
  config["mamba_d_head"] = "auto";
  const ModelSpec spec = read(config);
  CHECK(spec.intermediate_size == 2 * 1024);
  CHECK(spec.num_heads == 32);
  CHECK(spec.head_dim == 2048 / 32);
}

TEST_CASE("model::read_model_config: FalconH1 auto head dim is I / H and must divide")
{
  json config = falcon_h1_config();
  config["mamba_d_head"] = "auto";
  CHECK(read(config).head_dim == 1536 / 24);
  config.erase("mamba_d_head");
  CHECK(read(config).head_dim == 64);
  config["mamba_d_ssm"] = 1000;
  const InputError e = read_error(config);
  CHECK(e.detail() ==
        "'mamba_d_head' is auto but the SSM width 1000 is not divisible by mamba_n_heads 24 for FalconH1ForCausalLM");
}

TEST_CASE("model::read_model_config: FalconH1 requires mamba_d_ssm to be present")
{
  json config = falcon_h1_config();
  config.erase("mamba_d_ssm");
  const InputError e = read_error(config);
  CHECK(e.detail() == "missing key 'mamba_d_ssm' (expected a positive integer, or null for mamba_expand * "
                      "hidden_size) for FalconH1ForCausalLM");
}

TEST_CASE("model::read_model_config: FalconH1 reads mamba_ssm_dtype")
{
  json config = falcon_h1_config();
  config["mamba_ssm_dtype"] = "bfloat16";
  CHECK(read(config).config_ssm_dtype == Dtype::bfloat16);
}

TEST_CASE("model::read_model_config: GraniteMoeHybrid takes the mamba entries of layer_types")
{
  const ModelSpec spec = read(granite_config());
  CHECK(spec.family == StateFamily::mamba2);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 2, 3});
  CHECK(spec.num_attention_layers == 1);
  CHECK(spec.intermediate_size == 3072);
  CHECK(spec.n_groups == 1);
  CHECK(spec.num_heads == 48);
  CHECK(spec.head_dim == 64);
  CHECK(spec.state_size == 128);
  CHECK(spec.conv_kernel == 4);
  CHECK(spec.num_attention_heads == 12);
  CHECK(spec.num_key_value_heads == 4);
}

TEST_CASE("model::read_model_config: GraniteMoeHybrid ignores mamba_ssm_dtype, as SGLang does")
{
  json config = granite_config();
  config["mamba_ssm_dtype"] = "bfloat16";
  CHECK_FALSE(read(config).config_ssm_dtype.has_value());
}

TEST_CASE("model::read_model_config: GraniteMoeHybrid without a mamba layer is not hybrid")
{
  json config = granite_config();
  config["layer_types"] = {"attention", "attention", "attention", "attention"};
  const InputError e = read_error(config);
  CHECK(e.where() == k_origin);
  CHECK(e.detail() ==
        "GraniteMoeHybridForCausalLM config has no \"mamba\" entry in layer_types: it is not a hybrid model, so "
        "SGLang allocates no Mamba state to check");
}

TEST_CASE("model::read_model_config: GraniteMoeHybrid needs expand * hidden == heads * head_dim")
{
  json config = granite_config();
  config["mamba_d_head"] = 32;
  const InputError e = read_error(config);
  CHECK(e.detail() == "mamba_expand * hidden_size = 3072 but mamba_n_heads * mamba_d_head = 1536; SGLang requires "
                      "them equal for GraniteMoeHybridForCausalLM");
}

TEST_CASE("model::read_model_config: layer_types must have one entry per layer")
{
  json config = granite_config();
  config["num_hidden_layers"] = 5;
  const InputError e = read_error(config);
  CHECK(e.detail() == "key 'layer_types' has 4 entries but 'num_hidden_layers' is 5 for GraniteMoeHybridForCausalLM");
}

TEST_CASE("model::read_model_config: KimiLinear maps 1-based kda_layers to 0-based ids")
{
  const ModelSpec spec = read(kimi_config());
  CHECK(spec.family == StateFamily::kda);
  CHECK(spec.hybrid_mla);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 2, 4, 5});
  CHECK(spec.num_attention_layers == 1);
  CHECK(spec.kda_num_heads == 32);
  CHECK(spec.kda_head_dim == 128);
  CHECK(spec.kda_num_k_heads == 32);
  CHECK(spec.kda_head_k_dim == 128);
  CHECK(spec.conv_kernel == 4);
  CHECK(spec.num_attention_heads == 32);
  CHECK_FALSE(spec.config_ssm_dtype.has_value());
}

TEST_CASE("model::read_model_config: KimiLinear's state ignores num_k_heads and head_k_dim, as SGLang's does")
{
  // configs/kimi_linear.py@008b79d2 builds the state from num_heads and
  // head_dim alone: with 32 heads of 128 the conv is (3, 3 * 4096 / tp) however
  // the key heads are set.
  json config = kimi_config();
  config["linear_attn_config"]["num_k_heads"] = 16;
  config["linear_attn_config"]["head_k_dim"] = 64;
  const ModelSpec spec = read(config);
  CHECK(spec.kda_num_k_heads == 32);
  CHECK(spec.kda_head_k_dim == 128);
}

TEST_CASE("model::read_model_config: KimiLinear rejects a kda layer outside the model")
{
  json config = kimi_config();
  config["linear_attn_config"]["kda_layers"] = {0, 1};
  const InputError e = read_error(config);
  CHECK(e.detail() ==
        "key 'linear_attn_config.kda_layers' holds 0, outside 1..6 (the list is 1-based) for KimiLinearForCausalLM");
}

TEST_CASE("model::read_model_config: KimiLinear names missing linear_attn_config keys by path")
{
  json config = kimi_config();
  config["linear_attn_config"].erase("short_conv_kernel_size");
  CHECK(read_error(config).detail() == "missing key 'linear_attn_config.short_conv_kernel_size' (expected a positive "
                                       "integer) for KimiLinearForCausalLM");
  config.erase("linear_attn_config");
  CHECK(read_error(config).detail() ==
        "missing key 'linear_attn_config' (expected an object) for KimiLinearForCausalLM");
}

TEST_CASE("model::read_model_config: LFM2 takes conv and short_conv layers")
{
  const ModelSpec spec = read(lfm2_config());
  CHECK(spec.family == StateFamily::short_conv);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 3});
  CHECK(spec.num_attention_layers == 2);
  CHECK(spec.intermediate_size == 2048);
  CHECK(spec.head_dim == 2048);
  CHECK(spec.n_groups == 1);
  CHECK(spec.state_size == 0);
  CHECK(spec.num_heads == 0); // meaning "tp"
  CHECK(spec.conv_kernel == 3);
  CHECK(spec.num_attention_heads == 32);
  CHECK(spec.num_key_value_heads == 8);
}

TEST_CASE("model::read_model_config: LFM2-MoE is read like LFM2")
{
  json config = lfm2_config();
  config["architectures"] = {"Lfm2MoeForCausalLM"};
  config["model_type"] = "lfm2_moe";
  const ModelSpec spec = read(config);
  CHECK(spec.architecture == "Lfm2MoeForCausalLM");
  CHECK(spec.family == StateFamily::short_conv);
  CHECK(spec.state_layer_ids == std::vector<int>{0, 1, 3});
}

TEST_CASE("model::read_model_config: unsupported architecture lists what is supported")
{
  const json config{{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"num_hidden_layers", 32}};
  const InputError e = read_error(config);
  CHECK(e.where() == k_origin);
  CHECK(e.detail() ==
        "unsupported architecture 'LlamaForCausalLM': pdcheck supports hybrid Mamba / linear-attention models: "
        "Qwen3NextForCausalLM, Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration, "
        "InternS2PreviewForConditionalGeneration, InternS2MobiusForConditionalGeneration, JetNemotronForCausalLM, "
        "JetVLMForConditionalGeneration, NemotronHForCausalLM, Nemotron3ForCausalLM, NemotronH_Nano_VL_V2, "
        "FalconH1ForCausalLM, GraniteMoeHybridForCausalLM, Mamba2ForCausalLM, KimiLinearForCausalLM, "
        "KimiK3ForConditionalGeneration, Glm5NextForConditionalGeneration, Lfm2ForCausalLM, Lfm2MoeForCausalLM, "
        "Lfm2VlForConditionalGeneration, BailingMoeV2_5ForCausalLM, BailingMoeV3ForCausalLM, MiniCPMSALAForCausalLM, "
        "ZayaForCausalLM, "
        "Rwkv7ForCausalLM, RWKV7ForCausalLM");
}

TEST_CASE("model::read_model_config: architectures[0] decides even when model_type is supported")
{
  json config = nemotron_h_config();
  config["architectures"] = {"MambaForCausalLM"};
  CHECK_THROWS_AS(read(config), InputError);
}

TEST_CASE("model::read_model_config: model_type identifies a config without architectures")
{
  json config = lfm2_config();
  config.erase("architectures");
  const ModelSpec spec = read(config);
  CHECK(spec.architecture == "lfm2");
  CHECK(spec.family == StateFamily::short_conv);

  config["model_type"] = "llama";
  CHECK(read_error(config).detail() ==
        "unsupported model_type 'llama' (the config has no 'architectures' list): pdcheck supports hybrid Mamba / "
        "linear-attention models: qwen3_next, qwen3_5, qwen3_5_moe, intern_s2_preview, interns2_mobius, "
        "jet_nemotron, jet_vlm, nemotron_h, nemotron_3, NemotronH_Nano_VL_V2, falcon_h1, granitemoehybrid, mamba2, "
        "kimi_linear, kimi_k3, glm5_next, lfm2, lfm2_moe, lfm2_vl, bailing_hybrid, minicpm_sala, zaya, rwkv7");
}

TEST_CASE("model::read_model_config: a config with no identity is rejected")
{
  CHECK(read_error(json{{"num_hidden_layers", 4}}).detail() ==
        "cannot tell the architecture: the config has neither an 'architectures' list nor a 'model_type'");
  CHECK(read_error(json::array()).detail() == "a model config must be a JSON object, got array");
}

TEST_CASE("model::read_model_config: missing, ill-typed and non-positive keys are named")
{
  json config = qwen3_next_config();
  config.erase("linear_num_value_heads");
  CHECK(read_error(config).detail() ==
        "missing key 'linear_num_value_heads' (expected a positive integer) for Qwen3NextForCausalLM");

  config = qwen3_next_config();
  config["linear_num_value_heads"] = "32";
  CHECK(read_error(config).detail() ==
        "key 'linear_num_value_heads' must be a positive integer, got \"32\" for Qwen3NextForCausalLM");

  config["linear_num_value_heads"] = 0;
  CHECK(read_error(config).detail() ==
        "key 'linear_num_value_heads' must be a positive integer, got 0 for Qwen3NextForCausalLM");

  config["linear_num_value_heads"] = 32.5;
  CHECK(read_error(config).detail() ==
        "key 'linear_num_value_heads' must be a positive integer, got 32.5 for Qwen3NextForCausalLM");

  config = lfm2_config();
  config["layer_types"] = {"conv", 1, "conv", "conv", "conv"};
  CHECK(read_error(config).detail() ==
        "key 'layer_types' must be an array of strings, got [\"conv\",1,\"conv\",\"conv\",\"conv\"] for "
        "Lfm2ForCausalLM");
}

TEST_CASE("model::read_model_config: every layer full attention is not hybrid")
{
  json config = qwen3_next_config();
  config["full_attention_interval"] = 1;
  CHECK(read_error(config).detail() ==
        "Qwen3NextForCausalLM config has full_attention_interval 1, which makes every layer full attention: it is "
        "not a hybrid model, so SGLang allocates no Mamba state to check");
}

TEST_CASE("model::read_model_config: num_key_value_heads defaults to num_attention_heads")
{
  json config = falcon_h1_config();
  config.erase("num_key_value_heads");
  CHECK(read(config).num_key_value_heads == 8);
  config.erase("num_attention_heads");
  CHECK(read_error(config).detail() ==
        "missing key 'num_attention_heads' (expected a positive integer) for FalconH1ForCausalLM");
}

TEST_CASE("model::state_family_name: names every family")
{
  CHECK(state_family_name(StateFamily::mamba2) == "mamba2");
  CHECK(state_family_name(StateFamily::gdn) == "gdn");
  CHECK(state_family_name(StateFamily::kda) == "kda");
  CHECK(state_family_name(StateFamily::short_conv) == "short_conv");
  CHECK(state_family_name(StateFamily::lightning) == "lightning");
  CHECK(state_family_name(StateFamily::simple_gla) == "simple_gla");
  CHECK(state_family_name(StateFamily::cca) == "cca");
  CHECK(state_family_name(StateFamily::rwkv7) == "rwkv7");
}

TEST_CASE("model::supported_architectures: each model_type once, RWKV-7's two entry classes sharing one")
{
  // Every supported architecture has its own model_type but RWKV7ForCausalLM,
  // the second name models/rwkv7.py registers for Rwkv7Config, and
  // BailingMoeV3ForCausalLM, which shares BailingHybridConfig.
  CHECK(supported_architectures().size() == supported_model_types().size() + 2);
  const std::set<std::string> unique(supported_model_types().begin(), supported_model_types().end());
  CHECK(unique.size() == supported_model_types().size());
  CHECK(supported_architectures().front() == "Qwen3NextForCausalLM");
}
