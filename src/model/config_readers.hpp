#pragma once

// One reader per config class family (model/architectures.hpp's
// ConfigReader): each takes the language model's keys and fills a ModelSpec's
// layers and shape-builder inputs, following the SGLang config class that the
// architecture's row cites. Internal to model/.

#include "model/architectures.hpp"
#include "model/model_spec.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::model::config {

struct ReaderInput
{
  const nlohmann::json& root; ///< the whole config.json
  const nlohmann::json& lm;   ///< the language model's keys: `root`, or a wrapper's text_config / llm_config
  std::string prefix;         ///< "" or "text_config." / "llm_config.", for error messages
  const std::string& origin;  ///< the file or catalog entry
  const std::string& arch;    ///< the architecture as named in the config
};

/// Fills `spec` with `reader`'s keys. Throws InputError naming the key.
void read_config(ConfigReader reader, const ReaderInput& in, ModelSpec& spec);

} // namespace pdcheck::model::config
