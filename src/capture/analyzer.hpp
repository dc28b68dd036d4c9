#pragma once

// From captured packets to SGLang PD messages: every TCP flow (one direction of
// a connection) is reassembled and read as ZMTP; each multipart message is
// classified as a registration or a TransferInfo of a backend, with the
// generation `pdcheck decode` would detect. Pure: packets in, a report out; the
// pcap file itself is read by io/pcap_file.

#include "capture/packet.hpp"
#include "capture/tcp_stream.hpp"
#include "capture/zmtp.hpp"
#include "wire/bytes.hpp"
#include "wire/generation.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::capture {

/// RFC 3339 in UTC with microseconds: "2026-11-30T03:12:45.123456Z".
std::string timestamp_text(const Timestamp& t);


struct FoundMessage;
struct FlowReport;

/// Gets every message as soon as its last frame is read, classified, with its
/// flow (endpoints final, counters still running); the frames are valid only
/// during the call.
using MessageSink = std::function<void(const FoundMessage&, const FlowReport&, const wire::Frames&)>;

struct AnalyzerOptions
{
  std::vector<std::uint16_t> ports;          ///< empty: every port
  std::optional<Address> host;               ///< only flows from or to this address
  std::optional<TransferBackend> backend;    ///< nullopt: from guard frames and frame shape
  MessageSink on_message;                    ///< optional
  /// TransferInfos listed one by one in the report (all go to on_message and are
  /// counted); unclassified messages are always listed.
  std::size_t max_listed_transfer_infos = SIZE_MAX;
  /// Distinct registrations listed; a registration that repeats one already
  /// listed (same decode host, prefill endpoint, backend, rank and frames, as
  /// SGLang's decode sends again on every new connection) is counted as a
  /// repeat, not listed; past the cap, other registrations are counted.
  std::size_t max_listed_registrations = SIZE_MAX;
};

enum class MessageKind { registration, transfer_info, unclassified };
std::string_view message_kind_name(MessageKind k);

/// One message found on the wire and what it is (its frames go to the sink).
struct FoundMessage
{
  std::size_t flow = 0;     ///< index into CaptureReport::flows
  std::uint64_t offset = 0; ///< stream byte of its first frame
  Timestamp time;           ///< of the packet that carried its first byte
  std::size_t frame_count = 0;
  MessageKind kind = MessageKind::unclassified;
  std::optional<TransferBackend> backend;
  bool backend_from_guard = false;            ///< the guard frame said so (not --backend, not its absence)
  std::optional<wire::Generation> generation;
  std::optional<std::int64_t> dst_tp_rank;    ///< registration: the decode engine rank
  std::optional<std::int64_t> dst_attn_tp;    ///< registration: the decode attention TP size
  std::optional<std::string> room;            ///< transfer_info: bootstrap_room
  std::string problem; ///< unclassified: why
  /// Index into CaptureReport::messages; unset for a TransferInfo or a
  /// registration past its cap, and for a repeated registration (counted, not listed).
  std::optional<std::size_t> listed_as;
  /// A registration byte-identical to the listed one at this index of
  /// CaptureReport::messages, from the same decode host to the same endpoint.
  std::optional<std::size_t> repeat_of;
};

/// "mooncake registration (frame 0 None, no guard frame), generation components",
/// "mori TransferInfo (guard frame), room 7", or the problem of an unclassified one.
std::string message_description(const FoundMessage& m);

enum class FlowVerdict { zmtp, not_zmtp, no_data, failed };
std::string_view flow_verdict_name(FlowVerdict v);

/// One direction of one TCP connection.
struct FlowReport
{
  Endpoint src;
  Endpoint dst;
  std::uint64_t packets = 0;
  std::uint64_t stream_bytes = 0; ///< delivered in order
  Timestamp first_time;
  bool syn_seen = false;
  std::uint64_t retransmitted_bytes = 0;
  std::uint64_t out_of_order_segments = 0;
  std::optional<StreamGap> gap; ///< set: the flow is incomplete from here on
  bool ended_inside_message = false;
  FlowVerdict verdict = FlowVerdict::no_data;
  std::optional<ZmtpError> error; ///< verdict failed
  std::string zmtp_version;       ///< "3.1"
  std::string mechanism;
  std::string socket_type;        ///< READY's Socket-Type ("PUSH")
  std::vector<std::size_t> messages; ///< indexes into CaptureReport::messages (listed ones)
  std::uint64_t message_count = 0;    ///< every message of the flow, listed or not

  /// Complete: the stream was captured from its first byte (SYN seen) to its end
  /// without holes and no message was cut off.
  bool complete() const { return syn_seen && !gap && !ended_inside_message; }
};

struct CaptureReport
{
  std::vector<FlowReport> flows;
  std::vector<FoundMessage> messages; ///< listed messages, in the order they completed
  std::uint64_t message_count = 0;
  std::uint64_t registrations = 0;
  std::uint64_t transfer_infos = 0;
  std::uint64_t unclassified = 0;
  std::uint64_t registrations_repeated = 0;    ///< identical re-sends of a listed registration
  std::uint64_t registrations_not_listed = 0;  ///< distinct ones past max_listed_registrations
  std::uint64_t transfer_infos_not_listed = 0; ///< past max_listed_transfer_infos
  /// Messages by "<backend> <kind>" ("mooncake registration") or "unclassified".
  std::map<std::string, std::uint64_t> by_kind;
  std::uint64_t packets = 0;
  std::uint64_t tcp_packets = 0;
  std::uint64_t filtered_out = 0;    ///< TCP packets outside --port / --host
  std::uint64_t ip_fragments = 0;    ///< TCP in IP fragments: not reassembled
  std::uint64_t bytes = 0;           ///< captured bytes
};

/// A packet that contradicts itself; the caller names the file.
struct PacketError
{
  std::uint64_t packet = 0; ///< 1-based
  std::size_t offset = 0;   ///< byte of the packet
  std::string what;
};

class Analyzer
{
public:
  Analyzer(LinkType link, AnalyzerOptions options);
  ~Analyzer();
  Analyzer(const Analyzer&) = delete;
  Analyzer& operator=(const Analyzer&) = delete;

  /// Adds the next packet in capture order. Returns the problem of a malformed
  /// IP or TCP header (the packet is then ignored).
  std::optional<PacketError> add(std::span<const std::uint8_t> data, std::size_t wire_length, Timestamp time);

  /// Ends the capture: flows are finished, messages classified.
  CaptureReport finish();

private:
  struct Flow;
  void on_chunk(std::size_t flow, const StreamChunk& chunk);
  void on_zmtp_message(std::size_t flow, const ZmtpMessage& message);

  LinkType m_link;
  AnalyzerOptions m_options;
  CaptureReport m_report;
  std::vector<std::unique_ptr<Flow>> m_flows;
  std::map<std::pair<Endpoint, Endpoint>, std::size_t> m_flow_index;
  std::array<std::uint64_t, 6> m_kind_counts{}; ///< classified messages by backend x kind

  /// The listed registrations by who sent them where, for finding repeats:
  /// (decode address, prefill endpoint, backend, rank) -> (frames, message index).
  struct RegistrationKey
  {
    Address from;
    Endpoint to;
    TransferBackend backend;
    std::int64_t rank;
    auto operator<=>(const RegistrationKey&) const = default;
  };
  std::map<RegistrationKey, std::vector<std::pair<wire::Frames, std::size_t>>> m_listed_registrations;
  std::size_t m_listed_registration_count = 0;

  /// Where a registration goes in the report: listed, a repeat, or past the cap.
  void place_registration(FoundMessage& found, const wire::Frames& frames, const FlowReport& flow);
};

/// What a message is: the guard frame decides the backend (MoriMsgGuard,
/// NixlMsgGuard, none for Mooncake) unless `backend` is given; frame 0 `None`
/// makes a registration, an integer room a TransferInfo; the wire decoder must
/// then accept the frames.
void classify(FoundMessage& message, const wire::Frames& frames, std::optional<TransferBackend> backend);

} // namespace pdcheck::capture
