#pragma once

#include "core/finding.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

/// Compile-time handles of the rules of core/rules.def: code names a rule by
/// handle (`RuleId::mooncake_layout_no_dims`), so a misspelt rule does not compile.
enum class RuleId : std::uint8_t {
#define PDCHECK_RULE(handle, ...) handle,
#include "core/rules.def"
#undef PDCHECK_RULE
};

/// When a rule can fire for a pair; CI renderers report the others as not
/// applicable (with the reason report/ci_common.cpp gives for the scope).
enum class RuleScope {
  always,            ///< any pair
  mooncake_transfer, ///< the prefill uses Mooncake and a transfer was planned
  mori_transfer,     ///< the prefill uses Mori and a transfer was planned
  nixl_transfer,     ///< the prefill uses NIXL and a transfer was planned
  decode_mori,       ///< the decode uses Mori
  unified_memory,    ///< a side enables --enable-unified-memory
  unified_transfer,  ///< a side enables unified memory and a transfer was planned
  bootstrapped,      ///< both sides start, so the decode bootstraps with the prefill
  simulated,         ///< at least one decode rank's transfer was simulated
  transfer,          ///< a transfer was planned
  fleet,             ///< only `pdcheck fleet` checks it (a router and its workers)
  live,              ///< only checked against a running prefill's bootstrap server
};

/// The side-file key a finding of the rule is about (where CI annotations point).
enum class SideKey { args, model, role, sglang, env };

std::string_view side_key_name(SideKey k);

/// One row of the rule table. Ids are stable: never renumbered or reused
/// (documented in man/pdcheck.1 and `pdcheck rules`).
struct Rule
{
  RuleId handle;
  std::string_view id;
  FindingKind kind;
  Severity severity;
  RuleScope scope;
  SideKey key;
  std::string_view title;       ///< one line
  std::string_view explanation; ///< the long text of `pdcheck explain ID`
  std::string_view fix;         ///< what to change
};

const std::vector<Rule>& rules();

const Rule& rule(RuleId handle);

/// The rule's id text ("mooncake-layout-no-dims").
std::string_view rule_id(RuleId handle);

/// nullptr when the id is unknown (ids typed by users: `pdcheck explain ID`).
const Rule* find_rule(std::string_view id);

/// A finding for `rule` with the rule's kind, severity and fix; the caller adds
/// the message with the numbers, evidence and location.
Finding make_finding(RuleId rule, std::string message);

} // namespace pdcheck
