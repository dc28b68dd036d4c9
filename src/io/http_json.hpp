#pragma once

// One JSON document from a read-only HTTP endpoint that SGLang renamed
// (/server_info after /get_server_info, /workers after /list_workers): the
// first target that does not answer 404, checked and parsed within limits.

#include "io/http_client.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::io {

struct JsonAnswer
{
  std::string target; ///< the target that answered
  nlohmann::json body;
};

/// GETs `targets` in order until one answers other than 404. Throws CannotRun
/// with one line naming `base` and the target: "GET T: WHY{unreachable_hint}"
/// when nothing answers, "GET T answered 401: {locked_why}" for 401 and 403,
/// "GET T answered STATUS ..." for another status, "the answer is not JSON"
/// and the JSON limits' text for a body that cannot be read as `kind`.
JsonAnswer get_json(const HttpGetClient& http, const std::string& base, const std::vector<std::string>& targets,
                    std::chrono::milliseconds timeout, const std::string& unreachable_hint,
                    const std::string& locked_why, std::string_view kind);

} // namespace pdcheck::io
