#pragma once

// One captured packet down to its TCP segment: the link layers tcpdump writes
// (Ethernet with VLAN tags, Linux cooked SLL and SLL2 from `tcpdump -i any`,
// BSD loopback and raw IP), IPv4 and IPv6, then TCP. Pure: bytes in, a view of
// the segment out; nothing is copied.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>

namespace pdcheck::capture {

/// When a packet was captured (pcap's seconds and nanoseconds since the epoch).
struct Timestamp
{
  std::int64_t seconds = 0;
  std::uint32_t nanoseconds = 0;
};

/// The link-layer header types pdcheck reads (pcap LINKTYPE_ values).
enum class LinkType { ethernet, linux_sll, linux_sll2, null_loopback, loop_loopback, raw_ip };

/// From a pcap LINKTYPE_/DLT_ value; nullopt for a type pdcheck cannot read.
std::optional<LinkType> link_type_from_pcap(int linktype);

/// Supported link types, for the error message about an unsupported one.
std::string supported_link_types();

struct Address
{
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{}; ///< IPv4 in the first four bytes
  bool operator==(const Address&) const = default;
  auto operator<=>(const Address&) const = default;
};

std::string address_text(const Address& a); ///< "10.0.0.1", "fe80::1"

struct Endpoint
{
  Address address;
  std::uint16_t port = 0;
  bool operator==(const Endpoint&) const = default;
  auto operator<=>(const Endpoint&) const = default;
};

std::string endpoint_text(const Endpoint& e); ///< "10.0.0.1:17000", "[fe80::1]:17000"

/// Parses "10.0.0.1", "fe80::1" (and "[fe80::1]"); nullopt when not an address.
std::optional<Address> parse_address(std::string_view text);

namespace tcp_flag {
constexpr std::uint8_t syn = 0x02; ///< the only flag reassembly needs: it fixes the first sequence number
} // namespace tcp_flag

struct TcpSegment
{
  Endpoint src;
  Endpoint dst;
  std::uint32_t seq = 0;
  std::uint8_t flags = 0;
  std::span<const std::uint8_t> payload; ///< what was captured of it
  std::uint32_t missing_bytes = 0;       ///< payload cut off by the capture's snap length
};

/// Not TCP over IP (ARP, UDP, ICMP, ...): nothing to do, not an error.
struct NotTcp
{
};

/// An IP fragment: its TCP bytes cannot be placed without reassembling IP.
struct IpFragment
{
};

/// A header that contradicts itself; `offset` is the byte of the packet it sits at.
struct Malformed
{
  std::size_t offset = 0;
  std::string what;
};

using PacketParse = std::variant<TcpSegment, NotTcp, IpFragment, Malformed>;

/// `data` holds the captured bytes (caplen), `wire_length` the packet's length on
/// the wire; a shorter capture marks the segment's missing payload bytes.
PacketParse parse_packet(LinkType link, std::span<const std::uint8_t> data, std::size_t wire_length);

} // namespace pdcheck::capture
