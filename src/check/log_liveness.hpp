#pragma once

// What `pdcheck explain LOG` says about the texts of a transfer whose other side
// failed or cannot be reached (catalog rows prefill_maybe_dead ... and the NIXL and
// Mamba-pool texts operators report with them): these carry no layout numbers, so
// the explanation says where the real cause is.

#include "check/log_analysis.hpp"

#include <optional>

namespace pdcheck::check {

/// The analysis of a liveness row, or nothing for the other rows.
std::optional<Analysis> analyse_liveness(MessageId id, const nlohmann::ordered_json& values);

} // namespace pdcheck::check
