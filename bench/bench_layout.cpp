// Benchmarks for the layout engine (issue: foundation). Prints figures; never
// fails on timing.
//  1. CPU time of one `pdcheck layout` computation for catalog models (goal < 10 ms).
//  2. Layout cost against the number of ranks, 1k .. 100k, to show it is linear.
#include "bench_clock.hpp"
#include "model/catalog.hpp"
#include "model/layout.hpp"
#include "core/profile.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using namespace pdcheck;
using pdcheck::bench::cpu_seconds;

namespace {

model::LayoutInput catalog_input(const char* name, int tp)
{
  const auto* e = model::find_catalog_entry(name);
  model::LayoutInput in;
  in.model = model::read_model_config(nlohmann::json::parse(e->config_json), std::string(e->name), "catalog");
  in.profile = default_profile();
  in.tp_size = tp;
  return in;
}

} // namespace

int main()
{
  fmt::print("layout: CPU time per computation (config parse + layout, 200 repetitions)\n");
  for (const char* name : {"qwen3-next-80b-a3b", "nemotron-h-8b", "kimi-linear-48b-a3b", "lfm2-2.6b"}) {
    for (int tp : {1, 8}) {
      const int reps = 200;
      std::size_t sink = 0;
      const double t0 = cpu_seconds();
      for (int i = 0; i < reps; ++i) {
        sink += model::compute_layout(catalog_input(name, tp)).ranks.size();
      }
      const double per = (cpu_seconds() - t0) / reps;
      fmt::print("  {:<22} tp {:>2}: {:8.3f} ms  (goal < 10 ms){}\n", name, tp, per * 1e3, sink == 0 ? " !" : "");
    }
  }

  // A synthetic Mamba2 model whose head count every rank count below divides.
  model::LayoutInput in;
  in.model.name = "synthetic";
  in.model.family = model::StateFamily::mamba2;
  in.model.num_hidden_layers = 8;
  in.model.state_layer_ids = {0, 1, 2, 3, 4, 5, 6, 7};
  in.model.num_heads = 200000;
  in.model.head_dim = 1;
  in.model.intermediate_size = 200000;
  in.model.n_groups = 1;
  in.model.state_size = 100000;
  in.model.conv_kernel = 4;
  in.profile = default_profile();
  fmt::print("layout: cost against rank count (synthetic 8-layer model)\n");
  double first_per_rank = 0;
  for (int ranks : {1000, 10000, 100000}) {
    in.tp_size = ranks;
    const double t0 = cpu_seconds();
    const auto layout = model::compute_layout(in);
    const double t = cpu_seconds() - t0;
    const double per_rank = t / ranks;
    if (first_per_rank == 0) {
      first_per_rank = per_rank;
    }
    fmt::print("  {:>6} ranks: {:8.2f} ms total, {:6.2f} us per rank ({:.2f}x the 1k per-rank cost){}\n", ranks, t * 1e3,
               per_rank * 1e6, per_rank / first_per_rank, layout.ranks.size() == static_cast<std::size_t>(ranks) ? "" : " !");
  }
  return 0;
}
