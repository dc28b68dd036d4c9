#pragma once

// Reads a running SGLang server's launch, read-only: GET /server_info, or
// GET /get_server_info on servers from before the rename (404 on the first).
// Sources: docs/research/live-server-info.md §1.

#include "sglang/side.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace pdcheck::io {

/// The side a running server is: its launch options from the server info, its
/// SGLang release from `version`, its model from `model_path` (or `model_ref`,
/// --model, when given). `url` is http://HOST:PORT (port 30000 when left out,
/// SGLang's default --port). Throws CannotRun (exit 3) with one line naming
/// the URL when the server cannot be reached or does not answer as SGLang
/// does, InputError for a URL pdcheck cannot use.
sglang::Side side_from_server(const std::string& url, const std::string& model_ref,
                              std::chrono::milliseconds timeout);

} // namespace pdcheck::io
