#include "model/config_keys.hpp"

namespace pdcheck::model::config {

std::string join(const std::vector<std::string>& items)
{
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) {
      out += ", ";
    }
    out += item;
  }
  return out;
}

std::string brief(const json& value)
{
  std::string text = value.dump();
  constexpr std::size_t k_max = 40;
  if (text.size() > k_max) {
    text = text.substr(0, k_max - 3) + "...";
  }
  return text;
}

// A config whose layer list names no layer with state gets no Mamba pool in
// SGLang: there is nothing to transfer, so pdcheck refuses it plainly.
void not_hybrid(const KeyReader& r, std::string_view why)
{
  r.fail(fmt::format("{} config has {}: it is not a hybrid model, so SGLang allocates no Mamba state to check",
                     r.arch(), why));
}

void check_layer_count(const KeyReader& r, std::string_view list_key, std::size_t list_size, int num_layers)
{
  if (list_size != static_cast<std::size_t>(num_layers)) {
    r.fail(fmt::format("key '{}' has {} entries but 'num_hidden_layers' is {} for {}", r.path(list_key), list_size,
                       num_layers, r.arch()));
  }
}

int layer_count_of_list(const KeyReader& r, std::string_view list_key, std::size_t list_size)
{
  const int layers = r.narrow(list_key, static_cast<std::int64_t>(list_size));
  const json* declared = r.find("num_hidden_layers");
  if (declared != nullptr && !declared->is_null()) {
    check_layer_count(r, list_key, list_size, r.count("num_hidden_layers"));
  }
  return layers;
}

// Attention heads matter only for the layers that have attention; a config
// without any may leave them out.
void read_attention_heads(const KeyReader& r, ModelSpec& spec)
{
  if (spec.num_attention_layers > 0) {
    spec.num_attention_heads = r.count("num_attention_heads");
  } else {
    spec.num_attention_heads = r.count_or("num_attention_heads", 0);
  }
  spec.num_key_value_heads = r.count_or("num_key_value_heads", spec.num_attention_heads);
}

// SGLang's mamba2_state_dtype() takes `mamba_ssm_dtype` only when it is one of
// these exact spellings and silently ignores anything else, so pdcheck does too.
std::optional<Dtype> config_ssm_dtype(const json& config, const json* text_config)
{
  for (const json* block : {text_config, &config}) {
    if (block == nullptr) {
      continue;
    }
    const auto it = block->find("mamba_ssm_dtype");
    if (it == block->end() || !it->is_string()) {
      continue;
    }
    const auto& text = it->get_ref<const std::string&>();
    if (text == "float32") {
      return Dtype::float32;
    }
    if (text == "bfloat16") {
      return Dtype::bfloat16;
    }
    if (text == "float16") {
      return Dtype::float16;
    }
  }
  return std::nullopt;
}

} // namespace pdcheck::model::config
