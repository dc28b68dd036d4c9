#pragma once

// Runs the pdcheck binary under test from the repository root, the way a user
// would, and keeps its exit code and output (stderr joined to stdout).

#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace pdcheck::test {

struct CliRun
{
  int code = -1; ///< exit status; -1 when it did not exit normally
  std::string out;
};

/// Runs a shell command with stderr joined to stdout and NO_COLOR set.
inline CliRun run_command(const std::string& command)
{
  CliRun r;
  FILE* pipe = ::popen(("NO_COLOR=1; export NO_COLOR; " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) {
    r.out = "popen failed";
    return r;
  }
  char buf[4096];
  while (const std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) {
    r.out.append(buf, n);
  }
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// `args` are shell words after `pdcheck`, run from the repository root.
inline CliRun run_pdcheck(const std::string& args)
{
  return run_command(fmt::format("cd {} && {} {}", PDCHECK_SOURCE_DIR, PDCHECK_BINARY, args));
}

} // namespace pdcheck::test
