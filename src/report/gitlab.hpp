#pragma once

#include "report/check_render.hpp"
#include "report/ci_common.hpp"

#include <nlohmann/json.hpp>

namespace pdcheck::report {

/// `pdcheck check --format gitlab`: a GitLab Code Quality report (the
/// `artifacts:reports:codequality` JSON array), one issue per shown cause and
/// location: description, check_name (the rule id), a fingerprint unique per
/// cause and file, severity (error: critical, warning: major, info: info) and
/// the side file's path and line (the --prefill-args / --decode-args string,
/// line 1, for sides given on the command line).
nlohmann::ordered_json check_to_gitlab(const CheckReport& report, const PathBase& paths);

} // namespace pdcheck::report
