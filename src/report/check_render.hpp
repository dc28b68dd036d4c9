#pragma once

#include "check/checker.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace pdcheck::report {

struct RenderOptions
{
  bool color = false;
  Severity fail_on = Severity::error;
};

/// The verdict word for a result at a threshold: "compatible" or "incompatible".
std::string verdict(const check::CheckResult& r, Severity fail_on);

/// `pdcheck check --format json` (schemas/report.schema.json).
nlohmann::ordered_json check_to_json(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on);

/// Text: findings grouped by kind; identical findings across rank pairs are
/// collapsed into one with the list of pairs.
std::string check_to_text(const check::CheckInput& in, const check::CheckResult& r, const RenderOptions& options);

/// `--plan P:D`: the copy plan of one pair.
nlohmann::ordered_json plan_to_json(const check::PairResult& pair);
std::string plan_to_text(const check::PairResult& pair);

} // namespace pdcheck::report
