#include "probe/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pdcheck::probe {

unsigned threads_for(std::int64_t bytes, std::size_t jobs)
{
  if (bytes < k_parallel_min_bytes || jobs < 2) {
    return 1;
  }
  const unsigned cores = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  return static_cast<unsigned>(std::min<std::size_t>(cores, jobs));
}

void run_parallel(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& fn)
{
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr first_error;
  const auto work = [&] {
    for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1)) {
      try {
        fn(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) {
          first_error = std::current_exception();
        }
        next.store(count); // the others stop at their next index
      }
    }
  };
  std::vector<std::thread> helpers;
  const unsigned extra = threads > 1 ? std::min<std::size_t>(threads, count) - 1 : 0;
  helpers.reserve(extra);
  for (unsigned t = 0; t < extra; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break; // no thread to be had: the ones started (and this one) do it all
    }
  }
  work();
  for (std::thread& h : helpers) {
    h.join();
  }
  if (first_error) {
    std::rethrow_exception(first_error);
  }
}

} // namespace pdcheck::probe
