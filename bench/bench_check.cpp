// Benchmark for `pdcheck check` (goal: a 64-rank prefill against a 64-rank decode
// of a 64-layer model, all pairs planned and simulated, in under 1 s), then its
// cost per rank·layer as TP grows to 16k ranks a side, every prefill rank
// writing its own decode rank (goal <= 0.2 µs and <= 100 bytes per
// rank·layer: a 16k x 16k fleet at 64 layers in under 1 s), each size in
// its own child process so its peak memory is its own. Prints figures; never
// fails on timing.
#include "bench_clock.hpp"
#include "check/checker.hpp"
#include "core/profile.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace pdcheck;
using pdcheck::bench::cpu_seconds;

namespace {

sglang::Side side(sglang::Role role, int tp)
{
  sglang::Side s;
  s.role = role;
  s.origin = "bench";
  s.profile = default_profile();
  s.args.tp_size = tp;
  s.args.disaggregation_mode =
    role == sglang::Role::prefill ? sglang::DisaggregationMode::prefill : sglang::DisaggregationMode::decode;
  // Synthetic GDN-style model: 64 layers, all with state, 128 value heads and
  // 64 key heads, or as many as a wider TP needs (one value head per rank).
  auto& m = s.model;
  m.name = "synthetic-64-layer";
  m.family = model::StateFamily::gdn;
  m.num_hidden_layers = 64;
  for (int i = 0; i < 64; ++i) {
    m.state_layer_ids.push_back(i);
  }
  m.num_heads = std::max(128, tp);
  m.head_dim = 128;
  m.intermediate_size = m.num_heads * 128;
  m.n_groups = m.num_heads / 2;
  m.state_size = 128;
  m.conv_kernel = 4;
  return s;
}

} // namespace

int main()
{
  for (auto [p, d] : {std::pair{64, 64}, {64, 8}, {8, 64}, {64, 1}}) {
    check::CheckInput in;
    in.prefill = side(sglang::Role::prefill, p);
    in.decode = side(sglang::Role::decode, d);
    const double t0 = cpu_seconds();
    const auto r = check::run_check(in);
    const double t = cpu_seconds() - t0;
    fmt::print("check: prefill tp {:>2} -> decode tp {:>2}, 64 layers: {:7.1f} ms CPU, {} pairs planned, {} decode "
               "ranks simulated, {:.1f} MB of decode slots accounted, verdict {} (goal < 1000 ms)\n",
               p, d, t * 1e3, r.pairs.size(), r.simulated_decode_ranks, static_cast<double>(r.simulated_bytes) / 1e6,
               r.passes(Severity::error) ? "compatible" : "incompatible");
  }
  // Cost per rank·layer, one child process per fleet size.
  constexpr int k_layers = 64;
  for (int ranks : {1024, 4096, 16384}) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      check::CheckInput in;
      in.prefill = side(sglang::Role::prefill, ranks);
      in.decode = side(sglang::Role::decode, ranks);
      rusage before{};
      getrusage(RUSAGE_SELF, &before);
      const double t0 = cpu_seconds();
      const auto r = check::run_check(in);
      const double t = cpu_seconds() - t0;
      rusage after{};
      getrusage(RUSAGE_SELF, &after);
      const double rank_layers = 2.0 * ranks * k_layers;
      const double peak = static_cast<double>(after.ru_maxrss - before.ru_maxrss) * 1024.0;
      fmt::print("check: tp {:>5} -> tp {:>5}, 64 layers: {:8.1f} ms CPU, {:.3f} µs per rank·layer (goal <= 0.2), "
                 "peak +{:.0f} MB, {:.0f} bytes per rank·layer (goal <= 100), {} pairs, verdict {}\n",
                 ranks, ranks, t * 1e3, t * 1e6 / rank_layers, peak / 1e6, peak / rank_layers, r.pairs.size(),
                 r.passes(Severity::error) ? "compatible" : "incompatible");
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
  }
  return 0;
}
