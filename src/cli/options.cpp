#include "cli/options.hpp"

#include "io/output_file.hpp"
#include "io/side_file.hpp"
#include "util/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace pdcheck::cli {

namespace {

CLI::Option* format_option(CLI::App* cmd, std::string& format, const ReportFlags& flags)
{
  return cmd->add_option("--format", format, flags.format_help)->check(CLI::IsMember(flags.formats));
}

} // namespace

Severity ReportOptions::fail_on_severity() const
{
  return fail_on == "warning" ? Severity::warning : fail_on == "info" ? Severity::info : Severity::error;
}

bool ReportOptions::use_color() const
{
  return color == "always" || (color == "auto" && std::getenv("NO_COLOR") == nullptr && isatty(STDOUT_FILENO) == 1);
}

void add_report_options(CLI::App* cmd, ReportOptions& options, const ReportFlags& flags)
{
  CLI::Option* format = format_option(cmd, options.format, flags);
  if (flags.show_default_format) {
    format->capture_default_str();
  }
  if (flags.color) {
    cmd->add_option("--color", options.color, "Colour: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  }
  if (flags.fail_on) {
    cmd->add_option("--fail-on", options.fail_on, "Lowest severity that fails the check: error, warning, info")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  }
}

std::map<std::string, std::string> parse_env_assignments(const std::vector<std::string>& words,
                                                         const std::string& option)
{
  std::map<std::string, std::string> env;
  for (const std::string& w : words) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError(option, "expected KEY=VALUE, got '" + w + "'");
    }
    env[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return env;
}

sglang::Side side_from_command_line(const std::string& args, const std::string& model, const std::string& sglang,
                                    const std::vector<std::string>& env, const std::string& origin,
                                    const std::string& env_option)
{
  const auto env_map = parse_env_assignments(env, env_option);
  const auto parsed = sglang::parse_launch_args(sglang::split_command_line(args, origin), origin, env_map);
  const auto role = parsed.disaggregation_mode == sglang::DisaggregationMode::decode ? sglang::Role::decode
                                                                                     : sglang::Role::prefill;
  return io::side_from_args(role, args, model, sglang, env_map, origin);
}

namespace {

/// The word as a number of type T, whole: "2" but not "2x", "2.5" for integers.
template <typename T>
std::optional<T> number_of(const std::string& word)
{
  std::istringstream in(word);
  T value{};
  if (!(in >> value) || !(in >> std::ws).eof()) {
    return std::nullopt;
  }
  return value;
}

} // namespace

CLI::Validator positive_integer()
{
  return CLI::Validator(
    [](std::string& word) -> std::string {
      const auto n = number_of<long long>(word);
      return n && *n > 0 ? "" : "expected a positive integer, got " + word;
    },
    "N>0");
}

CLI::Validator integer_range(long long lo, long long hi)
{
  return CLI::Validator(
    [lo, hi](std::string& word) -> std::string {
      const auto n = number_of<long long>(word);
      return n && *n >= lo && *n <= hi ? "" : fmt::format("expected an integer from {} to {}, got {}", lo, hi, word);
    },
    fmt::format("{}..{}", lo, hi));
}

CLI::Validator number_range(double lo, double hi)
{
  return CLI::Validator(
    [lo, hi](std::string& word) -> std::string {
      const auto n = number_of<double>(word);
      return n && *n >= lo && *n <= hi ? "" : fmt::format("expected a number from {} to {}, got {}", lo, hi, word);
    },
    fmt::format("{}..{}", lo, hi));
}

CLI::Validator output_request_validator(std::vector<std::string> formats)
{
  return CLI::Validator(
    [formats = std::move(formats)](std::string& word) -> std::string {
      const auto eq = word.find('=');
      const std::string format = word.substr(0, eq);
      if (eq == std::string::npos || eq + 1 == word.size()) {
        return "expected FORMAT=PATH, got '" + word + "'";
      }
      if (std::find(formats.begin(), formats.end(), format) == formats.end()) {
        return fmt::format("unknown format '{}' in '{}' (formats: {})", format, word, fmt::join(formats, ", "));
      }
      return "";
    },
    "FORMAT=PATH");
}

void write_requested_outputs(const std::vector<std::string>& requests,
                             const std::function<std::string(const std::string& format)>& render, std::ostream& out)
{
  for (const std::string& word : requests) {
    const auto eq = word.find('=');
    const std::string path = word.substr(eq + 1);
    const std::string text = render(word.substr(0, eq));
    if (path == "-") {
      out << text;
      continue;
    }
    io::write_output_file(path, text, "--output " + path);
  }
}

} // namespace pdcheck::cli
