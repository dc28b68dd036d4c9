#pragma once

// What the probe's handshake says about a side: enough for the other end to
// rebuild the same Side (profile, model geometry, launch arguments, env) and a
// digest of the Layout it implies, so that two pdcheck builds that would lay the
// state out differently refuse each other instead of "verifying" nonsense.

#include "model/layout.hpp"
#include "sglang/side.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::probe {

/// FNV-1a over every rank's tensors (name, dtype, shape, item length, slice
/// axis) and entries (tensor, layer, item length, dim), as 16 hex digits.
std::string layout_digest(const model::Layout& layout);

/// The side as the handshake carries it: {"profile", "model": {...}, "args": [...], "env": {...}}.
nlohmann::json side_to_json(const sglang::Side& side);

/// Rebuilds a Side sent by side_to_json. Throws ProbeError(handshake) naming
/// the field when the peer's description cannot be used (unknown profile, ...).
sglang::Side side_from_json(const nlohmann::json& j, sglang::Role role);

} // namespace pdcheck::probe
