#include "probe/write_engine.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace pdcheck::probe {

namespace {

/// Splits every op at the message limit; zero-length copies post nothing
/// (SGLang skips them as well).
std::vector<WriteWork> works_of(std::span<const WriteOp> ops, std::uint64_t max_message)
{
  std::vector<WriteWork> works;
  for (const WriteOp& op : ops) {
    for (std::uint64_t done = 0; done < op.length;) {
      const std::uint64_t n = std::min(op.length - done, max_message);
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
  return works;
}

/// One queue pair's posted work requests, in posting order; every one before
/// `retired` has completed (RC completes a queue pair's requests in order, so
/// a signalled completion also retires the unsignalled ones before it).
struct Lane
{
  std::vector<std::size_t> posted; ///< indices into the work list
  std::size_t retired = 0;
  bool errored = false; ///< in the error state: later requests complete flushed
  std::size_t outstanding() const { return posted.size() - retired; }
};

} // namespace

std::size_t write_lanes(const WriteOptions& options, const Transport& transport)
{
  return std::max<std::size_t>(1, std::min(options.lanes, transport.lanes()));
}

WriteStats execute_writes(Transport& transport, std::span<const WriteOp> ops, const WriteOptions& options,
                          Deadline deadline)
{
  std::vector<WriteWork> works = works_of(ops, std::max<std::uint64_t>(1, options.max_message));
  WriteStats stats;
  const std::size_t cap = std::max<std::size_t>(1, std::min(options.max_outstanding, transport.max_outstanding()));
  const std::size_t batch = std::max<std::size_t>(1, std::min(options.batch, cap));
  const std::size_t lane_count = write_lanes(options, transport);
  stats.lanes = static_cast<std::int64_t>(lane_count);
  std::vector<Lane> lanes(lane_count);
  std::vector<std::size_t> position(works.size()); // a work's index within its lane

  // Retires `lane` up to (not including) position `upto`, counting their
  // bytes when they succeeded.
  auto retire_to = [&](Lane& lane, std::size_t upto, bool success) {
    if (success) {
      for (std::size_t i = lane.retired; i < upto; ++i) {
        stats.bytes += static_cast<std::int64_t>(works[lane.posted[i]].length);
      }
    }
    lane.retired = std::max(lane.retired, upto);
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
      if (c.wr_id >= works.size()) {
        continue; // not ours; a transport never reports one
      }
      Lane& lane = lanes[works[c.wr_id].lane];
      const std::size_t at = position[c.wr_id];
      if (c.ok) {
        retire_to(lane, at + 1, true);
        continue;
      }
      if (!lane.errored) {
        // A queue pair's first error puts it in the error state: every later
        // request of that QP is flushed. The unsignalled writes before it
        // completed without a completion entry. Another QP may fail on its
        // own later (a link fault fails them all): its own error, not a flush.
        lane.errored = true;
        retire_to(lane, at, true);
        if (!stats.first_error) {
          stats.first_error = c.status;
          stats.failed_wr = c.wr_id;
        } else {
          ++stats.other_errors;
        }
      } else {
        ++stats.flushed;
      }
      retire_to(lane, at + 1, false);
    }
    return true;
  };

  // The lane to take the next `n` requests: the next in turn that has room
  // for them. A full lane is passed over rather than waited for, so one slow
  // queue pair does not hold up the others.
  std::size_t next_lane = 0;
  auto lane_with_room = [&](std::size_t n) -> std::optional<std::size_t> {
    for (std::size_t k = 0; k < lane_count; ++k) {
      const std::size_t at = (next_lane + k) % lane_count;
      if (lanes[at].outstanding() + n <= cap) {
        return at;
      }
    }
    return std::nullopt;
  };

  std::size_t posted = 0;
  while (posted < works.size() && !stats.first_error) {
    const std::size_t n = std::min(batch, works.size() - posted);
    std::optional<std::size_t> chosen;
    while (!stats.first_error && !(chosen = lane_with_room(n))) {
      if (!drain_some()) {
        return stats;
      }
    }
    if (stats.first_error) {
      break;
    }
    Lane& lane = lanes[*chosen];
    for (std::size_t i = posted; i < posted + n; ++i) {
      works[i].lane = static_cast<std::uint32_t>(*chosen);
      position[i] = lane.posted.size();
      lane.posted.push_back(i);
    }
    works[posted + n - 1].signalled = true;
    transport.post_writes(std::span<const WriteWork>(works.data() + posted, n));
    stats.work_requests += static_cast<std::int64_t>(n);
    stats.signalled += 1;
    posted += n;
    next_lane = (*chosen + 1) % lane_count;
  }
  for (Lane& lane : lanes) {
    while (lane.retired < lane.posted.size()) {
      if (!drain_some()) {
        return stats;
      }
    }
  }
  return stats;
}

} // namespace pdcheck::probe
