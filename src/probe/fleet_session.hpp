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

#include <functional>
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
  /// Whether a rank told "done" waits until rank 0 closes its connection
  /// (FleetOutcome::held_ranks). Off with --mpi, where leaving MPI waits for
  /// every rank instead.
  bool wait_for_rank0_report = true;

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
  /// Rank 0: its connections to the other ranks, still open. A launcher ends
  /// the whole job when one rank exits non-zero (mpirun does), so a rank told
  /// "done" waits for its connection to close before it exits: rank 0 closes
  /// them (release_ranks) once its report is written, or when it exits.
  std::vector<Fd> held_ranks;
  void release_ranks() { held_ranks.clear(); }
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

/// The longest a fleet of `rounds` rounds can take for any rank: the join,
/// then every round at its pair deadline, with room for the messages between.
double longest_fleet_seconds(const FleetOptions& options, std::size_t rounds);

/// The fleet's exit status for a gathered result (0, or 1 when any pair is not verified).
int fleet_exit_code(const report::FleetProbeResult& r);

/// How the ranks learn where rank 0's coordinator listens when no address is
/// given to all alike (`probe fleet --mpi`: through MPI). Every rank calls it
/// once: rank 0 with the "HOST:PORT" it listens at ("" when it could not
/// listen), the others with ""; each gets rank 0's text back. Throws
/// ProbeError when it does not come in time.
using CoordinatorExchange = std::function<std::string(const std::string& rank0_address)>;

/// The host rank 0 publishes through a CoordinatorExchange: --advertise, else
/// this host's first address that is up and not loopback, else 127.0.0.1.
std::string published_coordinator_host(const FleetOptions& options);

/// Runs this rank: rank 0 starts the coordinator on `coordinator`'s port,
/// every rank joins it and runs its pairs with `side` (its own side: prefill
/// or decode by the roles). With `exchange`, rank 0 publishes `coordinator`'s
/// host (published_coordinator_host when it is a wildcard or empty) and the
/// port it got.
/// Never throws for what the network does; throws InputError for a
/// coordinator address that does not parse.
FleetOutcome run_fleet_rank(const FleetPlace& place, const HostPort& coordinator, const plan::FleetRoles& roles,
                            const std::vector<plan::FleetPair>& pairs, const sglang::Side& side,
                            const FleetOptions& options, const TransportFactory& make_transport,
                            const CoordinatorExchange& exchange = {});

/// Rank 0's report gains what each rank said of its own end (gathered after
/// the run, `probe fleet --mpi`): `said[r]` is rank r's exit status and
/// summary ("3 rank 4: cannot listen ..."), "" when it did not answer. A rank
/// that could not take part (status 3) adds its summary to the notes, since
/// the coordinator only saw it missing; a rank that did not answer at all,
/// and is not already reported missing, adds one saying so. Pure.
void add_ranks_own_words(report::FleetProbeResult& result, const std::vector<std::string>& said);

} // namespace pdcheck::probe
