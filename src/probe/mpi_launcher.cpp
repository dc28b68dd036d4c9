// Loads pdcheck-mpi.so and wraps its C entry points (mpi_module_abi.h).

#include "probe/mpi_launcher.hpp"

#include "probe/mpi_module_abi.h"
#include "platform/loadable_module.hpp"
#include "probe/probe_error.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <array>

namespace pdcheck::probe {

namespace {

/// Room for one rank's text: a "HOST:PORT", or an exit status and a summary line.
constexpr int k_text_capacity = 1024;

std::unique_ptr<MpiSession> start_with(const platform::LoadedModule& loaded, double seconds)
{
  if (loaded.entry_points == nullptr) {
    throw CannotRun(loaded.missing ? fmt::format("--mpi: this pdcheck has no MPI module ({}): build it where an MPI "
                                                 "library is installed (Debian: libopenmpi-dev), or run without --mpi",
                                                 loaded.error)
                                   : fmt::format("--mpi: cannot load the MPI module: {}", loaded.error));
  }
  return MpiSession::started(static_cast<const pdcheck_mpi_module*>(loaded.entry_points), seconds);
}

} // namespace

std::unique_ptr<MpiSession> MpiSession::start(double seconds)
{
  return start_with(platform::load_module(k_mpi_module_file, PDCHECK_MPI_ENTRY, PDCHECK_MPI_ABI_VERSION), seconds);
}

std::unique_ptr<MpiSession> MpiSession::start_from(const std::vector<std::string>& candidates, double seconds)
{
  return start_with(platform::load_module_from(candidates, PDCHECK_MPI_ENTRY, PDCHECK_MPI_ABI_VERSION), seconds);
}

std::unique_ptr<MpiSession> MpiSession::started(const pdcheck_mpi_module* api, double seconds)
{
  std::unique_ptr<MpiSession> session(new MpiSession());
  session->m_module = api;
  session->m_implementation = api->implementation != nullptr ? api->implementation : "MPI";
  std::array<char, 512> error{};
  if (api->init(seconds, &session->m_rank, &session->m_size, &session->m_local_rank, error.data(),
                static_cast<int>(error.size())) != 0) {
    throw CannotRun(fmt::format("--mpi: {}: run without --mpi (rank and size from the launcher's environment, "
                                "--coordinator) to probe the ranks that did start",
                                error.data()));
  }
  return session;
}

std::string MpiSession::broadcast(const std::string& text, double seconds)
{
  std::array<char, k_text_capacity> buffer{};
  text.copy(buffer.data(), buffer.size() - 1);
  std::array<char, 512> error{};
  if (m_module->broadcast(buffer.data(), static_cast<int>(buffer.size()), seconds, error.data(),
                          static_cast<int>(error.size())) != 0) {
    throw ProbeError(Phase::handshake, error.data(), "every rank of the job runs pdcheck probe fleet --mpi");
  }
  return buffer.data();
}

std::vector<std::string> MpiSession::gather(const std::string& mine, double seconds)
{
  std::vector<char> texts(m_rank == 0 ? static_cast<std::size_t>(m_size) * k_text_capacity : 0);
  std::array<char, 512> error{};
  if (m_module->gather(mine.c_str(), texts.data(), k_text_capacity, seconds, error.data(),
                       static_cast<int>(error.size())) != 0) {
    throw ProbeError(Phase::teardown, error.data(), "");
  }
  std::vector<std::string> out;
  for (int r = 0; m_rank == 0 && r < m_size; ++r) {
    out.emplace_back(texts.data() + static_cast<std::size_t>(r) * k_text_capacity);
  }
  return out;
}

std::string MpiSession::finalize(double seconds)
{
  std::array<char, 512> error{};
  return m_module->finalize(seconds, error.data(), static_cast<int>(error.size())) == 0 ? "" : error.data();
}

} // namespace pdcheck::probe
