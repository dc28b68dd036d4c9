// `pdcheck capture PCAP`: the registration and TransferInfo messages of a packet
// capture, written as capture files that `decode` and `check --decode-capture`
// read, with a summary of flows, messages and decode ranks.
#include "capture/analyzer.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/capture_file.hpp"
#include "io/pcap_file.hpp"
#include "util/error.hpp"
#include "wire/generation.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <ostream>
#include <set>

namespace pdcheck::cli {

namespace {

struct CaptureOptions
{
  std::string pcap;
  std::vector<int> ports;
  std::string host;
  std::string out = "pdcheck-captures";
  std::string backend = "auto";
  ReportOptions report;
  std::size_t max_transfer_infos = 1000;
};

capture::AnalyzerOptions analyzer_options(const CaptureOptions& o)
{
  capture::AnalyzerOptions a;
  for (int p : o.ports) {
    a.ports.push_back(static_cast<std::uint16_t>(p));
  }
  if (!o.host.empty()) {
    a.host = capture::parse_address(o.host);
    if (!a.host) {
      throw InputError("--host", fmt::format("expected an IPv4 or IPv6 address, got '{}'", o.host));
    }
  }
  if (o.backend != "auto") {
    a.backend = wire::parse_wire_backend(o.backend);
  }
  a.max_listed_transfer_infos = o.max_transfer_infos;
  return a;
}

std::string flow_label(const capture::FlowReport& f)
{
  return fmt::format("{} -> {}", capture::endpoint_text(f.src), capture::endpoint_text(f.dst));
}

/// "0003-registration-mooncake-rank1.json", "0007-transfer_info-mori-room734.json".
std::string file_name(std::size_t n, const capture::FoundMessage& m)
{
  std::string tail;
  if (m.kind == capture::MessageKind::registration && m.dst_tp_rank) {
    tail = fmt::format("-rank{}", *m.dst_tp_rank);
  } else if (m.kind == capture::MessageKind::transfer_info && m.room) {
    tail = "-room" + *m.room;
  }
  return fmt::format("{:04}-{}-{}{}.json", n, capture::message_kind_name(m.kind), transfer_backend_name(*m.backend),
                     tail);
}

/// A ZMTP stream that breaks its own grammar is malformed input (exit 2).
void refuse_broken_streams(const std::string& pcap, const capture::CaptureReport& r)
{
  for (const capture::FlowReport& f : r.flows) {
    if (f.verdict == capture::FlowVerdict::failed && f.error) {
      throw InputError(fmt::format("{}: flow {}", pcap, flow_label(f)),
                       fmt::format("stream byte {}: {}", f.error->offset, f.error->what));
    }
  }
}

struct Written
{
  std::size_t message = 0;
  std::string path;
};

/// Writes each classified message as it completes, so memory does not grow with
/// the capture (the analyzer keeps only what the summary needs).
class CaptureWriter
{
public:
  explicit CaptureWriter(const CaptureOptions& o) : m_options(o) {}

  void operator()(const capture::FoundMessage& m, const wire::Frames& frames, const capture::FlowReport& f)
  {
    // What the analyzer lists is written: every registration, the first
    // --max-transfer-infos TransferInfos (the rest are counted).
    if (!m.listed_as || m.kind == capture::MessageKind::unclassified) {
      return;
    }
    if (!m_checked_dir) {
      std::error_code ec;
      // The directories this run creates, deepest first, for discard().
      for (std::filesystem::path p = m_options.out; !p.empty() && !std::filesystem::exists(p, ec);
           p = p.parent_path()) {
        m_made_dirs.push_back(p);
        if (p == p.parent_path()) {
          break;
        }
      }
      m_checked_dir = true;
      std::filesystem::create_directories(m_options.out, ec);
      if (ec) {
        throw InputError(m_options.out, "cannot create the output directory: " + ec.message());
      }
    }
    io::Capture c;
    c.backend = *m.backend;
    c.kind = m.kind == capture::MessageKind::registration ? io::CaptureKind::registration
                                                          : io::CaptureKind::transfer_info;
    c.frames = frames;
    c.host = capture::address_text(f.src.address);
    c.time = capture::timestamp_text(m.time);
    c.note = "pdcheck capture: " + capture::message_description(m);
    c.flow = io::CaptureFlow{capture::endpoint_text(f.src), capture::endpoint_text(f.dst), m.offset, m_options.pcap};
    const std::string path = (std::filesystem::path(m_options.out) / file_name(m_written.size() + 1, m)).string();
    io::save_capture(path, c);
    m_written.push_back({*m.listed_as, path});
  }

  const std::vector<Written>& written() const { return m_written; }

  /// Removes what this run wrote (and the directories this run made, when
  /// they are left empty), so an input error never leaves half a capture in --out
  /// for `check --decode-capture` to read as if it were whole. Never throws.
  void discard() noexcept
  {
    std::error_code ec;
    for (const Written& w : m_written) {
      std::filesystem::remove(w.path, ec);
    }
    m_written.clear();
    for (const std::filesystem::path& dir : m_made_dirs) {
      if (!std::filesystem::is_empty(dir, ec) || !std::filesystem::remove(dir, ec)) {
        break;
      }
    }
  }

private:
  const CaptureOptions& m_options;
  bool m_checked_dir = false;
  std::vector<std::filesystem::path> m_made_dirs; ///< created by this run, deepest first
  std::vector<Written> m_written;
};

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

std::string summary_text(const CaptureOptions& o, const io::PcapSummary& s, const std::vector<Written>& written)
{
  const capture::CaptureReport& r = s.report;
  std::string out = fmt::format("pcap     {} · {} · link type {} · {} packets ({} TCP, {} outside --port/--host)\n",
                                o.pcap, s.format, s.linktype_name, r.packets, r.tcp_packets, r.filtered_out);
  if (r.ip_fragments > 0) {
    out += fmt::format("         {} TCP packets were IP fragments (not reassembled, their flows show gaps)\n",
                       r.ip_fragments);
  }
  std::size_t zmtp = 0;
  std::size_t other = 0;
  for (const capture::FlowReport& f : r.flows) {
    (f.verdict == capture::FlowVerdict::zmtp ? zmtp : other) += 1;
  }
  out += fmt::format("flows    {} TCP flow(s): {} ZMTP, {} other\n", r.flows.size(), zmtp, other);
  for (const capture::FlowReport& f : r.flows) {
    if (f.verdict != capture::FlowVerdict::zmtp) {
      continue;
    }
    out += fmt::format("  {}  ZMTP {} {}{} · {} bytes · {} message(s) · {}\n", flow_label(f), f.zmtp_version,
                       f.mechanism, f.socket_type.empty() ? "" : " " + f.socket_type, f.stream_bytes,
                       f.message_count, flow_state(f));
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
      out += fmt::format("unclassified: {} stream byte {}: {} frame(s): {}\n", flow_label(r.flows[m.flow]), m.offset,
                         m.frame_count, m.problem);
    }
  }
  if (r.transfer_infos > o.max_transfer_infos) {
    out += fmt::format("{} more TransferInfo(s) counted but not written (--max-transfer-infos {})\n",
                       r.transfer_infos - o.max_transfer_infos, o.max_transfer_infos);
  }
  if (!written.empty()) {
    out += fmt::format("wrote {} capture file(s) to {}/\n", written.size(), o.out);
    for (const Written& w : written) {
      out += fmt::format("  {}  {}\n", w.path, capture::message_description(r.messages[w.message]));
    }
  } else {
    out += "no registration or TransferInfo found: nothing written\n";
  }
  return out;
}

nlohmann::ordered_json summary_json(const CaptureOptions& o, const io::PcapSummary& s,
                                    const std::vector<Written>& written)
{
  const capture::CaptureReport& r = s.report;
  nlohmann::ordered_json j;
  j["pcap"] = o.pcap;
  j["format"] = s.format;
  j["linktype"] = s.linktype;
  j["linktype_name"] = s.linktype_name;
  j["packets"] = r.packets;
  j["tcp_packets"] = r.tcp_packets;
  j["filtered_out"] = r.filtered_out;
  j["ip_fragments"] = r.ip_fragments;
  j["message_count"] = r.message_count;
  j["by_kind"] = r.by_kind;
  j["transfer_infos_not_written"] = r.transfer_infos > o.max_transfer_infos ? r.transfer_infos - o.max_transfer_infos : 0;
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
  for (const Written& w : written) {
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
  j["out"] = o.out;
  return j;
}

Verdict run_capture_command(const CaptureOptions& o, CommandContext& ctx)
{
  capture::AnalyzerOptions a = analyzer_options(o);
  CaptureWriter writer(o);
  a.on_message = [&writer](const capture::FoundMessage& m, const capture::FlowReport& f, const wire::Frames& frames) {
    writer(m, frames, f);
  };
  io::PcapSummary s;
  try {
    s = io::analyze_pcap(o.pcap, a);
    refuse_broken_streams(o.pcap, s.report);
  } catch (...) {
    writer.discard();
    throw;
  }
  if (o.report.format == "json") {
    *ctx.out << summary_json(o, s, writer.written()).dump(2) << "\n";
  } else {
    *ctx.out << summary_text(o, s, writer.written());
  }
  // Finding nothing is an answer, not an error: the summary says why.
  return Verdict::ok;
}

} // namespace

void install_capture(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<CaptureOptions>();
  CLI::App* cmd = app.add_subcommand(
    "capture", "Extract SGLang PD registrations and TransferInfos from a pcap/pcapng (ZMQ over TCP) as capture files");
  cmd->add_option("pcap", o->pcap, "pcap or pcapng file (tcpdump -w), - for standard input")->required();
  cmd->add_option("--port", o->ports, "Only TCP flows from or to this port (repeatable): a decode or prefill rank_port")
    ->check(CLI::Range(1, 65535));
  cmd->add_option("--host", o->host, "Only TCP flows from or to this IPv4/IPv6 address");
  cmd->add_option("--out", o->out, "Directory for the capture files (created when needed)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "Transfer backend of the messages: auto (guard frames), mooncake, mori, nixl")
    ->check(CLI::IsMember({"auto", "mooncake", "mori", "nixl"}))
    ->capture_default_str();
  cmd->add_option("--max-transfer-infos", o->max_transfer_infos,
                  "Write and list at most this many TransferInfos (all are counted); registrations are always written")
    ->capture_default_str();
  add_report_options(cmd, o->report);
  cmd->callback([o, &ctx] { ctx.verdict = run_capture_command(*o, ctx); });
}

} // namespace pdcheck::cli
