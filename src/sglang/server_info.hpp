#pragma once

// A running SGLang server's answer to GET /server_info (GET /get_server_info
// before the rename): `dataclasses.asdict(server_args)` merged with the
// scheduler's info and `version` (python/sglang/srt/entrypoints/http_server.py;
// sources in docs/research/live-server-info.md §1). The server arguments are
// top-level keys named by their argparse dest, so a launch can be rebuilt from
// the dests pdcheck models.

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pdcheck::sglang {

struct ServerInfoLaunch
{
  std::vector<std::string> words; ///< "--tp-size", "4", ...: the modelled options the answer holds
  std::string version;            ///< `version`; "" when the answer has none
};

/// Launch words from a server-info answer: each top-level key that is a dest
/// pdcheck models becomes its option (true switches bare, false and null
/// left out, disaggregation_mode "null" left out). Throws InputError(origin,
/// ...) when the answer is not a JSON object or names no model_path.
ServerInfoLaunch launch_from_server_info(const nlohmann::json& info, const std::string& origin);

} // namespace pdcheck::sglang
