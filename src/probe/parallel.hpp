#pragma once

// Fill and verification of a large state are memory-bound loops over
// independent slots: spread them over the host's cores when there is enough
// work to pay for starting threads.

#include <cstddef>
#include <cstdint>
#include <functional>

namespace pdcheck::probe {

/// Below this many bytes one thread does the work: starting a thread costs
/// tens of microseconds, a few MB take about a millisecond on one core.
inline constexpr std::int64_t k_parallel_min_bytes = 8 << 20;

/// Threads for `bytes` of fill or verification: 1 below k_parallel_min_bytes,
/// else one per core (at most 16), never more than `jobs`.
unsigned threads_for(std::int64_t bytes, std::size_t jobs);

/// Calls fn(i) once for every i in [0, count) on `threads` threads, the caller's
/// among them, taking indices in order from a shared counter. The first
/// exception thrown by fn is rethrown here after every thread has stopped.
void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn);

} // namespace pdcheck::probe
