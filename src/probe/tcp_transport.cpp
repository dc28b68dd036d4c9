#include "probe/tcp_transport.hpp"

#include "probe/peer_fields.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <vector>

namespace pdcheck::probe {

namespace {

constexpr std::uint32_t k_frame_magic = 0x31574450; // "PDW1"
constexpr std::size_t k_header_size = 40;
constexpr std::size_t k_reply_size = 16;
enum : std::uint32_t { k_status_ok = 0, k_status_access = 1, k_status_flushed = 2 };

void put_le(std::uint8_t* p, std::uint64_t v, int width)
{
  for (int i = 0; i < width; ++i) {
    p[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }
}

std::uint64_t get_le(const std::uint8_t* p, int width)
{
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) {
    v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  }
  return v;
}

std::string status_text(std::uint32_t s)
{
  switch (s) {
  case k_status_ok: return "";
  case k_status_access: return "remote access error";
  case k_status_flushed: return "work request flushed error";
  default: return fmt::format("unknown status {}", s);
  }
}

/// recv_exact that gives up when `stop` is set (checked every 100 ms), so the
/// receiver thread can be joined while the initiator still holds the socket.
bool recv_stoppable(int fd, void* data, std::size_t size, const std::atomic<bool>& stop)
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
      return false;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return false;
    }
    pollfd pf{fd, POLLIN, 0};
    while (::poll(&pf, 1, 100) == 0) {
      if (stop.load()) {
        return false;
      }
    }
  }
  return true;
}

} // namespace

TcpTransport::TcpTransport(std::string bind_host, double op_timeout, std::size_t max_outstanding)
  : m_bind_host(std::move(bind_host)),
    m_op_timeout(op_timeout),
    m_max_outstanding(max_outstanding)
{
  // Bound up front so local_endpoint() can advertise the port in the handshake.
  m_listener = Listener::bind(m_bind_host, 0, Phase::connect);
}

TcpTransport::~TcpTransport()
{
  shutdown();
}

RegionKey TcpTransport::register_region(void* addr, std::uint64_t length)
{
  std::lock_guard lock(m_regions_mutex);
  RegionKey k;
  k.addr = reinterpret_cast<std::uint64_t>(addr);
  k.length = length;
  k.rkey = m_next_key++;
  k.lkey = k.rkey;
  m_regions[k.rkey] = Region{static_cast<std::uint8_t*>(addr), length};
  return k;
}

nlohmann::json TcpTransport::local_endpoint() const
{
  return {{"data_port", m_listener ? m_listener->port() : 0}};
}

std::uint8_t* TcpTransport::resolve(std::uint32_t rkey, std::uint64_t addr, std::uint64_t length)
{
  std::lock_guard lock(m_regions_mutex);
  auto it = m_regions.find(rkey);
  if (it == m_regions.end()) {
    return nullptr;
  }
  const auto base = reinterpret_cast<std::uint64_t>(it->second.addr);
  if (addr < base || addr - base > it->second.length || length > it->second.length - (addr - base)) {
    return nullptr;
  }
  return it->second.addr + (addr - base);
}

void TcpTransport::connect(const nlohmann::json& peer, bool initiator, Deadline deadline)
{
  if (initiator) {
    const PeerObject endpoint(peer, "the peer's endpoint", Phase::connect);
    const std::string host = peer.value("host", "127.0.0.1");
    const int port = endpoint.integer_in<int>("data_port", 0, 0, 65535);
    if (port == 0) {
      throw ProbeError(Phase::connect, "the peer advertised no TCP data port", "that both ends use --transport tcp");
    }
    m_data = connect_to(host, port, deadline, Phase::connect);
    return;
  }
  // The target must not block here: the initiator connects only after the
  // handshake that follows, so accepting happens on the receiver thread.
  m_receiver = std::thread([this, deadline] { receive_loop(deadline); });
}

void TcpTransport::receive_loop(Deadline accept_deadline)
{
  try {
    Fd conn;
    // Accept in short slices so shutdown() is not held up by a peer that never comes.
    while (!conn) {
      if (m_stop.load()) {
        return;
      }
      try {
        conn = m_listener->accept(Deadline::after(0.1), Phase::connect);
      } catch (const ProbeError&) {
        if (accept_deadline.expired()) {
          throw;
        }
      }
    }
    bool error_state = false;
    std::vector<std::uint8_t> scratch;
    for (;;) {
      std::uint8_t h[k_header_size];
      if (!recv_stoppable(conn.get(), h, sizeof h, m_stop)) {
        return; // initiator closed (normal end) or we were stopped
      }
      if (get_le(h, 4) != k_frame_magic) {
        std::lock_guard lock(m_error_mutex);
        m_receiver_error = "data connection carried a frame without the PDW1 magic";
        return;
      }
      const bool signalled = (get_le(h + 4, 4) & 1) != 0;
      const std::uint64_t wr_id = get_le(h + 8, 8);
      const std::uint64_t addr = get_le(h + 16, 8);
      const auto rkey = static_cast<std::uint32_t>(get_le(h + 24, 4));
      const std::uint64_t length = get_le(h + 32, 8);
      std::uint8_t* dst = error_state ? nullptr : resolve(rkey, addr, length);
      std::uint32_t status = k_status_ok;
      if (dst == nullptr) {
        status = error_state ? k_status_flushed : k_status_access;
        error_state = true;
        // Consume the payload without placing it, as the NIC drops it.
        std::uint64_t left = length;
        scratch.resize(1 << 20);
        while (left > 0) {
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, scratch.size()));
          if (!recv_stoppable(conn.get(), scratch.data(), n, m_stop)) {
            return;
          }
          left -= n;
        }
      } else if (!recv_stoppable(conn.get(), dst, length, m_stop)) {
        return;
      }
      if (signalled || status != k_status_ok) {
        std::uint8_t r[k_reply_size] = {};
        put_le(r, wr_id, 8);
        put_le(r + 8, status, 4);
        send_all(conn.get(), r, sizeof r, Deadline::after(m_op_timeout), Phase::completion);
      }
    }
  } catch (const std::exception& e) {
    std::lock_guard lock(m_error_mutex);
    m_receiver_error = e.what();
  }
}

void TcpTransport::post_writes(std::span<const WriteWork> batch)
{
  if (!m_data) {
    throw ProbeError(Phase::write, "TCP data connection not established", "connect before posting");
  }
  for (const WriteWork& w : batch) {
    std::uint8_t h[k_header_size] = {};
    put_le(h, k_frame_magic, 4);
    put_le(h + 4, w.signalled ? 1 : 0, 4);
    put_le(h + 8, w.wr_id, 8);
    put_le(h + 16, w.remote_addr, 8);
    put_le(h + 24, w.rkey, 4);
    put_le(h + 32, w.length, 8);
    const Deadline d = Deadline::after(m_op_timeout);
    send_all(m_data.get(), h, sizeof h, d, Phase::write);
    send_all(m_data.get(), w.local, w.length, d, Phase::write);
  }
}

std::size_t TcpTransport::poll(std::span<Completion> out, Deadline deadline)
{
  std::size_t n = 0;
  while (n < out.size()) {
    if (n > 0) {
      pollfd pf{m_data.get(), POLLIN, 0};
      if (::poll(&pf, 1, 0) <= 0) {
        break;
      }
    }
    std::uint8_t r[k_reply_size];
    try {
      recv_exact(m_data.get(), r, sizeof r, deadline, Phase::completion);
    } catch (const ProbeError&) {
      if (n == 0 && deadline.expired()) {
        return 0;
      }
      throw;
    }
    const auto status = static_cast<std::uint32_t>(get_le(r + 8, 4));
    out[n++] = Completion{get_le(r, 8), status == k_status_ok, status_text(status)};
  }
  return n;
}

std::vector<std::string> TcpTransport::shutdown()
{
  std::vector<std::string> issues;
  m_stop = true;
  if (m_data) {
    ::shutdown(m_data.get(), SHUT_RDWR);
    m_data = Fd();
  }
  if (m_receiver.joinable()) {
    m_receiver.join();
  }
  std::lock_guard lock(m_error_mutex);
  if (m_receiver_error) {
    issues.push_back("tcp receiver: " + *m_receiver_error);
    m_receiver_error.reset();
  }
  return issues;
}

} // namespace pdcheck::probe
