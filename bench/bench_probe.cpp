// Figures for the live probe on this host, no pass/fail:
//  1. TCP loopback transfer of one Qwen3-Next-80B-A3B TP1 request state through
//     the probe's TcpTransport (the checker's Plan, batched writes, completions),
//  2. a plain single-socket loopback copy of the same byte count measured in the
//     same run (the ceiling for 1; the goal is >= 80% of it),
//  3. verification speed on one core (goal >= 2 GB/s).

#include "check/checker.hpp"
#include "io/side_file.hpp"
#include "plan/meaning.hpp"
#include "probe/oob.hpp"
#include "probe/pattern.hpp"
#include "probe/state_pools.hpp"
#include "probe/tcp_transport.hpp"
#include "probe/write_engine.hpp"
#include "sglang/side_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

using namespace pdcheck;
using Clock = std::chrono::steady_clock;

namespace {

double secs(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// One contiguous buffer through one TCP connection on 127.0.0.1.
double plain_socket_copy(std::uint64_t bytes)
{
  std::vector<std::uint8_t> src(bytes, 1);
  std::vector<std::uint8_t> dst(bytes, 0);
  const probe::Listener l = probe::Listener::bind("127.0.0.1", 0, probe::Phase::connect);
  double seconds = 0;
  std::thread rx([&] {
    probe::Fd fd = l.accept(probe::Deadline::after(10), probe::Phase::connect);
    const auto t0 = Clock::now();
    probe::recv_exact(fd.get(), dst.data(), dst.size(), probe::Deadline::after(60), probe::Phase::write);
    seconds = secs(t0);
  });
  probe::Fd fd = probe::connect_to("127.0.0.1", l.port(), probe::Deadline::after(10), probe::Phase::connect);
  probe::send_all(fd.get(), src.data(), src.size(), probe::Deadline::after(60), probe::Phase::write);
  rx.join();
  return seconds;
}

} // namespace

int main()
{
  const auto p = io::side_from_args(sglang::Role::prefill, "--tp 1 --disaggregation-mode prefill", "qwen3-next-80b-a3b",
                                    "", {}, "bench prefill");
  const auto d = io::side_from_args(sglang::Role::decode, "--tp 1 --disaggregation-mode decode", "qwen3-next-80b-a3b", "",
                                    {}, "bench decode");
  const model::Layout pl = model::compute_layout(sglang::layout_input(p));
  const model::Layout dl = model::compute_layout(sglang::layout_input(d));
  probe::StatePools src_pools(pl, 2);
  probe::StatePools dst_pools(dl, 2);
  const plan::RankMeaning pm(p.model, pl.ranks[0], pl.attn_tp_size);
  const plan::RankMeaning dm(d.model, dl.ranks[0], dl.attn_tp_size);
  for (int e = 0; e < pm.entry_count(); ++e) {
    const auto& b = src_pools.buffer(0, e);
    probe::fill_slot(pm, e, 1, b.data + b.item_len);
  }

  check::CheckInput in;
  in.prefill = p;
  in.decode = d;
  in.src_slot = 1;
  in.dst_slot = 1;
  const check::CheckResult planned = check::run_check(in);

  probe::TcpTransport target("127.0.0.1", 60);
  probe::TcpTransport initiator("127.0.0.1", 60);
  src_pools.register_all(initiator);
  dst_pools.register_all(target);
  target.connect(initiator.local_endpoint(), false, probe::Deadline::after(10));
  nlohmann::json peer = target.local_endpoint();
  peer["host"] = "127.0.0.1";
  initiator.connect(peer, true, probe::Deadline::after(10));

  std::vector<probe::WriteOp> ops;
  std::uint64_t bytes = 0;
  for (const auto& pair : planned.pairs) {
    for (const plan::Copy& c : pair.plan.copies) {
      const auto& s = src_pools.buffer(0, c.src_entry);
      const auto& t = dst_pools.buffer(0, c.dst_entry);
      ops.push_back({s.data + c.src_offset, s.key.lkey, t.key.addr + static_cast<std::uint64_t>(c.dst_offset), t.key.rkey,
                     static_cast<std::uint64_t>(c.length)});
      bytes += static_cast<std::uint64_t>(c.length);
    }
  }

  constexpr int k_rounds = 5;
  double best_probe = 1e9;
  double best_plain = 1e9;
  for (int i = 0; i < k_rounds; ++i) {
    const auto t0 = Clock::now();
    const probe::WriteStats s = execute_writes(initiator, ops, probe::WriteOptions{}, probe::Deadline::after(60));
    best_probe = std::min(best_probe, secs(t0));
    if (s.first_error) {
      fmt::print("transfer failed: {}\n", *s.first_error);
      return 1;
    }
    best_plain = std::min(best_plain, plain_socket_copy(bytes));
  }
  fmt::print("request state: {} bytes in {} writes ({} entries)\n", bytes, ops.size(), pm.entry_count());
  fmt::print("probe TCP loopback transfer:  {:.2f} GB/s (best of {})\n", static_cast<double>(bytes) / best_probe / 1e9,
             k_rounds);
  fmt::print("plain single-socket copy:     {:.2f} GB/s (best of {})\n", static_cast<double>(bytes) / best_plain / 1e9,
             k_rounds);
  fmt::print("probe / plain:                {:.0f}%\n", 100.0 * best_plain / best_probe);

  double best_verify = 1e9;
  std::int64_t checked = 0;
  bool clean = true;
  for (int i = 0; i < k_rounds; ++i) {
    probe::VerifyTally tally;
    const auto t0 = Clock::now();
    for (int e = 0; e < dm.entry_count(); ++e) {
      const auto& b = dst_pools.buffer(0, e);
      probe::verify_slot(dm, 0, e, 1, b.data + b.item_len, tally);
    }
    best_verify = std::min(best_verify, secs(t0));
    checked = tally.bytes;
    clean = tally.clean();
  }
  fmt::print("verification (1 core):        {:.2f} GB/s over {} bytes ({})\n",
             static_cast<double>(checked) / best_verify / 1e9, checked, clean ? "clean" : "MISMATCH");
  double best_fill = 1e9;
  for (int i = 0; i < k_rounds; ++i) {
    const auto t0 = Clock::now();
    for (int e = 0; e < pm.entry_count(); ++e) {
      const auto& b = src_pools.buffer(0, e);
      probe::fill_slot(pm, e, 1, b.data + b.item_len);
    }
    best_fill = std::min(best_fill, secs(t0));
  }
  fmt::print("fill (1 core):                {:.2f} GB/s\n", static_cast<double>(bytes) / best_fill / 1e9);
  initiator.shutdown();
  target.shutdown();
  return 0;
}
