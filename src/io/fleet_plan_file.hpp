#pragma once

#include "plan/fleet_pairs.hpp"

#include <string>

namespace pdcheck::io {

/// Loads a fleet plan (YAML or JSON; schemas/fleet-plan.schema.json):
///
///   prefill: {side: prefill.yaml, ranks: 0-3}    # side file; ranks "0-3,8", [0, 1] or rest
///   decode:  {side: decode.yaml,  ranks: rest}
///   pairs: all                                   # all | sglang | [[0, 4], [1, 5]]
///   coordinator: node0:29600                     # optional: rank 0's address
///
/// Side paths are relative to the plan's folder. Every error is an InputError
/// at "<path>:<line>:<col>" of the offending key or value.
plan::FleetPlan load_fleet_plan(const std::string& path);

} // namespace pdcheck::io
