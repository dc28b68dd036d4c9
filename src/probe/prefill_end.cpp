// The prefill end of the probe: fills its pools from logical coordinates,
// asks the checker whether SGLang would transfer and for the Plan of each
// TransferInfo it receives, and executes that Plan through the transport.

#include "check/checker.hpp"
#include "core/rules.hpp"
#include "plan/meaning.hpp"
#include "probe/parallel.hpp"
#include "probe/pattern.hpp"
#include "probe/peer_fields.hpp"
#include "probe/probe_session.hpp"
#include "probe/session_steps.hpp"
#include "probe/side_wire.hpp"
#include "probe/state_pools.hpp"
#include "sglang/side_layout.hpp"
#include "wire/base64.hpp"
#include "wire/transfer_info.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

#include <memory>
#include <optional>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace pdcheck::probe {

using namespace steps;

namespace {

/// Writes the pattern of every slot of every entry on every rank, spread over
/// the host's cores for a large pool (each job is one slot: disjoint bytes).
void fill_pools(const StatePools& pools, const model::Layout& layout, const model::ModelSpec& model, int slots)
{
  const std::vector<plan::RankMeaning> meanings = plan::rank_meanings(model, layout);
  struct Job
  {
    std::size_t rank;
    int entry;
    int slot;
  };
  std::vector<Job> jobs;
  std::int64_t bytes = 0;
  for (std::size_t ri = 0; ri < layout.ranks.size(); ++ri) {
    for (int e = 0; e < meanings[ri].entry_count(); ++e) {
      const EntryBuffer& b = pools.buffer(static_cast<int>(ri), e);
      for (int s = 0; s < slots && b.item_len > 0; ++s) {
        jobs.push_back({ri, e, s});
        bytes += b.item_len;
      }
    }
  }
  run_parallel(jobs.size(), threads_for(bytes, jobs.size()), [&](std::size_t i) {
    const Job& j = jobs[i];
    const EntryBuffer& b = pools.buffer(static_cast<int>(j.rank), j.entry);
    fill_slot(meanings[j.rank], j.entry, j.slot, b.data + j.slot * b.item_len);
  });
}

/// The checker's input for one request: both sides, its slots and the live
/// TransferInfo's index count (as a captured one would be given), so the plans
/// carry the backend's reaction to it.
check::CheckInput request_input(const sglang::Side& prefill, const sglang::Side& decode, std::int64_t src_slot,
                                std::int64_t dst_slot, int count)
{
  check::CheckInput in;
  in.prefill = prefill;
  in.decode = decode;
  in.src_slot = src_slot;
  in.dst_slot = dst_slot;
  check::ObservedTransferInfo ti;
  ti.origin = "live TransferInfo";
  ti.state_index_counts = {count};
  in.transfer_infos.push_back(ti);
  return in;
}

/// Copy plans per (src slot, dst slot, index count), from the checker's
/// pair_plans: the verdict was settled once, each request needs only its plans.
class PlanCache
{
public:
  PlanCache(const sglang::Side& prefill, const sglang::Side& decode) : m_prefill(prefill), m_decode(decode) {}

  const std::vector<check::PairResult>& get(std::int64_t src_slot, std::int64_t dst_slot, int count)
  {
    const auto key = std::make_tuple(src_slot, dst_slot, count);
    auto it = m_cache.find(key);
    if (it != m_cache.end()) {
      return it->second;
    }
    return m_cache.emplace(key, check::pair_plans(request_input(m_prefill, m_decode, src_slot, dst_slot, count)))
      .first->second;
  }

private:
  const sglang::Side& m_prefill;
  const sglang::Side& m_decode;
  std::map<std::tuple<std::int64_t, std::int64_t, int>, std::vector<check::PairResult>> m_cache;
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

/// Where the plan may write on the decode end: one registered region.
struct RemoteRegion
{
  std::uint64_t addr = 0;
  std::uint32_t rkey = 0;
};

/// The state index list the prefill reads from one decode rank's TransferInfo.
std::vector<std::int32_t> read_indices(const PeerObject& rank_info, TransferBackend backend,
                                       const Profile& decode_profile)
{
  const nlohmann::json& per_rank = rank_info.json();
  if (!per_rank.contains("frames")) {
    return rank_info.integers<std::int32_t>("state_indices");
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
  ProbeReport r = start_report(sglang::Role::prefill, prefill, o, transport.name());
  r.line_rate_gbps = transport.line_rate_gbps();
  r.queue_pairs = static_cast<std::int64_t>(write_lanes(o.write, transport));
  const int fd = oob.get();
  // Outside the steps: run_end shuts the transport down (deregistering its
  // memory) before the pools and then the GPU are released.
  std::unique_ptr<GpuDevice> gpu;
  std::optional<StatePools> pools;
  run_end(r, fd, transport, [&] {
    const model::Layout layout = model::compute_layout(sglang::layout_input(prefill));
    allocate_pools(r, layout, o, gpu, pools);

    std::optional<PhaseTimer> t(std::in_place, r, Phase::fill);
    fill_pools(*pools, layout, prefill.model, o.slots);
    pools->publish_filled();
    t->phase().bytes = r.pool_bytes;
    t->done();

    register_pools(r, *pools, transport);

    t.emplace(r, Phase::handshake);
    const Deadline hd = Deadline::after(o.timeout);
    send_message(fd, hello(prefill, layout, transport, o), hd, Phase::handshake);
    const nlohmann::json peer = recv_message(fd, hd, Phase::handshake, "hello");
    const PeerObject hello_in(peer, "the peer's hello", Phase::handshake);
    if (message_type(peer) == "refuse") {
      throw ProbeError(Phase::handshake, "the decode end refused: " + hello_in.text_or("reason", "?"),
                       "that both ends run the same pdcheck and options");
    }
    if (message_type(peer) == "abort") {
      peer_stopped(peer, Phase::handshake);
    }
    if (auto why = hello_refusal(peer, "decode", std::string(transport.name()))) {
      throw ProbeError(Phase::handshake, "refused the peer: " + *why, "that both ends run the same pdcheck and options");
    }
    const sglang::Side decode = side_from_json(peer.at("side"), sglang::Role::decode);
    const model::Layout decode_layout = model::compute_layout(sglang::layout_input(decode));
    if (const std::string digest = hello_in.text_or("layout_digest", "?"); layout_digest(decode_layout) != digest) {
      throw ProbeError(Phase::handshake,
                       fmt::format("layout digest mismatch: the decode end lays its state out as {}, this end computes "
                                   "{} for the same side",
                                   digest, layout_digest(decode_layout)),
                       "that both hosts run the same pdcheck version");
    }
    if (hello_in.integer_or<int>("slots", 0) < 2) {
      throw ProbeError(Phase::handshake, "the decode end has fewer than 2 slots", "--slots on the decode end");
    }
    r.decode_profile = decode.profile.name;
    r.decode_ranks = static_cast<int>(decode_layout.ranks.size());
    // Remote regions by (rank, entry).
    std::map<std::pair<int, int>, RemoteRegion> remote;
    const nlohmann::json& regions = peer.at("regions");
    for (std::size_t i = 0; i < regions.size(); ++i) {
      const PeerObject region(regions[i], fmt::format("the peer's hello regions[{}]", i), Phase::handshake);
      remote[{region.integer<int>("rank"), region.integer<int>("entry")}] =
        RemoteRegion{region.integer<std::uint64_t>("addr"), region.integer<std::uint32_t>("rkey")};
    }
    t->done();

    // The checker decides whether SGLang would transfer at all (startup,
    // bootstrap and registration rules) and builds the Plan.
    t.emplace(r, Phase::plan);
    const check::CheckResult base = check::run_check(request_input(prefill, decode, 1, 1, 1));
    PlanCache plans(prefill, decode);
    r.refusals = refusals_of(base);
    r.checker_prediction = prediction_of(base);
    if (r.refusals.empty() && base.pairs.empty()) {
      r.refusals.push_back("no prefill rank sends state to any decode rank for this pair");
    }
    t->phase().ok = r.refusals.empty();
    t->phase().detail = counted(static_cast<long long>(base.pairs.size()), "rank pair");
    t->done();

    t.emplace(r, Phase::connect);
    expect(fd, "ready", Deadline::after(o.timeout), Phase::connect);
    if (!r.refusals.empty()) {
      send_message(fd, {{"type", "refuse"}, {"reasons", r.refusals}, {"prediction", r.checker_prediction}},
                   Deadline::after(o.timeout), Phase::connect);
      t->phase().ok = false;
      t->done();
      r.verdict = Verdict::findings;
      return;
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
      nlohmann::json m = recv_message(fd, Deadline::after(o.timeout), Phase::transfer_info, "transfer_info or bye");
      const std::string type = message_type(m);
      const PeerObject in(m, "the peer's " + type, Phase::transfer_info);
      if (type == "abort") {
        peer_stopped(m, Phase::transfer_info);
      }
      if (type == "bye") {
        r.verified = m.value("verified", false);
        r.tally.bytes = in.integer_in<std::int64_t>("bytes_checked", 0, 0, std::numeric_limits<std::int64_t>::max());
        r.tally.wrong = in.integer_in<std::int64_t>("wrong_bytes", 0, 0, std::numeric_limits<std::int64_t>::max());
        r.tally.unwritten = in.integer_in<std::int64_t>("unwritten_bytes", 0, 0, std::numeric_limits<std::int64_t>::max());
        r.tally.stray = in.integer_in<std::int64_t>("stray_bytes", 0, 0, std::numeric_limits<std::int64_t>::max());
        for (const std::string& s : in.texts("mismatches")) {
          r.notes.push_back("decode: " + s);
        }
        send_message(fd, {{"type", "bye"}}, Deadline::after(o.timeout), Phase::teardown);
        break;
      }
      if (type != "transfer_info") {
        throw ProbeError(Phase::transfer_info, "unexpected message '" + type + "'", "that both ends run the same pdcheck");
      }
      RequestReport req;
      // Non-negative: the request number picks the source slot (below).
      req.index = in.integer_in<int>("request", 0, 0, std::numeric_limits<int>::max());
      req.room = in.integer_or<std::int64_t>("room", 0);
      req.src_slot = 1 + (req.index % usable);
      // The decode sends one entry per rank of its layout; anything else (an
      // empty list above all) leaves no index list to act on.
      const nlohmann::json& per_rank = m.at("per_rank");
      if (!per_rank.is_array() || per_rank.size() != decode_layout.ranks.size()) {
        throw ProbeError(Phase::transfer_info,
                         fmt::format("the peer's transfer_info for request {} has per_rank = {}: expected one entry "
                                     "for each of the decode's {}",
                                     req.index, peer_value_text(per_rank),
                                     counted(static_cast<long long>(decode_layout.ranks.size()), "rank")),
                         "that both ends run the same pdcheck version");
      }
      // Every decode rank sends the same shape; the first one decides the count.
      std::map<std::pair<int, int>, std::vector<std::int32_t>> indices;
      for (std::size_t i = 0; i < per_rank.size(); ++i) {
        const PeerObject rank_info(per_rank[i], fmt::format("the peer's transfer_info per_rank[{}]", i),
                                   Phase::transfer_info);
        const std::pair<int, int> rank{rank_info.integer<int>("pp_rank"), rank_info.integer<int>("tp_rank")};
        indices[rank] = read_indices(rank_info, decode.args.transfer_backend, decode.profile);
      }
      const std::vector<std::int32_t>& first = indices.begin()->second;
      req.state_indices_sent = static_cast<int>(first.size());
      req.dst_slot = first.empty() ? 0 : first.front();
      const std::vector<check::PairResult>& planned = plans.get(req.src_slot, req.dst_slot, req.state_indices_sent);
      nlohmann::json done;
      done["type"] = "done";
      done["request"] = req.index;
      done["src_slot"] = req.src_slot;
      std::vector<WriteOp> ops;
      std::vector<BufferRange> sources;
      bool skipped = true;
      for (const check::PairResult& pair : planned) {
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
          op.remote_addr = it->second.addr + static_cast<std::uint64_t>(c.dst_offset);
          op.rkey = it->second.rkey;
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
        done["skipped"] = skipped && !planned.empty();
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
          req.transport_error = fmt::format("work request {} completed with '{}' ({} later ones flushed{})", *ws.failed_wr,
                                            *ws.first_error, ws.flushed,
                                            ws.other_errors > 0
                                              ? fmt::format("; {} more queue pair(s) failed", ws.other_errors)
                                              : "");
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
    r.verdict = r.verified ? Verdict::ok : Verdict::findings;
  });
  return r;
}

} // namespace pdcheck::probe
