#pragma once

// Reads a PD router's worker list, read-only: GET /workers (sgl-router 0.2,
// sgl-model-gateway), or GET /list_workers (sgl-router 0.1) when the first
// answers 404. Sources: docs/research/live-server-info.md §3.

#include "check/fleet.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace pdcheck::io {

/// The router's PD workers. Throws CannotRun (exit 3) with one line naming the
/// router when it cannot be reached or answers as no router does.
std::vector<check::RouterWorker> fetch_router_workers(const std::string& url, std::chrono::milliseconds timeout);

} // namespace pdcheck::io
