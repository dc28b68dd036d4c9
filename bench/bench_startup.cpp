// Start-up cost of the pdcheck binary: `pdcheck --version` and `pdcheck layout
// --help` (argument parsing and every library loaded, no work) against `true`
// in the same run, alternating so both see the same machine (goal: <= 3x).
// Wall and CPU per run, the median of 200; never fails on timing.
#include "bench_child.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

using pdcheck::bench::ChildTime;
using pdcheck::bench::run_child;

namespace {

struct Figures
{
  std::vector<double> wall;
  std::vector<double> cpu;
};

double median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace

int main()
{
  const std::string pdcheck = PDCHECK_BENCH_BINARY;
  const std::vector<std::vector<std::string>> commands = {
    {"true"}, {pdcheck, "--version"}, {pdcheck, "layout", "--help"}};
  std::vector<Figures> figures(commands.size());
  constexpr int k_runs = 200;
  for (int i = 0; i < k_runs; ++i) {
    for (std::size_t c = 0; c < commands.size(); ++c) {
      const auto t = run_child(commands[c]);
      if (!t || t->status != 0) {
        fmt::print("startup: could not run {}\n", commands[c][0]);
        return 1;
      }
      figures[c].wall.push_back(t->wall);
      figures[c].cpu.push_back(t->cpu);
    }
  }
  const double anchor_wall = median(figures[0].wall);
  const double anchor_cpu = median(figures[0].cpu);
  for (std::size_t c = 1; c < commands.size(); ++c) {
    const double wall = median(figures[c].wall);
    const double cpu = median(figures[c].cpu);
    fmt::print("startup: pdcheck {:<14} {:.2f} ms wall, {:.2f} ms CPU; anchor: true {:.2f} ms wall, {:.2f} ms CPU; "
               "ratio {:.1f} wall (goal <= 3)\n",
               commands[c][1] + (commands[c].size() > 2 ? " " + commands[c][2] : ""), wall * 1e3, cpu * 1e3,
               anchor_wall * 1e3, anchor_cpu * 1e3, wall / anchor_wall);
  }
  return 0;
}
