#include "probe/probe_error.hpp"

#include <fmt/format.h>

#include <cstring>

namespace pdcheck::probe {

std::string_view phase_name(Phase p)
{
  switch (p) {
  case Phase::open_device: return "open-device";
  case Phase::allocate: return "allocate";
  case Phase::fill: return "fill";
  case Phase::register_memory: return "register-memory";
  case Phase::handshake: return "handshake";
  case Phase::connect: return "connect";
  case Phase::transfer_info: return "transfer-info";
  case Phase::plan: return "plan";
  case Phase::write: return "write";
  case Phase::completion: return "completion";
  case Phase::verify: return "verify";
  case Phase::teardown: return "teardown";
  }
  return "unknown";
}

VerbsError::VerbsError(Phase phase, std::string call, int err, std::string hint)
  : ProbeError(phase, fmt::format("{} failed: {} (errno {})", call, std::strerror(err), err), std::move(hint)),
    m_call(std::move(call)),
    m_errno(err)
{
}

} // namespace pdcheck::probe
