#pragma once

// An example pair checked and triaged, with the CheckReport the renderers
// take: what the report tests have in common.

#include "check/checker.hpp"
#include "check/triage.hpp"
#include "io/side_file.hpp"
#include "report/check_render.hpp"

#include <string>

namespace pdcheck::test {

struct CheckedPair
{
  check::CheckInput in;
  check::CheckResult result;
  check::Triage triage;

  report::CheckReport report(Severity fail_on = Severity::error) const { return {in, result, triage, fail_on}; }
};

/// examples/pairs/NAME, by absolute path, checked under `policy`.
inline CheckedPair checked_pair(const std::string& name, const check::FindingPolicy& policy = {})
{
  const std::string dir = std::string(PDCHECK_SOURCE_DIR) + "/examples/pairs/" + name;
  CheckedPair p;
  p.in.prefill = io::load_side_file(dir + "/prefill.yaml");
  p.in.decode = io::load_side_file(dir + "/decode.yaml");
  p.result = check::run_check(p.in);
  p.triage = check::triage(p.result.findings, policy);
  return p;
}

} // namespace pdcheck::test
