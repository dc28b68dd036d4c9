#pragma once

#include "check/checker.hpp"
#include "check/triage.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::report {

/// What every renderer of `pdcheck check` reads: the pair, what the checker
/// found, and the causes the operator's policy leaves (check/triage.hpp). The
/// verdict comes from the triage, so every format agrees on it.
struct CheckReport
{
  const check::CheckInput& in;
  const check::CheckResult& result;
  const check::Triage& triage;
  Severity fail_on = Severity::error;

  bool passes() const { return triage.passes(fail_on); }
  /// "compatible" or "incompatible".
  std::string verdict() const;
};

struct RenderOptions
{
  bool color = false;
};

/// `pdcheck check --format json` (schemas/report.schema.json).
nlohmann::ordered_json check_to_json(const CheckReport& report);

/// Text: causes grouped by kind, each with the rank pairs it was found on.
std::string check_to_text(const CheckReport& report, const RenderOptions& options);

/// `--quiet`: the verdict and the counts on one line.
std::string check_to_summary_line(const CheckReport& report);

/// "1 error, 0 warnings, 0 info" and, when anything was suppressed,
/// "; 2 suppressed (1 ignored, 1 baseline)": the counts every format states.
std::string counts_text(const check::Triage& t);

/// The cause's message on the rank pairs where it differs in its numbers, a
/// line each ("INDENT P0→D1: MESSAGE"), at most `limit`, then how many more.
std::string other_pair_messages(const check::Cause& c, std::string_view indent, std::size_t limit);

/// The cause's message with its rank pairs, on one line, as the CI formats
/// give it: "MESSAGE (2 rank pairs: P0→D0 P1→D1)"; the message alone without pairs.
std::string message_with_pairs(const check::Cause& c);

/// "P0→D1 P1→D1" (at most `limit` labels, then " …"); "" without rank pairs.
std::string pairs_label(const check::Cause& c, std::size_t limit = 8);

/// `--plan P:D`: the copy plan of one pair.
nlohmann::ordered_json plan_to_json(const check::PairResult& pair);
std::string plan_to_text(const check::PairResult& pair);

} // namespace pdcheck::report
