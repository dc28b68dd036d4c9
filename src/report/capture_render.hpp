#pragma once

// `pdcheck capture PCAP`'s summary (flows, messages, decode ranks, the files
// written) and the header `pdcheck decode` prints about a capture file, as text
// or JSON (schemas/capture-summary.schema.json, decode.schema.json).

#include "capture/analyzer.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace pdcheck::report {

/// The packet capture read, as libpcap saw it.
struct PcapFile
{
  std::string path;
  std::string format; ///< "pcap" or "pcapng"
  int linktype = 0;
  std::string linktype_name;
};

/// What the capture run was asked and what it wrote.
struct CaptureRun
{
  std::string out;                    ///< --out
  std::size_t max_transfer_infos = 0; ///< --max-transfer-infos
  struct Written
  {
    std::size_t message = 0; ///< index into CaptureReport::messages
    std::string path;
  };
  std::vector<Written> written;
};

std::string capture_summary_to_text(const PcapFile& pcap, const capture::CaptureReport& report, const CaptureRun& run);
nlohmann::ordered_json capture_summary_to_json(const PcapFile& pcap, const capture::CaptureReport& report,
                                               const CaptureRun& run);

/// A capture file's own description, shown above its decoded frames.
struct CaptureFileInfo
{
  std::string origin;
  std::size_t frames = 0;
  bool synthetic = false;
  std::string host;
  std::string time;
  std::string note;
};

/// "capture FILE (N frames, host H, TIME)\nnote: ...\n".
std::string capture_file_to_text(const CaptureFileInfo& c);
nlohmann::json capture_file_to_json(const CaptureFileInfo& c);

} // namespace pdcheck::report
