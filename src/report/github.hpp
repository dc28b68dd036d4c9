#pragma once

#include "check/checker.hpp"
#include "report/ci_common.hpp"

#include <string>

namespace pdcheck::report {

/// `pdcheck check --format github`: one GitHub Actions workflow command per
/// finding group (`::error`, `::warning` or `::notice` by severity) with file,
/// line, col and title when the side comes from a file, then a plain verdict line.
std::string check_to_github(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on,
                            const PathBase& paths);

/// Escaping of workflow-command data (%, CR, LF) and properties (also : and ,).
std::string github_escape_data(std::string_view text);
std::string github_escape_property(std::string_view text);

} // namespace pdcheck::report
