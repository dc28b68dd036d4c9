#include "cli/command.hpp"

#include "model/catalog.hpp"
#include "model/model_spec.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace pdcheck::cli {

namespace {

struct ModelsOptions
{
  std::string format = "text";
};

struct Row
{
  std::string name;
  std::string hf_repo;
  std::string architecture;
  std::string family;
  int num_hidden_layers = 0;
  int state_layers = 0;
  std::string source;
};

std::vector<Row> catalog_rows()
{
  std::vector<Row> rows;
  for (const model::CatalogEntry& entry : model::catalog()) {
    // Built-in texts are tested to parse; reading them here keeps the listing
    // honest about what each entry actually yields.
    const model::ModelSpec spec =
      model::read_model_config(nlohmann::json::parse(entry.config_json), std::string(entry.name), std::string(entry.name));
    rows.push_back(Row{std::string(entry.name), std::string(entry.hf_repo), spec.architecture,
                       std::string(model::state_family_name(spec.family)), spec.num_hidden_layers,
                       static_cast<int>(spec.state_layer_ids.size()), std::string(entry.source)});
  }
  return rows;
}

void print_text(std::ostream& out, const std::vector<Row>& rows)
{
  const std::vector<std::string> headers = {"NAME", "HF REPO", "ARCHITECTURE", "FAMILY", "STATE LAYERS"};
  std::vector<std::vector<std::string>> cells;
  for (const Row& row : rows) {
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
  const auto print_line = [&](const std::vector<std::string>& line) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      text += i + 1 == line.size() ? line[i] : fmt::format("{:<{}}  ", line[i], widths[i]);
    }
    out << text << "\n";
  };

  out << "built-in model catalog, revision " << model::catalog_revision() << "\n\n";
  print_line(headers);
  for (const auto& line : cells) {
    print_line(line);
  }
  // Sources are long URLs with notes; a column of them would wrap every row.
  out << "\nsources:\n";
  for (const Row& row : rows) {
    out << "  " << row.name << ": " << row.source << "\n";
  }
}

void print_json(std::ostream& out, const std::vector<Row>& rows)
{
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const Row& row : rows) {
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
  doc["catalog_revision"] = std::string(model::catalog_revision());
  doc["models"] = std::move(models);
  out << doc.dump(2) << "\n";
}

} // namespace

void install_models(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ModelsOptions>();
  CLI::App* sub = app.add_subcommand("models", "List the built-in model catalog (real published config.json files)");
  sub->add_option("--format", options->format, "Output format")
    ->check(CLI::IsMember({"text", "json"}))
    ->capture_default_str();
  sub->callback([options, &ctx] {
    const std::vector<Row> rows = catalog_rows();
    if (options->format == "json") {
      print_json(*ctx.out, rows);
    } else {
      print_text(*ctx.out, rows);
    }
    ctx.exit_status = 0;
  });
}

} // namespace pdcheck::cli
