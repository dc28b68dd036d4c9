#pragma once

#include "core/finding.hpp"
#include "sglang/side.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>

#include <map>
#include <string>
#include <vector>

namespace pdcheck::cli {

/// How a command prints its report: `--format`, and for commands whose verdict
/// is a set of findings `--color` and `--fail-on`. One struct for every command,
/// installed by add_report_options, so that the flags mean the same everywhere.
struct ReportOptions
{
  std::string format = "text";
  std::string color = "auto";
  std::string fail_on = "error";

  /// --fail-on as a severity.
  Severity fail_on_severity() const;
  /// --color always; or auto, NO_COLOR unset and standard output a terminal.
  bool use_color() const;
};

/// Which of the report options a command takes.
struct ReportFlags
{
  std::vector<std::string> formats = {"text", "json"};
  std::string format_help = "Output format";
  bool show_default_format = false; ///< `[text]` in --help (models)
  bool color = false;
  bool fail_on = false;
};

/// Installs --format (then --color and --fail-on, when `flags` asks) on `cmd`.
void add_report_options(CLI::App* cmd, ReportOptions& options, const ReportFlags& flags = {});

/// Parses `KEY=VALUE` words given with `option` (--prefill-env, --env, ...).
/// Throws InputError naming the option and the word.
std::map<std::string, std::string> parse_env_assignments(const std::vector<std::string>& words,
                                                         const std::string& option = "--env");

/// Range checks stated as a person would: "expected a positive integer, got 0",
/// "expected an integer from 1 to 255, got 0", "expected a number from 0.1 to
/// 86400, got 0" (CLI11 prefixes the option's name).
CLI::Validator positive_integer();
CLI::Validator integer_range(long long lo, long long hi);
CLI::Validator number_range(double lo, double hi);

/// A side built from launch arguments given on pdcheck's own command line; the
/// role comes from --disaggregation-mode (prefill when absent).
sglang::Side side_from_command_line(const std::string& args, const std::string& model, const std::string& sglang,
                                    const std::vector<std::string>& env, const std::string& origin,
                                    const std::string& env_option = "--env");

/// CLI11 validator for `--output FORMAT=PATH` words: one of `formats` and a
/// non-empty path.
CLI::Validator output_request_validator(std::vector<std::string> formats);

/// Writes every `--output FORMAT=PATH` with `render(format)` (PATH "-" =
/// standard output, to `out`). Throws InputError naming the path when a file
/// cannot be written.
void write_requested_outputs(const std::vector<std::string>& requests,
                             const std::function<std::string(const std::string& format)>& render, std::ostream& out);

} // namespace pdcheck::cli
