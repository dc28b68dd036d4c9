#pragma once

#include "sglang/side.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

namespace pdcheck::cli {

/// `--format text|json`, shared by every command that prints a report.
void add_format_option(CLI::App* cmd, std::string& format);

/// Parses `KEY=VALUE` words given with --env. Throws InputError naming the word.
std::map<std::string, std::string> parse_env_assignments(const std::vector<std::string>& words);

/// A side built from launch arguments given on pdcheck's own command line; the
/// role comes from --disaggregation-mode (prefill when absent).
sglang::Side side_from_command_line(const std::string& args, const std::string& model, const std::string& sglang,
                                    const std::vector<std::string>& env, const std::string& origin);

} // namespace pdcheck::cli
