#pragma once

// What a side's SGLang does with its model before any PD transfer: whether
// its release serves the architecture at all, and the launch settings that
// model's own overrides refuse.

#include "core/finding.hpp"
#include "sglang/side.hpp"

#include <vector>

namespace pdcheck::check {

/// model-release: the side's release is older than the first release that
/// serves its architecture (model/architectures.hpp, find_first_release).
void model_release_findings(const sglang::Side& side, std::vector<Finding>& out);

/// startup-minicpm-overrides: arg_groups/model_overrides/minicpm.py @ c7a27756.
void minicpm_override_findings(const sglang::Side& side, std::vector<Finding>& out);

} // namespace pdcheck::check
