#pragma once

#include "core/finding.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

/// One row of the rule table. Ids are stable: never renumbered or reused
/// (documented in man/pdcheck.1 and `pdcheck rules`).
struct Rule
{
  std::string_view id;
  FindingKind kind;
  Severity severity;
  std::string_view title;       ///< one line
  std::string_view explanation; ///< the long text of `pdcheck explain ID`
  std::string_view fix;         ///< what to change
};

const std::vector<Rule>& rules();

/// nullptr when the id is unknown.
const Rule* find_rule(std::string_view id);

/// A finding for `rule_id` with the rule's kind, severity and fix; the caller
/// adds the message with the numbers, evidence and location. Asserts that the id
/// exists: an unknown id is a programming error.
Finding make_finding(std::string_view rule_id, std::string message);

} // namespace pdcheck
