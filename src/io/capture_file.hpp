#pragma once

#include "wire/bytes.hpp"
#include "wire/generation.hpp"
#include "wire/registration.hpp"
#include "wire/transfer_info.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::io {

/// Which message a capture holds.
enum class CaptureKind { registration, transfer_info };

std::string_view capture_kind_name(CaptureKind k);

/// Where `pdcheck capture` found a message: the TCP flow (sender -> receiver),
/// the byte of that stream its first frame starts at, and the pcap it came from.
struct CaptureFlow
{
  std::string src;
  std::string dst;
  std::uint64_t stream_offset = 0;
  std::string pcap;
};

/// One captured ZMQ message (schemas/capture.schema.json):
/// `{"backend": "mooncake"|"mori"|"nixl", "kind": "registration"|"transfer_info",
///   "frames_base64": [...]}` (or "frames_hex"), plus optional metadata.
struct Capture
{
  std::string origin; ///< the file, for error messages
  TransferBackend backend = TransferBackend::mooncake;
  CaptureKind kind = CaptureKind::registration;
  wire::Frames frames;  ///< frame 0 first, guard frame included
  bool hex = false;     ///< frames were written as frames_hex
  std::optional<wire::Generation> generation; ///< "generation": what the capturer says it is
  std::string host;
  std::string time;
  std::string note;
  bool synthetic = false; ///< written by `pdcheck encode`: pointers are made up
  std::optional<CaptureFlow> flow; ///< written by `pdcheck capture`
};

/// Parses capture JSON. Throws InputError: JSON syntax errors as
/// "<origin>:<line>:<col>", a bad key or value as "<origin>: <key>", a frame that
/// is not strict base64 / hex as "<origin>: frame N" with "byte K of the base64
/// text: expected ...".
Capture parse_capture(std::string_view text, const std::string& origin);

/// Reads (io/input_file.hpp: a regular file of at most 256 MiB) and parses a
/// capture file. Throws InputError when it cannot be read.
Capture load_capture(const std::string& path);

/// The capture as JSON text (frames_base64 unless `hex`), ending in a newline.
std::string capture_to_json(const Capture& capture);

/// Writes capture_to_json to `path` whole or not at all (io/output_file.hpp).
/// Throws InputError when it cannot be written.
void save_capture(const std::string& path, const Capture& capture);

/// The registration a capture holds, strictly decoded (a capture standing in for
/// a decode side). `generation` overrides both detection and the capture's own
/// "generation". Throws InputError for a transfer_info capture or malformed frames.
wire::Registration registration_from_capture(const Capture& capture,
                                             std::optional<wire::Generation> generation = std::nullopt);

/// The same for a transfer_info capture.
wire::TransferInfo transfer_info_from_capture(const Capture& capture,
                                              std::optional<wire::Generation> generation = std::nullopt);

} // namespace pdcheck::io
