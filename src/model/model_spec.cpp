#include "model/model_spec.hpp"

#include "model/config_keys.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <string_view>

namespace pdcheck::model {

namespace {

using nlohmann::json;
using namespace config;

enum class Arch { qwen3_next, qwen3_5, qwen3_5_moe, nemotron_h, falcon_h1, granite_hybrid, kimi_linear, lfm2, lfm2_moe };

struct ArchInfo
{
  std::string_view architecture;
  std::string_view model_type;
  Arch arch;
};

// One row per architecture SGLang gives a Mamba pool to (the config classes
// that configs/hybrid_arch.py@02e208de treats as Mamba2, GDN or KDA; the names
// are the EntryClass of each models/*.py, see docs/state-layouts.md), in the
// order error messages list them.
constexpr ArchInfo k_archs[] = {
  {"Qwen3NextForCausalLM", "qwen3_next", Arch::qwen3_next},
  {"Qwen3_5ForConditionalGeneration", "qwen3_5", Arch::qwen3_5},
  {"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", Arch::qwen3_5_moe},
  {"NemotronHForCausalLM", "nemotron_h", Arch::nemotron_h},
  {"FalconH1ForCausalLM", "falcon_h1", Arch::falcon_h1},
  {"GraniteMoeHybridForCausalLM", "granitemoehybrid", Arch::granite_hybrid},
  {"KimiLinearForCausalLM", "kimi_linear", Arch::kimi_linear},
  {"Lfm2ForCausalLM", "lfm2", Arch::lfm2},
  {"Lfm2MoeForCausalLM", "lfm2_moe", Arch::lfm2_moe},
};

// NemotronH configs write the kernel as conv_kernel; some carry the Mamba
// name mamba_d_conv instead; the config class default is 4.
constexpr std::int64_t k_nemotron_default_conv_kernel = 4;

void read_gdn(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  // Qwen3.5 wraps the language model's keys in text_config; SGLang reads them
  // through get_text_config(), which is the config itself for Qwen3-Next.
  const auto text_it = config.find("text_config");
  const bool wrapped = text_it != config.end() && text_it->is_object();
  const json& text = wrapped ? *text_it : config;
  const KeyReader r(text, wrapped ? "text_config." : "", origin, arch);

  spec.family = StateFamily::gdn;
  spec.num_hidden_layers = r.count("num_hidden_layers");
  const std::int64_t interval = r.positive("full_attention_interval");
  // layer_types is deliberately ignored: SGLang derives the GDN layers from
  // the interval alone.
  for (int i = 0; i < spec.num_hidden_layers; ++i) {
    if ((i + 1) % interval != 0) {
      spec.state_layer_ids.push_back(i);
    }
  }
  spec.num_attention_layers = spec.num_hidden_layers - static_cast<int>(spec.state_layer_ids.size());
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, fmt::format("full_attention_interval {}, which makes every layer full attention", interval));
  }

  const std::int64_t value_heads = r.positive("linear_num_value_heads");
  const std::int64_t key_heads = r.positive("linear_num_key_heads");
  const std::int64_t value_dim = r.positive("linear_value_head_dim");
  const std::int64_t key_dim = r.positive("linear_key_head_dim");
  spec.intermediate_size = value_heads * value_dim;
  spec.n_groups = key_heads;
  spec.num_heads = value_heads;
  spec.head_dim = value_dim;
  spec.state_size = key_dim;
  spec.conv_kernel = r.positive("linear_conv_kernel_dim");
  spec.config_ssm_dtype = config_ssm_dtype(config, wrapped ? &text : nullptr);
  read_attention_heads(r, spec);
}

void read_nemotron_h(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  const KeyReader r(config, "", origin, arch);
  spec.family = StateFamily::mamba2;

  std::string_view list_key;
  std::size_t list_size = 0;
  // configs/nemotron_h.py (@01144484) derives the layer types from
  // layers_block_type when the config has it, and from the pattern otherwise.
  const json* block_types = r.find("layers_block_type");
  const json* pattern = r.find("hybrid_override_pattern");
  if (block_types != nullptr && !block_types->is_null()) {
    const std::vector<std::string> types = r.strings("layers_block_type");
    for (std::size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "mamba") {
        spec.state_layer_ids.push_back(static_cast<int>(i));
      } else if (types[i] == "attention") {
        ++spec.num_attention_layers;
      }
    }
    list_key = "layers_block_type";
    list_size = types.size();
  } else if (pattern != nullptr && !pattern->is_null()) {
    if (!pattern->is_string()) {
      r.wrong("hybrid_override_pattern", "a string of M, *, - and E", *pattern);
    }
    const auto& text = pattern->get_ref<const std::string&>();
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == 'M') {
        spec.state_layer_ids.push_back(static_cast<int>(i));
      } else if (c == '*') {
        ++spec.num_attention_layers;
      } else if (c != '-' && c != 'E') {
        r.fail(fmt::format("key 'hybrid_override_pattern' has '{}' at position {}; expected M (Mamba), * (attention), "
                           "- (MLP) or E (MoE) for {}",
                           c, i, arch));
      }
    }
    list_key = "hybrid_override_pattern";
    list_size = text.size();
  } else {
    r.missing("hybrid_override_pattern", "a string such as \"M-M*-\", or a 'layers_block_type' list");
  }

  // The pattern is the layer list; num_hidden_layers, when present, must agree.
  spec.num_hidden_layers = r.narrow(list_key, static_cast<std::int64_t>(list_size));
  if (r.find("num_hidden_layers") != nullptr && !r.find("num_hidden_layers")->is_null()) {
    check_layer_count(r, list_key, list_size, r.count("num_hidden_layers"));
  }
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, fmt::format("no Mamba layer in '{}'", list_key));
  }

  const std::int64_t heads = r.positive("mamba_num_heads");
  const std::int64_t head_dim = r.positive("mamba_head_dim");
  // I is heads * head_dim, not expand * hidden: the two differ for some
  // NemotronH checkpoints and SGLang uses the product.
  spec.intermediate_size = heads * head_dim;
  spec.n_groups = r.positive("n_groups");
  spec.num_heads = heads;
  spec.head_dim = head_dim;
  spec.state_size = r.positive("ssm_state_size");
  spec.conv_kernel = r.positive_or("conv_kernel", r.positive_or("mamba_d_conv", k_nemotron_default_conv_kernel));
  // Nemotron-3-Nano's `mamba_ssm_cache_dtype` is a different key that SGLang
  // never reads; only `mamba_ssm_dtype` counts.
  spec.config_ssm_dtype = config_ssm_dtype(config, nullptr);
  read_attention_heads(r, spec);
}

void read_falcon_h1(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  const KeyReader r(config, "", origin, arch);
  spec.family = StateFamily::mamba2;
  spec.num_hidden_layers = r.count("num_hidden_layers");
  // Attention and the SSM run side by side in every Falcon-H1 block.
  for (int i = 0; i < spec.num_hidden_layers; ++i) {
    spec.state_layer_ids.push_back(i);
  }
  spec.num_attention_layers = spec.num_hidden_layers;

  const std::int64_t heads = r.positive("mamba_n_heads");
  const json* d_ssm = r.find("mamba_d_ssm");
  if (d_ssm == nullptr) {
    // The config class would fall back to its default of 1024, which matches
    // no published checkpoint; asking is safer than guessing.
    r.missing("mamba_d_ssm", "a positive integer, or null for mamba_expand * hidden_size");
  }
  if (d_ssm->is_null()) {
    spec.intermediate_size = r.positive("mamba_expand") * r.positive("hidden_size");
  } else {
    spec.intermediate_size = r.check_positive("mamba_d_ssm", *d_ssm);
  }

  const json* d_head = r.find("mamba_d_head");
  if (d_head == nullptr || d_head->is_null() || (d_head->is_string() && d_head->get<std::string>() == "auto")) {
    if (spec.intermediate_size % heads != 0) {
      r.fail(fmt::format("'mamba_d_head' is auto but the SSM width {} is not divisible by mamba_n_heads {} for {}",
                         spec.intermediate_size, heads, arch));
    }
    spec.head_dim = spec.intermediate_size / heads;
  } else {
    if (!d_head->is_number_integer()) {
      r.wrong("mamba_d_head", "a positive integer or \"auto\"", *d_head);
    }
    spec.head_dim = r.check_positive("mamba_d_head", *d_head);
  }
  spec.num_heads = heads;
  spec.n_groups = r.positive("mamba_n_groups");
  spec.state_size = r.positive("mamba_d_state");
  spec.conv_kernel = r.positive("mamba_d_conv");
  spec.config_ssm_dtype = config_ssm_dtype(config, nullptr);
  read_attention_heads(r, spec);
}

void read_granite_hybrid(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  const KeyReader r(config, "", origin, arch);
  spec.family = StateFamily::mamba2;
  spec.num_hidden_layers = r.count("num_hidden_layers");
  const std::vector<std::string> types = r.strings("layer_types");
  check_layer_count(r, "layer_types", types.size(), spec.num_hidden_layers);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "mamba") {
      spec.state_layer_ids.push_back(static_cast<int>(i));
    } else if (types[i] == "attention") {
      ++spec.num_attention_layers;
    }
  }
  // Granite 4.0 dense models (e.g. "Micro") share this architecture with no
  // Mamba layer at all; SGLang treats them as plain transformers.
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no \"mamba\" entry in layer_types");
  }

  const std::int64_t heads = r.positive("mamba_n_heads");
  const std::int64_t head_dim = r.positive("mamba_d_head");
  spec.intermediate_size = r.positive("mamba_expand") * r.positive("hidden_size");
  if (spec.intermediate_size != heads * head_dim) {
    r.fail(fmt::format("mamba_expand * hidden_size = {} but mamba_n_heads * mamba_d_head = {}; SGLang requires them "
                       "equal for {}",
                       spec.intermediate_size, heads * head_dim, arch));
  }
  spec.n_groups = r.positive("mamba_n_groups");
  spec.num_heads = heads;
  spec.head_dim = head_dim;
  spec.state_size = r.positive("mamba_d_state");
  spec.conv_kernel = r.positive("mamba_d_conv");
  // Granite's SGLang config builds its state params without the config dtype.
  read_attention_heads(r, spec);
}

void read_kimi_linear(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  const KeyReader r(config, "", origin, arch);
  spec.family = StateFamily::kda;
  spec.hybrid_mla = true;
  spec.num_hidden_layers = r.count("num_hidden_layers");

  const KeyReader lac(r.object("linear_attn_config"), "linear_attn_config.", origin, arch);
  // kda_layers is 1-based in the published configs.
  for (const std::int64_t one_based : lac.integers("kda_layers")) {
    if (one_based < 1 || one_based > spec.num_hidden_layers) {
      lac.fail(fmt::format("key 'linear_attn_config.kda_layers' holds {}, outside 1..{} (the list is 1-based) for {}",
                           one_based, spec.num_hidden_layers, arch));
    }
    spec.state_layer_ids.push_back(static_cast<int>(one_based - 1));
  }
  std::sort(spec.state_layer_ids.begin(), spec.state_layer_ids.end());
  spec.state_layer_ids.erase(std::unique(spec.state_layer_ids.begin(), spec.state_layer_ids.end()),
                             spec.state_layer_ids.end());
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "an empty 'linear_attn_config.kda_layers'");
  }
  // Every layer that is not KDA is an MLA layer.
  spec.num_attention_layers = spec.num_hidden_layers - static_cast<int>(spec.state_layer_ids.size());

  spec.kda_num_heads = lac.positive("num_heads");
  spec.kda_head_dim = lac.positive("head_dim");
  spec.kda_num_k_heads = lac.positive_or("num_k_heads", spec.kda_num_heads);
  spec.kda_head_k_dim = lac.positive_or("head_k_dim", spec.kda_head_dim);
  spec.conv_kernel = lac.positive("short_conv_kernel_size");
  read_attention_heads(r, spec);
}

void read_lfm2(const json& config, const std::string& origin, const std::string& arch, ModelSpec& spec)
{
  const KeyReader r(config, "", origin, arch);
  spec.family = StateFamily::short_conv;
  spec.num_hidden_layers = r.count("num_hidden_layers");
  const std::vector<std::string> types = r.strings("layer_types");
  check_layer_count(r, "layer_types", types.size(), spec.num_hidden_layers);
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "conv" || types[i] == "short_conv") {
      spec.state_layer_ids.push_back(static_cast<int>(i));
    } else {
      ++spec.num_attention_layers;
    }
  }
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no \"conv\" entry in layer_types");
  }

  const std::int64_t hidden = r.positive("hidden_size");
  spec.intermediate_size = hidden;
  spec.n_groups = 1;
  spec.num_heads = 0; // "tp": ShortConv's temporal is (1, hidden, 0) on every rank
  spec.head_dim = hidden;
  spec.state_size = 0;
  spec.conv_kernel = r.positive("conv_L_cache");
  read_attention_heads(r, spec);
}

const ArchInfo* find_arch(std::string_view name, bool by_model_type)
{
  for (const ArchInfo& info : k_archs) {
    if ((by_model_type ? info.model_type : info.architecture) == name) {
      return &info;
    }
  }
  return nullptr;
}

} // namespace

std::string_view state_family_name(StateFamily f)
{
  switch (f) {
  case StateFamily::mamba2: return "mamba2";
  case StateFamily::gdn: return "gdn";
  case StateFamily::kda: return "kda";
  case StateFamily::short_conv: return "short_conv";
  }
  return "?";
}

const std::vector<std::string>& supported_architectures()
{
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const ArchInfo& info : k_archs) {
      names.emplace_back(info.architecture);
    }
    return names;
  }();
  return k_names;
}

const std::vector<std::string>& supported_model_types()
{
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const ArchInfo& info : k_archs) {
      names.emplace_back(info.model_type);
    }
    return names;
  }();
  return k_names;
}

ModelSpec read_model_config(const nlohmann::json& config, const std::string& name, const std::string& origin)
{
  if (!config.is_object()) {
    throw InputError(origin, fmt::format("a model config must be a JSON object, got {}", config.type_name()));
  }

  ModelSpec spec;
  spec.name = name;
  spec.source = origin;
  if (const auto it = config.find("model_type"); it != config.end() && it->is_string()) {
    spec.model_type = it->get<std::string>();
  }

  // SGLang picks the model class from architectures[0]; model_type only
  // matters when a hand-written config leaves the list out.
  const ArchInfo* info = nullptr;
  if (const auto it = config.find("architectures");
      it != config.end() && it->is_array() && !it->empty() && it->front().is_string()) {
    spec.architecture = it->front().get<std::string>();
    info = find_arch(spec.architecture, false);
    if (info == nullptr) {
      throw InputError(origin, fmt::format("unsupported architecture '{}': pdcheck supports hybrid Mamba / "
                                           "linear-attention models: {}",
                                           spec.architecture, join(supported_architectures())));
    }
  } else if (!spec.model_type.empty()) {
    spec.architecture = spec.model_type;
    info = find_arch(spec.model_type, true);
    if (info == nullptr) {
      throw InputError(origin, fmt::format("unsupported model_type '{}' (the config has no 'architectures' list): "
                                           "pdcheck supports hybrid Mamba / linear-attention models: {}",
                                           spec.model_type, join(supported_model_types())));
    }
  } else {
    throw InputError(origin, "cannot tell the architecture: the config has neither an 'architectures' list nor a "
                             "'model_type'");
  }

  switch (info->arch) {
  case Arch::qwen3_next:
  case Arch::qwen3_5:
  case Arch::qwen3_5_moe: read_gdn(config, origin, spec.architecture, spec); break;
  case Arch::nemotron_h: read_nemotron_h(config, origin, spec.architecture, spec); break;
  case Arch::falcon_h1: read_falcon_h1(config, origin, spec.architecture, spec); break;
  case Arch::granite_hybrid: read_granite_hybrid(config, origin, spec.architecture, spec); break;
  case Arch::kimi_linear: read_kimi_linear(config, origin, spec.architecture, spec); break;
  case Arch::lfm2:
  case Arch::lfm2_moe: read_lfm2(config, origin, spec.architecture, spec); break;
  }
  return spec;
}

} // namespace pdcheck::model
