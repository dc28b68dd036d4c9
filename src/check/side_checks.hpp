#pragma once

// What SGLang refuses or warns about before a single request: each side's own
// launch (argparse, environment, startup validations) and the decode's bootstrap
// with the prefill. run_check stops before pairing when one of these is an error.

#include "core/finding.hpp"
#include "core/rules.hpp"
#include "model/layout.hpp"
#include "sglang/side.hpp"

#include <string>
#include <vector>

namespace pdcheck::check {

/// A finding of `rule` on one side (its role and backend filled in).
Finding side_finding(const sglang::Side& side, RuleId rule, std::string message);

/// Whether this side's backend transfers Mamba state in its SGLang release.
bool backend_moves_state(const sglang::Side& side);

/// One side's launch: argparse, unknown SGLANG_* variables, its layout's
/// startup findings, role, state transfer, unified memory, DCP, the profile
/// assumption and a model path that disagrees with `model:`.
void side_findings(const sglang::Side& side, const model::Layout& layout, std::vector<Finding>& out);

/// The decode's checks of the prefill's parallel info at bootstrap
/// (disaggregation/common/conn.py @ 0094505d).
void bootstrap_findings(const sglang::Side& prefill, const sglang::Side& decode, const model::Layout& pl,
                        const model::Layout& dl, std::vector<Finding>& out);

} // namespace pdcheck::check
