// Figures for the live probe on this host, each next to its anchor measured in
// the same run and the ratio; no pass/fail:
//  1. TCP loopback transfer of one Qwen3-Next-80B-A3B TP1 request state through
//     the probe's TcpTransport (the checker's Plan, batched writes,
//     completions), against a plain single-socket loopback copy of the same
//     byte count, run for run (goal: >= 1.0 at the median, >= 0.9 at the
//     worst of 5);
//  2. verification and fill of that state on one core against memcpy of the
//     same bytes on one core (goal: >= 0.5), and on every core through the
//     probe's own job split.
#include "check/checker.hpp"
#include "io/side_file.hpp"
#include "plan/meaning.hpp"
#include "probe/oob.hpp"
#include "probe/parallel.hpp"
#include "probe/pattern.hpp"
#include "probe/state_pools.hpp"
#include "probe/tcp_transport.hpp"
#include "probe/write_engine.hpp"
#include "sglang/side_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace pdcheck;
using Clock = std::chrono::steady_clock;

namespace {

double secs(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double gbps(std::uint64_t bytes, double seconds)
{
  return static_cast<double>(bytes) / seconds / 1e9;
}

/// Wall seconds of the fastest of `rounds` calls.
template <typename F>
double best_of(int rounds, F&& f)
{
  double best = 1e9;
  for (int i = 0; i < rounds; ++i) {
    const auto t0 = Clock::now();
    f();
    best = std::min(best, secs(t0));
  }
  return best;
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
  // One untimed round first: the target's pool is fresh mmap'ed memory whose
  // first write faults every page in, where the plain copy's buffers were
  // already written by their constructor.
  (void)execute_writes(initiator, ops, probe::WriteOptions{}, probe::Deadline::after(60));
  std::vector<double> ratios;
  double best_probe = 1e9;
  for (int i = 0; i < k_rounds; ++i) {
    const auto t0 = Clock::now();
    const probe::WriteStats s = execute_writes(initiator, ops, probe::WriteOptions{}, probe::Deadline::after(60));
    const double probe_seconds = secs(t0);
    if (s.first_error) {
      fmt::print("transfer failed: {}\n", *s.first_error);
      return 1;
    }
    const double plain_seconds = plain_socket_copy(bytes);
    best_probe = std::min(best_probe, probe_seconds);
    ratios.push_back(plain_seconds / probe_seconds); // > 1: the probe was faster
    fmt::print("run {}: probe TCP transfer {:.2f} GB/s; anchor: plain single-socket copy {:.2f} GB/s; ratio {:.2f}\n",
               i + 1, gbps(bytes, probe_seconds), gbps(bytes, plain_seconds), ratios.back());
  }
  std::sort(ratios.begin(), ratios.end());
  fmt::print("request state: {} bytes in {} writes ({} entries); best probe transfer {:.2f} GB/s\n", bytes, ops.size(),
             pm.entry_count(), gbps(bytes, best_probe));
  fmt::print("probe TCP / plain socket copy: ratio {:.2f} at the median (goal >= 1.0), {:.2f} at the worst of {} (goal >= 0.9)\n",
             ratios[ratios.size() / 2], ratios.front(), k_rounds);

  // Anchor for fill and verification: memcpy of the same bytes, one core.
  std::vector<std::uint8_t> copy_src(bytes, 0x5A);
  std::vector<std::uint8_t> copy_dst(bytes, 0);
  const double memcpy_seconds = best_of(k_rounds, [&] { std::memcpy(copy_dst.data(), copy_src.data(), bytes); });

  const auto verify_all = [&](unsigned threads) {
    std::vector<probe::VerifyTally> tallies(static_cast<std::size_t>(dm.entry_count()));
    probe::run_parallel(tallies.size(), threads, [&](std::size_t e) {
      const auto& b = dst_pools.buffer(0, static_cast<int>(e));
      probe::verify_slot(dm, 0, static_cast<int>(e), 1, b.data + b.item_len, tallies[e]);
    });
    bool clean = true;
    for (const auto& t : tallies) {
      clean = clean && t.clean();
    }
    return clean;
  };
  const auto fill_all = [&](unsigned threads) {
    probe::run_parallel(static_cast<std::size_t>(pm.entry_count()), threads, [&](std::size_t e) {
      const auto& b = src_pools.buffer(0, static_cast<int>(e));
      probe::fill_slot(pm, static_cast<int>(e), 1, b.data + b.item_len);
    });
  };
  bool clean = true;
  const double verify_1 = best_of(k_rounds, [&] { clean = verify_all(1) && clean; });
  const double fill_1 = best_of(k_rounds, [&] { fill_all(1); });
  const unsigned cores = probe::threads_for(static_cast<std::int64_t>(bytes), static_cast<std::size_t>(dm.entry_count()));
  const double verify_n = best_of(k_rounds, [&] { clean = verify_all(cores) && clean; });
  const double fill_n = best_of(k_rounds, [&] { fill_all(cores); });
  const double anchor = gbps(bytes, memcpy_seconds);
  fmt::print("verification, 1 core: {:.2f} GB/s ({}); anchor: memcpy 1 core {:.2f} GB/s; ratio {:.2f} (goal >= 0.5)\n",
             gbps(bytes, verify_1), clean ? "clean" : "MISMATCH", anchor, memcpy_seconds / verify_1);
  fmt::print("fill, 1 core:         {:.2f} GB/s; anchor: memcpy 1 core {:.2f} GB/s; ratio {:.2f} (goal >= 0.5)\n",
             gbps(bytes, fill_1), anchor, memcpy_seconds / fill_1);
  fmt::print("verification, {} threads: {:.2f} GB/s, {:.2f}x one core; fill {:.2f} GB/s, {:.2f}x one core\n", cores,
             gbps(bytes, verify_n), verify_1 / verify_n, gbps(bytes, fill_n), fill_1 / fill_n);
  initiator.shutdown();
  target.shutdown();
  return 0;
}
