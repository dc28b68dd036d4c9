#include "cli/command.hpp"
#include "cli/options.hpp"
#include "probe/rdma.hpp"
#include "report/devices_render.hpp"
#include "util/error.hpp"

#include <ostream>

namespace pdcheck::cli {

void install_devices(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("devices", "List RDMA devices and ports: state, MTU, speed, GID table and the GID "
                                                "pdcheck would use");
  add_report_options(cmd, *options);
  cmd->callback([options, &ctx] {
    // Throws CannotRun (exit 3) naming ENOSYS or an empty device list.
    std::vector<report::RdmaDeviceRow> devices;
    try {
      devices = probe::device_rows(probe::list_rdma_devices());
    } catch (const CannotRun& e) {
      if (options->format != "json") {
        throw;
      }
      // Scripts parse stdout: a JSON document with the reason, the line on stderr, exit 3.
      *ctx.out << report::devices_unavailable_to_json(e.what()).dump(2) << "\n";
      *ctx.err << "pdcheck: cannot run: " << e.what() << "\n";
      ctx.verdict = Verdict::cannot_run;
      return;
    }
    if (options->format == "json") {
      *ctx.out << report::devices_to_json(devices).dump(2) << "\n";
    } else {
      *ctx.out << report::devices_to_text(devices);
    }
    ctx.verdict = Verdict::ok;
  });
}

} // namespace pdcheck::cli
