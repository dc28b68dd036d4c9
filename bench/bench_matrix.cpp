// Benchmark for `pdcheck matrix` (goal: every release × release cell of one
// model and backend, each a full check with the simulation, in under 1 s).
// Anchor, measured in the same run: one `check` of a pair from the grid, timed
// alone; the ratio says what building the grid adds per cell. Prints figures;
// never fails on timing.
#include "bench_clock.hpp"
#include "check/matrix.hpp"
#include "core/profile.hpp"
#include "io/model_loader.hpp"

#include <fmt/format.h>

using namespace pdcheck;
using pdcheck::bench::cpu_seconds;

int main()
{
  const model::ModelSpec model = io::load_model("qwen3-next-80b-a3b");
  for (int tp : {1, 4}) {
    for (const char* backend : {"mooncake", "nixl"}) {
      check::MatrixRequest r;
      r.model = model;
      r.releases = release_profiles();
      r.tp_sizes = {tp};
      r.extra_words = {"--disaggregation-transfer-backend", backend};
      const double t0 = cpu_seconds();
      const check::Matrix m = check::build_matrix(r);
      const double grid = cpu_seconds() - t0;
      const std::size_t cells = m.cells.size();

      // Anchor: the newest release against itself, one check at a time.
      const Profile& newest = *r.releases.back();
      check::CheckInput in;
      in.prefill = check::launched_side(sglang::Role::prefill, model, newest,
                                        {"--disaggregation-mode", "prefill", "--tp-size", std::to_string(tp),
                                         "--disaggregation-transfer-backend", backend});
      in.decode = check::launched_side(sglang::Role::decode, model, newest,
                                       {"--disaggregation-mode", "decode", "--tp-size", std::to_string(tp),
                                        "--disaggregation-transfer-backend", backend});
      constexpr int k_runs = 200;
      const double a0 = cpu_seconds();
      for (int i = 0; i < k_runs; ++i) {
        (void)check::run_check(in);
      }
      const double one = (cpu_seconds() - a0) / k_runs;
      const double per_cell = grid / static_cast<double>(cells);
      fmt::print("matrix: qwen3-next-80b-a3b {} tp {}: {} × {} = {} cells in {:.0f} ms CPU (goal < 1000 ms), "
                 "{:.0f} µs per cell; anchor: one check of {} × {} {:.0f} µs; ratio {:.2f}\n",
                 backend, tp, m.labels.size(), m.labels.size(), cells, grid * 1000.0, per_cell * 1e6, newest.name,
                 newest.name, one * 1e6, per_cell / one);
    }
  }
  return 0;
}
