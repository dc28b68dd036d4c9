#pragma once

#include "report/check_render.hpp"

#include <string>
#include <vector>

namespace pdcheck::report {

/// `pdcheck check --format junit`: one <testsuite> named after the pair, one
/// <testcase> per rule that passed (empty) or did not apply (<skipped>), and
/// per rule and side that has causes, named "RULE" or "RULE SIDE" (never the
/// rank pairs, so names are stable across runs): <failure> when a cause reaches
/// `fail_on`, <skipped> when every cause is suppressed, otherwise a passing case;
/// the other causes go to <system-out>. classname is "pdcheck.<kind>".
std::string check_to_junit(const CheckReport& report);

/// Several pairs (a manifest with two pools): one <testsuite> each, counted together.
std::string check_to_junit(const std::vector<CheckReport>& reports);

/// XML character data / attribute escaping.
std::string xml_escape(std::string_view text);

} // namespace pdcheck::report
