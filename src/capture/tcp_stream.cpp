#include "capture/tcp_stream.hpp"

#include <algorithm>

namespace pdcheck::capture {

void TcpStream::add(const TcpSegment& segment, std::uint64_t packet, const Sink& sink, Timestamp time)
{
  std::uint32_t seq = segment.seq;
  if ((segment.flags & tcp_flag::syn) != 0) {
    if (m_started) {
      return; // a retransmitted SYN; a second handshake on the same 4-tuple is not followed
    }
    m_started = true;
    m_syn_seen = true;
    seq += 1; // the SYN takes one sequence number; data (TCP Fast Open) follows it
    m_next_seq = seq;
  } else if (!m_started) {
    // The capture began after the handshake: the stream starts at the first byte seen.
    m_started = true;
    m_next_seq = seq;
  }
  if (m_gap) {
    return;
  }
  // Signed distance in sequence space: TCP windows are far below 2 GiB.
  auto rel = static_cast<std::int64_t>(static_cast<std::int32_t>(seq - m_next_seq));
  const std::uint64_t carried = segment.payload.size() + segment.missing_bytes;
  const std::int64_t end = rel + static_cast<std::int64_t>(carried);
  // Pure ACKs after a FIN sit one past the last byte: only segments that carry
  // data say how far the stream goes.
  if (carried > 0 && end > 0) {
    // Bytes the peer sent up to here, captured or not (a snap-length cut or a
    // lost tail shows as a gap at the end).
    m_known_end = std::max(m_known_end, m_delivered + static_cast<std::uint64_t>(end));
  }
  if (segment.payload.empty()) {
    return;
  }
  std::span<const std::uint8_t> bytes = segment.payload;
  if (rel < 0) {
    const auto seen = static_cast<std::uint64_t>(-rel);
    if (seen >= bytes.size()) {
      m_retransmitted += bytes.size();
      return;
    }
    m_retransmitted += seen;
    bytes = bytes.subspan(static_cast<std::size_t>(seen));
    rel = 0;
  }
  if (rel == 0) {
    deliver(bytes, packet, time, sink);
    drain(sink);
    return;
  }
  m_out_of_order += 1;
  const std::uint64_t at = m_delivered + static_cast<std::uint64_t>(rel);
  auto [it, inserted] = m_pending.try_emplace(at);
  if (inserted || it->second.bytes.size() < bytes.size()) {
    m_buffered += bytes.size() - (inserted ? 0 : it->second.bytes.size());
    it->second.bytes.assign(bytes.begin(), bytes.end());
    it->second.packet = packet;
    it->second.time = time;
  } else {
    m_retransmitted += bytes.size();
  }
  if (m_buffered > k_max_buffered) {
    declare_gap();
  }
}

void TcpStream::deliver(std::span<const std::uint8_t> bytes, std::uint64_t packet, Timestamp time, const Sink& sink)
{
  if (bytes.empty()) {
    return;
  }
  sink(StreamChunk{bytes, m_delivered, packet, time});
  m_delivered += bytes.size();
  m_next_seq += static_cast<std::uint32_t>(bytes.size());
}

void TcpStream::drain(const Sink& sink)
{
  while (!m_pending.empty() && m_pending.begin()->first <= m_delivered) {
    auto node = m_pending.extract(m_pending.begin());
    Pending& p = node.mapped();
    m_buffered -= p.bytes.size();
    const std::uint64_t overlap = m_delivered - node.key();
    if (overlap >= p.bytes.size()) {
      m_retransmitted += p.bytes.size();
      continue;
    }
    m_retransmitted += overlap;
    deliver(std::span<const std::uint8_t>(p.bytes).subspan(static_cast<std::size_t>(overlap)), p.packet, p.time, sink);
  }
}

void TcpStream::declare_gap()
{
  if (m_gap || m_pending.empty()) {
    return;
  }
  m_gap = StreamGap{m_delivered, m_pending.begin()->first - m_delivered};
  m_pending.clear();
  m_buffered = 0;
}

void TcpStream::finish()
{
  declare_gap();
  if (!m_gap && m_known_end > m_delivered) {
    m_gap = StreamGap{m_delivered, m_known_end - m_delivered};
  }
}

} // namespace pdcheck::capture
