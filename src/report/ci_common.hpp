#pragma once

// What the CI renderers (SARIF, JUnit, GitHub annotations, GitLab Code
// Quality) share: the status of every rule for one check, and where in the
// side files a finding points.

#include "check/checker.hpp"
#include "report/check_render.hpp"
#include "core/rules.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::report {

enum class RuleStatus { failed, suppressed, passed, not_applicable };

struct RuleOutcome
{
  const Rule* rule = nullptr;
  RuleStatus status = RuleStatus::passed;
  std::string reason; ///< why a rule did not apply
};

/// Every rule of the table, in table order: failed when it has a shown cause,
/// suppressed when its causes are all suppressed, otherwise passed, or not
/// applicable when this pair never reaches it (another backend, no unified
/// memory, the check stopped before the transfer, ...).
std::vector<RuleOutcome> rule_outcomes(const CheckReport& report);

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

} // namespace pdcheck::report
