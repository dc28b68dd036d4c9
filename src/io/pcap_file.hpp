#pragma once

// Reads a pcap or pcapng file (libpcap) and runs every packet through the
// capture analyzer. The only place that includes <pcap.h>.

#include "capture/analyzer.hpp"

#include <string>

namespace pdcheck::io {

struct PcapSummary
{
  std::string format;    ///< "pcap" or "pcapng" (libpcap's view of the file)
  int linktype = 0;      ///< LINKTYPE_ value
  std::string linktype_name;
  capture::CaptureReport report;
};

/// Analyzes `path` ("-" for standard input). Throws InputError naming the file
/// when it cannot be opened, is not pcap/pcapng, is cut short, uses a link type
/// pdcheck cannot read, or holds a malformed IP/TCP header ("<path>: packet N",
/// "byte K: ...").
PcapSummary analyze_pcap(const std::string& path, const capture::AnalyzerOptions& options);

} // namespace pdcheck::io
