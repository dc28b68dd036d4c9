#pragma once

// `pdcheck fleet`: the router's workers, the fleet findings, and every
// prefill × decode pair's check.

#include "check/fleet.hpp"
#include "report/check_render.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace pdcheck::report {

struct FleetReport
{
  std::string router;                         ///< as given
  std::vector<check::FleetWorker> workers;    ///< in the router's order
  std::vector<Finding> findings;              ///< check::fleet_findings
  std::vector<CheckReport> pairs;             ///< every answering prefill × decode
  Severity fail_on = Severity::error;

  bool passes() const;
};

std::string fleet_to_text(const FleetReport& report);
nlohmann::ordered_json fleet_to_json(const FleetReport& report);

} // namespace pdcheck::report
