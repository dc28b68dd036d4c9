#include "report/models_render.hpp"

#include "sglang/state_type.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::report {

namespace {

/// Rows of cells under `headers`, each column as wide as its widest cell.
std::string aligned(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& cells)
{
  std::vector<std::size_t> widths;
  for (const std::string& header : headers) {
    widths.push_back(header.size());
  }
  for (const auto& line : cells) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      widths[i] = std::max(widths[i], line[i].size());
    }
  }
  std::string out;
  const auto print_line = [&](const std::vector<std::string>& line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      out += i + 1 == line.size() ? line[i] : fmt::format("{:<{}}  ", line[i], widths[i]);
    }
    out += "\n";
  };
  print_line(headers);
  for (const auto& line : cells) {
    print_line(line);
  }
  return out;
}

std::string where_text(const model::Architecture& a)
{
  if (a.language_model.empty()) {
    return "-";
  }
  return a.wrapper_optional ? fmt::format("{} or root", a.language_model) : std::string(a.language_model);
}

std::string status_text(const model::Architecture& a)
{
  return a.reader == model::ConfigReader::refused ? "refused" : std::string(a.confidence);
}

std::string outcome_text(const plan::ComponentOutcome& o)
{
  return o.raised ? fmt::format("raises {} ({})", *o.raised, o.function) : "sends";
}

nlohmann::ordered_json outcome_json(const plan::ComponentOutcome& o)
{
  nlohmann::ordered_json j;
  j["sends"] = !o.raised.has_value();
  j["raised"] = o.raised ? nlohmann::ordered_json(*o.raised) : nlohmann::ordered_json();
  j["function"] = o.raised ? nlohmann::ordered_json(o.function) : nlohmann::ordered_json();
  return j;
}

std::string transfers_text(const plan::Transferability& t)
{
  std::string out = "\nMamba state transfer: the first release whose backend sends it (earlier releases move the KV cache "
                    "only and leave the decode's state unwritten):\n";
  for (const plan::MambaTransferStart& m : t.mamba) {
    out += fmt::format("  {:<9} {} (PR {}, release row confidence {})\n", transfer_backend_name(m.backend),
                       m.first_release.empty() ? "no modelled release" : m.first_release, m.pull_request,
                       m.confidence.empty() ? "-" : m.confidence);
  }
  out += fmt::format("\nother state components (a side file's extra_state_types), as SGLang {} handles them on a "
                     "non-MLA model; an MLA model passes the TP checks; \"sends\" means SGLang raises nothing (pdcheck "
                     "simulates the bytes of the Mamba component only):\n",
                     t.components_release);
  for (const plan::ComponentTransfer& c : t.components) {
    out += fmt::format("  {} on {}:\n    equal attention TP:   {}\n    unequal attention TP: {}\n    prefill PP 2:         {}\n",
                       sglang::extra_state_type_name(c.type), transfer_backend_name(c.backend), outcome_text(c.equal_tp),
                       outcome_text(c.unequal_tp), outcome_text(c.prefill_pp));
  }
  return out;
}

nlohmann::ordered_json transfers_json(const plan::Transferability& t)
{
  nlohmann::ordered_json mamba = nlohmann::ordered_json::array();
  for (const plan::MambaTransferStart& m : t.mamba) {
    nlohmann::ordered_json item;
    item["backend"] = transfer_backend_name(m.backend);
    item["first_release"] = m.first_release.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(m.first_release);
    item["pull_request"] = m.pull_request;
    item["confidence"] = m.confidence.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(m.confidence);
    mamba.push_back(std::move(item));
  }
  nlohmann::ordered_json components = nlohmann::ordered_json::array();
  for (const plan::ComponentTransfer& c : t.components) {
    nlohmann::ordered_json item;
    item["state_type"] = sglang::extra_state_type_name(c.type);
    item["backend"] = transfer_backend_name(c.backend);
    item["equal_attn_tp"] = outcome_json(c.equal_tp);
    item["unequal_attn_tp"] = outcome_json(c.unequal_tp);
    item["prefill_pp_2"] = outcome_json(c.prefill_pp);
    components.push_back(std::move(item));
  }
  nlohmann::ordered_json j;
  j["mamba"] = std::move(mamba);
  j["components_release"] = t.components_release;
  j["components"] = std::move(components);
  return j;
}

} // namespace

std::string models_to_text(const std::vector<ModelRow>& rows, const std::string& catalog_revision,
                           const std::vector<model::Architecture>& architectures,
                           const plan::Transferability& transfers)
{
  std::vector<std::vector<std::string>> cells;
  for (const ModelRow& row : rows) {
    cells.push_back({row.name, row.hf_repo, row.architecture, row.family,
                     fmt::format("{} of {}", row.state_layers, row.num_hidden_layers)});
  }
  std::string out = "built-in model catalog, revision " + catalog_revision + "\n\n";
  out += aligned({"NAME", "HF REPO", "ARCHITECTURE", "FAMILY", "STATE LAYERS"}, cells);
  // Sources are long URLs with notes; a column of them would wrap every row.
  out += "\nsources:\n";
  for (const ModelRow& row : rows) {
    out += "  " + row.name + ": " + row.source + "\n";
  }

  std::vector<std::vector<std::string>> arch_cells;
  for (const model::Architecture& a : architectures) {
    arch_cells.push_back({std::string(a.architecture), std::string(a.model_type),
                          std::string(model::config_reader_name(a.reader)), where_text(a), status_text(a)});
  }
  out += "\narchitectures (a config.json's architectures[0]; SGLang files under python/sglang/srt/):\n\n";
  out += aligned({"ARCHITECTURE", "MODEL TYPE", "READER", "LANGUAGE MODEL", "CONFIDENCE"}, arch_cells);
  out += "\nsglang sources, and what is not confirmed:\n";
  for (const model::Architecture& a : architectures) {
    out += fmt::format("  {}: {}", a.architecture, a.sglang_source);
    if (!a.note.empty()) {
      out += fmt::format("; not confirmed: {}", a.note);
    }
    if (!a.refusal.empty()) {
      out += fmt::format("; refused: {}", a.refusal);
    }
    out += "\n";
  }
  return out + transfers_text(transfers);
}

nlohmann::ordered_json models_to_json(const std::vector<ModelRow>& rows, const std::string& catalog_revision,
                                      const std::vector<model::Architecture>& architectures,
                                      const plan::Transferability& transfers)
{
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const ModelRow& row : rows) {
    nlohmann::ordered_json item;
    item["name"] = row.name;
    item["hf_repo"] = row.hf_repo;
    item["architecture"] = row.architecture;
    item["family"] = row.family;
    item["num_hidden_layers"] = row.num_hidden_layers;
    item["state_layers"] = row.state_layers;
    item["source"] = row.source;
    models.push_back(std::move(item));
  }
  nlohmann::ordered_json doc;
  doc["catalog_revision"] = catalog_revision;
  doc["models"] = std::move(models);
  nlohmann::ordered_json archs = nlohmann::ordered_json::array();
  for (const model::Architecture& a : architectures) {
    nlohmann::ordered_json item;
    item["architecture"] = a.architecture;
    item["model_type"] = a.model_type;
    item["reader"] = model::config_reader_name(a.reader);
    item["language_model"] = a.language_model.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.language_model);
    item["language_model_optional"] = a.wrapper_optional;
    item["supported"] = a.reader != model::ConfigReader::refused;
    item["confidence"] = a.confidence.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.confidence);
    item["sglang_source"] = a.sglang_source;
    item["not_confirmed"] = a.note.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.note);
    item["refusal"] = a.refusal.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(a.refusal);
    archs.push_back(std::move(item));
  }
  doc["architectures"] = std::move(archs);
  doc["transfers"] = transfers_json(transfers);
  return doc;
}

} // namespace pdcheck::report
