#pragma once

// The steps both ends of the probe share (internal to probe/): phase timing,
// the hello exchange, aborts, and the start of a report. decode_end.cpp and
// prefill_end.cpp run the two ends; probe_session.cpp wires them to sockets.

#include "model/layout.hpp"
#include "probe/gpu_memory.hpp"
#include "probe/oob.hpp"
#include "probe/probe_report.hpp"
#include "probe/probe_session.hpp"
#include "probe/state_pools.hpp"
#include "probe/transport.hpp"
#include "sglang/side.hpp"
#include "wire/generation.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::probe::steps {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Times one phase into the report; `ok` and details are set by the caller.
class PhaseTimer
{
public:
  PhaseTimer(ProbeReport& report, Phase phase) : m_report(report), m_t0(Clock::now())
  {
    m_phase.name = std::string(phase_name(phase));
  }
  PhaseReport& phase() { return m_phase; }
  void done()
  {
    m_phase.seconds = seconds_since(m_t0);
    m_report.add_phase(m_phase);
  }

private:
  ProbeReport& m_report;
  PhaseReport m_phase;
  Clock::time_point m_t0;
};

/// What a report knows before the end starts: role, transport, memory, model,
/// backend and this end's profile.
ProbeReport start_report(sglang::Role role, const sglang::Side& side, const ProbeOptions& o,
                         std::string_view transport);

/// The allocate phase: this side's pools for every rank of `layout`, on the
/// GPU of --memory cuda:N when asked (`gpu` and `pools` belong to the caller,
/// which releases them after the transport's shutdown).
void allocate_pools(ProbeReport& r, const model::Layout& layout, const ProbeOptions& o, std::unique_ptr<GpuDevice>& gpu,
                    std::optional<StatePools>& pools);

/// The register-memory phase, which also decides the memory path.
void register_pools(ProbeReport& r, StatePools& pools, Transport& transport);

/// Maps SGLang's backend to the wire codec's; nullopt for backends pdcheck
/// has no TransferInfo encoder for (the probe then sends the bare indices).
std::optional<TransferBackend> wire_backend(TransferBackend b);

nlohmann::json hello(const sglang::Side& side, const model::Layout& layout, const Transport& transport,
                     const ProbeOptions& o);

/// Why a peer's hello is unacceptable, or nullopt.
std::optional<std::string> hello_refusal(const nlohmann::json& peer, const std::string& expected_role,
                                         const std::string& my_transport);

/// The report of an end that could not run (exit 3, phase and hint).
void fail_report(ProbeReport& r, const ProbeError& e);

/// The report of an end that stopped before it could start (no transport, no
/// listener, no peer): the same document as any other outcome, so a CI job
/// reading --format json always gets one.
ProbeReport could_not_start(sglang::Role role, const sglang::Side& side, const ProbeOptions& o,
                            const std::unique_ptr<Transport>& transport, const ProbeError& e);

/// Best-effort notice to the peer that this end stopped; never throws.
void tell_abort(int fd, const ProbeError& e);

/// An end stops on `e`: the peer is told (best effort) and the report fails.
void stop_end(ProbeReport& r, int fd, const ProbeError& e);

/// A peer's message that lacks a field or has one of the wrong type, as the
/// error of the phase the report had reached (handshake, or transfer-info once
/// connected).
ProbeError malformed_peer_message(const ProbeReport& r, const nlohmann::json::exception& e);

/// Runs one end's steps. A ProbeError, or a peer message missing what the
/// steps need, stops the end (peer told, report failed); either way the
/// transport then shuts down, deregistering its memory before the caller
/// releases the pools and the GPU.
template <typename Steps>
void run_end(ProbeReport& r, int fd, Transport& transport, Steps&& steps)
{
  try {
    steps();
  } catch (const ProbeError& e) {
    stop_end(r, fd, e);
  } catch (const nlohmann::json::exception& e) {
    stop_end(r, fd, malformed_peer_message(r, e));
  }
  r.teardown_issues = transport.shutdown();
}

/// Throws the ProbeError an "abort" or "refuse" message from the peer carries
/// (its texts made printable: util/untrusted_text.hpp).
[[noreturn]] void peer_stopped(const nlohmann::json& m, Phase phase);

/// The "type" of a peer's message, printable; "message" when it has none.
std::string message_type(const nlohmann::json& m);

/// The next message, which must be of `type` (an abort becomes the peer's error).
nlohmann::json expect(int fd, const std::string& type, Deadline d, Phase phase);

} // namespace pdcheck::probe::steps
