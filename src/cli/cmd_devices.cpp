#include "cli/command.hpp"
#include "cli/options.hpp"
#include "probe/rdma.hpp"

#include <ostream>

namespace pdcheck::cli {

void install_devices(CLI::App& app, CommandContext& ctx)
{
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("devices", "List RDMA devices and ports: state, MTU, speed, GID table and the GID "
                                                "pdcheck would use");
  add_format_option(cmd, *format);
  cmd->callback([format, &ctx] {
    // Throws CannotRun (exit 3) naming ENOSYS or an empty device list.
    const auto devices = probe::list_rdma_devices();
    if (*format == "json") {
      *ctx.out << probe::devices_to_json(devices).dump(2) << "\n";
    } else {
      *ctx.out << probe::devices_to_text(devices);
    }
    ctx.exit_status = exit_code::ok;
  });
}

} // namespace pdcheck::cli
