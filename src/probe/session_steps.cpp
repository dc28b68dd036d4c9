#include "probe/session_steps.hpp"

#include "probe/pci_topology.hpp"
#include "probe/peer_fields.hpp"
#include "probe/side_wire.hpp"
#include "util/untrusted_text.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::probe::steps {

namespace {

/// The GPU of --memory cuda:N (recorded in the report), or nullptr for host memory.
std::unique_ptr<GpuDevice> open_gpu(const ProbeOptions& o, ProbeReport& r)
{
  if (!o.open_gpu) {
    return nullptr;
  }
  std::unique_ptr<GpuDevice> gpu = o.open_gpu();
  r.gpu = gpu->info();
  return gpu;
}

/// GPUDirect RDMA is only as fast as the PCIe path between the GPU and the NIC.
void note_gpu_nic_affinity(ProbeReport& r, const Transport& transport)
{
  if (r.gpu) {
    if (std::string note = gpu_nic_note("/sys", r.gpu->ordinal, r.gpu->pci_bus_id, transport.pci_address());
        !note.empty()) {
      r.notes.push_back(std::move(note));
    }
  }
}

} // namespace

ProbeReport start_report(sglang::Role role, const sglang::Side& side, const ProbeOptions& o,
                         std::string_view transport)
{
  ProbeReport r;
  r.role = std::string(sglang::role_name(role));
  r.transport = std::string(transport);
  r.memory = o.memory;
  // GPU memory has no path until it is registered (register_pools).
  r.memory_path = o.open_gpu ? "unregistered" : "host";
  r.slots = o.slots;
  (role == sglang::Role::decode ? r.decode_profile : r.prefill_profile) = side.profile.name;
  r.model = side.model.name;
  r.backend = std::string(transfer_backend_name(side.args.transfer_backend));
  return r;
}

void allocate_pools(ProbeReport& r, const model::Layout& layout, const ProbeOptions& o, std::unique_ptr<GpuDevice>& gpu,
                    std::optional<StatePools>& pools)
{
  PhaseTimer t(r, Phase::allocate);
  gpu = open_gpu(o, r);
  pools.emplace(layout, o.slots, gpu.get());
  (r.role == "decode" ? r.decode_ranks : r.prefill_ranks) = static_cast<int>(layout.ranks.size());
  r.pool_bytes = static_cast<std::int64_t>(pools->total_bytes());
  t.phase().bytes = r.pool_bytes;
  t.done();
}

void register_pools(ProbeReport& r, StatePools& pools, Transport& transport)
{
  PhaseTimer t(r, Phase::register_memory);
  pools.register_all(transport);
  r.memory_path = std::string(memory_path_name(pools.path()));
  if (!pools.dmabuf_refusal().empty()) {
    r.notes.push_back("GPU memory registered by address, which needs nvidia-peermem; no dma-buf because " +
                      pools.dmabuf_refusal());
  }
  note_gpu_nic_affinity(r, transport);
  t.phase().bytes = r.pool_bytes;
  t.done();
}

/// Maps SGLang's backend to the wire codec's; nullopt for backends pdcheck
/// has no TransferInfo encoder for (the probe then sends the bare indices).
std::optional<TransferBackend> wire_backend(TransferBackend b)
{
  return wire::frames_backend(b);
}

nlohmann::json hello(const sglang::Side& side, const model::Layout& layout, const Transport& transport,
                     const ProbeOptions& o)
{
  nlohmann::json j;
  j["type"] = "hello";
  j["magic"] = k_magic;
  j["protocol"] = k_protocol_version;
  j["pdcheck_version"] = PDCHECK_VERSION;
  j["role"] = std::string(sglang::role_name(side.role));
  j["transport"] = std::string(transport.name());
  j["memory"] = o.memory;
  j["profile"] = side.profile.name;
  j["backend"] = std::string(transfer_backend_name(side.args.transfer_backend));
  j["layout_digest"] = layout_digest(layout);
  j["endpoint"] = transport.local_endpoint();
  return j;
}

/// Why a peer's hello is unacceptable, or nullopt. Integer protocol versions,
/// never float parsing of version strings (perftest's atof), and never narrowed:
/// 4294967297 is not protocol 1.
std::optional<std::string> hello_refusal(const nlohmann::json& peer, const std::string& expected_role,
                                         const std::string& my_transport)
{
  const PeerObject hello(peer, "the peer's hello", Phase::handshake);
  if (hello.text_or("magic", "") != k_magic) {
    return "the peer is not a pdcheck probe (wrong magic)";
  }
  if (hello.text_or("type", "") != "hello") {
    return "the peer did not start with a hello message";
  }
  const std::optional<int> version = peer.contains("protocol") ? integer_as<int>(peer.at("protocol")) : std::nullopt;
  if (version != k_protocol_version) {
    return fmt::format("the peer speaks probe protocol {} (pdcheck {}), this pdcheck speaks {} (pdcheck {})",
                       peer.contains("protocol") ? peer_value_text(peer.at("protocol")) : std::string("none"),
                       hello.text_or("pdcheck_version", "?"), k_protocol_version, PDCHECK_VERSION);
  }
  const std::string role = hello.text_or("role", "?");
  if (role != expected_role) {
    return fmt::format("the peer plays the {} role; expected a {} end", role, expected_role);
  }
  const std::string transport = hello.text_or("transport", "?");
  if (transport != my_transport) {
    return fmt::format("the peer uses the {} transport but this end uses {}; give both the same --transport",
                       transport, my_transport);
  }
  return std::nullopt;
}

void fail_report(ProbeReport& r, const ProbeError& e)
{
  r.failure = Failure{std::string(phase_name(e.phase())), e.detail(), e.hint()};
  r.verdict = Verdict::cannot_run;
  r.verified = false;
}

ProbeReport could_not_start(sglang::Role role, const sglang::Side& side, const ProbeOptions& o,
                            const std::unique_ptr<Transport>& transport, const ProbeError& e)
{
  ProbeReport r = start_report(role, side, o, transport ? transport->name() : std::string_view());
  fail_report(r, e);
  return r;
}

/// Best-effort notice to the peer that this end stopped; never throws.
void tell_abort(int fd, const ProbeError& e)
{
  try {
    send_message(fd, {{"type", "abort"}, {"phase", phase_name(e.phase())}, {"message", e.detail()}, {"hint", e.hint()}},
                 Deadline::after(1), Phase::teardown);
  } catch (...) {
  }
}

void stop_end(ProbeReport& r, int fd, const ProbeError& e)
{
  tell_abort(fd, e);
  fail_report(r, e);
}

ProbeError malformed_peer_message(const ProbeReport& r, const nlohmann::json::exception& e)
{
  const bool connected = std::any_of(r.phases.begin(), r.phases.end(),
                                     [](const PhaseReport& p) { return p.name == phase_name(Phase::connect); });
  return ProbeError(connected ? Phase::transfer_info : Phase::handshake,
                    std::string("a message from the peer lacks what this end needs: ") + e.what(),
                    "that both ends run the same pdcheck version");
}

/// Throws the ProbeError an "abort" or "refuse" message from the peer carries.
[[noreturn]] void peer_stopped(const nlohmann::json& m, Phase phase)
{
  const PeerObject stop(m, "the peer's " + message_type(m), phase);
  throw ProbeError(phase, "the peer stopped: " + stop.text_or("message", stop.text_or("reason", "no reason given")),
                   stop.text_or("hint", "the peer's own report"));
}

std::string message_type(const nlohmann::json& m)
{
  const auto it = m.find("type");
  if (it == m.end()) {
    return "message";
  }
  return it->is_string() ? printable_untrusted(it->get_ref<const std::string&>(), 40) : peer_value_text(*it);
}

nlohmann::json expect(int fd, const std::string& type, Deadline d, Phase phase)
{
  nlohmann::json m = recv_message(fd, d, phase, type);
  const std::string t = message_type(m);
  if (t == "abort") {
    peer_stopped(m, phase);
  }
  if (t != type) {
    throw ProbeError(phase, fmt::format("expected a '{}' message, got '{}'", type, t),
                     "that both ends run the same pdcheck version");
  }
  return m;
}

} // namespace pdcheck::probe::steps
