#pragma once

// `pdcheck bootstrap`: what the prefill's bootstrap server answered, then the
// check of the decode side against the prefill side built from it.

#include "check/bootstrap.hpp"
#include "check/checker.hpp"
#include "report/check_render.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace pdcheck::report {

/// What was read from the server, as plain data (io/bootstrap_client.hpp
/// fetches it; cli/cmd_bootstrap.cpp copies it here).
struct BootstrapServer
{
  std::string url;
  std::string health;        ///< "ok", "absent" or "other" (io::health_state_name)
  std::string health_answer; ///< e.g. "200 OK"
  std::string info_target;   ///< the query that the server info answered
  check::PrefillServerInfo info;
  std::vector<check::RankEndpoint> endpoints;
  std::vector<std::pair<check::RankId, std::string>> missing_ranks; ///< with the server's last answer
  std::vector<std::string> notes;
  int requests = 0;
  int not_ready_answers = 0;
};

/// `pdcheck bootstrap --format json` (schemas/bootstrap.schema.json).
nlohmann::ordered_json bootstrap_to_json(const BootstrapServer& server, const check::PrefillFromServer& from,
                                         const CheckReport& report);

/// Text: the server's facts and endpoints, then the check report.
std::string bootstrap_to_text(const BootstrapServer& server, const check::PrefillFromServer& from,
                              const CheckReport& report, const RenderOptions& options);

} // namespace pdcheck::report
