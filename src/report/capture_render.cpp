#include "report/capture_render.hpp"

#include "core/transfer_backend.hpp"
#include "wire/generation.hpp"
#include "util/plural.hpp"
#include "util/units.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace pdcheck::report {

namespace {

std::string flow_label(const capture::FlowReport& f)
{
  return fmt::format("{} -> {}", capture::endpoint_text(f.src), capture::endpoint_text(f.dst));
}

std::string flow_state(const capture::FlowReport& f)
{
  std::vector<std::string> parts;
  if (!f.syn_seen) {
    parts.push_back("no SYN: the capture began after the connection opened");
  }
  if (f.gap) {
    parts.push_back(fmt::format("gap of {} bytes at stream byte {}: incomplete from there", f.gap->missing, f.gap->offset));
  }
  if (f.ended_inside_message) {
    parts.push_back("ends inside a message");
  }
  if (f.retransmitted_bytes > 0) {
    parts.push_back(fmt::format("{} retransmitted bytes ignored", f.retransmitted_bytes));
  }
  if (f.out_of_order_segments > 0) {
    parts.push_back(fmt::format("{} out-of-order segments put back in order", f.out_of_order_segments));
  }
  return parts.empty() ? "complete" : fmt::format("{}", fmt::join(parts, "; "));
}

} // namespace

std::string capture_summary_to_text(const PcapFile& pcap, const capture::CaptureReport& r, const CaptureRun& run)
{
  std::string out = fmt::format("pcap     {} · {} · link type {} · {} packets ({} TCP, {} outside --port/--host)\n",
                                pcap.path, pcap.format, pcap.linktype_name, r.packets, r.tcp_packets, r.filtered_out);
  if (r.ip_fragments > 0) {
    out += fmt::format("         {} (not reassembled, their flows show gaps)\n",
                       counted(static_cast<long long>(r.ip_fragments), "TCP packet was an IP fragment",
                               "TCP packets were IP fragments"));
  }
  std::size_t zmtp = 0;
  std::size_t other = 0;
  for (const capture::FlowReport& f : r.flows) {
    (f.verdict == capture::FlowVerdict::zmtp ? zmtp : other) += 1;
  }
  out += fmt::format("flows    {}: {} ZMTP, {} other\n", counted(static_cast<long long>(r.flows.size()), "TCP flow"), zmtp, other);
  for (const capture::FlowReport& f : r.flows) {
    if (f.verdict != capture::FlowVerdict::zmtp) {
      continue;
    }
    out += fmt::format("  {}  ZMTP {} {}{} · {} · {} · {}\n", flow_label(f), f.zmtp_version,
                       f.mechanism, f.socket_type.empty() ? "" : " " + f.socket_type, bytes_text(f.stream_bytes),
                       counted(static_cast<long long>(f.message_count), "message"), flow_state(f));
  }
  std::map<std::int64_t, std::set<std::string>> ranks; // decode rank -> the decode hosts that registered it
  for (const capture::FoundMessage& m : r.messages) {
    if (m.kind == capture::MessageKind::registration && m.dst_tp_rank) {
      ranks[*m.dst_tp_rank].insert(capture::address_text(r.flows[m.flow].src.address));
    }
  }
  std::vector<std::string> kinds;
  for (const auto& [k, count] : r.by_kind) {
    kinds.push_back(fmt::format("{} {}", count, k));
  }
  out += fmt::format("messages {}{}\n", r.message_count, kinds.empty() ? "" : fmt::format(": {}", fmt::join(kinds, ", ")));
  if (!ranks.empty()) {
    std::vector<std::string> seen;
    for (const auto& [rank, hosts] : ranks) {
      seen.push_back(fmt::format("{} (from {})", rank, fmt::join(hosts, ", ")));
    }
    out += fmt::format("decode ranks registered: {}\n", fmt::join(seen, "; "));
  }
  for (const capture::FoundMessage& m : r.messages) {
    if (m.kind == capture::MessageKind::unclassified) {
      out += fmt::format("unclassified: {} stream byte {}: {}: {}\n", flow_label(r.flows[m.flow]), m.offset,
                         counted(static_cast<long long>(m.frame_count), "frame"), m.problem);
    }
  }
  if (r.registrations_repeated > 0) {
    out += fmt::format("{} not written again: the same decode host, prefill endpoint, rank and frames as one written "
                       "(SGLang's decode registers again on each new connection)\n",
                       counted(static_cast<long long>(r.registrations_repeated), "repeated registration"));
  }
  if (r.registrations_not_listed > 0) {
    out += fmt::format("{} counted but not written (--max-registrations {})\n",
                       counted(static_cast<long long>(r.registrations_not_listed), "more registration"),
                       run.max_registrations);
  }
  if (r.transfer_infos_not_listed > 0) {
    out += fmt::format("{} counted but not written (--max-transfer-infos {})\n",
                       counted(static_cast<long long>(r.transfer_infos_not_listed), "more TransferInfo"),
                       run.max_transfer_infos);
  }
  if (!run.written.empty()) {
    out += fmt::format("wrote {} to {}/\n", counted(static_cast<long long>(run.written.size()), "capture file"), run.out);
    for (const CaptureRun::Written& w : run.written) {
      out += fmt::format("  {}  {}\n", w.path, capture::message_description(r.messages[w.message]));
    }
  } else {
    out += "no registration or TransferInfo found: nothing written\n";
  }
  return out;
}

nlohmann::ordered_json capture_summary_to_json(const PcapFile& pcap, const capture::CaptureReport& r,
                                               const CaptureRun& run)
{
  nlohmann::ordered_json j;
  j["pcap"] = pcap.path;
  j["format"] = pcap.format;
  j["linktype"] = pcap.linktype;
  j["linktype_name"] = pcap.linktype_name;
  j["packets"] = r.packets;
  j["tcp_packets"] = r.tcp_packets;
  j["filtered_out"] = r.filtered_out;
  j["ip_fragments"] = r.ip_fragments;
  j["message_count"] = r.message_count;
  j["by_kind"] = r.by_kind;
  j["registrations_repeated"] = r.registrations_repeated;
  j["registrations_not_written"] = r.registrations_not_listed;
  j["transfer_infos_not_written"] = r.transfer_infos_not_listed;
  auto flows = nlohmann::ordered_json::array();
  for (const capture::FlowReport& f : r.flows) {
    nlohmann::ordered_json fj;
    fj["src"] = capture::endpoint_text(f.src);
    fj["dst"] = capture::endpoint_text(f.dst);
    fj["verdict"] = capture::flow_verdict_name(f.verdict);
    fj["packets"] = f.packets;
    fj["stream_bytes"] = f.stream_bytes;
    fj["first_time"] = capture::timestamp_text(f.first_time);
    fj["complete"] = f.complete();
    fj["syn_seen"] = f.syn_seen;
    fj["gap"] = f.gap ? nlohmann::ordered_json{{"offset", f.gap->offset}, {"missing", f.gap->missing}}
                      : nlohmann::ordered_json(nullptr);
    fj["ended_inside_message"] = f.ended_inside_message;
    fj["retransmitted_bytes"] = f.retransmitted_bytes;
    fj["out_of_order_segments"] = f.out_of_order_segments;
    fj["zmtp_version"] = f.zmtp_version;
    fj["mechanism"] = f.mechanism;
    fj["socket_type"] = f.socket_type;
    fj["message_count"] = f.message_count;
    fj["messages"] = f.messages;
    flows.push_back(std::move(fj));
  }
  j["flows"] = std::move(flows);
  std::map<std::size_t, std::string> file_of;
  for (const CaptureRun::Written& w : run.written) {
    file_of[w.message] = w.path;
  }
  auto messages = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.messages.size(); ++i) {
    const capture::FoundMessage& m = r.messages[i];
    nlohmann::ordered_json mj;
    mj["flow"] = m.flow;
    mj["stream_offset"] = m.offset;
    mj["time"] = capture::timestamp_text(m.time);
    mj["frames"] = m.frame_count;
    mj["kind"] = capture::message_kind_name(m.kind);
    mj["backend"] =
      m.backend ? nlohmann::ordered_json(transfer_backend_name(*m.backend)) : nlohmann::ordered_json(nullptr);
    mj["generation"] =
      m.generation ? nlohmann::ordered_json(wire::generation_name(*m.generation)) : nlohmann::ordered_json(nullptr);
    mj["dst_tp_rank"] = m.dst_tp_rank ? nlohmann::ordered_json(*m.dst_tp_rank) : nlohmann::ordered_json(nullptr);
    mj["dst_attn_tp_size"] = m.dst_attn_tp ? nlohmann::ordered_json(*m.dst_attn_tp) : nlohmann::ordered_json(nullptr);
    mj["room"] = m.room ? nlohmann::ordered_json(*m.room) : nlohmann::ordered_json(nullptr);
    mj["description"] = capture::message_description(m);
    mj["file"] = file_of.count(i) ? nlohmann::ordered_json(file_of[i]) : nlohmann::ordered_json(nullptr);
    messages.push_back(std::move(mj));
  }
  j["messages"] = std::move(messages);
  j["out"] = run.out;
  return j;
}

nlohmann::json capture_file_to_json(const CaptureFileInfo& c)
{
  nlohmann::json j = {{"file", c.origin}, {"frames", c.frames}, {"synthetic", c.synthetic}};
  if (!c.host.empty()) {
    j["host"] = c.host;
  }
  if (!c.time.empty()) {
    j["time"] = c.time;
  }
  if (!c.note.empty()) {
    j["note"] = c.note;
  }
  return j;
}

std::string capture_file_to_text(const CaptureFileInfo& c)
{
  std::string out = fmt::format("capture {} ({} frames", c.origin, c.frames);
  if (!c.host.empty()) {
    out += ", host " + c.host;
  }
  if (!c.time.empty()) {
    out += ", " + c.time;
  }
  out += ")\n";
  if (!c.note.empty()) {
    out += "note: " + c.note + "\n";
  }
  return out;
}

nlohmann::json sglang_decode_to_json(const SglangDecode& d)
{
  nlohmann::json j = d.body.is_null() ? nlohmann::json::object() : d.body;
  j["capture"] = capture_file_to_json(d.file);
  j["mode"] = "sglang";
  if (d.problem) {
    // No decoded body: say at least what was parsed, and as what.
    j["kind"] = d.kind;
    j["backend"] = d.backend;
    j["generation"] = d.generation;
    j["sglang_raises"] = {{"frame", d.problem->frame},
                          {"field", d.problem->field},
                          {"exception", d.problem->what},
                          {"consequence", d.problem->sglang}};
    j["notes"] = d.notes;
  }
  return j;
}

std::string sglang_decode_to_text(const SglangDecode& d)
{
  std::string out = capture_file_to_text(d.file) + "parsed as SGLang would\n";
  if (!d.problem) {
    return out + "\n" + d.body_text;
  }
  out += fmt::format("SGLang raises at frame {} ({}): {}\n  then: {}\n", d.problem->frame, d.problem->field,
                     d.problem->what, d.problem->sglang);
  for (const std::string& n : d.notes) {
    out += "  " + n + "\n";
  }
  return out;
}

} // namespace pdcheck::report
