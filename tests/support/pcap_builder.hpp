#pragma once

// Builds packet captures in the tests, byte by byte, so every segmentation,
// reordering, retransmission and malformation is known exactly: ZMTP 3.1 byte
// streams (greeting, READY, frames), TCP segments over IPv4 or IPv6 under the
// link layers tcpdump writes, in classic pcap or pcapng.

#include <arpa/inet.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace pdcheck::test {

using ByteString = std::vector<std::uint8_t>;

/// The bytes one ZMTP 3.1 peer sends: greeting (NULL mechanism), READY with the
/// socket type, then each message's frames (MORE on all but the last; long
/// frames above 255 bytes).
inline ByteString zmtp_stream(const std::vector<std::vector<ByteString>>& messages,
                              const std::string& socket_type = "PUSH", bool as_server = false);

/// ZMTP bytes of one message's frames only.
inline ByteString zmtp_frames(const std::vector<ByteString>& frames);

enum class Link { ethernet = 1, linux_sll = 113, linux_sll2 = 276, null_loopback = 0 };

struct TcpEnd
{
  std::string ip; ///< "10.0.0.1" or "fd00::1"
  std::uint16_t port = 0;
};

class PcapBuilder
{
public:
  explicit PcapBuilder(Link link = Link::ethernet, bool pcapng = false) : m_link(link), m_pcapng(pcapng) {}

  /// One TCP segment from `src` to `dst`. `keep` < payload size cuts the captured
  /// bytes as a snap length would (the wire length stays the full packet).
  void segment(const TcpEnd& src, const TcpEnd& dst, std::uint32_t seq, std::uint8_t flags, const ByteString& payload,
               std::size_t keep = SIZE_MAX);

  /// A raw packet, link header included.
  void raw(const ByteString& packet, std::size_t wire_length = 0);

  /// The link-layer header this builder puts in front of an IP packet.
  ByteString link_header(bool ipv6) const;

  /// The whole file.
  ByteString bytes() const;
  /// Writes bytes() to `path` and returns it.
  std::string write(const std::string& path) const;

  std::size_t packets() const { return m_packets.size(); }

private:
  struct Packet
  {
    ByteString data;
    std::size_t wire_length = 0;
    std::uint32_t seconds = 0;
    std::uint32_t micros = 0;
  };
  Link m_link;
  bool m_pcapng;
  std::vector<Packet> m_packets;
};

/// Sends `stream` from `src` to `dst` as a handshake (SYN), segments of `mss`
/// bytes in order, and a FIN. Returns the initial sequence number used.
inline std::uint32_t send_stream(PcapBuilder& pcap, const TcpEnd& src, const TcpEnd& dst, const ByteString& stream,
                                 std::size_t mss, std::uint32_t isn = 1000);


// --- implementation (header-only: the test support has no library of its own) ---

namespace detail {

inline void put16(ByteString& b, std::uint16_t v)
{
  b.push_back(static_cast<std::uint8_t>(v >> 8));
  b.push_back(static_cast<std::uint8_t>(v));
}

inline void put32(ByteString& b, std::uint32_t v)
{
  put16(b, static_cast<std::uint16_t>(v >> 16));
  put16(b, static_cast<std::uint16_t>(v));
}

inline void le16(ByteString& b, std::uint16_t v)
{
  b.push_back(static_cast<std::uint8_t>(v));
  b.push_back(static_cast<std::uint8_t>(v >> 8));
}

inline void le32(ByteString& b, std::uint32_t v)
{
  le16(b, static_cast<std::uint16_t>(v));
  le16(b, static_cast<std::uint16_t>(v >> 16));
}

inline ByteString address(const std::string& ip, bool& v6)
{
  ByteString out(16, 0);
  v6 = ip.find(':') != std::string::npos;
  if (inet_pton(v6 ? AF_INET6 : AF_INET, ip.c_str(), out.data()) != 1) {
    throw std::invalid_argument("bad test address " + ip);
  }
  out.resize(v6 ? 16 : 4);
  return out;
}

} // namespace detail

inline ByteString zmtp_frames(const std::vector<ByteString>& frames)
{
  ByteString out;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const ByteString& f = frames[i];
    const std::uint8_t more = i + 1 < frames.size() ? 0x01 : 0x00;
    if (f.size() > 255) {
      out.push_back(static_cast<std::uint8_t>(more | 0x02));
      detail::put32(out, static_cast<std::uint32_t>(static_cast<std::uint64_t>(f.size()) >> 32));
      detail::put32(out, static_cast<std::uint32_t>(f.size()));
    } else {
      out.push_back(more);
      out.push_back(static_cast<std::uint8_t>(f.size()));
    }
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

inline ByteString zmtp_stream(const std::vector<std::vector<ByteString>>& messages, const std::string& socket_type,
                              bool as_server)
{
  ByteString out = {0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3, 1};
  const std::string mech = "NULL";
  out.insert(out.end(), mech.begin(), mech.end());
  out.resize(32, 0);
  out.push_back(as_server ? 1 : 0);
  out.resize(64, 0);
  ByteString ready = {5, 'R', 'E', 'A', 'D', 'Y', 11};
  const std::string key = "Socket-Type";
  ready.insert(ready.end(), key.begin(), key.end());
  detail::put32(ready, static_cast<std::uint32_t>(socket_type.size()));
  ready.insert(ready.end(), socket_type.begin(), socket_type.end());
  out.push_back(0x04);
  out.push_back(static_cast<std::uint8_t>(ready.size()));
  out.insert(out.end(), ready.begin(), ready.end());
  for (const auto& m : messages) {
    const ByteString f = zmtp_frames(m);
    out.insert(out.end(), f.begin(), f.end());
  }
  return out;
}

inline ByteString PcapBuilder::link_header(bool ipv6) const
{
  const std::uint8_t type_hi = ipv6 ? 0x86 : 0x08;
  const std::uint8_t type_lo = ipv6 ? 0xDD : 0x00;
  switch (m_link) {
  case Link::ethernet: return {0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, type_hi, type_lo};
  case Link::linux_sll: return {0, 0, 0, 1, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0, type_hi, type_lo};
  case Link::linux_sll2: return {type_hi, type_lo, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0x02, 0, 0, 0, 0, 1, 0, 0};
  case Link::null_loopback: return {static_cast<std::uint8_t>(ipv6 ? 10 : 2), 0, 0, 0}; // host order, little-endian
  }
  return {};
}

inline void PcapBuilder::segment(const TcpEnd& src, const TcpEnd& dst, std::uint32_t seq, std::uint8_t flags,
                                 const ByteString& payload, std::size_t keep)
{
  bool v6 = false;
  bool v6_dst = false;
  const ByteString s = detail::address(src.ip, v6);
  const ByteString d = detail::address(dst.ip, v6_dst);
  ByteString tcp;
  detail::put16(tcp, src.port);
  detail::put16(tcp, dst.port);
  detail::put32(tcp, seq);
  detail::put32(tcp, 0);
  tcp.push_back(5 << 4);
  tcp.push_back(flags);
  detail::put16(tcp, 65535);
  detail::put32(tcp, 0);
  ByteString ip;
  if (v6) {
    detail::put32(ip, 0x60000000);
    detail::put16(ip, static_cast<std::uint16_t>(tcp.size() + payload.size()));
    ip.push_back(6);
    ip.push_back(64);
  } else {
    ip = {0x45, 0};
    detail::put16(ip, static_cast<std::uint16_t>(20 + tcp.size() + payload.size()));
    detail::put32(ip, 0x00004000); // id 0, don't fragment
    ip.push_back(64);
    ip.push_back(6);
    detail::put16(ip, 0);
  }
  ip.insert(ip.end(), s.begin(), s.end());
  ip.insert(ip.end(), d.begin(), d.end());
  ByteString packet = link_header(v6);
  packet.insert(packet.end(), ip.begin(), ip.end());
  packet.insert(packet.end(), tcp.begin(), tcp.end());
  const std::size_t wire = packet.size() + payload.size();
  const std::size_t kept = std::min(keep, payload.size());
  packet.insert(packet.end(), payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(kept));
  raw(packet, wire);
}

inline void PcapBuilder::raw(const ByteString& packet, std::size_t wire_length)
{
  const auto n = static_cast<std::uint32_t>(m_packets.size());
  m_packets.push_back({packet, wire_length == 0 ? packet.size() : wire_length, 1796094000 + n / 1000, (n % 1000) * 1000});
}

inline ByteString PcapBuilder::bytes() const
{
  ByteString out;
  if (!m_pcapng) {
    detail::le32(out, 0xA1B2C3D4);
    detail::le16(out, 2);
    detail::le16(out, 4);
    detail::le32(out, 0);
    detail::le32(out, 0);
    detail::le32(out, 262144);
    detail::le32(out, static_cast<std::uint32_t>(m_link));
    for (const Packet& p : m_packets) {
      detail::le32(out, p.seconds);
      detail::le32(out, p.micros);
      detail::le32(out, static_cast<std::uint32_t>(p.data.size()));
      detail::le32(out, static_cast<std::uint32_t>(p.wire_length));
      out.insert(out.end(), p.data.begin(), p.data.end());
    }
    return out;
  }
  // Section header block, one interface description block, enhanced packet blocks.
  detail::le32(out, 0x0A0D0D0A);
  detail::le32(out, 28);
  detail::le32(out, 0x1A2B3C4D);
  detail::le16(out, 1);
  detail::le16(out, 0);
  detail::le32(out, 0xFFFFFFFF);
  detail::le32(out, 0xFFFFFFFF);
  detail::le32(out, 28);
  detail::le32(out, 1);
  detail::le32(out, 20);
  detail::le16(out, static_cast<std::uint16_t>(m_link));
  detail::le16(out, 0);
  detail::le32(out, 262144);
  detail::le32(out, 20);
  for (const Packet& p : m_packets) {
    const std::size_t padded = (p.data.size() + 3) / 4 * 4;
    const auto total = static_cast<std::uint32_t>(32 + padded);
    const std::uint64_t ts = std::uint64_t{p.seconds} * 1000000 + p.micros; // default resolution: microseconds
    detail::le32(out, 6);
    detail::le32(out, total);
    detail::le32(out, 0);
    detail::le32(out, static_cast<std::uint32_t>(ts >> 32));
    detail::le32(out, static_cast<std::uint32_t>(ts));
    detail::le32(out, static_cast<std::uint32_t>(p.data.size()));
    detail::le32(out, static_cast<std::uint32_t>(p.wire_length));
    out.insert(out.end(), p.data.begin(), p.data.end());
    out.resize(out.size() + padded - p.data.size(), 0);
    detail::le32(out, total);
  }
  return out;
}

inline std::string PcapBuilder::write(const std::string& path) const
{
  const ByteString b = bytes();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return path;
}

inline std::uint32_t send_stream(PcapBuilder& pcap, const TcpEnd& src, const TcpEnd& dst, const ByteString& stream,
                                 std::size_t mss, std::uint32_t isn)
{
  pcap.segment(src, dst, isn, 0x02, {});
  std::uint32_t seq = isn + 1;
  for (std::size_t at = 0; at < stream.size(); at += mss) {
    const std::size_t n = std::min(mss, stream.size() - at);
    pcap.segment(src, dst, seq, 0x18, ByteString(stream.begin() + static_cast<std::ptrdiff_t>(at),
                                                  stream.begin() + static_cast<std::ptrdiff_t>(at + n)));
    seq += static_cast<std::uint32_t>(n);
  }
  pcap.segment(src, dst, seq, 0x11, {});
  return isn;
}

} // namespace pdcheck::test
