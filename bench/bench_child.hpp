#pragma once

// Runs another program as a benchmark's anchor (tcpdump, grep, `true`, the
// pdcheck binary itself) and reports its wall and CPU time, measured with
// wait4's resource usage so neighbours on a shared machine do not count.

#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace pdcheck::bench {

struct ChildTime
{
  double wall = 0; ///< seconds
  double cpu = 0;  ///< user + system seconds of the child
  int status = -1; ///< exit status, -1 when it did not exit normally
};

/// Runs argv[0] (looked up on PATH) with stdout sent to an unlinked temporary
/// file and stderr to /dev/null, or nullopt when it could not be started.
/// Not stdout to /dev/null: GNU grep notices that and stops at the first
/// matching line (as with -q, -c included), which made a grep anchor time a
/// few kilobytes and report them as the whole file.
inline std::optional<ChildTime> run_child(const std::vector<std::string>& argv)
{
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const int out = open("/tmp", O_TMPFILE | O_WRONLY, 0600);
  if (out >= 0) {
    posix_spawn_file_actions_adddup2(&actions, out, 1);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (out >= 0) {
    close(out);
  }
  if (rc != 0) {
    return std::nullopt;
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) {
    return std::nullopt;
  }
  ChildTime t;
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; };
  t.cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
  t.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (rc == 0 && t.status == 127) {
    return std::nullopt; // the shell convention for "command not found"
  }
  return t;
}

/// True when `name` is an executable on PATH.
inline bool on_path(const std::string& name)
{
  const char* path = std::getenv("PATH");
  std::string dirs = path == nullptr ? "/usr/bin:/bin" : path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = dirs.find(':', start);
    const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) {
      return true;
    }
    if (colon == std::string::npos) {
      break;
    }
    start = colon + 1;
  }
  return false;
}

} // namespace pdcheck::bench
