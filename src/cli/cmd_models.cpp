#include "cli/command.hpp"
#include "cli/options.hpp"

#include "model/architectures.hpp"
#include "model/catalog.hpp"
#include "model/model_spec.hpp"
#include "plan/transferability.hpp"
#include "report/models_render.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace pdcheck::cli {

namespace {

std::vector<report::ModelRow> catalog_rows()
{
  std::vector<report::ModelRow> rows;
  for (const model::CatalogEntry& entry : model::catalog()) {
    // Built-in texts are tested to parse; reading them here keeps the listing
    // honest about what each entry actually yields.
    const model::ModelSpec spec =
      model::read_model_config(nlohmann::json::parse(entry.config_json), std::string(entry.name), std::string(entry.name));
    rows.push_back(report::ModelRow{std::string(entry.name), std::string(entry.hf_repo), spec.architecture,
                                    std::string(model::state_family_name(spec.family)), spec.num_hidden_layers,
                                    static_cast<int>(spec.state_layer_ids.size()), std::string(entry.source)});
  }
  return rows;
}

} // namespace

void install_models(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ReportOptions>();
  CLI::App* sub = app.add_subcommand("models", "List the built-in model catalog (real published config.json files), every architecture pdcheck knows and "
                                               "which state each transfer backend moves");
  ReportFlags flags;
  flags.show_default_format = true;
  add_report_options(sub, *options, flags);
  sub->callback([options, &ctx] {
    const std::vector<report::ModelRow> rows = catalog_rows();
    const std::string revision(model::catalog_revision());
    if (options->format == "json") {
      *ctx.out << report::models_to_json(rows, revision, model::architectures(), plan::transferability()).dump(2) << "\n";
    } else {
      *ctx.out << report::models_to_text(rows, revision, model::architectures(), plan::transferability());
    }
    ctx.verdict = Verdict::ok;
  });
}

} // namespace pdcheck::cli
