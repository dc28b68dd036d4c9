#pragma once

// From findings to what an operator is shown: identical findings across rank
// pairs become one cause, and the operator's policy (--select, --ignore,
// .pdcheck.yaml, `# pdcheck: ignore=` comments in side files, a baseline, advice
// hidden unless asked) decides which causes count. Every renderer and the
// verdict read the same Triage, so text, JSON, SARIF, JUnit, GitHub, GitLab and
// Markdown always agree on what was found.

#include "core/finding.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pdcheck::check {

/// A rank pair a cause was found on: "P0→D1", or "D1" for a decode rank alone.
struct RankPair
{
  std::optional<int> prefill_rank;
  std::optional<int> decode_rank;
  /// The finding's message on this pair when it differs (in its numbers only)
  /// from the cause's; "" when it is the same.
  std::string message;

  std::string label() const;
  bool operator==(const RankPair&) const = default;
};

/// One cause: the findings of one rule on one side whose texts differ at most
/// in their numbers (offsets, byte counts, channels of each rank pair), on
/// every rank pair where they occur. `finding` is the first occurrence.
struct Cause
{
  Finding finding;
  std::vector<RankPair> pairs;
  /// Stable across runs and machines: the rule, the side and the message with
  /// its numbers folded (not the rank pairs), so a baseline keeps matching
  /// while the cause is there, also when only sizes change.
  std::string fingerprint;
};

/// A cause recorded in a baseline file (`--write-baseline`).
struct BaselineEntry
{
  std::string rule;
  std::string side;
  std::string fingerprint;
  std::string message;
};

/// Why a cause is not counted.
enum class Suppression {
  not_selected,   ///< --select (or select: in .pdcheck.yaml) names other rules
  ignored,        ///< --ignore (or ignore: in .pdcheck.yaml)
  inline_comment, ///< `# pdcheck: ignore=RULE` in the side file the cause is about
  advice_hidden,  ///< advice for SGLang developers, shown with --show-advice
  baseline,       ///< in the --baseline file
};

std::string_view suppression_name(Suppression s);

struct FindingPolicy
{
  std::set<std::string> select; ///< empty: every rule
  std::set<std::string> ignore;
  std::map<std::string, Severity> severity; ///< per-rule severity overrides
  bool show_advice = false;
  /// Rules silenced by comments in a side file, by role ("prefill", "decode"):
  /// they apply to that side's causes and to causes about the pair.
  std::map<std::string, std::set<std::string>> inline_ignores;
  std::optional<std::vector<BaselineEntry>> baseline;
};

struct SuppressedCause
{
  Cause cause;
  Suppression by = Suppression::ignored;
};

struct Triage
{
  std::vector<Cause> shown;
  std::vector<SuppressedCause> suppressed;
  /// Baseline entries no cause matches any more: fixed since the baseline was written.
  std::vector<BaselineEntry> stale_baseline;

  /// True when no shown cause reaches `threshold`.
  bool passes(Severity threshold) const;
  /// Shown causes of severity `s`.
  int count(Severity s) const;
  /// Suppressed causes, by reason.
  int count(Suppression s) const;
};

/// Findings of one rule and side whose texts differ at most in their numbers,
/// grouped across rank pairs, in order of first occurrence.
std::vector<Cause> group_causes(const std::vector<Finding>& findings);

/// The causes of `findings`, with `policy` applied: severity overrides first,
/// then the first suppression that applies, in the order of Suppression.
Triage triage(const std::vector<Finding>& findings, const FindingPolicy& policy);

/// The baseline that accepts every cause of `t` that is shown or already
/// baselined: what `--write-baseline` records.
std::vector<BaselineEntry> baseline_of(const Triage& t);

} // namespace pdcheck::check
