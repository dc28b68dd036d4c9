// Benchmark for `pdcheck check` (goal: a 64-rank prefill against a 64-rank decode
// of a 64-layer model, all pairs planned and simulated, in under 1 s). Prints
// figures; never fails on timing.
#include "bench_clock.hpp"
#include "check/checker.hpp"
#include "core/profile.hpp"

#include <fmt/format.h>

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
  // Synthetic GDN-style model: 64 layers, all with state, 128 value heads and 64 key heads.
  auto& m = s.model;
  m.name = "synthetic-64-layer";
  m.family = model::StateFamily::gdn;
  m.num_hidden_layers = 64;
  for (int i = 0; i < 64; ++i) {
    m.state_layer_ids.push_back(i);
  }
  m.num_heads = 128;
  m.head_dim = 128;
  m.intermediate_size = 128 * 128;
  m.n_groups = 64;
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
  return 0;
}
