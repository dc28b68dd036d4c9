#pragma once

// TCP plumbing of the probe: the out-of-band handshake and the TCP transport.
// Every connect, accept, read and write runs under a deadline (poll), partial
// reads and writes loop, and a closed peer is reported as such, never as a
// hang (rc_pingpong blocks forever; perftest does one read and hopes).

#include "probe/probe_error.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pdcheck::probe {

/// A point in time after which an operation fails with ProbeError.
class Deadline
{
public:
  static Deadline after(double seconds);
  static Deadline never();
  /// Milliseconds left for poll(): -1 for never, 0 when expired.
  int remaining_ms() const;
  bool expired() const { return remaining_ms() == 0; }

private:
  std::chrono::steady_clock::time_point m_at;
  bool m_never = false;
};

/// Move-only owner of a file descriptor.
class Fd
{
public:
  Fd() = default;
  explicit Fd(int fd) : m_fd(fd) {}
  Fd(Fd&& other) noexcept : m_fd(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();

  int get() const { return m_fd; }
  explicit operator bool() const { return m_fd >= 0; }
  int release()
  {
    const int fd = m_fd;
    m_fd = -1;
    return fd;
  }

private:
  int m_fd = -1;
};

/// "HOST:PORT" or "[V6]:PORT"; throws InputError naming `option`.
struct HostPort
{
  std::string host;
  int port = 0;
};
HostPort parse_host_port(const std::string& text, const std::string& option);

/// A listening TCP socket. Port 0 lets the OS choose (tests, the data port).
class Listener
{
public:
  /// Throws ProbeError(phase) when the address cannot be bound.
  static Listener bind(const std::string& host, int port, Phase phase);
  int port() const { return m_port; }
  /// For poll(): readable when a connection waits to be accepted.
  int fd() const { return m_fd.get(); }
  /// Waits for one connection until `deadline`; throws ProbeError(phase) on timeout.
  Fd accept(Deadline deadline, Phase phase) const;

private:
  Fd m_fd;
  int m_port = 0;
};

/// Connects until `deadline`, retrying refused connections (the peer may not
/// listen yet); throws ProbeError(phase) naming the address on timeout.
Fd connect_to(const std::string& host, int port, Deadline deadline, Phase phase);

/// Sends or receives exactly `size` bytes; throws ProbeError(phase) on timeout
/// or when the peer closes ("peer closed the connection").
void send_all(int fd, const void* data, std::size_t size, Deadline deadline, Phase phase);
void recv_exact(int fd, void* data, std::size_t size, Deadline deadline, Phase phase);

/// One handshake/control message: a 4-byte big-endian length and a JSON object.
/// The largest message the probe sends is the decode's hello, whose regions
/// grow with ranks x state entries: 330 KB for the largest servable catalog
/// layout (Kimi-Linear, attention TP 32, 2560 entries) with every number at its
/// widest (tests/unit/probe/test_hostile_peer.cpp). The cap leaves more than 10x
/// room for that, and keeps what a hostile peer can make this end parse (the
/// tree of a small message costs up to ~20x its text) near 100 MB.
inline constexpr std::size_t k_max_message = std::size_t{4} << 20;
void send_message(int fd, const nlohmann::json& message, Deadline deadline, Phase phase);
/// Receives the message `expected` names ("hello", "transfer_info or bye"):
/// throws ProbeError(phase) naming it for a frame over k_max_message, JSON
/// nested deeper than k_max_json_depth (util/json_limits.hpp) or text that is
/// not a JSON object (a non-pdcheck peer).
nlohmann::json recv_message(int fd, Deadline deadline, Phase phase, std::string_view expected);

} // namespace pdcheck::probe
