#pragma once

#include "cli/command.hpp"

#include <string>

namespace pdcheck::cli {

/// Hidden `pdcheck completion bash|zsh`: prints a completion script generated
/// from the CLI definition itself (subcommands, options, choices of IsMember
/// options), so completions cannot drift from the parser. completions/ holds the
/// committed output; a test regenerates and compares it.
void install_completion(CLI::App& app, CommandContext& ctx);

/// The scripts, from an App tree (exposed for tests).
std::string bash_completion(const CLI::App& root);
std::string zsh_completion(const CLI::App& root);
std::string fish_completion(const CLI::App& root);

} // namespace pdcheck::cli
