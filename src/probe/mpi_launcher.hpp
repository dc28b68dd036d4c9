#pragma once

// `probe fleet --mpi`: the fleet's rank and size from MPI itself, rank 0's
// coordinator address broadcast to every rank, and every rank's own account
// of its end gathered at rank 0, all through pdcheck-mpi.so (loaded here with
// dlopen; see mpi_module_abi.h). Only the rendezvous and the gathering go
// through MPI: the rounds and each pair's results stay on the coordinator's
// TCP connections, where every message has a deadline and a rank that dies
// fails only its own pairs.

#include <memory>
#include <string>
#include <vector>

struct pdcheck_mpi_module;

namespace pdcheck::probe {

/// The module's file name, looked for as platform/loadable_module.hpp says.
inline constexpr const char* k_mpi_module_file = "pdcheck-mpi.so";

class MpiSession
{
public:
  /// Loads the module and initialises MPI, waiting up to `seconds`. Throws
  /// CannotRun with the reason (no module: this pdcheck was built without
  /// MPI; MPI_Init not done in time: a rank of the job never started).
  static std::unique_ptr<MpiSession> start(double seconds);
  /// The same from explicit module candidates (the first that exists).
  static std::unique_ptr<MpiSession> start_from(const std::vector<std::string>& candidates, double seconds);

  int rank() const { return m_rank; }
  int size() const { return m_size; }
  int local_rank() const { return m_local_rank; }
  const std::string& implementation() const { return m_implementation; }

  /// Rank 0's `text` to every rank (what every rank gets back); throws
  /// ProbeError (handshake) past `seconds`.
  std::string broadcast(const std::string& text, double seconds);

  /// Every rank's `mine` at rank 0: `size()` texts there ("" for a rank not
  /// heard from in `seconds`), nothing elsewhere. Throws ProbeError.
  std::vector<std::string> gather(const std::string& mine, double seconds);

  /// Leaves MPI (up to `seconds`); "" or why it could not.
  std::string finalize(double seconds);

  /// Initialises MPI through a loaded module's entry points (start's second half).
  static std::unique_ptr<MpiSession> started(const pdcheck_mpi_module* api, double seconds);

private:
  MpiSession() = default;
  const pdcheck_mpi_module* m_module = nullptr;
  int m_rank = 0;
  int m_size = 1;
  int m_local_rank = 0;
  std::string m_implementation;
};

} // namespace pdcheck::probe
