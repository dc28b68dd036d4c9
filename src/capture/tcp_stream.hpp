#pragma once

// One direction of a TCP connection put back in order: segments arrive as
// captured (retransmitted, out of order, some never), bytes leave strictly in
// sequence order. Bytes after a hole are never glued onto the bytes before it:
// the stream stops at the first gap and says where it is.

#include "capture/packet.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <vector>

namespace pdcheck::capture {

/// A run of in-order stream bytes: where it starts in the stream and which
/// packet (1-based, in capture order) carried it, and when. The time travels
/// with the bytes so that no table of every packet's time is kept: a capture of
/// any length is read in bounded memory.
struct StreamChunk
{
  std::span<const std::uint8_t> bytes;
  std::uint64_t offset = 0;
  std::uint64_t packet = 0;
  Timestamp time;
};

/// A hole: the stream is complete up to `offset`, then `missing` bytes were never
/// captured (or were cut by the snap length) before the next bytes that were.
struct StreamGap
{
  std::uint64_t offset = 0;
  std::uint64_t missing = 0;
};

class TcpStream
{
public:
  using Sink = std::function<void(const StreamChunk&)>;

  /// Adds one captured segment; every byte that becomes contiguous goes to `sink`
  /// in order, at most once. Nothing goes out after a gap has been declared.
  void add(const TcpSegment& segment, std::uint64_t packet, const Sink& sink, Timestamp time = {});

  /// The capture has ended: buffered bytes beyond a hole become the gap.
  void finish();

  bool syn_seen() const { return m_syn_seen; }
  std::uint64_t delivered() const { return m_delivered; }
  std::uint64_t retransmitted_bytes() const { return m_retransmitted; }
  std::uint64_t out_of_order_segments() const { return m_out_of_order; }
  const std::optional<StreamGap>& gap() const { return m_gap; }

  /// Out-of-order bytes held at most; beyond it the hole is declared at once.
  static constexpr std::uint64_t k_max_buffered = 64ull << 20;

private:
  struct Pending
  {
    std::vector<std::uint8_t> bytes;
    std::uint64_t packet = 0;
    Timestamp time;
  };

  void deliver(std::span<const std::uint8_t> bytes, std::uint64_t packet, Timestamp time, const Sink& sink);
  void drain(const Sink& sink);
  void declare_gap();

  bool m_started = false;
  bool m_syn_seen = false;
  std::uint32_t m_next_seq = 0;   ///< sequence number of the next in-order byte
  std::uint64_t m_delivered = 0;  ///< stream bytes delivered so far
  std::uint64_t m_retransmitted = 0;
  std::uint64_t m_out_of_order = 0;
  std::uint64_t m_buffered = 0;
  std::uint64_t m_known_end = 0; ///< stream offset the peer is known to have sent up to
  std::map<std::uint64_t, Pending> m_pending; ///< by stream offset
  std::optional<StreamGap> m_gap;
};

} // namespace pdcheck::capture
