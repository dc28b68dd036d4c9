#include "model/config_readers.hpp"

#include "model/config_keys.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>
#include <string_view>

namespace pdcheck::model::config {

namespace {

KeyReader reader_of(const ReaderInput& in)
{
  return KeyReader(in.lm, in.prefix, in.origin, in.arch);
}

// NemotronH configs write the kernel as conv_kernel; some carry the Mamba
// name mamba_d_conv instead; the config class default is 4.
constexpr std::int64_t k_nemotron_default_conv_kernel = 4;

void read_gdn(const ReaderInput& in, ModelSpec& spec)
{
  // SGLang reads the keys through get_text_config(): the wrapper's text_config
  // (Qwen3.5, Intern-S2) or the config itself (Qwen3-Next).
  const KeyReader r = reader_of(in);

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
  // Intern-S2-Mobius builds its layers from text_config.layer_types while the
  // pool takes them from the interval (configs/interns2_mobius.py@252129ae):
  // a config where the two disagree gives state to layers the model does not
  // run as linear attention, which no layout can describe.
  if (in.arch == "InternS2MobiusForConditionalGeneration") {
    const json* types = r.find("layer_types");
    if (types != nullptr && !types->is_null()) {
      const std::vector<std::string> names = r.strings("layer_types");
      std::vector<int> linear;
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == "linear_attention") {
          linear.push_back(static_cast<int>(i));
        }
      }
      if (linear != spec.state_layer_ids) {
        r.fail(fmt::format("key '{}' makes {} layers linear attention, but full_attention_interval {} gives the Mamba "
                           "pool {} state layers; SGLang's {} takes the model's layers from the one and the pool's "
                           "from the other, so the state layout is undefined",
                           r.path("layer_types"), linear.size(), interval, spec.state_layer_ids.size(), in.arch));
      }
    }
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
  // mamba2_cache_params passes the text config itself to mamba2_state_dtype,
  // and a text config has no text_config of its own: only its own key counts,
  // never a wrapper's top-level one (configs/qwen3_next.py@041bacd3,
  // configs/qwen3_5.py@0f6f0002).
  spec.config_ssm_dtype = config_ssm_dtype(in.lm, nullptr);
  read_attention_heads(r, spec);
}

void read_nemotron_h(const ReaderInput& in, ModelSpec& spec)
{
  const KeyReader r = reader_of(in);
  const std::string& arch = in.arch;
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

  spec.num_hidden_layers = layer_count_of_list(r, list_key, list_size);
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
  spec.config_ssm_dtype = config_ssm_dtype(in.lm, nullptr);
  read_attention_heads(r, spec);
}

void read_falcon_h1(const ReaderInput& in, ModelSpec& spec)
{
  const KeyReader r = reader_of(in);
  const std::string& arch = in.arch;
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
  spec.config_ssm_dtype = config_ssm_dtype(in.lm, nullptr);
  read_attention_heads(r, spec);
}

void read_granite_hybrid(const ReaderInput& in, ModelSpec& spec)
{
  const KeyReader r = reader_of(in);
  const std::string& arch = in.arch;
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

void read_kimi_linear(const ReaderInput& in, ModelSpec& spec)
{
  const KeyReader r = reader_of(in);
  const std::string& arch = in.arch;
  spec.family = StateFamily::kda;
  spec.hybrid_mla = true;
  spec.num_hidden_layers = r.count("num_hidden_layers");

  const KeyReader lac(r.object("linear_attn_config"), r.path("linear_attn_config."), in.origin, arch);
  // kda_layers is 1-based in the published configs.
  for (const std::int64_t one_based : lac.integers("kda_layers")) {
    if (one_based < 1 || one_based > spec.num_hidden_layers) {
      lac.fail(fmt::format("key '{}' holds {}, outside 1..{} (the list is 1-based) for {}", lac.path("kda_layers"),
                           one_based, spec.num_hidden_layers, arch));
    }
    spec.state_layer_ids.push_back(static_cast<int>(one_based - 1));
  }
  std::sort(spec.state_layer_ids.begin(), spec.state_layer_ids.end());
  spec.state_layer_ids.erase(std::unique(spec.state_layer_ids.begin(), spec.state_layer_ids.end()),
                             spec.state_layer_ids.end());
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, fmt::format("an empty '{}'", lac.path("kda_layers")));
  }
  // Every layer that is not KDA is an MLA layer.
  spec.num_attention_layers = spec.num_hidden_layers - static_cast<int>(spec.state_layer_ids.size());

  spec.kda_num_heads = lac.positive("num_heads");
  spec.kda_head_dim = lac.positive("head_dim");
  // mamba2_cache_params (configs/kimi_linear.py@008b79d2) passes no key-head
  // values, so KimiLinearStateShape.create takes them equal to the value
  // heads; a config's num_k_heads / head_k_dim do not reach the state.
  spec.kda_num_k_heads = spec.kda_num_heads;
  spec.kda_head_k_dim = spec.kda_head_dim;
  spec.conv_kernel = lac.positive("short_conv_kernel_size");
  read_attention_heads(r, spec);
}

void read_lfm2(const ReaderInput& in, ModelSpec& spec)
{
  const KeyReader r = reader_of(in);
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


void read_jet(const ReaderInput& in, ModelSpec& spec)
{
  // configs/jet_nemotron.py@0fc1a4fb: Mamba2StateShape.create with G = H and
  // no conv_shard_groups; the state layers are the "jet" entries of layer_types.
  const KeyReader r = reader_of(in);
  spec.family = StateFamily::gdn;
  spec.gdn_conv_shard_groups = false;
  const std::vector<std::string> types = r.strings("layer_types");
  spec.num_hidden_layers = layer_count_of_list(r, "layer_types", types.size());
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "jet") {
      spec.state_layer_ids.push_back(static_cast<int>(i));
    } else if (types[i] == "attn" || types[i] == "swa") {
      ++spec.num_attention_layers;
    }
  }
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no \"jet\" entry in layer_types");
  }
  const KeyReader eac(r.object("efficient_attention_config"), r.path("efficient_attention_config."), in.origin, in.arch);
  const KeyReader jet(eac.object("jet"), eac.path("jet."), in.origin, in.arch);
  const std::int64_t heads = jet.positive("num_heads");
  const std::int64_t key_dim = jet.positive("head_dim");
  const json* expand = jet.find("expand_v");
  if (expand == nullptr || expand->is_null()) {
    jet.missing("expand_v", "a positive number");
  }
  if (!expand->is_number() || !(expand->get<double>() > 0) || !std::isfinite(expand->get<double>())) {
    jet.wrong("expand_v", "a positive number", *expand);
  }
  // Python's int(head_dim * expand_v): truncated toward zero.
  const double value_dim_exact = static_cast<double>(key_dim) * expand->get<double>();
  if (value_dim_exact < 1 || value_dim_exact > static_cast<double>(INT32_MAX)) {
    jet.fail(fmt::format("key '{}' times head_dim {} gives a value head dim of {}, not a positive size, for {}",
                         jet.path("expand_v"), key_dim, value_dim_exact, in.arch));
  }
  const auto value_dim = static_cast<std::int64_t>(value_dim_exact);
  spec.intermediate_size = heads * value_dim;
  spec.n_groups = heads;
  spec.num_heads = heads;
  spec.head_dim = value_dim;
  spec.state_size = key_dim;
  spec.conv_kernel = jet.positive("conv_size");
  spec.config_ssm_dtype = config_ssm_dtype(in.lm, nullptr);
  read_attention_heads(r, spec);
}

void read_mamba2(const ReaderInput& in, ModelSpec& spec)
{
  // transformers' Mamba2Config, which SGLang's Mamba2Config subclasses: the
  // class defaults apply to keys a config leaves out. Every layer is Mamba2.
  const KeyReader r = reader_of(in);
  spec.family = StateFamily::mamba2;
  spec.state_sharded_by_full_tp = true;
  spec.num_hidden_layers = r.count("num_hidden_layers");
  for (int i = 0; i < spec.num_hidden_layers; ++i) {
    spec.state_layer_ids.push_back(i);
  }
  const json* intermediate = r.find("intermediate_size");
  if (intermediate != nullptr && !intermediate->is_null()) {
    spec.intermediate_size = r.check_positive("intermediate_size", *intermediate);
  } else {
    // Mamba2Config sets intermediate_size = int(expand * hidden_size).
    spec.intermediate_size = r.positive_or("expand", 2) * r.positive_or("hidden_size", 4096);
  }
  spec.n_groups = r.positive_or("n_groups", 8);
  spec.num_heads = r.positive_or("num_heads", 128);
  spec.head_dim = r.positive_or("head_dim", 64);
  spec.state_size = r.positive_or("state_size", 128);
  spec.conv_kernel = r.positive_or("conv_kernel", 4);
  // Mamba2CacheParams is built without the config: its mamba_ssm_dtype is not read.
}

// The top-level keys Glm5NextConfig copies into its text config before the
// text_config's own (_GLM5_NEXT_TOP_LEVEL_CONFIG_KEYS at
// configs/glm5_next.py@16e1767c), those of them that shape the state.
constexpr std::string_view k_glm5_next_inherited[] = {
  "num_hidden_layers", "linear_attn_config", "linear_head_dim",     "linear_num_heads",   "linear_conv_kernel_dim",
  "layer_types",       "hidden_size",        "num_attention_heads", "num_key_value_heads"};

void read_glm5_next(const ReaderInput& in, ModelSpec& spec)
{
  // configs/glm5_next.py@16e1767c: KimiLinearStateShape.create with H = D
  // for keys and values; kda_layers is 0-based here, unlike Kimi's. The text
  // config is {listed top-level keys, then text_config's}: a key text_config
  // leaves out is taken from the top level.
  const KeyReader r = &in.lm == &in.root ? reader_of(in)
                                         : KeyReader(in.lm, in.prefix, in.root, k_glm5_next_inherited, in.origin, in.arch);
  spec.family = StateFamily::kda;
  spec.hybrid_mla = true;
  spec.num_hidden_layers = r.count_or("num_hidden_layers", 45);
  const json* nested = r.find("linear_attn_config");
  if (nested != nullptr && !nested->is_null()) {
    const KeyReader lac(r.object("linear_attn_config"), r.path("linear_attn_config") + ".", in.origin, in.arch);
    for (const std::int64_t id : lac.integers("kda_layers")) {
      if (id < 0 || id >= spec.num_hidden_layers) {
        lac.fail(fmt::format("key '{}' holds {}, outside 0..{} (the list is 0-based) for {}", lac.path("kda_layers"),
                             id, spec.num_hidden_layers - 1, in.arch));
      }
      spec.state_layer_ids.push_back(static_cast<int>(id));
    }
    spec.kda_num_heads = lac.positive("num_heads");
    spec.kda_head_dim = lac.positive("head_dim");
    spec.conv_kernel = lac.positive("short_conv_kernel_size");
  } else {
    const json* types = r.find("layer_types");
    if (types != nullptr && !types->is_null()) {
      const std::vector<std::string> names = r.strings("layer_types");
      check_layer_count(r, "layer_types", names.size(), spec.num_hidden_layers);
      for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == "linear_attention") {
          spec.state_layer_ids.push_back(static_cast<int>(i));
        }
      }
    } else {
      // The class's own layout: every fourth layer is full attention.
      for (int i = 0; i < spec.num_hidden_layers; ++i) {
        if (i % 4 != 3) {
          spec.state_layer_ids.push_back(i);
        }
      }
    }
    spec.kda_num_heads = r.positive_or("linear_num_heads", 64);
    spec.kda_head_dim = r.positive_or("linear_head_dim", 128);
    spec.conv_kernel = r.positive_or("linear_conv_kernel_dim", 4);
  }
  std::sort(spec.state_layer_ids.begin(), spec.state_layer_ids.end());
  spec.state_layer_ids.erase(std::unique(spec.state_layer_ids.begin(), spec.state_layer_ids.end()),
                             spec.state_layer_ids.end());
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no KDA layer");
  }
  spec.num_attention_layers = spec.num_hidden_layers - static_cast<int>(spec.state_layer_ids.size());
  spec.kda_num_k_heads = spec.kda_num_heads;
  spec.kda_head_k_dim = spec.kda_head_dim;
  read_attention_heads(r, spec);
}

void read_lightning(const ReaderInput& in, ModelSpec& spec)
{
  // configs/bailing_hybrid.py@0f6954e8 (and, for an integer layer_group_size
  // without short_conv_kernel_size, @d97eb111): the lightning Bailing builds
  // Mamba2StateShape.create with I = G = 0 and K = 1, so the conv is (0, 0)
  // and only the (H, hd, hd) lightning state has bytes; a config with
  // short_conv_kernel_size is the KDA Bailing (Ling-V3), KimiLinearStateShape
  // with H = num_attention_heads, D = head_dim. Neither reads the config's
  // mamba_ssm_dtype.
  const KeyReader r = reader_of(in);
  spec.num_hidden_layers = r.count("num_hidden_layers");
  const json* group = r.find("layer_group_size");
  if (group != nullptr && group->is_array()) {
    // A per-layer schedule: 1 marks a linear-attention layer.
    const std::vector<std::int64_t> schedule = r.integers("layer_group_size");
    if (schedule.size() != static_cast<std::size_t>(spec.num_hidden_layers)) {
      r.fail(fmt::format("key '{}' lists {} layers, not num_hidden_layers {}; BailingHybridConfig asserts \"When "
                         "layer_group_size is a list, its length must be equal to num_hidden_layers\" for {}",
                         r.path("layer_group_size"), schedule.size(), spec.num_hidden_layers, in.arch));
    }
    for (std::size_t i = 0; i < schedule.size(); ++i) {
      if (schedule[i] == 1) {
        spec.state_layer_ids.push_back(static_cast<int>(i));
      }
    }
    if (spec.state_layer_ids.empty()) {
      not_hybrid(r, "no 1 (linear attention) in the layer_group_size list");
    }
  } else {
    const std::int64_t every = r.positive_or("layer_group_size", 1);
    for (int i = 0; i < spec.num_hidden_layers; ++i) {
      if ((i + 1) % every != 0) {
        spec.state_layer_ids.push_back(i);
      }
    }
    if (spec.state_layer_ids.empty()) {
      not_hybrid(r, fmt::format("layer_group_size {}, which makes every layer full attention", every));
    }
  }
  spec.num_attention_layers = spec.num_hidden_layers - static_cast<int>(spec.state_layer_ids.size());
  const std::int64_t heads = r.positive_or("num_attention_heads", 16);
  const json* head_dim = r.find("head_dim");
  std::int64_t hd = 128; // the class default when the key is absent
  if (head_dim != nullptr && (head_dim->is_null() || (head_dim->is_number_integer() && head_dim->get<std::int64_t>() == 0))) {
    hd = r.positive("hidden_size") / heads; // a falsy head_dim: hidden_size // num_attention_heads
  } else if (head_dim != nullptr) {
    hd = r.check_positive("head_dim", *head_dim);
  }
  spec.num_attention_heads = r.narrow("num_attention_heads", heads);
  spec.num_key_value_heads = r.count_or("num_key_value_heads", 4);
  const json* kda = r.find("short_conv_kernel_size");
  if (kda != nullptr && !kda->is_null()) {
    spec.family = StateFamily::kda;
    spec.kda_num_heads = heads;
    spec.kda_head_dim = hd;
    spec.kda_num_k_heads = heads;
    spec.kda_head_k_dim = hd;
    spec.conv_kernel = r.check_positive("short_conv_kernel_size", *kda);
    return;
  }
  spec.family = StateFamily::lightning;
  spec.intermediate_size = 0;
  spec.n_groups = 0;
  spec.num_heads = heads;
  spec.head_dim = hd;
  spec.state_size = hd;
  spec.conv_kernel = 1;
}

void read_simple_gla(const ReaderInput& in, ModelSpec& spec)
{
  // configs/minicpm.py@b844e97b: SimpleGLAStateShape.create, a temporal state
  // (nkv, hd, hd) per lightning layer and no conv.
  const KeyReader r = reader_of(in);
  spec.family = StateFamily::simple_gla;
  const json* mixers = r.find("mixer_types");
  if (mixers == nullptr || mixers->is_null()) {
    not_hybrid(r, "no 'mixer_types'");
  }
  const std::vector<std::string> types = r.strings("mixer_types");
  spec.num_hidden_layers = layer_count_of_list(r, "mixer_types", types.size());
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i] == "lightning" || types[i] == "lightning_attn" || types[i] == "lightning-attn") {
      spec.state_layer_ids.push_back(static_cast<int>(i));
    } else {
      ++spec.num_attention_layers;
    }
  }
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no lightning entry in mixer_types");
  }
  const json* sparse = r.find("sparse_config");
  spec.minicpm_sparse_attention = sparse != nullptr && !sparse->is_null() &&
                                  std::find(types.begin(), types.end(), "minicpm4") != types.end();
  const std::int64_t heads = r.positive_or("lightning_nkv", 16);
  const std::int64_t hd = r.positive_or("lightning_head_dim", 64);
  spec.num_heads = heads;
  spec.head_dim = hd;
  spec.state_size = hd;
  read_attention_heads(r, spec);
}


/// The first non-zero integer of a per-layer list (ZAYA's cca_num_q_heads and
/// num_query_groups_list alternate a value with 0 for the MoE layers), or
/// nullopt when the key is absent.
std::optional<std::int64_t> first_nonzero(const KeyReader& r, std::string_view key)
{
  const json* value = r.find(key);
  if (value == nullptr || value->is_null()) {
    return std::nullopt;
  }
  for (const std::int64_t v : r.integers(key)) {
    if (v != 0) {
      return r.check_positive(key, json(v));
    }
  }
  return std::nullopt;
}

void read_zaya(const ReaderInput& in, ModelSpec& spec)
{
  // configs/zaya.py@09a71bec builds Mamba2StateShape by hand: conv[0] is the
  // CCA qk padding, ((q + kv heads) * head_dim / tp, (cca_time0-1) + (cca_time1-1)),
  // sharded by the whole TP size; conv[1] is the previous token's hidden state,
  // (hidden_size, 1) on every rank; the temporal (1, 1, 0) has no bytes.
  const KeyReader r = reader_of(in);
  spec.family = StateFamily::cca;
  spec.state_sharded_by_full_tp = true;

  // Two schemas: the legacy Megatron export (activation_func, ffn_hidden_size
  // or a non-empty zaya_layers) and the transformers-native one (layer_types
  // or moe_intermediate_size). A legacy marker wins when both are present.
  const auto present = [&](std::string_view key) {
    const json* v = r.find(key);
    return v != nullptr && !v->is_null();
  };
  const json* legacy_layers = r.find("zaya_layers");
  const bool has_legacy_layers = legacy_layers != nullptr && !legacy_layers->is_null() &&
                                 !(legacy_layers->is_array() && legacy_layers->empty());
  const json* types = r.find("layer_types");
  const bool has_types = types != nullptr && !types->is_null() && !(types->is_array() && types->empty());
  const bool legacy = present("activation_func") || present("ffn_hidden_size") || has_legacy_layers;
  const bool native = !legacy && (has_types || r.find("moe_intermediate_size") != nullptr);
  if (has_legacy_layers) {
    if (!legacy_layers->is_array()) {
      r.wrong("zaya_layers", "an array of \"a\" and expert counts", *legacy_layers);
    }
    spec.num_hidden_layers = r.narrow("zaya_layers", static_cast<std::int64_t>(legacy_layers->size()));
    for (std::size_t i = 0; i < legacy_layers->size(); ++i) {
      if ((*legacy_layers)[i].is_string() && (*legacy_layers)[i].get<std::string>() == "a") {
        spec.state_layer_ids.push_back(static_cast<int>(i));
      }
    }
  } else {
    // A native layer folds an attention and an MoE layer: SGLang counts twice
    // as many, the layer_types entries or else num_hidden_layers.
    const std::int64_t listed = native ? (has_types ? static_cast<std::int64_t>(r.strings("layer_types").size())
                                                    : r.positive_or("num_hidden_layers", 80))
                                       : r.positive_or("num_hidden_layers", 80);
    spec.num_hidden_layers = r.narrow(native ? "layer_types" : "num_hidden_layers", native ? 2 * listed : listed);
    for (int i = 0; i < spec.num_hidden_layers; i += 2) {
      spec.state_layer_ids.push_back(i);
    }
  }
  if (spec.state_layer_ids.empty()) {
    not_hybrid(r, "no CCA (\"a\") layer");
  }
  // Every CCA layer holds both KV and conv state; the others are MoE layers.
  spec.num_attention_layers = static_cast<int>(spec.state_layer_ids.size());
  const std::int64_t q_heads = first_nonzero(r, "cca_num_q_heads").value_or(r.positive_or("num_attention_heads", 8));
  const std::int64_t kv_heads = r.positive_or("num_key_value_heads", 2);
  // The native schema sets the query groups to the KV heads; the legacy one
  // reads them, and the class asserts the two agree.
  const std::int64_t groups =
    native ? kv_heads : first_nonzero(r, "num_query_groups_list").value_or(r.positive_or("num_query_groups", 2));
  if (groups != kv_heads) {
    r.fail(fmt::format("the query groups ({}) differ from num_key_value_heads ({}); SGLang's ZayaConfig asserts "
                       "\"num_query_groups must equal num_key_value_heads for ZAYA1 checkpoints\" for {}",
                       groups, kv_heads, in.arch));
  }
  // head_dim defaults to 128 when absent; only an explicit null falls back to
  // kv_channels.
  const json* head_dim = r.find("head_dim");
  std::int64_t hd = 128;
  if (head_dim != nullptr && head_dim->is_null()) {
    hd = r.positive("kv_channels");
  } else if (head_dim != nullptr) {
    hd = r.check_positive("head_dim", *head_dim);
  }
  spec.intermediate_size = (q_heads + kv_heads) * hd;
  spec.conv_kernel = (r.positive_or("cca_time0", 2) - 1) + (r.positive_or("cca_time1", 2) - 1) + 1;
  spec.replicated_conv_channels = r.positive_or("hidden_size", 2048);
  spec.num_attention_heads = r.narrow("num_attention_heads", q_heads);
  spec.num_key_value_heads = r.narrow("num_key_value_heads", kv_heads);
}

void read_rwkv7(const ReaderInput& in, ModelSpec& spec)
{
  // configs/rwkv7.py@5e00420b: every layer is linear; Rwkv7StateShape.create
  // takes hidden_size, num_heads and head_dim; both dtypes are fixed float32.
  const KeyReader r = reader_of(in);
  spec.family = StateFamily::rwkv7;
  const json* attn = r.find("attn");
  if (attn != nullptr && !attn->is_null()) {
    r.fail(fmt::format("key '{}' is set; SGLang's Rwkv7Config raises \"fla hybrid-attention RWKV-7 variants (config "
                       "'attn' set) are not supported by this implementation\" for {}",
                       r.path("attn"), in.arch));
  }
  const json* norm_first = r.find("norm_first");
  if (norm_first != nullptr && norm_first->is_boolean() && !norm_first->get<bool>()) {
    r.fail(fmt::format("key '{}' is false; SGLang's Rwkv7Config raises \"RWKV-7 checkpoints with norm_first=False "
                       "are not supported\" for {}",
                       r.path("norm_first"), in.arch));
  }
  spec.num_hidden_layers = r.count_or("num_hidden_layers", 12);
  for (int i = 0; i < spec.num_hidden_layers; ++i) {
    spec.state_layer_ids.push_back(i);
  }
  const std::int64_t hidden = r.positive_or("hidden_size", 768);
  const json* head_dim = r.find("head_dim");
  if (head_dim != nullptr && head_dim->is_null()) {
    r.fail(fmt::format("key '{}' is null; SGLang's Rwkv7Config raises \"Rwkv7Config requires head_dim (checkpoint "
                       "config)\" for {}",
                       r.path("head_dim"), in.arch));
  }
  const std::int64_t hd = r.positive_or("head_dim", 64);
  // fla checkpoints ship "num_heads": null: hidden_size // head_dim.
  const json* heads = r.find("num_heads");
  spec.num_heads = heads != nullptr && heads->is_null() ? hidden / hd : r.positive_or("num_heads", 12);
  if (spec.num_heads <= 0) {
    r.fail(fmt::format("hidden_size {} // head_dim {} leaves no head for {}", hidden, hd, in.arch));
  }
  spec.head_dim = hd;
  spec.state_size = hd;
  spec.replicated_conv_channels = hidden;
  spec.conv_kernel = 2; // a token shift: the previous token only
  spec.fixed_state_dtype = Dtype::float32;
  spec.num_attention_layers = 0;
  spec.num_attention_heads = r.narrow("num_heads", spec.num_heads);
  spec.num_key_value_heads = spec.num_attention_heads;
}

} // namespace

void read_config(ConfigReader reader, const ReaderInput& in, ModelSpec& spec)
{
  switch (reader) {
  case ConfigReader::gdn: read_gdn(in, spec); return;
  case ConfigReader::jet: read_jet(in, spec); return;
  case ConfigReader::nemotron_h: read_nemotron_h(in, spec); return;
  case ConfigReader::falcon_h1: read_falcon_h1(in, spec); return;
  case ConfigReader::granite_hybrid: read_granite_hybrid(in, spec); return;
  case ConfigReader::mamba2: read_mamba2(in, spec); return;
  case ConfigReader::kimi_linear: read_kimi_linear(in, spec); return;
  case ConfigReader::glm5_next: read_glm5_next(in, spec); return;
  case ConfigReader::lfm2: read_lfm2(in, spec); return;
  case ConfigReader::lightning: read_lightning(in, spec); return;
  case ConfigReader::simple_gla: read_simple_gla(in, spec); return;
  case ConfigReader::zaya: read_zaya(in, spec); return;
  case ConfigReader::rwkv7: read_rwkv7(in, spec); return;
  case ConfigReader::refused: break;
  }
  throw std::logic_error("read_config: a refused architecture has no reader");
}

} // namespace pdcheck::model::config
