// serve, send and loopback: the two ends of the probe (decode_end.cpp,
// prefill_end.cpp) on sockets, or both in one process over 127.0.0.1.

#include "probe/probe_session.hpp"
#include "probe/session_steps.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <thread>

namespace pdcheck::probe {

using namespace steps;

ProbeReport serve(const sglang::Side& decode, const HostPort& listen, const ProbeOptions& o,
                  const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport;
  try {
    transport = make_transport(listen.host);
    const Listener l = Listener::bind(listen.host, listen.port, Phase::handshake);
    Fd oob = l.accept(Deadline::after(o.timeout), Phase::handshake);
    return run_decode_end(decode, o, std::move(oob), *transport);
  } catch (const ProbeError& e) {
    return could_not_start(sglang::Role::decode, decode, o, transport, e);
  }
}

ProbeReport send(const sglang::Side& prefill, const HostPort& connect, const ProbeOptions& o,
                 const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport;
  try {
    transport = make_transport("0.0.0.0");
    Fd oob = connect_to(connect.host, connect.port, Deadline::after(o.timeout), Phase::handshake);
    return run_prefill_end(prefill, o, std::move(oob), *transport, connect.host);
  } catch (const ProbeError& e) {
    return could_not_start(sglang::Role::prefill, prefill, o, transport, e);
  }
}

ProbeReport loopback(const sglang::Side& prefill, const sglang::Side& decode, const ProbeOptions& o,
                     const TransportFactory& make_transport)
{
  std::optional<Listener> listener;
  std::unique_ptr<Transport> decode_transport;
  std::unique_ptr<Transport> prefill_transport;
  try {
    listener.emplace(Listener::bind("127.0.0.1", 0, Phase::handshake));
    decode_transport = make_transport("127.0.0.1");
    prefill_transport = make_transport("127.0.0.1");
  } catch (const ProbeError& e) {
    ProbeReport r = could_not_start(sglang::Role::decode, decode, o, decode_transport, e);
    r.role = "loopback";
    r.prefill_profile = prefill.profile.name;
    return r;
  }
  const Listener& l = *listener;
  ProbeReport decode_report;
  std::thread decode_thread([&] {
    try {
      Fd oob = l.accept(Deadline::after(o.timeout), Phase::handshake);
      decode_report = run_decode_end(decode, o, std::move(oob), *decode_transport);
    } catch (const ProbeError& e) {
      decode_report = could_not_start(sglang::Role::decode, decode, o, decode_transport, e);
    }
  });
  ProbeReport p;
  try {
    Fd oob = connect_to("127.0.0.1", l.port(), Deadline::after(o.timeout), Phase::handshake);
    ProbeOptions quiet = o; // one progress line: the decode end's
    quiet.progress = nullptr;
    p = run_prefill_end(prefill, quiet, std::move(oob), *prefill_transport, "127.0.0.1");
  } catch (const ProbeError& e) {
    p = could_not_start(sglang::Role::prefill, prefill, o, prefill_transport, e);
  }
  decode_thread.join();

  // One report: the decode's verdict and verification, the prefill's transfer figures.
  ProbeReport r = decode_report;
  r.role = "loopback";
  r.prefill_profile = p.prefill_profile;
  r.prefill_ranks = p.prefill_ranks;
  r.pool_bytes = p.pool_bytes + decode_report.pool_bytes;
  r.line_rate_gbps = p.line_rate_gbps;
  r.queue_pairs = p.queue_pairs;
  r.phases.clear();
  for (PhaseReport ph : p.phases) {
    ph.name = "prefill " + ph.name;
    r.phases.push_back(ph);
  }
  for (PhaseReport ph : decode_report.phases) {
    ph.name = "decode " + ph.name;
    r.phases.push_back(ph);
  }
  for (const std::string& n : p.notes) {
    // "decode: " notes echo the decode's own; one host's GPU/NIC note comes from both ends.
    if (n.rfind("decode: ", 0) != 0 && std::find(r.notes.begin(), r.notes.end(), n) == r.notes.end()) {
      r.notes.push_back(n);
    }
  }
  if (r.refusals.empty()) {
    r.refusals = p.refusals;
  }
  if (r.checker_prediction.empty()) {
    r.checker_prediction = p.checker_prediction;
  }
  for (const std::string& s : p.teardown_issues) {
    r.teardown_issues.push_back("prefill: " + s);
  }
  // The first failure of either end is the one that explains the run.
  if (p.failure && (!r.failure || r.failure->message.find("the peer stopped") != std::string::npos)) {
    r.failure = p.failure;
  }
  if (r.failure) {
    r.verified = false;
    r.verdict = Verdict::cannot_run;
  } else if (p.verdict != Verdict::ok && r.verdict == Verdict::ok) {
    r.verdict = p.verdict;
    r.verified = false;
  }
  return r;
}

} // namespace pdcheck::probe
