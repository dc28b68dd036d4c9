#pragma once

#include "check/checker.hpp"
#include "report/ci_common.hpp"

#include <nlohmann/json.hpp>

namespace pdcheck::report {

struct SarifOptions
{
  PathBase paths;
  std::string command_line; ///< recorded in the run's invocation, "" for none
};

/// `pdcheck check --format sarif`: one SARIF 2.1.0 run. driver.rules holds the
/// whole rule table (stable ruleId, help text); every cause is a `fail` result
/// located at the offending side-file key (or the --prefill-args / --decode-args
/// string, an artifact of the run), with partialFingerprints "pdcheck/v1" =
/// hash(rule, side, key, path, message with digits folded); a suppressed cause
/// carries SARIF `suppressions`; every other rule is a `pass` or
/// `notApplicable` result located at the prefill side.
nlohmann::ordered_json check_to_sarif(const CheckReport& report, const SarifOptions& options);

} // namespace pdcheck::report
