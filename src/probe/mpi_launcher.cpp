// Loads pdcheck-mpi.so and wraps its C entry points (mpi_module_abi.h).

#include "probe/mpi_launcher.hpp"

#include "probe/mpi_module_abi.h"
#include "probe/probe_error.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <array>

namespace pdcheck::probe {

namespace {

/// Room for one rank's text: a "HOST:PORT", or an exit status and a summary line.
constexpr int k_text_capacity = 1024;

constexpr const char* k_module_name = "pdcheck-mpi.so";

} // namespace

std::vector<std::string> mpi_module_candidates(const std::string& from_environment, const std::string& executable_dir)
{
  if (!from_environment.empty()) {
    return {from_environment}; // given: no other is tried, so a typo is not hidden
  }
  return {executable_dir + "/" + k_module_name, executable_dir + "/../lib/pdcheck/" + k_module_name};
}

std::unique_ptr<MpiSession> MpiSession::start(const std::vector<std::string>& candidates, double seconds)
{
  void* library = nullptr;
  std::string tried;
  std::string load_error;
  for (const std::string& path : candidates) {
    tried += (tried.empty() ? "" : ", ") + path;
    if (::access(path.c_str(), F_OK) != 0) {
      continue;
    }
    library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      break;
    }
    const char* why = ::dlerror();
    load_error = why != nullptr ? why : path; // libmpi missing on this host, say
  }
  if (library == nullptr) {
    throw CannotRun(load_error.empty()
                      ? fmt::format("--mpi: this pdcheck has no MPI module (looked for {}): build it where an MPI "
                                    "library is installed (Debian: libopenmpi-dev), or run without --mpi",
                                    tried)
                      : fmt::format("--mpi: cannot load the MPI module: {}", load_error));
  }
  // The module stays loaded for the life of the process: MPI cannot be unloaded.
  using Entry = const ::pdcheck_mpi_module* (*)();
  const auto entry = reinterpret_cast<Entry>(::dlsym(library, PDCHECK_MPI_ENTRY));
  const ::pdcheck_mpi_module* api = entry != nullptr ? entry() : nullptr;
  if (api == nullptr || api->abi_version != PDCHECK_MPI_ABI_VERSION) {
    throw CannotRun(fmt::format("--mpi: the MPI module is not this pdcheck's (interface {}, expected {}): install "
                                "pdcheck-mpi.so from the same build",
                                api == nullptr ? 0 : api->abi_version, PDCHECK_MPI_ABI_VERSION));
  }
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
