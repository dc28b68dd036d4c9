#pragma once

// The nearest changes that make an incompatible pair work: one side at
// another TP size, or on another SGLang release, each tried with the whole
// check ("decode at TP 2 or 4 works", "prefill on SGLang >= 0.5.12 works").

#include "check/rollout.hpp"
#include "check/triage.hpp"

#include <string>
#include <vector>

namespace pdcheck::check {

struct Suggestion
{
  std::string side;                ///< "prefill" or "decode"
  std::string change;              ///< "tp_size" or "sglang"
  std::vector<std::string> values; ///< every value that works, in order
  std::string text;                ///< "decode at TP 2 or 4 works"
};

/// Every single-side change of TP size (1 to 64) or release after which the
/// pair passes at `fail_on` under the operator's `policy` (a rule they ignore
/// does not count against a candidate); empty when nothing does. Call it for a
/// pair that fails: it does not check the pair as it is.
std::vector<Suggestion> suggestions(const CheckInput& in, const FindingPolicy& policy, Severity fail_on);

/// "0.5.12 or later", "0.5.3.post3 to 0.5.11", "0.5.4, 0.5.9 and 0.5.12":
/// releases (in `all`'s order) said as ranges where they run unbroken.
std::string release_ranges(const std::vector<std::string>& works, const std::vector<std::string>& all);

} // namespace pdcheck::check
