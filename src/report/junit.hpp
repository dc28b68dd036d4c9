#pragma once

#include "check/checker.hpp"

#include <string>

namespace pdcheck::report {

/// `pdcheck check --format junit`: one <testsuite> named after the pair, one
/// <testcase> per rule that passed (empty), did not apply (<skipped>), or per
/// finding group of a rule (one rank-pair group each): <failure> when the
/// finding reaches `fail_on`, otherwise a passing case with the finding in
/// <system-out>. classname is "pdcheck.<kind>".
std::string check_to_junit(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on);

/// XML character data / attribute escaping.
std::string xml_escape(std::string_view text);

} // namespace pdcheck::report
