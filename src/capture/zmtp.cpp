#include "capture/zmtp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace pdcheck::capture {

namespace {

constexpr std::uint8_t k_more = 0x01;
constexpr std::uint8_t k_long = 0x02;
constexpr std::uint8_t k_command = 0x04;
constexpr std::uint8_t k_reserved = 0xF8;

std::string printable(std::span<const std::uint8_t> bytes)
{
  std::string out;
  for (std::uint8_t b : bytes) {
    out += (b >= 0x20 && b < 0x7F) ? static_cast<char>(b) : '?';
  }
  return out;
}

std::uint32_t be32(const std::uint8_t* p)
{
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

} // namespace

void ZmtpParser::fail(std::uint64_t offset, std::string what)
{
  m_state = State::failed;
  m_error = ZmtpError{offset, std::move(what)};
}

bool ZmtpParser::inside_message() const
{
  return (m_state == State::handshake || m_state == State::traffic) && (m_in_message || m_part != Part::flags);
}

void ZmtpParser::greeting_byte(std::uint8_t b)
{
  const std::size_t i = m_greeting_len;
  m_greeting[m_greeting_len++] = b;
  // signature: 0xFF, 8 bytes of padding, 0x7F; then version major, minor.
  if (i == 0 && b != 0xFF) {
    m_state = State::not_zmtp;
    return;
  }
  if (i == 9 && (b & 0x01) != 0x01) {
    m_state = State::not_zmtp;
    return;
  }
  if (i == 10) {
    m_major = b;
    if (b < 3) {
      fail(10, fmt::format("ZMTP version {} greeting: pdcheck reads ZMTP 3.x (libzmq 4), as SGLang's pyzmq speaks", b));
    }
    return;
  }
  if (i == 11) {
    m_minor = b;
    return;
  }
  if (m_greeting_len < 64) {
    return;
  }
  const auto* mech = reinterpret_cast<const char*>(&m_greeting[12]);
  m_mechanism.assign(mech, strnlen(mech, 20));
  if (m_mechanism != "NULL" && m_mechanism != "PLAIN") {
    fail(12, fmt::format("security mechanism '{}': the stream is encrypted or not one pdcheck can read (NULL and "
                         "PLAIN only)",
                         printable(std::span<const std::uint8_t>(&m_greeting[12], m_mechanism.size()))));
    return;
  }
  m_state = State::handshake;
}

void ZmtpParser::header_done()
{
  if (m_body_size > k_max_frame) {
    fail(m_frame_at + 1, fmt::format("frame size {} is beyond the {} bytes any PD message uses", m_body_size,
                                     k_max_frame));
    return;
  }
  take_spare_body();
  m_body.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(m_body_size, 1u << 20)));
  m_part = Part::body;
}

void ZmtpParser::take_spare_body()
{
  if (!m_spare.empty()) {
    m_body = std::move(m_spare.back());
    m_spare.pop_back();
  }
  m_body.clear();
}

std::size_t ZmtpParser::whole_frames(std::span<const std::uint8_t> bytes, std::uint64_t packet, const Sink& sink,
                                     Timestamp time)
{
  std::size_t at = 0;
  while (m_state == State::traffic && bytes.size() - at >= 2) {
    const std::uint8_t f = bytes[at];
    if ((f & (k_reserved | k_command)) != 0) {
      break; // commands and bad flags take the byte-wise path, which reports them
    }
    std::size_t header = 2;
    std::uint64_t size = bytes[at + 1];
    if ((f & k_long) != 0) {
      if (bytes.size() - at < 9) {
        break;
      }
      header = 9;
      size = 0;
      for (std::size_t k = 1; k <= 8; ++k) {
        size = (size << 8) | bytes[at + k];
      }
    }
    if (size > k_max_frame || size > bytes.size() - at - header) {
      break;
    }
    m_frame_at = m_offset + at;
    if (!m_in_message) {
      m_packet = packet;
      m_time = time;
    }
    m_flags = f;
    m_body_size = size;
    take_spare_body();
    const auto body = bytes.subspan(at + header, static_cast<std::size_t>(size));
    m_body.assign(body.begin(), body.end());
    at += header + static_cast<std::size_t>(size);
    body_done(sink);
  }
  m_offset += at;
  return at;
}

void ZmtpParser::command(const std::vector<std::uint8_t>& body, std::uint64_t at)
{
  if (body.empty() || body.size() < 1u + body[0]) {
    fail(at, "command frame too short for its name");
    return;
  }
  const std::string name(body.begin() + 1, body.begin() + 1 + body[0]);
  if (name == "READY") {
    std::size_t i = 1u + body[0];
    while (i < body.size()) {
      const std::size_t name_len = body[i];
      if (i + 1 + name_len + 4 > body.size()) {
        fail(at + i, "READY property runs past the command");
        return;
      }
      const std::string key(body.begin() + static_cast<std::ptrdiff_t>(i + 1),
                            body.begin() + static_cast<std::ptrdiff_t>(i + 1 + name_len));
      const std::uint32_t value_len = be32(&body[i + 1 + name_len]);
      const std::size_t value_at = i + 1 + name_len + 4;
      if (value_at + value_len > body.size()) {
        fail(at + i, fmt::format("READY property '{}' value of {} bytes runs past the command", key, value_len));
        return;
      }
      m_properties[key] = printable(std::span<const std::uint8_t>(body).subspan(value_at, value_len));
      i = value_at + value_len;
    }
    m_state = State::traffic;
    return;
  }
  if (name == "ERROR") {
    const std::size_t i = 1u + body[0];
    const std::size_t len = i < body.size() ? body[i] : 0;
    fail(at, fmt::format("the peer sent ERROR '{}'",
                         printable(std::span<const std::uint8_t>(body).subspan(std::min(i + 1, body.size()),
                                                                               std::min(len, body.size() - std::min(i + 1, body.size()))))));
    return;
  }
  // HELLO / WELCOME / INITIATE (PLAIN), PING / PONG, SUBSCRIBE / CANCEL: nothing to keep.
}

void ZmtpParser::body_done(const Sink& sink)
{
  m_part = Part::flags;
  if ((m_flags & k_command) != 0) {
    command(m_body, m_frame_at);
    return;
  }
  if (m_state != State::traffic) {
    fail(m_frame_at, "message frame before the security handshake finished (no READY command yet)");
    return;
  }
  if (!m_in_message) {
    m_in_message = true;
    m_message.offset = m_frame_at;
    m_message.packet = m_packet;
    m_message.time = m_time;
  }
  m_message.frames.push_back(std::move(m_body));
  m_body = {};
  if ((m_flags & k_more) == 0) {
    sink(m_message);
    for (auto& f : m_message.frames) {
      m_spare.push_back(std::move(f));
    }
    m_message.frames.clear();
    m_in_message = false;
  }
}

void ZmtpParser::feed(std::span<const std::uint8_t> bytes, std::uint64_t packet, const Sink& sink, Timestamp time)
{
  std::size_t i = 0;
  while (i < bytes.size()) {
    if (m_state == State::not_zmtp || m_state == State::failed) {
      return;
    }
    if (m_state == State::greeting) {
      greeting_byte(bytes[i]);
      ++i;
      ++m_offset;
      continue;
    }
    if (m_part == Part::flags && m_state == State::traffic) {
      // Frames that lie whole in these bytes are read at once; the byte-wise
      // reading below takes over at the first that does not.
      i += whole_frames(bytes.subspan(i), packet, sink, time);
      if (i == bytes.size()) {
        break;
      }
    }
    switch (m_part) {
    case Part::flags: {
      const std::uint8_t f = bytes[i];
      m_frame_at = m_offset;
      if (!m_in_message) {
        m_packet = packet; // the packet that carried the message's first byte
        m_time = time;
      }
      ++i;
      ++m_offset;
      if ((f & k_reserved) != 0) {
        fail(m_frame_at, fmt::format("frame flags 0x{:02x}: reserved bits set (not a ZMTP 3 frame header)", f));
        return;
      }
      if ((f & k_command) != 0 && (f & k_more) != 0) {
        fail(m_frame_at, "command frame with the MORE flag");
        return;
      }
      if ((f & k_command) != 0 && m_in_message) {
        fail(m_frame_at, "command frame inside a multipart message");
        return;
      }
      m_flags = f;
      m_size_len = 0;
      m_size_need = (f & k_long) != 0 ? 8 : 1;
      m_part = Part::size;
      break;
    }
    case Part::size: {
      m_size_bytes[m_size_len++] = bytes[i];
      ++i;
      ++m_offset;
      if (m_size_len == m_size_need) {
        m_body_size = 0;
        for (std::size_t k = 0; k < m_size_len; ++k) {
          m_body_size = (m_body_size << 8) | m_size_bytes[k];
        }
        header_done();
        if (m_state == State::failed) {
          return;
        }
        if (m_body_size == 0) {
          body_done(sink);
        }
      }
      break;
    }
    case Part::body: {
      const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(m_body_size - m_body.size(), bytes.size() - i));
      m_body.insert(m_body.end(), bytes.begin() + static_cast<std::ptrdiff_t>(i),
                    bytes.begin() + static_cast<std::ptrdiff_t>(i + take));
      i += take;
      m_offset += take;
      if (m_body.size() == m_body_size) {
        body_done(sink);
      }
      break;
    }
    }
  }
}

} // namespace pdcheck::capture
