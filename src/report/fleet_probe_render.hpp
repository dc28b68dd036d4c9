#pragma once

// `pdcheck probe fleet`: every probed prefill x decode pair of a fleet, as rank
// 0 gathered them, rendered as a text matrix, JSON (schemas/probe-fleet.schema.json),
// JUnit (one test per pair), an SVG heat map and an HTML page holding it. Plain
// data, filled by probe/fleet_session.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::report {

struct FleetProbeRank
{
  int rank = 0;
  std::string side; ///< "prefill" or "decode"
  std::string host; ///< where its peers reached it ("" when it never joined)
  int port = 0;
  std::string memory; ///< its --memory, cuda:local resolved ("" when it never joined)
  bool joined = false;
  std::string left; ///< why it dropped out of the fleet midway ("" when it did not)
};

enum class PairOutcome {
  verified, ///< every byte arrived where it belongs
  findings, ///< a byte wrong or never written, or an SGLang rule the exchange broke
  failed,   ///< the pair's probe stopped: the phase and reason say where
  not_run,  ///< an end was not there to run it (never joined, left earlier)
};
std::string_view pair_outcome_key(PairOutcome o); ///< "verified", "findings", "failed", "not-run"

struct FleetProbePair
{
  int prefill = 0;
  int decode = 0;
  int round = 0;
  PairOutcome outcome = PairOutcome::not_run;
  std::string phase;  ///< where it stopped ("" when verified)
  std::string reason; ///< one line ("" when verified)
  std::int64_t bytes = 0;
  double write_seconds = 0; ///< the prefill's posts and completions
  std::int64_t wrong_bytes = 0;

  double gbytes_per_s() const { return write_seconds > 0 ? static_cast<double>(bytes) / write_seconds / 1e9 : 0; }
};

struct FleetProbeResult
{
  std::string plan;
  std::string launcher; ///< where rank 0 learnt its place
  std::string coordinator;
  std::string transport;
  std::string memory = "host";
  std::string pairing; ///< "all", "sglang" or "listed"
  std::vector<FleetProbeRank> ranks;
  std::vector<FleetProbePair> pairs;
  int rounds = 0;
  double seconds = 0;
  std::vector<std::string> notes; ///< what rank 0 saw of the fleet as a whole

  bool all_verified() const;
  int count(PairOutcome o) const;
};

/// "N of M pairs verified": the reports' titles and every rank's closing line.
std::string verified_count(const FleetProbeResult& r);

nlohmann::ordered_json fleet_probe_to_json(const FleetProbeResult& r, int exit_code);
std::string fleet_probe_to_text(const FleetProbeResult& r);
/// One <testcase> per pair, named "prefill P -> decode D"; <failure> unless verified.
std::string fleet_probe_to_junit(const FleetProbeResult& r);
/// Prefill ranks down, decode ranks across; green verified (lighter when slower
/// than half the fleet's median), red findings, orange failed, grey not run,
/// white not a pair.
std::string fleet_probe_to_svg(const FleetProbeResult& r);
/// A page for a runbook: the heat map, then every pair not verified and every
/// rank missing, with the reasons.
std::string fleet_probe_to_html(const FleetProbeResult& r);

} // namespace pdcheck::report
