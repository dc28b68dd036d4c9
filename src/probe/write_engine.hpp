#pragma once

// Executes a list of writes through a Transport the way SGLang's backends use
// RDMA: work requests posted in batches, a signalled completion at the end of
// each batch (RC completes in order, so it retires the whole batch), never
// more than a bounded number outstanding per queue pair, and batches dealt
// in turn over several queue pairs when asked, passing over a full one (one
// QP cannot always fill a link; Mooncake spreads a transfer over several too).

#include "probe/transport.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pdcheck::probe {

/// One copy to perform: local source, remote destination.
struct WriteOp
{
  const std::uint8_t* local = nullptr;
  std::uint32_t lkey = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint64_t length = 0;
};

struct WriteOptions
{
  std::size_t batch = 16;           ///< work requests per post (one signalled)
  std::size_t max_outstanding = 128;
  std::uint64_t max_message = 1ull << 30; ///< longer writes are split (RC limit is 2^31)
  std::size_t lanes = 1;            ///< queue pairs to deal batches over (at most the transport's)
};

struct WriteStats
{
  std::int64_t bytes = 0;          ///< bytes of successfully completed writes
  std::int64_t work_requests = 0;  ///< posted
  std::int64_t signalled = 0;
  std::int64_t lanes = 1;          ///< queue pairs the writes went over
  std::int64_t flushed = 0;        ///< completions flushed after their queue pair's error
  std::int64_t other_errors = 0;   ///< errors of other queue pairs after the first
  std::optional<std::string> first_error; ///< status of the first failed completion
  std::optional<std::uint64_t> failed_wr;
  bool timed_out = false;
};

/// The queue pairs execute_writes deals the batches over: the lanes asked
/// for, at most the transport's, at least one.
std::size_t write_lanes(const WriteOptions& options, const Transport& transport);

/// Posts every op (split at max_message), waits for all completions until
/// `deadline`. Never throws for a failed completion (it is in the stats);
/// post failures throw ProbeError(write). After the first error completion
/// nothing more is posted; what is outstanding on other lanes still lands.
WriteStats execute_writes(Transport& transport, std::span<const WriteOp> ops, const WriteOptions& options,
                          Deadline deadline);

} // namespace pdcheck::probe
