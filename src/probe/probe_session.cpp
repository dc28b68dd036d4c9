#include "probe/probe_session.hpp"

#include "check/checker.hpp"
#include "core/rules.hpp"
#include "plan/meaning.hpp"
#include "probe/pattern.hpp"
#include "probe/pci_topology.hpp"
#include "probe/side_wire.hpp"
#include "probe/state_pools.hpp"
#include "sglang/side_layout.hpp"
#include "wire/base64.hpp"
#include "wire/transfer_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

namespace pdcheck::probe {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0)
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

/// Maps SGLang's backend to the wire codec's; nullopt for backends pdcheck
/// has no TransferInfo encoder for (the probe then sends the bare indices).
std::optional<wire::Backend> wire_backend(sglang::TransferBackend b)
{
  switch (b) {
  case sglang::TransferBackend::mooncake:
  case sglang::TransferBackend::mooncake_tcp: return wire::Backend::mooncake;
  case sglang::TransferBackend::mori: return wire::Backend::mori;
  case sglang::TransferBackend::nixl: return wire::Backend::nixl;
  default: return std::nullopt;
  }
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
  j["backend"] = std::string(sglang::transfer_backend_name(side.args.transfer_backend));
  j["layout_digest"] = layout_digest(layout);
  j["endpoint"] = transport.local_endpoint();
  return j;
}

/// Why a peer's hello is unacceptable, or nullopt. Integer protocol versions,
/// never float parsing of version strings (perftest's atof).
std::optional<std::string> hello_refusal(const nlohmann::json& peer, const std::string& expected_role,
                                         const std::string& my_transport)
{
  if (peer.value("magic", "") != k_magic) {
    return "the peer is not a pdcheck probe (wrong magic)";
  }
  if (peer.value("type", "") != "hello") {
    return "the peer did not start with a hello message";
  }
  const int version = peer.value("protocol", -1);
  if (version != k_protocol_version) {
    return fmt::format("the peer speaks probe protocol {} (pdcheck {}), this pdcheck speaks {} (pdcheck {})", version,
                       peer.value("pdcheck_version", "?"), k_protocol_version, PDCHECK_VERSION);
  }
  if (peer.value("role", "") != expected_role) {
    return fmt::format("the peer plays the {} role; expected a {} end", peer.value("role", "?"), expected_role);
  }
  if (peer.value("transport", "") != my_transport) {
    return fmt::format("the peer uses the {} transport but this end uses {}; give both the same --transport",
                       peer.value("transport", "?"), my_transport);
  }
  return std::nullopt;
}

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

void fail_report(ProbeReport& r, const ProbeError& e)
{
  r.failure = Failure{std::string(phase_name(e.phase())), e.detail(), e.hint()};
  r.exit_code = exit_code::cannot_run;
  r.verified = false;
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

/// Throws the ProbeError an "abort" or "refuse" message from the peer carries.
[[noreturn]] void peer_stopped(const nlohmann::json& m, Phase phase)
{
  throw ProbeError(phase, "the peer stopped: " + m.value("message", m.value("reason", std::string("no reason given"))),
                   m.value("hint", std::string("the peer's own report")));
}

nlohmann::json expect(int fd, const std::string& type, Deadline d, Phase phase)
{
  nlohmann::json m = recv_message(fd, d, phase);
  const std::string t = m.value("type", "");
  if (t == "abort") {
    peer_stopped(m, phase);
  }
  if (t != type) {
    throw ProbeError(phase, fmt::format("expected a '{}' message, got '{}'", type, t),
                     "that both ends run the same pdcheck version");
  }
  return m;
}

std::vector<nlohmann::json> regions_json(const StatePools& pools)
{
  std::vector<nlohmann::json> out;
  for (const EntryBuffer& b : pools.buffers()) {
    out.push_back({{"rank", b.rank_index},
                   {"entry", b.entry},
                   {"addr", b.key.addr},
                   {"length", b.length},
                   {"rkey", b.key.rkey},
                   {"item_len", b.item_len}});
  }
  return out;
}

} // namespace

ProbeReport run_decode_end(const sglang::Side& decode, const ProbeOptions& o, Fd oob, Transport& transport)
{
  ProbeReport r;
  r.role = "decode";
  r.transport = std::string(transport.name());
  r.memory = o.memory;
  r.slots = o.slots;
  r.decode_profile = decode.profile.name;
  r.model = decode.model.name;
  r.backend = std::string(sglang::transfer_backend_name(decode.args.transfer_backend));
  const int fd = oob.get();
  // Outside the try: the transport deregisters its memory regions (shutdown,
  // below) before the pools and then the GPU are released.
  std::unique_ptr<GpuDevice> gpu;
  std::optional<StatePools> pools;
  try {
    const Deadline handshake_deadline = Deadline::after(o.timeout);
    std::optional<PhaseTimer> t(std::in_place, r, Phase::allocate);
    const model::Layout layout = model::compute_layout(sglang::layout_input(decode));
    gpu = open_gpu(o, r);
    pools.emplace(layout, o.slots, gpu.get());
    r.decode_ranks = static_cast<int>(layout.ranks.size());
    r.pool_bytes = static_cast<std::int64_t>(pools->total_bytes());
    t->phase().bytes = r.pool_bytes;
    t->done();
    std::vector<plan::RankMeaning> meanings;
    meanings.reserve(layout.ranks.size());
    for (const model::RankLayout& rank : layout.ranks) {
      meanings.emplace_back(decode.model, rank, layout.attn_tp_size);
    }

    t.emplace(r, Phase::register_memory);
    pools->register_all(transport);
    r.memory_path = std::string(memory_path_name(pools->path()));
    note_gpu_nic_affinity(r, transport);
    t->phase().bytes = r.pool_bytes;
    t->done();

    t.emplace(r, Phase::handshake);
    const nlohmann::json peer = recv_message(fd, handshake_deadline, Phase::handshake);
    if (auto why = hello_refusal(peer, "prefill", std::string(transport.name()))) {
      send_message(fd, {{"type", "refuse"}, {"reason", *why}}, handshake_deadline, Phase::handshake);
      throw ProbeError(Phase::handshake, "refused the peer: " + *why, "that both ends run the same pdcheck and options");
    }
    r.prefill_profile = peer.value("profile", "");
    nlohmann::json mine = hello(decode, layout, transport, o);
    mine["side"] = side_to_json(decode);
    mine["regions"] = regions_json(*pools);
    mine["slots"] = o.slots;
    send_message(fd, mine, handshake_deadline, Phase::handshake);
    t->done();

    // rc_pingpong's order: the server's QP reaches RTR before the client sends.
    t.emplace(r, Phase::connect);
    transport.connect(peer.at("endpoint"), false, Deadline::after(o.timeout));
    send_message(fd, {{"type", "ready"}}, handshake_deadline, Phase::connect);
    const nlohmann::json go = recv_message(fd, Deadline::after(o.timeout), Phase::connect);
    if (go.value("type", "") == "refuse") {
      // The prefill found a rule SGLang enforces before any transfer.
      r.refusals = go.value("reasons", std::vector<std::string>{});
      r.checker_prediction = go.value("prediction", "");
      t->phase().ok = false;
      t->phase().detail = "the prefill end refused: SGLang would not transfer state for this pair";
      t->done();
      r.exit_code = exit_code::findings;
      r.teardown_issues = transport.shutdown();
      return r;
    }
    if (go.value("type", "") != "go") {
      if (go.value("type", "") == "abort") {
        peer_stopped(go, Phase::connect);
      }
      throw ProbeError(Phase::connect, "expected 'go' from the prefill end", "that both ends run the same pdcheck");
    }
    r.checker_prediction = go.value("prediction", "");
    t->done();

    const auto backend = wire_backend(decode.args.transfer_backend);
    const wire::Generation shape =
      backend ? wire::transfer_info_shape(wire::generation_for_profile(*backend, decode.profile)) : wire::Generation::flat;
    const int usable = o.slots - 1;
    double verify_seconds = 0;
    std::int64_t verify_bytes = 0;
    for (int it = 0; it < o.iterations; ++it) {
      for (int q = 0; q < o.requests; ++q) {
        RequestReport req;
        req.index = it * o.requests + q;
        req.iteration = it;
        req.room = 1000 + req.index;
        // Never slot 0 (SGLang's padding slot); vary the slot per request so
        // slot arithmetic is exercised.
        req.dst_slot = 1 + ((req.index * 2 + 1) % usable);
        req.state_indices_sent = o.state_indices;
        std::vector<std::int32_t> indices;
        for (int k = 0; k < o.state_indices; ++k) {
          indices.push_back(static_cast<std::int32_t>(req.dst_slot + k));
        }
        nlohmann::json msg;
        msg["type"] = "transfer_info";
        msg["request"] = req.index;
        msg["room"] = req.room;
        msg["per_rank"] = nlohmann::json::array();
        for (const model::RankLayout& rank : layout.ranks) {
          nlohmann::json pr;
          pr["pp_rank"] = rank.pp_rank;
          pr["tp_rank"] = rank.attn_tp_rank;
          if (backend) {
            wire::TransferInfo ti;
            ti.backend = *backend;
            ti.generation = shape;
            ti.room = req.room;
            ti.endpoint = "127.0.0.1";
            ti.dst_port = 0;
            ti.mooncake_session_id = "pdcheck-probe";
            ti.engine_key = "pdcheck-probe";
            ti.agent_name = "pdcheck-probe";
            ti.dst_kv_indices = {static_cast<std::int32_t>(req.dst_slot)};
            ti.dst_aux_index = req.dst_slot;
            ti.dst_state_indices = {indices};
            ti.required_dst_info_num = 1;
            std::vector<std::string> frames;
            for (const wire::Bytes& f : wire::encode_transfer_info(ti, shape)) {
              frames.push_back(wire::base64_encode(f));
            }
            pr["frames"] = frames;
          } else {
            pr["state_indices"] = indices;
          }
          msg["per_rank"].push_back(std::move(pr));
        }
        const auto t0 = Clock::now();
        send_message(fd, msg, Deadline::after(o.timeout), Phase::transfer_info);
        const nlohmann::json done = expect(fd, "done", Deadline::after(o.timeout), Phase::completion);
        req.latency_seconds = seconds_since(t0);
        req.src_slot = done.value("src_slot", 0);
        req.bytes = done.value("bytes", 0);
        req.work_requests = done.value("work_requests", 0);
        req.write_seconds = done.value("write_seconds", 0.0);
        r.bytes += req.bytes;
        r.work_requests += req.work_requests;
        r.write_seconds += req.write_seconds;
        if (done.contains("sglang_error")) {
          req.outcome = "failed";
          req.sglang_error = done["sglang_error"].get<std::string>();
        } else if (done.contains("transport_error")) {
          req.outcome = "failed";
          req.transport_error = done["transport_error"].get<std::string>();
        }
        // Verify every byte of the request's slot on every rank, whatever the
        // prefill says: a skipped or failed transfer must show as missing state.
        const auto v0 = Clock::now();
        VerifyTally tally;
        for (std::size_t ri = 0; ri < layout.ranks.size(); ++ri) {
          for (int e = 0; e < meanings[ri].entry_count(); ++e) {
            const std::size_t bi = pools->buffer_index(static_cast<int>(ri), e);
            const EntryBuffer& b = pools->buffers()[bi];
            if (b.item_len == 0) {
              continue;
            }
            const auto offset = static_cast<std::uint64_t>(req.dst_slot * b.item_len);
            const auto item_len = static_cast<std::uint64_t>(b.item_len);
            pools->bring_to_host(bi, offset, item_len);
            verify_slot(meanings[ri], static_cast<int>(ri), e, req.src_slot, b.data + offset, tally);
            pools->reset(bi, offset, item_len); // back to k_poison
          }
        }
        verify_seconds += seconds_since(v0);
        verify_bytes += tally.bytes;
        req.wrong_bytes = tally.wrong;
        req.unwritten_bytes = tally.unwritten;
        if (req.outcome.empty()) {
          if (done.value("skipped", false)) {
            req.outcome = tally.clean() ? "verified" : "skipped";
          } else if (tally.clean()) {
            req.outcome = "verified";
          } else if (tally.wrong == 0) {
            req.outcome = "never-arrived";
          } else {
            req.outcome = "corrupted";
          }
        }
        r.tally.merge(tally);
        r.requests.push_back(std::move(req));
        if (o.progress) {
          o.progress(static_cast<int>(r.requests.size()), o.iterations * o.requests, r.tally.bytes);
        }
      }
    }
    // Stray writes: after each request its slot was re-zeroed, so any
    // non-zero byte left anywhere was written outside a request's slot.
    const auto v0 = Clock::now();
    for (std::size_t bi = 0; bi < pools->buffers().size(); ++bi) {
      const EntryBuffer& b = pools->buffers()[bi];
      pools->bring_to_host(bi, 0, b.length);
      const auto& rank = layout.ranks[static_cast<std::size_t>(b.rank_index)];
      const auto& entry = rank.entries[static_cast<std::size_t>(b.entry)];
      const std::string tensor = entry.tensor >= 0 ? rank.tensors[static_cast<std::size_t>(entry.tensor)].name : "unified";
      verify_untouched(b.rank_index, b.entry, tensor, b.data, static_cast<std::int64_t>(b.length), 0, r.tally);
    }
    verify_seconds += seconds_since(v0);
    PhaseReport vp;
    vp.name = std::string(phase_name(Phase::verify));
    vp.seconds = verify_seconds;
    vp.bytes = verify_bytes;
    vp.ok = r.tally.clean();
    vp.detail = fmt::format("{:.2f} GB/s", verify_seconds > 0 ? static_cast<double>(verify_bytes) / verify_seconds / 1e9 : 0.0);
    r.add_phase(vp);

    bool all_ok = !r.requests.empty();
    for (const RequestReport& q : r.requests) {
      all_ok = all_ok && q.outcome == "verified";
    }
    r.verified = all_ok && r.tally.clean();
    r.exit_code = r.verified ? exit_code::ok : exit_code::findings;
    nlohmann::json bye;
    bye["type"] = "bye";
    bye["verified"] = r.verified;
    bye["wrong_bytes"] = r.tally.wrong;
    bye["unwritten_bytes"] = r.tally.unwritten;
    bye["stray_bytes"] = r.tally.stray;
    bye["bytes_checked"] = r.tally.bytes;
    std::vector<std::string> ranges;
    for (const MismatchRange& m : r.tally.ranges) {
      ranges.push_back(describe_range(m));
    }
    bye["mismatches"] = ranges;
    send_message(fd, bye, Deadline::after(o.timeout), Phase::teardown);
    expect(fd, "bye", Deadline::after(o.timeout), Phase::teardown);
  } catch (const ProbeError& e) {
    tell_abort(fd, e);
    fail_report(r, e);
  }
  r.teardown_issues = transport.shutdown();
  return r;
}

namespace {

/// Plans per (src slot, dst slot, index count), rebuilt by the checker itself.
class PlanCache
{
public:
  PlanCache(const sglang::Side& prefill, const sglang::Side& decode) : m_prefill(prefill), m_decode(decode) {}

  const check::CheckResult& get(std::int64_t src_slot, std::int64_t dst_slot, int count)
  {
    const auto key = std::make_tuple(src_slot, dst_slot, count);
    auto it = m_cache.find(key);
    if (it != m_cache.end()) {
      return it->second;
    }
    check::CheckInput in;
    in.prefill = m_prefill;
    in.decode = m_decode;
    in.src_slot = src_slot;
    in.dst_slot = dst_slot;
    // The live TransferInfo's index count, as a captured one would be given to
    // the checker, so the Plan carries the backend's reaction to it.
    check::ObservedTransferInfo ti;
    ti.origin = "live TransferInfo";
    ti.state_index_counts = {count};
    in.transfer_infos.push_back(ti);
    return m_cache.emplace(key, check::run_check(in)).first->second;
  }

private:
  const sglang::Side& m_prefill;
  const sglang::Side& m_decode;
  std::map<std::tuple<std::int64_t, std::int64_t, int>, check::CheckResult> m_cache;
};

/// The findings that stop SGLang before any state moves (startup, bootstrap,
/// registration), as opposed to silent corruption, which only the bytes show.
std::vector<std::string> refusals_of(const check::CheckResult& result)
{
  std::vector<std::string> out;
  for (const Finding& f : result.findings) {
    if (f.severity == Severity::error && f.kind != FindingKind::silent_corruption) {
      out.push_back(fmt::format("[{}] {}{}", f.rule, f.message, f.runtime_error ? " (SGLang: " + *f.runtime_error + ")" : ""));
    }
  }
  return out;
}

std::string prediction_of(const check::CheckResult& result)
{
  std::vector<std::string> rules;
  for (const Finding& f : result.findings) {
    if (f.kind == FindingKind::silent_corruption && f.severity == Severity::error &&
        std::find(rules.begin(), rules.end(), f.rule) == rules.end()) {
      rules.push_back(f.rule);
    }
  }
  return rules.empty() ? "no silent corruption" : fmt::format("silent corruption ({})", fmt::join(rules, ", "));
}

/// The state index list the prefill reads from one decode rank's TransferInfo.
std::vector<std::int32_t> read_indices(const nlohmann::json& per_rank, sglang::TransferBackend backend,
                                       const sglang::Profile& decode_profile)
{
  if (!per_rank.contains("frames")) {
    return per_rank.at("state_indices").get<std::vector<std::int32_t>>();
  }
  const auto wb = wire_backend(backend);
  if (!wb) {
    throw ProbeError(Phase::transfer_info, "TransferInfo frames for a backend without a codec",
                     "that both ends use the same --disaggregation-transfer-backend");
  }
  wire::Frames frames;
  for (const auto& text : per_rank.at("frames")) {
    wire::WireIssue issue;
    auto bytes = wire::base64_decode(text.get<std::string>(), &issue);
    if (!bytes) {
      throw ProbeError(Phase::transfer_info, "TransferInfo frame is not base64: " + issue.message(),
                       "that both ends run the same pdcheck");
    }
    frames.push_back(std::move(*bytes));
  }
  const wire::Generation shape = wire::transfer_info_shape(wire::generation_for_profile(*wb, decode_profile));
  // Read the frames the way SGLang's prefill parser does (not strictly): the
  // probe must see what SGLang would act on, e.g. an empty or doubled list.
  const wire::TransferInfoDecode d = wire::decode_transfer_info(*wb, frames, shape, wire::DecodeMode::sglang);
  if (!d.transfer_info) {
    throw ProbeError(Phase::transfer_info,
                     "the decode's TransferInfo does not decode: " + (d.problem ? d.problem->message() : std::string("?")),
                     "that both ends run the same SGLang profile");
  }
  if (d.transfer_info->dst_state_indices.empty()) {
    return {};
  }
  return d.transfer_info->dst_state_indices.front();
}

} // namespace

ProbeReport run_prefill_end(const sglang::Side& prefill, const ProbeOptions& o, Fd oob, Transport& transport,
                            const std::string& peer_host)
{
  ProbeReport r;
  r.role = "prefill";
  r.transport = std::string(transport.name());
  r.memory = o.memory;
  r.slots = o.slots;
  r.prefill_profile = prefill.profile.name;
  r.model = prefill.model.name;
  r.backend = std::string(sglang::transfer_backend_name(prefill.args.transfer_backend));
  r.line_rate_gbps = transport.line_rate_gbps();
  const int fd = oob.get();
  // Outside the try: the transport deregisters its memory regions (shutdown,
  // below) before the pools and then the GPU are released.
  std::unique_ptr<GpuDevice> gpu;
  std::optional<StatePools> pools;
  try {
    std::optional<PhaseTimer> t(std::in_place, r, Phase::allocate);
    const model::Layout layout = model::compute_layout(sglang::layout_input(prefill));
    gpu = open_gpu(o, r);
    pools.emplace(layout, o.slots, gpu.get());
    r.prefill_ranks = static_cast<int>(layout.ranks.size());
    r.pool_bytes = static_cast<std::int64_t>(pools->total_bytes());
    t->phase().bytes = r.pool_bytes;
    t->done();

    t.emplace(r, Phase::fill);
    for (std::size_t ri = 0; ri < layout.ranks.size(); ++ri) {
      const plan::RankMeaning meaning(prefill.model, layout.ranks[ri], layout.attn_tp_size);
      for (int e = 0; e < meaning.entry_count(); ++e) {
        const EntryBuffer& b = pools->buffer(static_cast<int>(ri), e);
        for (int s = 0; s < o.slots && b.item_len > 0; ++s) {
          fill_slot(meaning, e, s, b.data + s * b.item_len);
        }
      }
    }
    pools->publish_filled();
    t->phase().bytes = r.pool_bytes;
    t->done();

    t.emplace(r, Phase::register_memory);
    pools->register_all(transport);
    r.memory_path = std::string(memory_path_name(pools->path()));
    note_gpu_nic_affinity(r, transport);
    t->phase().bytes = r.pool_bytes;
    t->done();

    t.emplace(r, Phase::handshake);
    const Deadline hd = Deadline::after(o.timeout);
    send_message(fd, hello(prefill, layout, transport, o), hd, Phase::handshake);
    const nlohmann::json peer = recv_message(fd, hd, Phase::handshake);
    if (peer.value("type", "") == "refuse") {
      throw ProbeError(Phase::handshake, "the decode end refused: " + peer.value("reason", std::string("?")),
                       "that both ends run the same pdcheck and options");
    }
    if (peer.value("type", "") == "abort") {
      peer_stopped(peer, Phase::handshake);
    }
    if (auto why = hello_refusal(peer, "decode", std::string(transport.name()))) {
      throw ProbeError(Phase::handshake, "refused the peer: " + *why, "that both ends run the same pdcheck and options");
    }
    const sglang::Side decode = side_from_json(peer.at("side"), sglang::Role::decode);
    const model::Layout decode_layout = model::compute_layout(sglang::layout_input(decode));
    if (layout_digest(decode_layout) != peer.value("layout_digest", "")) {
      throw ProbeError(Phase::handshake,
                       fmt::format("layout digest mismatch: the decode end lays its state out as {}, this end computes "
                                   "{} for the same side",
                                   peer.value("layout_digest", "?"), layout_digest(decode_layout)),
                       "that both hosts run the same pdcheck version");
    }
    if (peer.value("slots", 0) < 2) {
      throw ProbeError(Phase::handshake, "the decode end has fewer than 2 slots", "--slots on the decode end");
    }
    r.decode_profile = decode.profile.name;
    r.decode_ranks = static_cast<int>(decode_layout.ranks.size());
    // Remote regions by (rank, entry).
    std::map<std::pair<int, int>, nlohmann::json> remote;
    for (const auto& reg : peer.at("regions")) {
      remote[{reg.at("rank").get<int>(), reg.at("entry").get<int>()}] = reg;
    }
    t->done();

    // The checker decides whether SGLang would transfer at all (startup,
    // bootstrap and registration rules) and builds the Plan.
    t.emplace(r, Phase::plan);
    PlanCache plans(prefill, decode);
    const check::CheckResult& base = plans.get(1, 1, 1);
    r.refusals = refusals_of(base);
    r.checker_prediction = prediction_of(base);
    if (r.refusals.empty() && base.pairs.empty()) {
      r.refusals.push_back("no prefill rank sends state to any decode rank for this pair");
    }
    t->phase().ok = r.refusals.empty();
    t->phase().detail = fmt::format("{} rank pair(s)", base.pairs.size());
    t->done();

    t.emplace(r, Phase::connect);
    expect(fd, "ready", Deadline::after(o.timeout), Phase::connect);
    if (!r.refusals.empty()) {
      send_message(fd, {{"type", "refuse"}, {"reasons", r.refusals}, {"prediction", r.checker_prediction}},
                   Deadline::after(o.timeout), Phase::connect);
      t->phase().ok = false;
      t->done();
      r.exit_code = exit_code::findings;
      r.teardown_issues = transport.shutdown();
      return r;
    }
    nlohmann::json endpoint = peer.at("endpoint");
    endpoint["host"] = peer_host;
    transport.connect(endpoint, true, Deadline::after(o.timeout));
    send_message(fd, {{"type", "go"}, {"prediction", r.checker_prediction}}, Deadline::after(o.timeout), Phase::connect);
    t->done();

    const int usable = o.slots - 1;
    const int p_tp = layout.attn_tp_size;
    const int d_tp = decode_layout.attn_tp_size;
    double write_total = 0;
    std::int64_t wr_total = 0;
    std::int64_t bytes_total = 0;
    for (;;) {
      nlohmann::json m = recv_message(fd, Deadline::after(o.timeout), Phase::transfer_info);
      const std::string type = m.value("type", "");
      if (type == "abort") {
        peer_stopped(m, Phase::transfer_info);
      }
      if (type == "bye") {
        r.verified = m.value("verified", false);
        r.tally.bytes = m.value("bytes_checked", 0);
        r.tally.wrong = m.value("wrong_bytes", 0);
        r.tally.unwritten = m.value("unwritten_bytes", 0);
        r.tally.stray = m.value("stray_bytes", 0);
        for (const auto& s : m.value("mismatches", std::vector<std::string>{})) {
          r.notes.push_back("decode: " + s);
        }
        send_message(fd, {{"type", "bye"}}, Deadline::after(o.timeout), Phase::teardown);
        break;
      }
      if (type != "transfer_info") {
        throw ProbeError(Phase::transfer_info, "unexpected message '" + type + "'", "that both ends run the same pdcheck");
      }
      RequestReport req;
      req.index = m.value("request", 0);
      req.room = m.value("room", 0);
      req.src_slot = 1 + (req.index % usable);
      // Every decode rank sends the same shape; the first one decides the count.
      std::map<std::pair<int, int>, std::vector<std::int32_t>> indices;
      for (const auto& pr : m.at("per_rank")) {
        indices[{pr.at("pp_rank").get<int>(), pr.at("tp_rank").get<int>()}] =
          read_indices(pr, decode.args.transfer_backend, decode.profile);
      }
      const std::vector<std::int32_t>& first = indices.begin()->second;
      req.state_indices_sent = static_cast<int>(first.size());
      req.dst_slot = first.empty() ? 0 : first.front();
      const check::CheckResult& planned = plans.get(req.src_slot, req.dst_slot, req.state_indices_sent);
      nlohmann::json done;
      done["type"] = "done";
      done["request"] = req.index;
      done["src_slot"] = req.src_slot;
      std::vector<WriteOp> ops;
      std::vector<BufferRange> sources;
      bool skipped = true;
      for (const check::PairResult& pair : planned.pairs) {
        if (pair.plan.error) {
          req.sglang_error = pair.plan.error->message;
          req.outcome = "failed";
          break;
        }
        if (pair.plan.skipped) {
          continue;
        }
        skipped = false;
        const int src_rank = pair.prefill_pp_rank * p_tp + pair.prefill_rank;
        const int dst_rank = pair.decode_pp_rank * d_tp + pair.decode_rank;
        for (const plan::Copy& c : pair.plan.copies) {
          const EntryBuffer& src = pools->buffer(src_rank, c.src_entry);
          auto it = remote.find({dst_rank, c.dst_entry});
          if (it == remote.end()) {
            throw ProbeError(Phase::write, fmt::format("the plan writes to decode rank {} entry {}, which the decode end did not register", dst_rank, c.dst_entry),
                             "that both ends compute the same layout");
          }
          if (c.src_offset < 0 || c.length < 0 ||
              static_cast<std::uint64_t>(c.src_offset + c.length) > src.length) {
            req.transport_error = fmt::format("local protection error: the plan reads {} bytes at {} of a {}-byte source buffer",
                                              c.length, c.src_offset, src.length);
            break;
          }
          WriteOp op;
          op.local = src.wire + c.src_offset;
          sources.push_back({pools->buffer_index(src_rank, c.src_entry), static_cast<std::uint64_t>(c.src_offset),
                             static_cast<std::uint64_t>(c.length)});
          op.lkey = src.key.lkey;
          op.remote_addr = it->second.at("addr").get<std::uint64_t>() + static_cast<std::uint64_t>(c.dst_offset);
          op.rkey = it->second.at("rkey").get<std::uint32_t>();
          op.length = static_cast<std::uint64_t>(c.length);
          ops.push_back(op);
        }
        if (req.transport_error) {
          break;
        }
      }
      if (req.sglang_error) {
        done["sglang_error"] = *req.sglang_error;
      } else if (req.transport_error) {
        done["transport_error"] = *req.transport_error;
      } else {
        done["skipped"] = skipped && !planned.pairs.empty();
        if (done["skipped"].get<bool>()) {
          r.notes.push_back(fmt::format("request {}: the {} backend skipped the Mamba component ({} state indices): "
                                        "nothing was sent",
                                        req.index, r.backend, req.state_indices_sent));
        }
        const auto w0 = Clock::now();
        pools->stage_for_send(std::move(sources)); // GPU -> mirror when the transport cannot read GPU memory
        const WriteStats ws = execute_writes(transport, ops, o.write, Deadline::after(o.timeout));
        req.write_seconds = seconds_since(w0);
        req.bytes = ws.bytes;
        req.work_requests = ws.work_requests;
        if (ws.timed_out) {
          throw ProbeError(Phase::completion, "no completion before the deadline",
                           "that the decode end is alive; on RDMA, the GID, route and MTU (transport retry exceeded)");
        }
        if (ws.first_error) {
          req.transport_error = fmt::format("work request {} completed with '{}' ({} later ones flushed)", *ws.failed_wr,
                                            *ws.first_error, ws.flushed);
          done["transport_error"] = *req.transport_error;
        }
      }
      done["bytes"] = req.bytes;
      done["work_requests"] = req.work_requests;
      done["write_seconds"] = req.write_seconds;
      write_total += req.write_seconds;
      wr_total += req.work_requests;
      bytes_total += req.bytes;
      send_message(fd, done, Deadline::after(o.timeout), Phase::completion);
      req.outcome = req.sglang_error || req.transport_error ? "failed" : "sent";
      r.requests.push_back(std::move(req));
      if (o.progress) {
        o.progress(static_cast<int>(r.requests.size()), o.iterations * o.requests, bytes_total);
      }
    }
    PhaseReport wp;
    wp.name = std::string(phase_name(Phase::write));
    wp.seconds = write_total;
    wp.bytes = bytes_total;
    wp.work_requests = wr_total;
    r.add_phase(wp);
    r.bytes = bytes_total;
    r.work_requests = wr_total;
    r.write_seconds = write_total;
    bool failed = false;
    for (const RequestReport& q : r.requests) {
      failed = failed || q.outcome == "failed";
    }
    r.verified = r.verified && !failed;
    r.exit_code = r.verified ? exit_code::ok : exit_code::findings;
  } catch (const ProbeError& e) {
    tell_abort(fd, e);
    fail_report(r, e);
  }
  r.teardown_issues = transport.shutdown();
  return r;
}

ProbeReport serve(const sglang::Side& decode, const HostPort& listen, const ProbeOptions& o,
                  const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport = make_transport(listen.host);
  const Listener l = Listener::bind(listen.host, listen.port, Phase::handshake);
  Fd oob = l.accept(Deadline::after(o.timeout), Phase::handshake);
  return run_decode_end(decode, o, std::move(oob), *transport);
}

ProbeReport send(const sglang::Side& prefill, const HostPort& connect, const ProbeOptions& o,
                 const TransportFactory& make_transport)
{
  std::unique_ptr<Transport> transport = make_transport("0.0.0.0");
  Fd oob = connect_to(connect.host, connect.port, Deadline::after(o.timeout), Phase::handshake);
  return run_prefill_end(prefill, o, std::move(oob), *transport, connect.host);
}

ProbeReport loopback(const sglang::Side& prefill, const sglang::Side& decode, const ProbeOptions& o,
                     const TransportFactory& make_transport)
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  std::unique_ptr<Transport> decode_transport = make_transport("127.0.0.1");
  std::unique_ptr<Transport> prefill_transport = make_transport("127.0.0.1");
  ProbeReport decode_report;
  std::thread decode_thread([&] {
    try {
      Fd oob = l.accept(Deadline::after(o.timeout), Phase::handshake);
      decode_report = run_decode_end(decode, o, std::move(oob), *decode_transport);
    } catch (const ProbeError& e) {
      decode_report.role = "decode";
      fail_report(decode_report, e);
    }
  });
  ProbeReport p;
  try {
    Fd oob = connect_to("127.0.0.1", l.port(), Deadline::after(o.timeout), Phase::handshake);
    ProbeOptions quiet = o; // one progress line: the decode end's
    quiet.progress = nullptr;
    p = run_prefill_end(prefill, quiet, std::move(oob), *prefill_transport, "127.0.0.1");
  } catch (const ProbeError& e) {
    p.role = "prefill";
    fail_report(p, e);
  }
  decode_thread.join();

  // One report: the decode's verdict and verification, the prefill's transfer figures.
  ProbeReport r = decode_report;
  r.role = "loopback";
  r.prefill_profile = p.prefill_profile;
  r.prefill_ranks = p.prefill_ranks;
  r.pool_bytes = p.pool_bytes + decode_report.pool_bytes;
  r.line_rate_gbps = p.line_rate_gbps;
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
    r.exit_code = exit_code::cannot_run;
  } else if (p.exit_code != exit_code::ok && r.exit_code == exit_code::ok) {
    r.exit_code = p.exit_code;
    r.verified = false;
  }
  return r;
}

} // namespace pdcheck::probe
