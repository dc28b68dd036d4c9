#pragma once

// The clock every benchmark reads: CPU time of this process, so figures mean
// the same on a contended machine.

#include <ctime>

namespace pdcheck::bench {

inline double cpu_seconds()
{
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

} // namespace pdcheck::bench
