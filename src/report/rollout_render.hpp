#pragma once

// `pdcheck rollout`: each state a rolling change passes through, checked as
// `pdcheck check` would, and the order that keeps every state working.

#include "check/rollout.hpp"
#include "check/suggest.hpp"
#include "report/check_render.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pdcheck::report {

struct RolloutReport
{
  std::vector<check::RolloutState> states;
  std::vector<CheckReport> reports; ///< one per state, in order
  /// Per state: the nearest single-side changes that make it work (failing states only).
  std::vector<std::vector<check::Suggestion>> suggestions;
  check::RolloutOrder order = check::RolloutOrder::either;
  std::vector<std::string> prefill_changes; ///< as written; empty: unchanged
  std::vector<std::string> decode_changes;

  /// A rolling order exists: the target works and at most one mixed state fails.
  bool passes() const;
};

std::string rollout_to_text(const RolloutReport& report);
nlohmann::ordered_json rollout_to_json(const RolloutReport& report);

/// "try: decode at TP 2 or 4 works" lines, or the line saying nothing single works.
std::string suggestions_to_text(const std::vector<check::Suggestion>& suggestions);
nlohmann::ordered_json suggestions_to_json(const std::vector<check::Suggestion>& suggestions);

} // namespace pdcheck::report
