#pragma once

#include <stdexcept>
#include <string>

namespace pdcheck {

/// Bad input from the user: an unreadable file, a syntax error, an unknown field,
/// a value out of range. `where` names the file (with line and column when known),
/// the field or the frame; `what` says what was expected. Rendered by the CLI as
/// `pdcheck: error: <where>: <what>` and mapped to exit code 2.
class InputError : public std::runtime_error
{
public:
  InputError(std::string where, std::string what)
    : std::runtime_error(where.empty() ? what : where + ": " + what),
      m_where(std::move(where)),
      m_what(std::move(what))
  {
  }

  const std::string& where() const { return m_where; }
  const std::string& detail() const { return m_what; }

private:
  std::string m_where;
  std::string m_what;
};

/// The requested check could not run for reasons outside the inputs (no RDMA
/// device, peer unreachable, timeout). Mapped to exit code 3.
class CannotRun : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// What a command concluded. Commands (and the probe's report) return one of
/// these; cli/run.cpp alone turns it into the process's exit status, with the
/// one table of documented numbers (man/pdcheck.1, EXIT STATUS).
enum class Verdict {
  ok,             ///< compatible, or the command did what was asked
  findings,       ///< an incompatibility, a refusal, corruption, a PD failure in a log
  usage,          ///< bad command line or invalid input (InputError)
  cannot_run,     ///< reasons outside the inputs (CannotRun, out of memory)
  interrupted,    ///< SIGINT
  terminated,     ///< SIGTERM (a CI job's timeout, `kill`, systemd stopping a unit)
  internal_error, ///< a bug (any other exception)
};

} // namespace pdcheck
