#pragma once

// `pdcheck probe fleet`: one process per host, started by the site's launcher
// (mpirun, srun, a Kubernetes Indexed Job). Rank 0 also runs the coordinator:
// every rank joins it over TCP with the address its probe listener is reached
// at; the coordinator then runs the plan's pairs round by round (no rank in
// two pairs of a round, so each figure is an idle pair's), telling both ends
// of each pair to run the ordinary probe (probe_session.hpp) against each
// other, and gathers both ends' results. Every step has a deadline: a rank
// that never joins, dies or hangs fails its own pairs with the reason, and the
// other pairs still run and report.
//
// Messages (length-prefixed JSON, oob.hpp): member -> coordinator "join"
// {magic, version, rank, size, plan, host, port, memory}; coordinator -> member
// "refuse" {reason} | "run" {pair, round, role, peer_rank, peer_host,
// peer_port} | "done" {exit_code, summary}; member -> coordinator "result"
// {pair, verdict, phase, reason, bytes, write_seconds, wrong_bytes}. The
// prefill end opens each pair's probe connection with "fleet-pair" {pair,
// rank}, so a decode end never runs against a late peer of an earlier round.

#include "plan/fleet_pairs.hpp"
#include "probe/launcher_env.hpp"
#include "probe/oob.hpp"
#include "probe/probe_session.hpp"
#include "report/fleet_probe_render.hpp"
#include "sglang/side.hpp"
#include "util/error.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::probe {

inline constexpr const char* k_fleet_magic = "pdcheck-probe-fleet";
inline constexpr int k_fleet_protocol_version = 1;

struct FleetOptions
{
  ProbeOptions probe;              ///< each pair's probe (requests, timeout, memory ...)
  std::string listen_host = "0.0.0.0"; ///< this rank's probe listener
  int listen_port = 0;             ///< 0: any free port (the rank tells the coordinator)
  std::string advertise;           ///< the host peers reach this rank at; "" = the address that reaches rank 0
  double join_timeout = 60;        ///< seconds: rank 0 waits for every rank; the others retry joining
  /// Seconds rank 0 waits for both ends' results once a pair starts. 0: the
  /// longest a pair can take without either end breaking a deadline of its own
  /// (each of the probe's steps and requests has probe.timeout): six steps plus
  /// one per request, times probe.timeout, plus ten seconds. Past it the rank
  /// is hung (a process that dies closes its connection and is seen at once).
  double pair_timeout = 0;
  std::string plan_label;          ///< the plan as the report names it
  /// Every rank must run the same plan: a digest of the pairs and roles that a
  /// joining rank's must equal.
  std::string plan_digest;
  std::string pairing;             ///< "all", "sglang", "listed"
  std::string launcher;            ///< where this rank learnt its place (FleetPlace::source)
  std::string transport;           ///< for the report
  std::string coordinator;         ///< "HOST:PORT", for the report

  double pair_deadline_seconds() const
  {
    return pair_timeout > 0 ? pair_timeout
                            : (6 + static_cast<double>(probe.requests) * probe.iterations) * probe.timeout + 10;
  }
};

/// What the rank ends with. Rank 0 has the whole fleet's result; every rank
/// has the fleet's exit status (0 only when every pair verified; 1 when any
/// did not; 3 when the fleet itself could not run: no coordinator, a refused
/// join) and a one-line summary.
struct FleetOutcome
{
  int exit_code = 3;
  std::string summary;
  /// This rank never reached rank 0's address (on rank 0 itself: the address
  /// names another host).
  bool coordinator_unreachable = false;
  std::optional<report::FleetProbeResult> result;
};

/// One end's result of one pair, as a member sends it to the coordinator.
struct PairEnd
{
  std::string role;    ///< "prefill" or "decode"
  Verdict verdict = Verdict::cannot_run;
  std::string phase;
  std::string reason;
  std::int64_t bytes = 0;
  double write_seconds = 0;
  std::int64_t wrong_bytes = 0; ///< wrong + never written, on the decode end
};

/// An end's report as a PairEnd.
PairEnd pair_end_of(const std::string& role, const ProbeReport& report);

/// A pair's outcome from both ends' results; a missing end (left, hung) is
/// `missing_reason`. Pure.
report::FleetProbePair merge_pair_ends(const plan::FleetPair& pair, int round, const std::optional<PairEnd>& prefill,
                                       const std::optional<PairEnd>& decode, const std::string& missing_prefill,
                                       const std::string& missing_decode);

/// The fleet's exit status for a gathered result (0, or 1 when any pair is not verified).
int fleet_exit_code(const report::FleetProbeResult& r);

/// Runs this rank: rank 0 starts the coordinator on `coordinator`'s port,
/// every rank joins it and runs its pairs with `side` (its own side: prefill
/// or decode by the roles). Never throws for what the network does; throws
/// InputError for a coordinator address that does not parse.
FleetOutcome run_fleet_rank(const FleetPlace& place, const HostPort& coordinator, const plan::FleetRoles& roles,
                            const std::vector<plan::FleetPair>& pairs, const sglang::Side& side,
                            const FleetOptions& options, const TransportFactory& make_transport);

} // namespace pdcheck::probe
