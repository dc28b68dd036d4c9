#include "probe/launcher_env.hpp"

#include "util/error.hpp"
#include "util/whole_number.hpp"

#include <fmt/format.h>


namespace pdcheck::probe {

namespace {

int number(const std::string& text, const std::string& name)
{
  const std::optional<int> value = whole_number(text);
  if (!value) {
    throw InputError(name, fmt::format("expected a non-negative whole number, got \"{}\"", text));
  }
  return *value;
}

std::optional<int> read(const EnvLookup& env, const std::string& name)
{
  const std::optional<std::string> value = env(name);
  if (!value) {
    return std::nullopt;
  }
  return number(*value, name);
}

struct Launcher
{
  const char* name;
  const char* rank;
  const char* size;       ///< nullptr: the size comes from --size
  const char* local_rank; ///< nullptr: 0 unless another variable says
};

// Open MPI first: under mpirun PMIX_RANK and OMPI_* are both set and agree.
constexpr Launcher k_launchers[] = {
  {"Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
  {"PMIx", "PMIX_RANK", nullptr, nullptr},
  {"MPICH Hydra", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
  {"Slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
  {"Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", "PDCHECK_FLEET_SIZE", nullptr},
};

} // namespace

FleetPlace fleet_place(const EnvLookup& env, std::optional<int> rank, std::optional<int> size)
{
  FleetPlace place;
  std::string size_source = "--size";
  if (rank) {
    place.rank = *rank;
    place.source = "--rank";
    place.size = size.value_or(0);
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}) {
      if (const auto local = read(env, name)) {
        place.local_rank = *local;
        break;
      }
    }
  } else {
    const Launcher* found = nullptr;
    for (const Launcher& l : k_launchers) {
      if (env(l.rank)) {
        found = &l;
        break;
      }
    }
    if (found == nullptr) {
      throw InputError("--rank", "no launcher set this process's rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, "
                                 "SLURM_PROCID or JOB_COMPLETION_INDEX): give --rank and --size");
    }
    place.rank = *read(env, found->rank);
    place.source = fmt::format("{} ({})", found->name, found->rank);
    std::optional<int> launcher_size;
    if (found->size != nullptr) {
      launcher_size = read(env, found->size);
      size_source = found->size;
    } else if (const auto ompi = read(env, "OMPI_COMM_WORLD_SIZE")) {
      launcher_size = ompi;
      size_source = "OMPI_COMM_WORLD_SIZE";
    }
    if (size) { // --size wins over the environment
      launcher_size = size;
      size_source = "--size";
    }
    place.size = launcher_size.value_or(0);
    if (found->local_rank != nullptr) {
      place.local_rank = read(env, found->local_rank).value_or(0);
    }
  }
  if (place.size <= 0) {
    throw InputError("--size", fmt::format("the fleet's size is not known from {}: give --size", place.source));
  }
  if (place.size > k_max_fleet_size) {
    throw InputError(size_source, fmt::format("a fleet of {} ranks is more than pdcheck probes (at most {})", place.size,
                                              k_max_fleet_size));
  }
  if (place.rank >= place.size) {
    throw InputError(size_source, fmt::format("rank {} is outside a fleet of {} ranks", place.rank, place.size));
  }
  return place;
}

std::string fleet_coordinator(const EnvLookup& env, const std::string& from_command_line,
                              const std::string& from_plan)
{
  if (!from_command_line.empty()) {
    return from_command_line;
  }
  if (!from_plan.empty()) {
    return from_plan;
  }
  if (const auto v = env("PDCHECK_FLEET_COORDINATOR")) {
    return *v;
  }
  const auto addr = env("MASTER_ADDR");
  const auto port = env("MASTER_PORT");
  if (addr && port) {
    number(*port, "MASTER_PORT");
    return addr->find(':') != std::string::npos ? "[" + *addr + "]:" + *port : *addr + ":" + *port;
  }
  throw InputError("--coordinator", "where rank 0 listens is not known: give --coordinator HOST:PORT, a "
                                    "coordinator: in the plan, PDCHECK_FLEET_COORDINATOR or MASTER_ADDR and "
                                    "MASTER_PORT");
}

} // namespace pdcheck::probe
