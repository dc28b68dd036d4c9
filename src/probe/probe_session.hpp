#pragma once

// The live probe: both ends of one prefill -> decode state transfer, phase by
// phase (ARCHITECTURE.md, "The probe"). The decode end (server) allocates its
// pools, answers the handshake, sends one TransferInfo per request the way
// SGLang's decode does and verifies every byte; the prefill end (client) fills
// its pools from logical coordinates, rebuilds the checker's Plan for the
// indices it received and executes it through a Transport.
//
// Protocol (length-prefixed JSON over the OOB TCP connection, version
// k_protocol_version): prefill hello -> decode hello (or refuse) -> decode
// ready (its transport is connected) -> prefill go (or refuse) -> per request:
// transfer_info -> done -> ... -> decode bye (verdict) -> prefill bye.

#include "probe/gpu_memory.hpp"
#include "probe/oob.hpp"
#include "probe/probe_report.hpp"
#include "probe/transport.hpp"
#include "probe/write_engine.hpp"
#include "sglang/side.hpp"

#include <functional>
#include <memory>
#include <string>

namespace pdcheck::probe {

inline constexpr int k_protocol_version = 1;
inline constexpr const char* k_magic = "pdcheck-probe";

struct ProbeOptions
{
  int requests = 2;
  int iterations = 1;
  double timeout = 30;    ///< seconds, for every connect, accept, read and request
  int state_indices = 1;  ///< per Mamba component in each TransferInfo (--bad-state-indices 0|2)
  int slots = 4;          ///< slots per state buffer (slot 0 is never a request's)
  std::string memory = "host"; ///< as given: "host" or "cuda:N"
  /// Opens the GPU the pools live on (--memory cuda:N); empty for host memory.
  /// Each end calls it in its allocate phase, so a missing driver is a report.
  std::function<std::unique_ptr<GpuDevice>()> open_gpu;
  WriteOptions write;
  /// Called after each request (done of total requests, bytes verified so far on
  /// the decode end, bytes written on the prefill end); the CLI draws a progress
  /// line on a terminal. Loopback reports the decode end only.
  std::function<void(int done, int total, std::int64_t bytes)> progress;
};

/// Makes the transport of one end; `bind_host` is where a TCP target listens.
using TransportFactory = std::function<std::unique_ptr<Transport>(const std::string& bind_host)>;

/// Runs the decode end on an accepted OOB connection. Never throws: failures
/// land in the report (exit 3 with phase and hint; exit 1 for corruption or an
/// SGLang rule the exchange violated).
ProbeReport run_decode_end(const sglang::Side& decode, const ProbeOptions& options, Fd oob, Transport& transport);

/// Runs the prefill end on a connected OOB socket; `peer_host` is where the
/// decode's TCP data port lives.
ProbeReport run_prefill_end(const sglang::Side& prefill, const ProbeOptions& options, Fd oob, Transport& transport,
                            const std::string& peer_host);

/// `pdcheck probe serve`: listens, accepts one prefill, runs the decode end.
ProbeReport serve(const sglang::Side& decode, const HostPort& listen, const ProbeOptions& options,
                  const TransportFactory& make_transport);

/// `pdcheck probe send`: connects to the decode end and runs the prefill end.
ProbeReport send(const sglang::Side& prefill, const HostPort& connect, const ProbeOptions& options,
                 const TransportFactory& make_transport);

/// `pdcheck probe loopback`: both ends in one process over 127.0.0.1 (the
/// decode end on a thread); the report joins both ends' views.
ProbeReport loopback(const sglang::Side& prefill, const sglang::Side& decode, const ProbeOptions& options,
                     const TransportFactory& make_transport);

} // namespace pdcheck::probe
