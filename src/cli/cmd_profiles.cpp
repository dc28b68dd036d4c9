#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/profile.hpp"
#include "report/catalog_render.hpp"

#include <ostream>

namespace pdcheck::cli {

void install_profiles(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("profiles", "List SGLang profiles and which release maps to which");
  add_report_options(cmd, *options);
  cmd->callback([options, &ctx] {
    ctx.verdict = Verdict::ok;
    *ctx.out << (options->format == "json" ? report::profiles_to_json(profiles()).dump(2) + "\n"
                                           : report::profiles_to_text(profiles()));
  });
}

} // namespace pdcheck::cli
