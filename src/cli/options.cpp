#include "cli/options.hpp"

#include "io/side_file.hpp"
#include "util/error.hpp"

namespace pdcheck::cli {

void add_format_option(CLI::App* cmd, std::string& format)
{
  cmd->add_option("--format", format, "Output format")->check(CLI::IsMember({"text", "json"}));
}

std::map<std::string, std::string> parse_env_assignments(const std::vector<std::string>& words)
{
  std::map<std::string, std::string> env;
  for (const std::string& w : words) {
    const auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--env", "expected KEY=VALUE, got '" + w + "'");
    }
    env[w.substr(0, eq)] = w.substr(eq + 1);
  }
  return env;
}

sglang::Side side_from_command_line(const std::string& args, const std::string& model, const std::string& sglang,
                                    const std::vector<std::string>& env, const std::string& origin)
{
  const auto env_map = parse_env_assignments(env);
  const auto parsed = sglang::parse_launch_args(sglang::split_command_line(args, origin), origin, env_map);
  const auto role = parsed.disaggregation_mode == sglang::DisaggregationMode::decode ? sglang::Role::decode
                                                                                     : sglang::Role::prefill;
  return io::side_from_args(role, args, model, sglang, env_map, origin);
}

} // namespace pdcheck::cli
