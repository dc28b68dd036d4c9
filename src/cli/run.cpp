#include "cli/run.hpp"

#include "cli/cmd_completion.hpp"
#include "cli/command.hpp"
#include "io/output_file.hpp"
#include "model/catalog.hpp"
#include "core/profile.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <csignal>
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

/// The process's outcome: what the command (or the exception that ended it)
/// concluded, with the one line said on stderr.
Verdict run_command(CLI::App& app, int argc, char** argv, CommandContext& ctx)
{
  try {
    app.parse(argc, argv);
    return ctx.verdict;
  } catch (const CLI::Success& e) {
    app.exit(e); // prints --help or --version
    return Verdict::ok;
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (100..127) are not ours: every usage problem is 2.
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return Verdict::usage;
  } catch (const InputError& e) {
    std::cerr << "pdcheck: error: " << e.what() << "\n";
    return Verdict::usage;
  } catch (const CannotRun& e) {
    std::cerr << "pdcheck: cannot run: " << e.what() << "\n";
    return Verdict::cannot_run;
  } catch (const std::bad_alloc&) {
    // Not a bug: inputs within their limits can still need more memory than
    // the machine (or ulimit -v) gives. Readers name the file when they can.
    std::cerr << "pdcheck: cannot run: out of memory\n";
    return Verdict::cannot_run;
  } catch (const std::exception& e) {
    std::cerr << "pdcheck: internal error: " << e.what() << "\n";
    return Verdict::internal_error;
  }
}

} // namespace

int exit_status_for(Verdict v)
{
  switch (v) {
  case Verdict::ok: return 0;
  case Verdict::findings: return 1;
  case Verdict::usage: return 2;
  case Verdict::cannot_run: return 3;
  case Verdict::internal_error: return 70; // EX_SOFTWARE of sysexits.h
  case Verdict::interrupted: return 130;   // 128 + SIGINT, what shells report
  case Verdict::terminated: return 143;    // 128 + SIGTERM
  }
  return exit_status_for(Verdict::internal_error); // not reached: every verdict is listed above
}

int run(int argc, char** argv)
{
  // Before anything can open an output file; the handlers never return.
  io::exit_on_signal(SIGINT, exit_status_for(Verdict::interrupted));
  io::exit_on_signal(SIGTERM, exit_status_for(Verdict::terminated));
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

  const Verdict verdict = run_command(app, argc, argv, ctx);
  return exit_status_for(verdict);
}

} // namespace pdcheck::cli
