#include "probe/write_engine.hpp"

#include <algorithm>
#include <array>

namespace pdcheck::probe {

WriteStats execute_writes(Transport& transport, std::span<const WriteOp> ops, const WriteOptions& options,
                          Deadline deadline)
{
  std::vector<WriteWork> works;
  for (const WriteOp& op : ops) {
    // Zero-length copies post nothing; SGLang skips them as well.
    for (std::uint64_t done = 0; done < op.length;) {
      const std::uint64_t n = std::min(op.length - done, options.max_message);
      WriteWork w;
      w.wr_id = works.size();
      w.local = op.local + done;
      w.lkey = op.lkey;
      w.remote_addr = op.remote_addr + done;
      w.rkey = op.rkey;
      w.length = n;
      works.push_back(w);
      done += n;
    }
  }
  WriteStats stats;
  const std::size_t cap = std::max<std::size_t>(1, std::min(options.max_outstanding, transport.max_outstanding()));
  const std::size_t batch = std::max<std::size_t>(1, std::min(options.batch, cap));
  std::size_t posted = 0;
  std::size_t retired = 0; // every wr_id below this has completed (RC order)
  std::vector<std::uint64_t> lengths(works.size());
  for (std::size_t i = 0; i < works.size(); ++i) {
    lengths[i] = works[i].length;
  }
  std::size_t retired_bytes_upto = 0;
  auto retire_to = [&](std::size_t upto, bool success) {
    if (success) {
      for (std::size_t i = retired_bytes_upto; i < upto; ++i) {
        stats.bytes += static_cast<std::int64_t>(lengths[i]);
      }
    }
    retired_bytes_upto = std::max(retired_bytes_upto, upto);
    retired = std::max(retired, upto);
  };
  std::array<Completion, 64> completions;
  auto drain_some = [&]() -> bool {
    const std::size_t n = transport.poll(completions, deadline);
    if (n == 0) {
      stats.timed_out = true;
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Completion& c = completions[i];
      if (c.ok) {
        retire_to(static_cast<std::size_t>(c.wr_id) + 1, !stats.first_error);
        continue;
      }
      if (!stats.first_error) {
        // Only the first error matters: every later work request of the
        // queue pair is flushed because the QP went to the error state.
        stats.first_error = c.status;
        stats.failed_wr = c.wr_id;
        // Unsignalled writes before it completed without a completion entry.
        retire_to(static_cast<std::size_t>(c.wr_id), true);
      } else {
        ++stats.flushed;
      }
      retire_to(static_cast<std::size_t>(c.wr_id) + 1, false);
    }
    return true;
  };

  while (posted < works.size() && !stats.first_error) {
    const std::size_t n = std::min(batch, works.size() - posted);
    while (posted + n - retired > cap && !stats.first_error) {
      if (!drain_some()) {
        return stats;
      }
    }
    if (stats.first_error) {
      break;
    }
    works[posted + n - 1].signalled = true;
    transport.post_writes(std::span<const WriteWork>(works.data() + posted, n));
    stats.work_requests += static_cast<std::int64_t>(n);
    stats.signalled += 1;
    posted += n;
  }
  while (retired < posted) {
    if (!drain_some()) {
      return stats;
    }
  }
  return stats;
}

} // namespace pdcheck::probe
