#pragma once

// What `pdcheck explain LOG` reads from a matched SGLang text: the causes the
// printed values point to, what pdcheck derives from them, and a sentence
// saying so.

#include "core/sglang_messages.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pdcheck::check {

struct Analysis
{
  std::vector<std::string> causes; ///< names of check/log_causes.hpp
  nlohmann::ordered_json derived = nlohmann::ordered_json::object();
  std::string explanation;
};

/// An analysis that is an explanation only: the causes come from the catalog row.
Analysis explained(std::string explanation);

/// The analysis of catalog row `id` from the values its placeholders matched.
Analysis analyse_message(MessageId id, const nlohmann::ordered_json& values);

} // namespace pdcheck::check
