#include "cli/run.hpp"

#include "cli/cmd_completion.hpp"
#include "cli/command.hpp"
#include "model/catalog.hpp"
#include "core/profile.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <iostream>
#include <new>

namespace pdcheck::cli {

namespace {

using Installer = void (*)(CLI::App&, CommandContext&);

// The subcommand table: one line per command, in the order `--help` lists them.
constexpr Installer k_installers[] = {
  install_check,
  install_bootstrap,
  install_layout,
  install_models,
  install_profiles,
  install_rules,
  install_explain,
  install_decode, install_encode, install_capture,
  install_probe, install_devices,
  install_completion, // hidden
};

} // namespace

int run(int argc, char** argv)
{
  CommandContext ctx;
  ctx.out = &std::cout;
  ctx.err = &std::cerr;

  CLI::App app{"pdcheck: diagnostic and compatibility checker for SGLang PD disaggregation of "
               "hybrid Mamba / linear-attention models",
               "pdcheck"};
  app.require_subcommand(1);
  // What a bug report needs: which SGLang behaviours and models this build knows.
  app.set_version_flag("--version", fmt::format("pdcheck {}\nprofiles: {}\ncatalog revision: {}", PDCHECK_VERSION,
                                                fmt::join(profile_names(), ", "), model::catalog_revision()));
  for (Installer install : k_installers) {
    install(app, ctx);
  }

  try {
    app.parse(argc, argv);
    return ctx.exit_status;
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (100..127) are not ours: every usage problem is 2.
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return exit_code::usage;
  } catch (const InputError& e) {
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return exit_code::usage;
  } catch (const CannotRun& e) {
    std::cerr << "pdcheck: cannot run: " << e.what() << "\n";
    return exit_code::cannot_run;
  } catch (const std::bad_alloc&) {
    // Not a bug: inputs within their limits can still need more memory than
    // the machine (or ulimit -v) gives. Readers name the file when they can.
    std::cerr << "pdcheck: cannot run: out of memory\n";
    return exit_code::cannot_run;
  } catch (const std::exception& e) {
    std::cerr << "pdcheck: internal error: " << e.what() << "\n";
    return 70;
  }
}

} // namespace pdcheck::cli
