#pragma once

// Where this process sits in a fleet started by someone else's launcher: its
// rank, the fleet's size, its rank on this host (which GPU it takes) and where
// rank 0's coordinator listens. Read from the variables each launcher sets;
// pure (the environment comes in as a lookup), so tests need no launcher.

#include <functional>
#include <optional>
#include <string>

namespace pdcheck::probe {

/// Returns the variable's value, or nullopt when it is not set.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

/// The largest fleet: a plan's "rest" lists every rank, and every rank holds a
/// connection on rank 0; far beyond any PD deployment, far below memory's limits.
inline constexpr int k_max_fleet_size = 100000;

struct FleetPlace
{
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  /// Which launcher the place came from, for the report: "--rank/--size",
  /// "Open MPI (OMPI_COMM_WORLD_RANK)", "Slurm (SLURM_PROCID)", ...
  std::string source;
};

/// The command line's --rank/--size win; then, in order, Open MPI
/// (OMPI_COMM_WORLD_RANK/_SIZE/_LOCAL_RANK), PMIx (PMIX_RANK, size from
/// OMPI_COMM_WORLD_SIZE or --size), MPICH's Hydra (PMI_RANK/PMI_SIZE,
/// MPI_LOCALRANKID), Slurm (SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID) and a
/// Kubernetes Indexed Job (JOB_COMPLETION_INDEX, size from --size or
/// PDCHECK_FLEET_SIZE). Throws InputError naming the variable for a value that
/// is not a number, a rank outside 0..size-1, a size over k_max_fleet_size, or
/// no launcher found.
FleetPlace fleet_place(const EnvLookup& env, std::optional<int> rank, std::optional<int> size);

/// Rank 0's coordinator: the command line's --coordinator, then the plan's,
/// then PDCHECK_FLEET_COORDINATOR, then MASTER_ADDR:MASTER_PORT (PyTorch's
/// convention, set by Kubeflow's operators and many Slurm scripts). Throws
/// InputError when none is given.
std::string fleet_coordinator(const EnvLookup& env, const std::string& from_command_line,
                              const std::string& from_plan);

} // namespace pdcheck::probe
