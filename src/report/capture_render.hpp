#pragma once

// `pdcheck capture PCAP`'s summary (flows, messages, decode ranks, the files
// written) and the header `pdcheck decode` prints about a capture file, as text
// or JSON (schemas/capture-summary.schema.json, decode.schema.json).

#include "capture/analyzer.hpp"
#include "wire/frame_problem.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
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
  std::size_t max_registrations = 0;  ///< --max-registrations
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

/// `pdcheck decode --mode sglang`: what a prefill of one generation made of a
/// capture file's frames: the decoded message, or where SGLang raises.
struct SglangDecode
{
  CaptureFileInfo file;
  std::string kind;       ///< "registration" or "transfer_info"
  std::string backend;
  std::string generation; ///< the parser's
  std::optional<wire::FrameProblem> problem;
  std::vector<std::string> notes;
  nlohmann::json body;    ///< the decoded message as JSON (null when SGLang raises)
  std::string body_text;  ///< ... and as text
};

nlohmann::json sglang_decode_to_json(const SglangDecode& d);
std::string sglang_decode_to_text(const SglangDecode& d);

} // namespace pdcheck::report
