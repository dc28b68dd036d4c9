#include "model/model_spec.hpp"

#include "model/architectures.hpp"
#include "model/config_keys.hpp"
#include "model/config_readers.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

namespace pdcheck::model {

using nlohmann::json;
using config::join;
using config::KeyReader;
using config::ReaderInput;
using config::read_config;

std::string_view state_family_name(StateFamily f)
{
  switch (f) {
  case StateFamily::mamba2: return "mamba2";
  case StateFamily::gdn: return "gdn";
  case StateFamily::kda: return "kda";
  case StateFamily::short_conv: return "short_conv";
  case StateFamily::lightning: return "lightning";
  case StateFamily::simple_gla: return "simple_gla";
  case StateFamily::cca: return "cca";
  case StateFamily::rwkv7: return "rwkv7";
  }
  return "?";
}

const std::vector<std::string>& supported_architectures()
{
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const Architecture& row : architectures()) {
      if (row.reader != ConfigReader::refused) {
        names.emplace_back(row.architecture);
      }
    }
    return names;
  }();
  return k_names;
}

const std::vector<std::string>& supported_model_types()
{
  static const std::vector<std::string> k_names = [] {
    std::vector<std::string> names;
    for (const Architecture& row : architectures()) {
      // Two entry classes may share a config class (RWKV-7's spellings).
      if (row.reader != ConfigReader::refused &&
          std::find(names.begin(), names.end(), row.model_type) == names.end()) {
        names.emplace_back(row.model_type);
      }
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
  const Architecture* row = nullptr;
  if (const auto it = config.find("architectures");
      it != config.end() && it->is_array() && !it->empty() && it->front().is_string()) {
    spec.architecture = it->front().get<std::string>();
    row = find_architecture(spec.architecture);
    if (row == nullptr) {
      throw InputError(origin, fmt::format("unsupported architecture '{}': pdcheck supports hybrid Mamba / "
                                           "linear-attention models: {}",
                                           spec.architecture, join(supported_architectures())));
    }
  } else if (!spec.model_type.empty()) {
    spec.architecture = spec.model_type;
    row = find_architecture_by_model_type(spec.model_type);
    if (row == nullptr) {
      throw InputError(origin, fmt::format("unsupported model_type '{}' (the config has no 'architectures' list): "
                                           "pdcheck supports hybrid Mamba / linear-attention models: {}",
                                           spec.model_type, join(supported_model_types())));
    }
  } else {
    throw InputError(origin, "cannot tell the architecture: the config has neither an 'architectures' list nor a "
                             "'model_type'");
  }
  if (row->reader == ConfigReader::refused) {
    throw InputError(origin, fmt::format("architecture '{}' is not supported: {} ({})", spec.architecture,
                                         row->refusal, row->sglang_source));
  }
  spec.confidence = std::string(row->confidence);
  spec.confidence_note = std::string(row->note);
  spec.sglang_source = std::string(row->sglang_source);

  // Multimodal wrappers keep the language model under text_config or
  // llm_config; SGLang lays out the state from that part alone.
  const json* lm = &config;
  std::string prefix;
  if (!row->language_model.empty()) {
    const auto it = config.find(std::string(row->language_model));
    const bool present = it != config.end() && !it->is_null();
    if (present || !row->wrapper_optional) {
      const KeyReader outer(config, "", origin, spec.architecture);
      lm = &outer.object(row->language_model);
      prefix = std::string(row->language_model) + ".";
    }
  }
  read_config(row->reader, ReaderInput{config, *lm, prefix, origin, spec.architecture}, spec);
  return spec;
}

} // namespace pdcheck::model
