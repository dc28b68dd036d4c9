// The decode end of the probe: allocates its pools, answers the handshake,
// sends one TransferInfo per request the way SGLang's decode does and verifies
// every byte of every slot, then looks for stray writes anywhere else.

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

#include <fmt/format.h>

#include <memory>
#include <optional>

namespace pdcheck::probe {

using namespace steps;

namespace {

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

/// Verifies one request's slot on every rank and entry, whatever the prefill
/// said, then zeroes it again. The slots are brought to host memory and reset
/// one buffer at a time (GPU copies); the checks, independent per entry, run
/// on several cores for a large state, each into its own tally, merged in
/// entry order so the report reads as if one thread did it.
VerifyTally verify_request(StatePools& pools, const model::Layout& layout, const std::vector<plan::RankMeaning>& meanings,
                           std::int64_t dst_slot, std::int64_t src_slot)
{
  struct Job
  {
    std::size_t rank;
    int entry;
    std::size_t buffer;
    std::uint64_t offset;
    std::uint64_t length;
  };
  std::vector<Job> jobs;
  std::int64_t bytes = 0;
  for (std::size_t ri = 0; ri < layout.ranks.size(); ++ri) {
    for (int e = 0; e < meanings[ri].entry_count(); ++e) {
      const std::size_t bi = pools.buffer_index(static_cast<int>(ri), e);
      const EntryBuffer& b = pools.buffers()[bi];
      if (b.item_len == 0) {
        continue;
      }
      const Job job{ri, e, bi, static_cast<std::uint64_t>(dst_slot * b.item_len), static_cast<std::uint64_t>(b.item_len)};
      pools.bring_to_host(bi, job.offset, job.length);
      jobs.push_back(job);
      bytes += b.item_len;
    }
  }
  std::vector<VerifyTally> tallies(jobs.size());
  run_parallel(jobs.size(), threads_for(bytes, jobs.size()), [&](std::size_t i) {
    const Job& j = jobs[i];
    verify_slot(meanings[j.rank], static_cast<int>(j.rank), j.entry, src_slot, pools.buffers()[j.buffer].data + j.offset,
                tallies[i]);
  });
  VerifyTally tally;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    tally.merge(tallies[i]);
    pools.reset(jobs[i].buffer, jobs[i].offset, jobs[i].length); // back to k_poison
  }
  return tally;
}

} // namespace

ProbeReport run_decode_end(const sglang::Side& decode, const ProbeOptions& o, Fd oob, Transport& transport)
{
  ProbeReport r = start_report(sglang::Role::decode, decode, o, transport.name());
  r.queue_pairs = static_cast<std::int64_t>(transport.lanes());
  const int fd = oob.get();
  // Outside the steps: run_end shuts the transport down (deregistering its
  // memory) before the pools and then the GPU are released.
  std::unique_ptr<GpuDevice> gpu;
  std::optional<StatePools> pools;
  run_end(r, fd, transport, [&] {
    const Deadline handshake_deadline = Deadline::after(o.timeout);
    const model::Layout layout = model::compute_layout(sglang::layout_input(decode));
    allocate_pools(r, layout, o, gpu, pools);
    const std::vector<plan::RankMeaning> meanings = plan::rank_meanings(decode.model, layout);

    register_pools(r, *pools, transport);

    std::optional<PhaseTimer> t(std::in_place, r, Phase::handshake);
    const nlohmann::json peer = recv_message(fd, handshake_deadline, Phase::handshake, "hello");
    if (auto why = hello_refusal(peer, "prefill", std::string(transport.name()))) {
      send_message(fd, {{"type", "refuse"}, {"reason", *why}}, handshake_deadline, Phase::handshake);
      throw ProbeError(Phase::handshake, "refused the peer: " + *why, "that both ends run the same pdcheck and options");
    }
    r.prefill_profile = PeerObject(peer, "the peer's hello", Phase::handshake).text_or("profile", "");
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
    const nlohmann::json go = recv_message(fd, Deadline::after(o.timeout), Phase::connect, "go");
    const std::string go_type = message_type(go);
    const PeerObject go_in(go, "the peer's " + go_type, Phase::connect);
    if (go_type == "refuse") {
      // The prefill found a rule SGLang enforces before any transfer.
      r.refusals = go_in.texts("reasons");
      r.checker_prediction = go_in.text_or("prediction", "");
      t->phase().ok = false;
      t->phase().detail = "the prefill end refused: SGLang would not transfer state for this pair";
      t->done();
      r.verdict = Verdict::findings;
      return;
    }
    if (go_type != "go") {
      if (go_type == "abort") {
        peer_stopped(go, Phase::connect);
      }
      throw ProbeError(Phase::connect, "expected 'go' from the prefill end", "that both ends run the same pdcheck");
    }
    r.checker_prediction = go_in.text_or("prediction", "");
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
        const PeerObject done_in(done, "the peer's done", Phase::completion);
        // The source slot seeds the pattern the bytes are checked against: an
        // int32, as slot numbers are on both ends.
        req.src_slot = done_in.integer_or<std::int32_t>("src_slot", 0);
        req.bytes = done_in.integer_in<std::int64_t>("bytes", 0, 0, k_max_peer_count);
        req.work_requests = done_in.integer_in<std::int64_t>("work_requests", 0, 0, k_max_peer_count);
        req.write_seconds = done.value("write_seconds", 0.0);
        r.bytes += req.bytes;
        r.work_requests += req.work_requests;
        r.write_seconds += req.write_seconds;
        if (done.contains("sglang_error")) {
          req.outcome = "failed";
          req.sglang_error = done_in.text_or("sglang_error", "");
        } else if (done.contains("transport_error")) {
          req.outcome = "failed";
          req.transport_error = done_in.text_or("transport_error", "");
        }
        // Every byte of the request's slot on every rank, whatever the prefill
        // says: a skipped or failed transfer must show as missing state.
        const auto v0 = Clock::now();
        const VerifyTally tally = verify_request(*pools, layout, meanings, req.dst_slot, req.src_slot);
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
    r.verdict = r.verified ? Verdict::ok : Verdict::findings;
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
  });
  return r;
}

} // namespace pdcheck::probe
