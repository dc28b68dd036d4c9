#pragma once

// What the CI renderers (SARIF, JUnit, GitHub annotations) share: findings
// grouped across rank pairs, the status of every rule for one check, and where
// in the side files a finding points.

#include "check/checker.hpp"
#include "core/rules.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::report {

/// Identical findings (same rule, side and text) across rank pairs, as the text
/// report collapses them: one SARIF result, JUnit testcase or annotation each.
struct FindingGroup
{
  const Finding* first = nullptr;
  std::vector<std::string> pairs; ///< "P0→D1" or "D1" labels, in order
};

std::vector<FindingGroup> group_findings(const std::vector<Finding>& findings);

/// "P0→D1 P1→D1" (at most `limit` labels, then " …"); "" when the group has no pairs.
std::string pairs_label(const FindingGroup& g, std::size_t limit = 8);

enum class RuleStatus { failed, passed, not_applicable };

struct RuleOutcome
{
  const Rule* rule = nullptr;
  RuleStatus status = RuleStatus::passed;
  std::string reason; ///< why a rule did not apply
};

/// Every rule of the table, in table order: failed when it has a finding,
/// otherwise passed, or not applicable when this pair never reaches it (another
/// backend, no unified memory, the check stopped before the transfer, ...).
std::vector<RuleOutcome> rule_outcomes(const check::CheckInput& in, const check::CheckResult& r);

/// A place in a side file.
struct FileLocation
{
  std::string uri;    ///< repository-relative path ('/' separated), or a file:// URI outside the root
  std::string key;    ///< the side-file key ("args", "sglang", "model", "role", "env")
  std::string side;   ///< "prefill" or "decode"
  int line = 0;       ///< 1-based, 0 when unknown
  int column = 0;
};

/// How file paths are made repository-relative: both absolute, from the CLI.
struct PathBase
{
  std::string cwd;  ///< the directory relative side-file paths are relative to
  std::string root; ///< the repository root SARIF paths are relative to
};

/// Where a finding points: its side's file at the rule's key (core/rules.def) (falling back to
/// another key that exists), then, for pair findings, the other side too. Empty
/// when the sides come from launch arguments rather than files.
std::vector<FileLocation> finding_locations(const Finding& f, const check::CheckInput& in, const PathBase& base);

/// 64-bit FNV-1a as 16 hex digits: stable across runs and platforms.
std::string stable_hash(std::string_view text);

} // namespace pdcheck::report
