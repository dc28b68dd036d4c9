#pragma once

// Errors of the live probe. Every failure names the phase it happened in and
// what to check, the way perftest and Mooncake's endpoint setup report them,
// so an operator knows where to look without reading the source.

#include "util/error.hpp"

#include <string>
#include <string_view>

namespace pdcheck::probe {

/// The probe's phases, in the order they run (ARCHITECTURE.md, "The probe").
enum class Phase {
  open_device,
  allocate,
  fill,
  register_memory,
  handshake,
  connect,
  transfer_info,
  plan,
  write,
  completion,
  verify,
  teardown,
};

/// "open-device", "allocate", ... as reports and JSON show them.
std::string_view phase_name(Phase p);

/// The probe could not run (exit 3): the environment, the peer or the clock
/// stopped it. `hint` says what to check.
class ProbeError : public CannotRun
{
public:
  ProbeError(Phase phase, std::string what, std::string hint)
    : CannotRun(std::string(phase_name(phase)) + ": " + what + (hint.empty() ? "" : "; check: " + hint)),
      m_phase(phase),
      m_detail(std::move(what)),
      m_hint(std::move(hint))
  {
  }

  Phase phase() const { return m_phase; }
  const std::string& detail() const { return m_detail; }
  const std::string& hint() const { return m_hint; }

private:
  Phase m_phase;
  std::string m_detail;
  std::string m_hint;
};

/// A failed libibverbs call: which call, the errno it reported (normalised
/// across the call's own return convention) and what to check.
class VerbsError : public ProbeError
{
public:
  VerbsError(Phase phase, std::string call, int err, std::string hint);

  const std::string& call() const { return m_call; }
  int error_number() const { return m_errno; }

private:
  std::string m_call;
  int m_errno;
};

} // namespace pdcheck::probe
