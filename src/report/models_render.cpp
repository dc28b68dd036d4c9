#include "report/models_render.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::report {

std::string models_to_text(const std::vector<ModelRow>& rows, const std::string& catalog_revision)
{
  const std::vector<std::string> headers = {"NAME", "HF REPO", "ARCHITECTURE", "FAMILY", "STATE LAYERS"};
  std::vector<std::vector<std::string>> cells;
  for (const ModelRow& row : rows) {
    cells.push_back({row.name, row.hf_repo, row.architecture, row.family,
                     fmt::format("{} of {}", row.state_layers, row.num_hidden_layers)});
  }
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

  out += "built-in model catalog, revision " + catalog_revision + "\n\n";
  print_line(headers);
  for (const auto& line : cells) {
    print_line(line);
  }
  // Sources are long URLs with notes; a column of them would wrap every row.
  out += "\nsources:\n";
  for (const ModelRow& row : rows) {
    out += "  " + row.name + ": " + row.source + "\n";
  }
  return out;
}

nlohmann::ordered_json models_to_json(const std::vector<ModelRow>& rows, const std::string& catalog_revision)
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
  return doc;
}

} // namespace pdcheck::report
