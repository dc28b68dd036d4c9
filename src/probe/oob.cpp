#include "probe/oob.hpp"

#include "util/json_limits.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <algorithm>
#include <limits>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace pdcheck::probe {

Deadline Deadline::after(double seconds)
{
  // A billion seconds (31 years) is "never" for any probe, and keeps the
  // clock's integer far from overflow whatever a sum of timeouts comes to.
  constexpr double k_longest = 1e9;
  Deadline d;
  d.m_at = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                std::chrono::duration<double>(std::clamp(seconds, 0.0, k_longest)));
  return d;
}

Deadline Deadline::never()
{
  Deadline d;
  d.m_never = true;
  return d;
}

int Deadline::remaining_ms() const
{
  if (m_never) {
    return -1;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(m_at - std::chrono::steady_clock::now());
  // Round a positive remainder below 1 ms up, so poll() still waits a little.
  // poll() takes an int: past 24 days, wait the most it can (the caller loops).
  if (left.count() <= 0) {
    return m_at > std::chrono::steady_clock::now() ? 1 : 0;
  }
  return static_cast<int>(std::min<std::int64_t>(left.count(), std::numeric_limits<int>::max()));
}

Fd& Fd::operator=(Fd&& other) noexcept
{
  if (this != &other) {
    if (m_fd >= 0) {
      ::close(m_fd);
    }
    m_fd = other.release();
  }
  return *this;
}

Fd::~Fd()
{
  if (m_fd >= 0) {
    ::close(m_fd);
  }
}

HostPort parse_host_port(const std::string& text, const std::string& option)
{
  HostPort hp;
  std::string port_text;
  if (!text.empty() && text[0] == '[') {
    const auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      throw InputError(option, "expected [IPV6]:PORT, got '" + text + "'");
    }
    hp.host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos) {
      throw InputError(option, "expected HOST:PORT, got '" + text + "'");
    }
    hp.host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
  }
  if (port_text.empty() || port_text.size() > 5 ||
      port_text.find_first_not_of("0123456789") != std::string::npos || std::stoi(port_text) > 65535) {
    throw InputError(option, "port must be 0..65535, got '" + port_text + "'");
  }
  hp.port = std::stoi(port_text);
  if (hp.host.empty()) {
    hp.host = "0.0.0.0";
  }
  return hp;
}

namespace {

void set_nonblocking(int fd)
{
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void tune(int fd)
{
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

struct AddrInfo
{
  addrinfo* list = nullptr;
  ~AddrInfo()
  {
    if (list != nullptr) {
      ::freeaddrinfo(list);
    }
  }
};

void resolve(const std::string& host, int port, bool passive, AddrInfo& out, Phase phase)
{
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  const std::string service = std::to_string(port);
  // getaddrinfo's failure test is != 0 (EAI codes are not errno values).
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &out.list);
  if (rc != 0) {
    throw ProbeError(phase, fmt::format("cannot resolve '{}': {}", host, ::gai_strerror(rc)),
                     "the host name or address");
  }
}

/// Waits until `fd` is ready for `events`; false on timeout.
bool wait_for(int fd, short events, Deadline deadline)
{
  pollfd p{fd, events, 0};
  for (;;) {
    const int rc = ::poll(&p, 1, deadline.remaining_ms());
    if (rc > 0) {
      return true;
    }
    if (rc == 0) {
      return false;
    }
    if (errno != EINTR) {
      return false;
    }
  }
}

} // namespace

Listener Listener::bind(const std::string& host, int port, Phase phase)
{
  AddrInfo ai;
  resolve(host, port, true, ai, phase);
  int last_errno = 0;
  for (addrinfo* a = ai.list; a != nullptr; a = a->ai_next) {
    Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (!fd) {
      last_errno = errno;
      continue;
    }
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd.get(), 16) != 0) {
      last_errno = errno;
      continue;
    }
    set_nonblocking(fd.get());
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len);
    Listener l;
    l.m_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
    l.m_fd = std::move(fd);
    return l;
  }
  throw ProbeError(phase, fmt::format("cannot listen on {}:{}: {}", host, port, std::strerror(last_errno)),
                   "that the port is free and the address belongs to this host");
}

Fd Listener::accept(Deadline deadline, Phase phase) const
{
  for (;;) {
    if (!wait_for(m_fd.get(), POLLIN, deadline)) {
      throw ProbeError(phase, fmt::format("no peer connected to port {} before the deadline", m_port),
                       "that the other end runs and can reach this host and port (firewall), or raise --timeout");
    }
    Fd fd(::accept4(m_fd.get(), nullptr, nullptr, SOCK_CLOEXEC));
    if (fd) {
      set_nonblocking(fd.get());
      tune(fd.get());
      return fd;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED) {
      throw ProbeError(phase, fmt::format("accept failed: {}", std::strerror(errno)), "");
    }
  }
}

Fd connect_to(const std::string& host, int port, Deadline deadline, Phase phase)
{
  std::string last = "no address";
  for (;;) {
    AddrInfo ai;
    resolve(host, port, false, ai, phase);
    for (addrinfo* a = ai.list; a != nullptr; a = a->ai_next) {
      Fd fd(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
      if (!fd) {
        continue;
      }
      set_nonblocking(fd.get());
      int rc = ::connect(fd.get(), a->ai_addr, a->ai_addrlen);
      if (rc != 0 && errno == EINPROGRESS) {
        if (!wait_for(fd.get(), POLLOUT, deadline)) {
          last = "timed out";
          continue;
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
        rc = err == 0 ? 0 : -1;
        errno = err;
      }
      if (rc == 0) {
        tune(fd.get());
        return fd;
      }
      last = std::strerror(errno);
    }
    if (deadline.expired()) {
      throw ProbeError(phase, fmt::format("cannot connect to {}:{}: {}", host, port, last),
                       "that `pdcheck probe serve` runs there, the address and port, firewalls, or raise --timeout");
    }
    // The server may not listen yet: retry, as the probe ends start in any order.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

void send_all(int fd, const void* data, std::size_t size, Deadline deadline, Phase phase)
{
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      size -= static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      if (!wait_for(fd, POLLOUT, deadline)) {
        throw ProbeError(phase, "timed out sending to the peer", "that the peer is alive, or raise --timeout");
      }
      continue;
    }
    throw ProbeError(phase, fmt::format("peer closed the connection ({})", std::strerror(errno)),
                     "the peer's own report for why it stopped");
  }
}

void recv_exact(int fd, void* data, std::size_t size, Deadline deadline, Phase phase)
{
  auto* p = static_cast<std::uint8_t*>(data);
  while (size > 0) {
    const ssize_t n = ::recv(fd, p, size, 0);
    if (n > 0) {
      p += n;
      size -= static_cast<std::size_t>(n);
      continue;
    }
    if (n == 0) {
      throw ProbeError(phase, "peer closed the connection", "the peer's own report for why it stopped");
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
      if (!wait_for(fd, POLLIN, deadline)) {
        throw ProbeError(phase, "timed out waiting for the peer", "that the peer is alive, or raise --timeout");
      }
      continue;
    }
    throw ProbeError(phase, fmt::format("receive failed: {}", std::strerror(errno)), "");
  }
}

void send_message(int fd, const nlohmann::json& message, Deadline deadline, Phase phase)
{
  const std::string text = message.dump();
  const std::uint32_t n = static_cast<std::uint32_t>(text.size());
  const std::uint8_t header[4] = {static_cast<std::uint8_t>(n >> 24), static_cast<std::uint8_t>(n >> 16),
                                  static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
  send_all(fd, header, 4, deadline, phase);
  send_all(fd, text.data(), text.size(), deadline, phase);
}

nlohmann::json recv_message(int fd, Deadline deadline, Phase phase, std::string_view expected)
{
  constexpr const char* not_a_probe = "that the peer is `pdcheck probe` of the same version, not another service";
  std::uint8_t header[4];
  recv_exact(fd, header, 4, deadline, phase);
  const std::size_t n = (std::size_t{header[0]} << 24) | (std::size_t{header[1]} << 16) | (std::size_t{header[2]} << 8) |
                        std::size_t{header[3]};
  if (n > k_max_message) {
    throw ProbeError(phase,
                     fmt::format("the peer's {} is {} bytes, over the limit of {} bytes for a probe message", expected,
                                 n, k_max_message),
                     not_a_probe);
  }
  std::string text(n, '\0');
  recv_exact(fd, text.data(), n, deadline, phase);
  if (json_shape(text).too_deep_at) {
    throw ProbeError(phase,
                     fmt::format("the peer's {} nests JSON deeper than {} levels, the limit for a probe message",
                                 expected, k_max_json_depth),
                     not_a_probe);
  }
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    throw ProbeError(phase, fmt::format("the peer's {} is not a JSON object: not a pdcheck probe peer", expected),
                     not_a_probe);
  }
  return j;
}

} // namespace pdcheck::probe
