#pragma once

// ZMTP 3.x (rfc.zeromq.org specs 23 and 37), read incrementally from one
// direction of a TCP stream: the 64-byte greeting, the security handshake
// commands (NULL: READY; PLAIN: HELLO / WELCOME / INITIATE / READY), then
// frames — short (1-byte size) or long (8-byte size), MORE chaining them into
// multipart messages. Memory stays bounded by the largest message.

#include "capture/packet.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pdcheck::capture {

/// One multipart message: where its first byte sits in the stream and which
/// packet carried that byte, and when.
struct ZmtpMessage
{
  std::vector<std::vector<std::uint8_t>> frames;
  std::uint64_t offset = 0;
  std::uint64_t packet = 0;
  Timestamp time;
};

/// Why a stream could not be read; `offset` is the stream byte at fault.
struct ZmtpError
{
  std::uint64_t offset = 0;
  std::string what;
};

class ZmtpParser
{
public:
  enum class State {
    greeting,    ///< fewer than the greeting's 64 bytes seen so far
    handshake,   ///< greeting done, security handshake not finished
    traffic,     ///< READY exchanged: message frames
    not_zmtp,    ///< the stream does not begin with a ZMTP signature
    failed,      ///< see error()
  };

  /// Gets each complete message; valid only during the call (the parser reuses
  /// the frame buffers for the next message, so steady state allocates nothing).
  using Sink = std::function<void(const ZmtpMessage&)>;

  /// Feeds the next in-order bytes; every message they complete goes to `sink`.
  void feed(std::span<const std::uint8_t> bytes, std::uint64_t packet, const Sink& sink, Timestamp time = {});

  State state() const { return m_state; }
  const std::optional<ZmtpError>& error() const { return m_error; }
  std::uint64_t consumed() const { return m_offset; }
  /// The stream ended in the middle of a frame or of a multipart message.
  bool inside_message() const;

  int version_major() const { return m_major; }
  int version_minor() const { return m_minor; }
  const std::string& mechanism() const { return m_mechanism; }
  /// Metadata of the READY command ("Socket-Type" -> "PUSH", "Identity" -> ...).
  const std::map<std::string, std::string>& properties() const { return m_properties; }

  /// Frames larger than this are refused as implausible for PD messages.
  static constexpr std::uint64_t k_max_frame = 1ull << 30;

private:
  void fail(std::uint64_t offset, std::string what);
  void greeting_byte(std::uint8_t b);
  void header_done();
  void take_spare_body();
  /// Reads the message frames that lie whole in `bytes`, from a frame's first
  /// byte on, and says how many bytes they took: no per-byte state machine and
  /// no allocation once the frame buffers are warm.
  std::size_t whole_frames(std::span<const std::uint8_t> bytes, std::uint64_t packet, const Sink& sink, Timestamp time);
  void body_done(const Sink& sink);
  void command(const std::vector<std::uint8_t>& body, std::uint64_t at);

  State m_state = State::greeting;
  std::optional<ZmtpError> m_error;
  std::uint64_t m_offset = 0; ///< stream bytes consumed

  // Greeting.
  std::uint8_t m_greeting[64] = {};
  std::size_t m_greeting_len = 0;
  int m_major = 0;
  int m_minor = 0;
  std::string m_mechanism;

  // Current frame.
  enum class Part { flags, size, body };
  Part m_part = Part::flags;
  std::uint8_t m_flags = 0;
  std::uint64_t m_frame_at = 0;
  std::uint8_t m_size_bytes[8] = {};
  std::size_t m_size_len = 0;
  std::size_t m_size_need = 0;
  std::uint64_t m_body_size = 0;
  std::vector<std::uint8_t> m_body;

  // Current message; emptied frame buffers wait in m_spare for reuse.
  ZmtpMessage m_message;
  std::vector<std::vector<std::uint8_t>> m_spare;
  bool m_in_message = false;
  std::uint64_t m_packet = 0;
  Timestamp m_time;

  std::map<std::string, std::string> m_properties;
};

} // namespace pdcheck::capture
