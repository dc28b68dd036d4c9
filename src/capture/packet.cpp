#include "capture/packet.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <cstring>

namespace pdcheck::capture {

namespace {

std::uint16_t be16(const std::uint8_t* p)
{
  return static_cast<std::uint16_t>((p[0] << 8) | p[1]);
}

std::uint32_t be32(const std::uint8_t* p)
{
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

constexpr std::uint16_t k_ethertype_ipv4 = 0x0800;
constexpr std::uint16_t k_ethertype_ipv6 = 0x86DD;
constexpr std::uint8_t k_ip_proto_tcp = 6;

/// Where the IP header starts and which version the link layer announced (0: read
/// the version nibble).
struct LinkPayload
{
  std::size_t offset = 0;
  int ip_version = 0;
};

/// A packet whose captured bytes end inside a header: a snap-length cut when the
/// packet was longer on the wire, otherwise a malformed packet.
PacketParse cut(std::size_t captured, std::size_t wire_length, std::size_t offset, std::string_view header)
{
  if (wire_length > captured) {
    return NotTcp{}; // the capture kept too little of it to say; a gap shows in its flow
  }
  return Malformed{offset, fmt::format("the packet ends inside its {} header ({} bytes captured)", header, captured)};
}

std::variant<LinkPayload, PacketParse> link_payload(LinkType link, std::span<const std::uint8_t> d,
                                                    std::size_t wire_length)
{
  auto version_for = [](std::uint16_t ethertype) {
    return ethertype == k_ethertype_ipv4 ? 4 : ethertype == k_ethertype_ipv6 ? 6 : -1;
  };
  switch (link) {
  case LinkType::ethernet: {
    std::size_t at = 12;
    if (d.size() < at + 2) {
      return cut(d.size(), wire_length, 0, "Ethernet");
    }
    std::uint16_t type = be16(&d[at]);
    // 802.1Q / 802.1ad / QinQ tags: 4 bytes each before the real ethertype.
    while (type == 0x8100 || type == 0x88A8 || type == 0x9100) {
      at += 4;
      if (d.size() < at + 2) {
        return cut(d.size(), wire_length, at - 4, "VLAN tag");
      }
      type = be16(&d[at]);
    }
    const int v = version_for(type);
    if (v < 0) {
      return NotTcp{};
    }
    return LinkPayload{at + 2, v};
  }
  case LinkType::linux_sll: {
    if (d.size() < 16) {
      return cut(d.size(), wire_length, 0, "Linux cooked (SLL)");
    }
    const int v = version_for(be16(&d[14]));
    return v < 0 ? std::variant<LinkPayload, PacketParse>(NotTcp{}) : LinkPayload{16, v};
  }
  case LinkType::linux_sll2: {
    if (d.size() < 20) {
      return cut(d.size(), wire_length, 0, "Linux cooked (SLL2)");
    }
    const int v = version_for(be16(&d[0]));
    return v < 0 ? std::variant<LinkPayload, PacketParse>(NotTcp{}) : LinkPayload{20, v};
  }
  case LinkType::null_loopback:
  case LinkType::loop_loopback: {
    if (d.size() < 4) {
      return cut(d.size(), wire_length, 0, "loopback");
    }
    // NULL stores the address family in the capturing host's byte order, LOOP in
    // network order; AF_INET is 2 everywhere, AF_INET6 is 10, 24, 28 or 30.
    std::uint32_t family = 0;
    std::memcpy(&family, d.data(), 4);
    if (link == LinkType::loop_loopback) {
      family = be32(d.data());
    } else if (family > 0xFFFF) {
      family = __builtin_bswap32(family);
    }
    if (family == 2) {
      return LinkPayload{4, 4};
    }
    if (family == 10 || family == 24 || family == 28 || family == 30) {
      return LinkPayload{4, 6};
    }
    return NotTcp{};
  }
  case LinkType::raw_ip:
    return LinkPayload{0, 0};
  }
  return NotTcp{};
}

PacketParse tcp_segment(std::span<const std::uint8_t> d, std::size_t at, std::size_t ip_end, std::size_t wire_length,
                        const Address& src, const Address& dst)
{
  if (d.size() < at + 20) {
    return cut(d.size(), wire_length, at, "TCP");
  }
  const std::size_t header = static_cast<std::size_t>(d[at + 12] >> 4) * 4;
  if (header < 20) {
    return Malformed{at + 12, fmt::format("TCP data offset {} words is below the minimum 5", header / 4)};
  }
  if (at + header > ip_end) {
    return Malformed{at + 12, fmt::format("TCP header of {} bytes runs past the IP packet ({} bytes left)", header,
                                          ip_end - at)};
  }
  if (d.size() < at + header) {
    return cut(d.size(), wire_length, at, "TCP");
  }
  TcpSegment s;
  s.src = Endpoint{src, be16(&d[at])};
  s.dst = Endpoint{dst, be16(&d[at + 2])};
  s.seq = be32(&d[at + 4]);
  s.flags = d[at + 13];
  const std::size_t payload_start = at + header;
  const std::size_t captured_end = std::min(ip_end, d.size());
  s.payload = d.subspan(payload_start, captured_end - payload_start);
  s.missing_bytes = static_cast<std::uint32_t>(ip_end - captured_end);
  return s;
}

PacketParse ipv4(std::span<const std::uint8_t> d, std::size_t at, std::size_t wire_length)
{
  if (d.size() < at + 20) {
    return cut(d.size(), wire_length, at, "IPv4");
  }
  const std::size_t ihl = static_cast<std::size_t>(d[at] & 0x0F) * 4;
  if (ihl < 20) {
    return Malformed{at, fmt::format("IPv4 header length {} words is below the minimum 5", ihl / 4)};
  }
  const std::size_t total = be16(&d[at + 2]);
  if (total < ihl) {
    return Malformed{at + 2, fmt::format("IPv4 total length {} is shorter than its header ({} bytes)", total, ihl)};
  }
  // The packet on the wire bounds the IP packet; Ethernet padding lies beyond it.
  const std::size_t wire_ip = wire_length > at ? wire_length - at : 0;
  if (total > wire_ip) {
    return Malformed{at + 2, fmt::format("IPv4 total length {} exceeds the {} bytes the frame carries", total, wire_ip)};
  }
  const std::uint16_t fragment = be16(&d[at + 6]);
  if ((fragment & 0x2000) != 0 || (fragment & 0x1FFF) != 0) {
    return d[at + 9] == k_ip_proto_tcp ? PacketParse(IpFragment{}) : PacketParse(NotTcp{});
  }
  if (d[at + 9] != k_ip_proto_tcp) {
    return NotTcp{};
  }
  Address src;
  Address dst;
  std::memcpy(src.bytes.data(), &d[at + 12], 4);
  std::memcpy(dst.bytes.data(), &d[at + 16], 4);
  return tcp_segment(d, at + ihl, at + total, wire_length, src, dst);
}

PacketParse ipv6(std::span<const std::uint8_t> d, std::size_t at, std::size_t wire_length)
{
  if (d.size() < at + 40) {
    return cut(d.size(), wire_length, at, "IPv6");
  }
  const std::size_t payload_length = be16(&d[at + 4]);
  const std::size_t wire_ip = wire_length > at ? wire_length - at : 0;
  if (40 + payload_length > wire_ip) {
    return Malformed{at + 4, fmt::format("IPv6 payload length {} exceeds the {} bytes the frame carries",
                                         payload_length, wire_ip - std::min<std::size_t>(wire_ip, 40))};
  }
  Address src;
  Address dst;
  src.v6 = dst.v6 = true;
  std::memcpy(src.bytes.data(), &d[at + 8], 16);
  std::memcpy(dst.bytes.data(), &d[at + 24], 16);
  const std::size_t end = at + 40 + payload_length;
  std::uint8_t next = d[at + 6];
  std::size_t h = at + 40;
  // Extension headers before TCP: hop-by-hop, routing, destination options, AH.
  for (int hops = 0; hops < 16; ++hops) {
    if (next == k_ip_proto_tcp) {
      return tcp_segment(d, h, end, wire_length, src, dst);
    }
    if (next == 44) {
      return IpFragment{};
    }
    if (next != 0 && next != 43 && next != 60 && next != 51) {
      return NotTcp{};
    }
    if (d.size() < h + 2) {
      return cut(d.size(), wire_length, h, "IPv6 extension");
    }
    const std::size_t len = next == 51 ? (static_cast<std::size_t>(d[h + 1]) + 2) * 4
                                       : (static_cast<std::size_t>(d[h + 1]) + 1) * 8;
    if (h + len > end) {
      return Malformed{h + 1, fmt::format("IPv6 extension header of {} bytes runs past the packet", len)};
    }
    next = d[h];
    h += len;
  }
  return Malformed{h, "more than 16 IPv6 extension headers"};
}

} // namespace

std::optional<LinkType> link_type_from_pcap(int linktype)
{
  switch (linktype) {
  case 0: return LinkType::null_loopback;  // LINKTYPE_NULL
  case 1: return LinkType::ethernet;       // LINKTYPE_ETHERNET
  case 12:                                 // DLT_RAW on most BSDs
  case 14:                                 // DLT_RAW on OpenBSD
  case 101:                                // LINKTYPE_RAW
  case 228:                                // LINKTYPE_IPV4
  case 229: return LinkType::raw_ip;       // LINKTYPE_IPV6
  case 108: return LinkType::loop_loopback; // LINKTYPE_LOOP
  case 113: return LinkType::linux_sll;    // LINKTYPE_LINUX_SLL
  case 276: return LinkType::linux_sll2;   // LINKTYPE_LINUX_SLL2
  default: return std::nullopt;
  }
}

std::string supported_link_types()
{
  return "Ethernet (1), Linux cooked SLL (113) and SLL2 (276), loopback NULL (0) and LOOP (108), raw IP (101, 228, "
         "229)";
}

std::string address_text(const Address& a)
{
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(a.v6 ? AF_INET6 : AF_INET, a.bytes.data(), buf, sizeof buf);
  return buf;
}

std::string endpoint_text(const Endpoint& e)
{
  return e.address.v6 ? fmt::format("[{}]:{}", address_text(e.address), e.port)
                      : fmt::format("{}:{}", address_text(e.address), e.port);
}

std::optional<Address> parse_address(std::string_view text)
{
  std::string s(text);
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') {
    s = s.substr(1, s.size() - 2);
  }
  Address a;
  if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1) {
    return a;
  }
  a.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1) {
    return a;
  }
  return std::nullopt;
}

PacketParse parse_packet(LinkType link, std::span<const std::uint8_t> data, std::size_t wire_length)
{
  wire_length = std::max(wire_length, data.size());
  auto lp = link_payload(link, data, wire_length);
  if (auto* done = std::get_if<PacketParse>(&lp)) {
    return std::move(*done);
  }
  const LinkPayload p = std::get<LinkPayload>(lp);
  if (data.size() < p.offset + 1) {
    return cut(data.size(), wire_length, p.offset, "IP");
  }
  const int version = data[p.offset] >> 4;
  if (p.ip_version != 0 && version != p.ip_version) {
    return Malformed{p.offset, fmt::format("the link layer announces IPv{} but the IP header says version {}",
                                           p.ip_version, version)};
  }
  if (version == 4) {
    return ipv4(data, p.offset, wire_length);
  }
  if (version == 6) {
    return ipv6(data, p.offset, wire_length);
  }
  if (p.ip_version == 0) {
    return NotTcp{}; // raw link type carrying something that is not IP
  }
  return Malformed{p.offset, fmt::format("IP version {}", version)};
}

} // namespace pdcheck::capture
