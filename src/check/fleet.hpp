#pragma once

// `pdcheck fleet --router URL`: the workers a router lists, read from its
// answer (GET /workers, or GET /list_workers on the first sgl-router), and
// what is wrong with the fleet as a whole: workers that do not answer, roles
// the router and the server disagree on, bootstrap ports the decode would not
// find. Pure; sources in docs/research/live-server-info.md §3.

#include "check/bootstrap.hpp"
#include "core/finding.hpp"
#include "sglang/side.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::check {

/// One worker as the router lists it.
struct RouterWorker
{
  std::string url;
  std::optional<sglang::Role> role; ///< worker_type; nullopt for old routers that list URLs only
  std::optional<int> bootstrap_port; ///< a prefill's registered bootstrap port; nullopt when none
};

/// The workers of a router's answer: {"workers": [{url, worker_type,
/// bootstrap_port}, ...]} (sgl-router 0.2, sgl-model-gateway), a bare array of
/// such objects, or {"urls": [...]} (sgl-router 0.1, GET /list_workers).
/// Workers of type "regular" are left out. Throws InputError(origin, ...) for
/// any other shape.
std::vector<RouterWorker> parse_router_workers(const nlohmann::json& answer, const std::string& origin);

/// A listed worker and what its server said.
struct FleetWorker
{
  RouterWorker listed;
  std::optional<sglang::Side> side; ///< nullopt when it did not answer
  std::string failure;              ///< why not, one line
  /// A prefill's bootstrap server, read at its host and its own
  /// --disaggregation-bootstrap-port (a router port that differs is
  /// fleet-bootstrap-port); nullopt for decodes and unanswering workers.
  std::optional<ObservedBootstrap> bootstrap;
};

/// The fleet findings: unreachable workers, role disagreements, and for each
/// prefill × decode pair a bootstrap port the decode would not find.
std::vector<Finding> fleet_findings(const std::vector<FleetWorker>& workers);

/// The role a worker serves: the server's own when it answered, else the router's.
std::optional<sglang::Role> serving_role(const FleetWorker& w);

} // namespace pdcheck::check
