#pragma once

#include "check/checker.hpp"
#include "report/ci_common.hpp"

#include <string>

namespace pdcheck::report {

/// `pdcheck check --format github`: GitHub Actions workflow commands
/// (`::error`, `::warning` or `::notice` by severity) for every shown cause,
/// with file, line, col and title: one on the side file that has the cause, or
/// one on each side file for a cause about the pair; then a plain verdict line.
std::string check_to_github(const CheckReport& report, const PathBase& paths);

/// Escaping of workflow-command data (%, CR, LF) and properties (also : and ,).
std::string github_escape_data(std::string_view text);
std::string github_escape_property(std::string_view text);

} // namespace pdcheck::report
