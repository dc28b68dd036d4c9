#pragma once

#include "util/error.hpp"

#include <CLI/CLI.hpp>

#include <iosfwd>

namespace pdcheck::cli {

/// Shared by every subcommand: where to print and the verdict it reached.
/// Subcommands never pick exit numbers; run.cpp maps the verdict.
struct CommandContext
{
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  Verdict verdict = Verdict::ok;
};

/// Each subcommand lives in its own cmd_<name>.cpp and installs itself here.
void install_check(CLI::App& app, CommandContext& ctx);
void install_bootstrap(CLI::App&, CommandContext&);
void install_layout(CLI::App& app, CommandContext& ctx);
void install_models(CLI::App& app, CommandContext& ctx);
void install_profiles(CLI::App& app, CommandContext& ctx);
void install_rules(CLI::App& app, CommandContext& ctx);
void install_explain(CLI::App& app, CommandContext& ctx);
void install_decode(CLI::App& app, CommandContext& ctx);
void install_encode(CLI::App& app, CommandContext& ctx);
void install_probe(CLI::App&, CommandContext&);
void install_devices(CLI::App&, CommandContext&);
void install_capture(CLI::App&, CommandContext&);
void install_fleet(CLI::App&, CommandContext&);
void install_rollout(CLI::App&, CommandContext&);
void install_matrix(CLI::App&, CommandContext&);

} // namespace pdcheck::cli
