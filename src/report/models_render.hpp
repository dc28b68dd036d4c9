#pragma once

// `pdcheck models`: the built-in model catalog as a table or as JSON.

#include "model/architectures.hpp"
#include "plan/transferability.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pdcheck::report {

/// One catalog entry as listed (cli/cmd_models.cpp reads each entry's config).
struct ModelRow
{
  std::string name;
  std::string hf_repo;
  std::string architecture;
  std::string family;
  int num_hidden_layers = 0;
  int state_layers = 0;
  std::string source;
};

/// `pdcheck models --format json` (schemas/models.schema.json): the catalog,
/// every architecture pdcheck knows, then which state each backend transfers.
nlohmann::ordered_json models_to_json(const std::vector<ModelRow>& rows, const std::string& catalog_revision,
                                      const std::vector<model::Architecture>& architectures,
                                      const plan::Transferability& transfers);

/// Text: one aligned row per model and each model's source; then one row per
/// architecture, with what is not confirmed or why it is refused; then which
/// state each backend transfers.
std::string models_to_text(const std::vector<ModelRow>& rows, const std::string& catalog_revision,
                           const std::vector<model::Architecture>& architectures,
                           const plan::Transferability& transfers);

} // namespace pdcheck::report
