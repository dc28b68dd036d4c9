// `pdcheck capture PCAP`: the registration and TransferInfo messages of a packet
// capture, written as capture files that `decode` and `check --decode-capture`
// read, with a summary of flows, messages and decode ranks.
#include "capture/analyzer.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/capture_file.hpp"
#include "io/pcap_file.hpp"
#include "report/capture_render.hpp"
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
  std::size_t max_registrations = 1000;
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
  a.max_listed_registrations = o.max_registrations;
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

using Written = report::CaptureRun::Written;

/// Writes each classified message as it completes, so memory does not grow with
/// the capture (the analyzer keeps only what the summary needs).
class CaptureWriter
{
public:
  explicit CaptureWriter(const CaptureOptions& o) : m_options(o) {}

  void operator()(const capture::FoundMessage& m, const wire::Frames& frames, const capture::FlowReport& f)
  {
    // What the analyzer lists is written: the first --max-registrations
    // distinct registrations (repeats are counted) and the first
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
  const report::PcapFile pcap{o.pcap, s.format, s.linktype, s.linktype_name};
  const report::CaptureRun run{o.out, o.max_transfer_infos, o.max_registrations, writer.written()};
  *ctx.out << (o.report.format == "json" ? report::capture_summary_to_json(pcap, s.report, run).dump(2) + "\n"
                                         : report::capture_summary_to_text(pcap, s.report, run));
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
    ->check(integer_range(1, 65535));
  cmd->add_option("--host", o->host, "Only TCP flows from or to this IPv4/IPv6 address");
  cmd->add_option("--out", o->out, "Directory for the capture files (created when needed)")->capture_default_str();
  cmd->add_option("--backend", o->backend, "Transfer backend of the messages: auto (guard frames), mooncake, mori, nixl")
    ->check(CLI::IsMember({"auto", "mooncake", "mori", "nixl"}))
    ->capture_default_str();
  cmd->add_option("--max-transfer-infos", o->max_transfer_infos,
                  "Write and list at most this many TransferInfos (all are counted)")
    ->capture_default_str();
  cmd->add_option("--max-registrations", o->max_registrations,
                  "Write and list at most this many distinct registrations (all are counted; a repeat of one "
                  "written, same sender, endpoint, rank and frames, is counted as a repeat)")
    ->capture_default_str();
  add_report_options(cmd, o->report);
  cmd->callback([o, &ctx] { ctx.verdict = run_capture_command(*o, ctx); });
}

} // namespace pdcheck::cli
