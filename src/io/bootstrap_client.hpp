#pragma once

// Reads a running SGLang prefill bootstrap server over HTTP, read-only: GET
// /health, GET /route for the server info, GET /route for each rank's endpoint.
// It never sends PUT /route (a prefill rank registering) or POST
// /register_dp_rank (which changes the server's routing table): the client it
// uses (io/http_client.hpp) has no method but GET.

#include "check/bootstrap.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace pdcheck::io {

struct BootstrapOptions
{
  /// The whole budget: connecting, every request and every wait for a server
  /// that is not fully registered yet.
  std::chrono::milliseconds timeout{30'000};
  std::chrono::milliseconds per_request{10'000}; ///< at most this per request
  std::chrono::milliseconds first_backoff{250};  ///< doubled after each not-ready answer
  std::chrono::milliseconds max_backoff{4'000};
};

enum class HealthState { ok, absent, other };
std::string_view health_state_name(HealthState h);

/// Everything read from the server.
struct BootstrapFetch
{
  check::BootstrapUrl url;
  HealthState health = HealthState::ok;
  std::string health_answer;  ///< e.g. "200 OK"
  std::string info_target;    ///< the query that the server info answered
  check::PrefillServerInfo info;
  std::vector<check::RankEndpoint> endpoints; ///< in check::rank_ids order, registered ranks only
  /// Ranks the server info announces but whose endpoint was still not registered
  /// when the budget ran out, each with the server's last answer.
  std::vector<std::pair<check::RankId, std::string>> missing_ranks;
  std::vector<std::string> notes;             ///< things worth saying that are not failures
  int requests = 0;                           ///< GET requests sent
  int not_ready_answers = 0;                  ///< 503s, null sizes and missing ranks waited out
};

/// Fetches the server info and every rank endpoint. A server that answers 503
/// "Prefill server not fully registered yet (N workers registered).", null sizes
/// (older servers before the first registration) or no endpoint for a rank is
/// asked again with exponential backoff until `options.timeout`. Throws
/// CannotRun with one line naming the URL when the server cannot be reached,
/// never delivers its server info, or answers something that no SGLang version
/// sends. Rank endpoints still unregistered when the budget is spent are listed
/// in `missing_ranks` (each asked once more after that), not thrown: the topology
/// is known, so the decode side can still be checked and the gap reported.
BootstrapFetch fetch_bootstrap(const check::BootstrapUrl& url, const BootstrapOptions& options);

/// The fetch as the check holds it. A server that cannot be read is an
/// observation (`unread` says why), not an error: `check --prefill-url` reports
/// it as a finding and still checks the pair.
/// `timeout` is the whole budget, as BootstrapOptions::timeout.
check::ObservedBootstrap observe_bootstrap(const check::BootstrapUrl& url, std::chrono::milliseconds timeout);

/// The observation of a fetch that succeeded.
check::ObservedBootstrap observed(const BootstrapFetch& fetch);

} // namespace pdcheck::io
