#include "capture/analyzer.hpp"

#include "wire/registration_codec.hpp"
#include "wire/transfer_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace pdcheck::capture {

namespace {

/// The slot of m_kind_counts for a classified message: backend (in
/// wire::k_wire_backends order) x kind.
std::size_t kind_count_index(TransferBackend b, MessageKind k)
{
  const auto at = std::find(wire::k_wire_backends.begin(), wire::k_wire_backends.end(), b);
  if (at == wire::k_wire_backends.end()) {
    wire::throw_not_wire_speaking(b);
  }
  return static_cast<std::size_t>(at - wire::k_wire_backends.begin()) * 2 + (k == MessageKind::registration ? 0 : 1);
}

} // namespace

struct Analyzer::Flow
{
  TcpStream stream;
  ZmtpParser zmtp;
  TcpStream::Sink to_zmtp;       ///< bound once per flow, not per packet
  ZmtpParser::Sink to_analyzer;
  /// The last registration on this flow and how it classified. SGLang's decode
  /// sends the same registration again and again, and classify() depends on
  /// the frames (and --backend) alone, so a byte-identical one is not decoded again.
  std::optional<wire::Frames> last_registration;
  FoundMessage last_registration_found;
};

std::string timestamp_text(const Timestamp& t)
{
  const std::time_t secs = static_cast<std::time_t>(t.seconds);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, t.nanoseconds / 1000);
}

std::string_view message_kind_name(MessageKind k)
{
  switch (k) {
  case MessageKind::registration: return "registration";
  case MessageKind::transfer_info: return "transfer_info";
  case MessageKind::unclassified: return "unclassified";
  }
  return "?";
}

std::string_view flow_verdict_name(FlowVerdict v)
{
  switch (v) {
  case FlowVerdict::zmtp: return "zmtp";
  case FlowVerdict::not_zmtp: return "not_zmtp";
  case FlowVerdict::no_data: return "no_data";
  case FlowVerdict::failed: return "failed";
  }
  return "?";
}

Analyzer::Analyzer(LinkType link, AnalyzerOptions options) : m_link(link), m_options(std::move(options)) {}

Analyzer::~Analyzer() = default;

std::optional<PacketError> Analyzer::add(std::span<const std::uint8_t> data, std::size_t wire_length, Timestamp time)
{
  m_report.packets += 1;
  m_report.bytes += data.size();
  const std::uint64_t packet = m_report.packets;
  PacketParse parsed = parse_packet(m_link, data, wire_length);
  if (auto* bad = std::get_if<Malformed>(&parsed)) {
    return PacketError{packet, bad->offset, std::move(bad->what)};
  }
  if (std::holds_alternative<IpFragment>(parsed)) {
    m_report.ip_fragments += 1;
    return std::nullopt;
  }
  auto* seg = std::get_if<TcpSegment>(&parsed);
  if (seg == nullptr) {
    return std::nullopt;
  }
  m_report.tcp_packets += 1;
  const auto& ports = m_options.ports;
  if ((!ports.empty() && std::find(ports.begin(), ports.end(), seg->src.port) == ports.end() &&
       std::find(ports.begin(), ports.end(), seg->dst.port) == ports.end()) ||
      (m_options.host && seg->src.address != *m_options.host && seg->dst.address != *m_options.host)) {
    m_report.filtered_out += 1;
    return std::nullopt;
  }
  auto [it, inserted] = m_flow_index.try_emplace({seg->src, seg->dst}, m_flows.size());
  const std::size_t f = it->second;
  if (inserted) {
    auto flow = std::make_unique<Flow>();
    flow->to_zmtp = [this, f](const StreamChunk& chunk) { on_chunk(f, chunk); };
    flow->to_analyzer = [this, f](const ZmtpMessage& m) { on_zmtp_message(f, m); };
    FlowReport r;
    r.src = seg->src;
    r.dst = seg->dst;
    r.first_time = time;
    m_report.flows.push_back(std::move(r));
    m_flows.push_back(std::move(flow));
  }
  m_report.flows[f].packets += 1;
  Flow& flow = *m_flows[f];
  const auto state = flow.zmtp.state();
  if (state == ZmtpParser::State::not_zmtp || state == ZmtpParser::State::failed) {
    return std::nullopt; // nothing more to read from it
  }
  flow.stream.add(*seg, packet, flow.to_zmtp, time);
  return std::nullopt;
}

void Analyzer::on_chunk(std::size_t f, const StreamChunk& chunk)
{
  Flow& flow = *m_flows[f];
  flow.zmtp.feed(chunk.bytes, chunk.packet, flow.to_analyzer, chunk.time);
}

void Analyzer::on_zmtp_message(std::size_t f, const ZmtpMessage& m)
{
  FoundMessage found;
  found.flow = f;
  found.offset = m.offset;
  found.time = m.time;
  found.frame_count = m.frames.size();
  Flow& state = *m_flows[f];
  if (state.last_registration && *state.last_registration == m.frames) {
    const FoundMessage& seen = state.last_registration_found;
    found.kind = seen.kind;
    found.backend = seen.backend;
    found.backend_from_guard = seen.backend_from_guard;
    found.generation = seen.generation;
    found.dst_tp_rank = seen.dst_tp_rank;
    found.dst_attn_tp = seen.dst_attn_tp;
  } else {
    classify(found, m.frames, m_options.backend);
    if (found.kind == MessageKind::registration) {
      state.last_registration = m.frames;
      state.last_registration_found = found;
    }
  }
  FlowReport& flow = m_report.flows[f];
  flow.message_count += 1;
  m_report.message_count += 1;
  switch (found.kind) {
  case MessageKind::registration: m_report.registrations += 1; break;
  case MessageKind::transfer_info: m_report.transfer_infos += 1; break;
  case MessageKind::unclassified: m_report.unclassified += 1; break;
  }
  if (found.kind != MessageKind::unclassified) {
    m_kind_counts[kind_count_index(*found.backend, found.kind)] += 1;
  }
  switch (found.kind) {
  case MessageKind::registration: place_registration(found, m.frames, flow); break;
  case MessageKind::transfer_info:
    if (m_report.transfer_infos <= m_options.max_listed_transfer_infos) {
      found.listed_as = m_report.messages.size();
    } else {
      m_report.transfer_infos_not_listed += 1;
    }
    break;
  case MessageKind::unclassified: found.listed_as = m_report.messages.size(); break;
  }
  if (m_options.on_message) {
    m_options.on_message(found, flow, m.frames);
  }
  if (found.listed_as) {
    flow.messages.push_back(*found.listed_as);
    m_report.messages.push_back(std::move(found));
  }
}

void Analyzer::place_registration(FoundMessage& found, const wire::Frames& frames, const FlowReport& flow)
{
  const RegistrationKey key{flow.src.address, flow.dst, *found.backend, found.dst_tp_rank.value_or(-1)};
  const auto it = m_listed_registrations.find(key);
  if (it != m_listed_registrations.end()) {
    for (const auto& [seen, index] : it->second) {
      if (seen == frames) {
        found.repeat_of = index;
        m_report.registrations_repeated += 1;
        return;
      }
    }
  }
  if (m_listed_registration_count >= m_options.max_listed_registrations) {
    m_report.registrations_not_listed += 1;
    return;
  }
  auto& listed = m_listed_registrations[key];
  found.listed_as = m_report.messages.size();
  listed.emplace_back(frames, *found.listed_as);
  m_listed_registration_count += 1;
}

CaptureReport Analyzer::finish()
{
  for (std::size_t f = 0; f < m_flows.size(); ++f) {
    Flow& flow = *m_flows[f];
    flow.stream.finish();
    FlowReport& r = m_report.flows[f];
    r.syn_seen = flow.stream.syn_seen();
    r.stream_bytes = flow.stream.delivered();
    r.retransmitted_bytes = flow.stream.retransmitted_bytes();
    r.out_of_order_segments = flow.stream.out_of_order_segments();
    r.gap = flow.stream.gap();
    const ZmtpParser& z = flow.zmtp;
    switch (z.state()) {
    case ZmtpParser::State::greeting:
      r.verdict = z.consumed() == 0 ? FlowVerdict::no_data : FlowVerdict::zmtp;
      r.ended_inside_message = z.consumed() > 0;
      break;
    case ZmtpParser::State::handshake:
    case ZmtpParser::State::traffic: r.verdict = FlowVerdict::zmtp; break;
    case ZmtpParser::State::not_zmtp: r.verdict = FlowVerdict::not_zmtp; break;
    case ZmtpParser::State::failed:
      r.verdict = FlowVerdict::failed;
      r.error = z.error();
      break;
    }
    r.ended_inside_message = r.ended_inside_message || z.inside_message();
    if (z.version_major() >= 3) {
      r.zmtp_version = fmt::format("{}.{}", z.version_major(), z.version_minor());
    }
    r.mechanism = z.mechanism();
    if (auto it = z.properties().find("Socket-Type"); it != z.properties().end()) {
      r.socket_type = it->second;
    }
  }
  for (TransferBackend b : wire::k_wire_backends) {
    for (MessageKind k : {MessageKind::registration, MessageKind::transfer_info}) {
      const std::uint64_t n = m_kind_counts[kind_count_index(b, k)];
      if (n > 0) {
        m_report.by_kind[fmt::format("{} {}", transfer_backend_name(b), message_kind_name(k))] = n;
      }
    }
  }
  if (m_report.unclassified > 0) {
    m_report.by_kind["unclassified"] = m_report.unclassified;
  }
  return std::move(m_report);
}

namespace {

bool is_ascii_int(const wire::Bytes& b)
{
  if (b.empty() || b.size() > 20) {
    return false;
  }
  std::size_t i = b[0] == '-' ? 1 : 0;
  if (i == b.size()) {
    return false;
  }
  for (; i < b.size(); ++i) {
    if (b[i] < '0' || b[i] > '9') {
      return false;
    }
  }
  return true;
}

std::optional<TransferBackend> backend_from_guard(const wire::Frames& frames)
{
  if (frames.empty()) {
    return std::nullopt;
  }
  if (wire::bytes_equal(frames[0], "MoriMsgGuard")) {
    return TransferBackend::mori;
  }
  if (wire::bytes_equal(frames[0], "NixlMsgGuard")) {
    return TransferBackend::nixl;
  }
  return std::nullopt;
}

} // namespace

void classify(FoundMessage& m, const wire::Frames& frames, std::optional<TransferBackend> forced)
{
  if (frames.empty()) {
    m.problem = "an empty message";
    return;
  }
  const std::optional<TransferBackend> guarded = backend_from_guard(frames);
  const TransferBackend backend = forced ? *forced : guarded ? *guarded : TransferBackend::mooncake;
  const bool guard_expected = backend != TransferBackend::mooncake;
  if (guard_expected && guarded != backend) {
    m.problem =
      fmt::format("no {} guard frame: SGLang's {} receiver drops it as a malformed bootstrap message",
                  backend == TransferBackend::mori ? "MoriMsgGuard" : "NixlMsgGuard", transfer_backend_name(backend));
    return;
  }
  if (!guard_expected && guarded) {
    m.problem =
      fmt::format("frame 0 is the {} guard, but --backend mooncake was given", transfer_backend_name(*guarded));
    return;
  }
  const std::size_t base = guard_expected ? 1 : 0;
  if (frames.size() <= base) {
    m.problem = "only a guard frame";
    return;
  }
  m.backend = backend;
  m.backend_from_guard = guarded.has_value();
  const wire::Bytes& first = frames[base];
  if (wire::bytes_equal(first, "None")) {
    const wire::RegistrationDecode d = wire::decode_registration(backend, frames);
    if (!d.registration) {
      m.problem = fmt::format("frame {} is None (a registration) but the frames do not decode: frame {} ({}): {}", base,
                          d.problem->frame, d.problem->field, d.problem->message());
      return;
    }
    m.kind = MessageKind::registration;
    m.generation = d.registration->generation;
    m.dst_tp_rank = d.registration->dst_tp_rank;
    m.dst_attn_tp = d.registration->dst_attn_tp_size;
    return;
  }
  if (is_ascii_int(first)) {
    // A capture holds a million TransferInfos: the verdict alone decides, and
    // only a malformed one is decoded again for the why.
    if (const auto generation = wire::transfer_info_verdict(backend, frames)) {
      m.kind = MessageKind::transfer_info;
      m.generation = *generation;
      m.room = wire::to_string(first);
      return;
    }
    const wire::TransferInfoDecode d = wire::decode_transfer_info(backend, frames);
    if (!d.transfer_info) {
      m.problem = fmt::format("frame {} is a room number but the {} frames do not decode as a TransferInfo: frame {} ({}): "
                          "{}",
                          base, frames.size(), d.problem->frame, d.problem->field, d.problem->message());
      return;
    }
    m.kind = MessageKind::transfer_info;
    m.generation = d.transfer_info->generation; // what the decoder detected, not detected again
    m.room = wire::to_string(first);
    return;
  }
  m.backend.reset();
  m.problem = fmt::format("frame {} is neither None (registration) nor a room number (TransferInfo)", base);
}

std::string message_description(const FoundMessage& m)
{
  if (m.kind == MessageKind::unclassified) {
    return m.problem;
  }
  const std::string how = m.backend_from_guard ? "guard frame" : "no guard frame";
  if (m.kind == MessageKind::registration) {
    return fmt::format("{} registration ({}, frame {} None), generation {}", transfer_backend_name(*m.backend), how,
                       m.backend_from_guard ? 1 : 0, wire::generation_name(*m.generation));
  }
  return fmt::format("{} TransferInfo ({}), room {}", transfer_backend_name(*m.backend), how, *m.room);
}

} // namespace pdcheck::capture
