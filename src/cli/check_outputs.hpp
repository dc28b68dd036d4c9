#pragma once

// The report formats of `pdcheck check` and `--output FORMAT=PATH`, kept out of
// cmd_check.cpp so that file only wires options.

#include "check/checker.hpp"
#include "check/triage.hpp"
#include "report/check_render.hpp"

#include <string>
#include <vector>

namespace pdcheck::cli {

/// Pairs checked and triaged, with the results and triages their reports
/// refer to (a report holds references: moving this keeps them valid; copying
/// would not).
struct CheckedPairs
{
  std::vector<check::CheckResult> results;
  std::vector<check::Triage> triages;
  std::vector<report::CheckReport> reports; ///< one per input, in order
};

/// Runs the whole check of every input under one policy. The inputs must
/// outlive the reports.
CheckedPairs check_pairs(const std::vector<const check::CheckInput*>& inputs, const check::FindingPolicy& policy,
                         Severity fail_on);
CheckedPairs check_pairs(const std::vector<check::CheckInput>& inputs, const check::FindingPolicy& policy,
                         Severity fail_on);

/// Every format `pdcheck check` renders: text, json, sarif, junit, github,
/// gitlab, markdown.
const std::vector<std::string>& check_formats();

/// One report in `format`; colour only for text on a terminal (`color`).
/// `sarif_root` ("" = the current directory) is what SARIF, GitHub and GitLab
/// paths are relative to.
std::string render_check_report(const std::string& format, const report::CheckReport& rep,
                                const std::string& sarif_root, bool color = false);

/// Several pairs (a manifest with two pools) as one document of `format`:
/// text and markdown one section per pair, JSON {"schema_version", "pairs"}
/// (schemas/pairs.schema.json), SARIF one run per pair, JUnit one suite per
/// pair, GitHub and GitLab every pair's annotations. One pair renders as
/// render_check_report.
std::string render_check_reports(const std::string& format, const std::vector<report::CheckReport>& reps,
                                 const std::string& sarif_root, bool color = false);

/// Writes every `--output FORMAT=PATH` (PATH "-" = standard output, to `out`).
/// Throws InputError naming the path when a file cannot be written.
void write_check_outputs(const std::vector<std::string>& requests, const std::vector<report::CheckReport>& reps,
                         const std::string& sarif_root, std::ostream& out);

} // namespace pdcheck::cli
