#include "io/http_client.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <condition_variable>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace pdcheck::io {

namespace {

constexpr std::size_t k_max_answer_bytes = 1 << 20;

/// Closes a socket descriptor on every path out of probe().
struct FdGuard
{
  int fd = -1;
  ~FdGuard()
  {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

/// cpp-httplib's timeouts are per read: a server that sends a byte just before
/// each read times out would hold one request for ever. The watchdog stops the
/// request at its deadline, whatever is arriving. httplib::Client::stop() is
/// the library's thread-safe way to abort a request in flight (it shuts the
/// socket down); while the client is still connecting it waits, and the
/// connection timeout bounds that.
class RequestWatchdog
{
public:
  RequestWatchdog(httplib::Client& client, std::chrono::steady_clock::time_point deadline)
    : m_thread([this, &client, deadline] {
        std::unique_lock lock(m_mutex);
        if (m_done.wait_until(lock, deadline, [this] { return m_finished; })) {
          return;
        }
        m_cut = true;
        // Again until the request returns: a stop() that came before the
        // socket was in use has nothing to shut down yet.
        while (!m_finished) {
          client.stop();
          m_done.wait_for(lock, std::chrono::milliseconds(20), [this] { return m_finished; });
        }
      })
  {
  }
  RequestWatchdog(const RequestWatchdog&) = delete;
  RequestWatchdog& operator=(const RequestWatchdog&) = delete;
  ~RequestWatchdog() { finish(); }

  /// Ends the watch (the request returned); true when the deadline cut it.
  bool finish()
  {
    {
      const std::lock_guard lock(m_mutex);
      m_finished = true;
    }
    m_done.notify_all();
    if (m_thread.joinable()) {
      m_thread.join();
    }
    return m_cut;
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_done;
  bool m_finished = false;
  bool m_cut = false;
  std::thread m_thread; ///< last: starts once the members it uses exist
};

} // namespace

HttpGetClient::HttpGetClient(std::string host, int port) : m_host(std::move(host)), m_port(port) {}

std::optional<HttpFailure> HttpGetClient::probe(std::chrono::milliseconds timeout) const
{
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(m_port);
  if (const int rc = ::getaddrinfo(m_host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return HttpFailure{HttpFailureKind::resolve, fmt::format("cannot resolve host '{}': {}", m_host, ::gai_strerror(rc))};
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, &::freeaddrinfo);
  HttpFailure last{HttpFailureKind::connect, "no address to connect to"};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    FdGuard s{::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol)};
    if (s.fd < 0) {
      last = HttpFailure{HttpFailureKind::connect, std::strerror(errno)};
      continue;
    }
    int err = 0;
    if (::connect(s.fd, a->ai_addr, a->ai_addrlen) != 0) {
      err = errno;
      if (err == EINPROGRESS) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{s.fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(std::max<long long>(left.count(), 0)));
        if (ready == 0) {
          last = HttpFailure{HttpFailureKind::connect_timeout, "no answer"};
          continue;
        }
        socklen_t len = sizeof err;
        if (ready < 0 || ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
          err = errno;
        }
      }
    }
    if (err == 0) {
      return std::nullopt;
    }
    last = HttpFailure{err == ECONNREFUSED ? HttpFailureKind::refused : HttpFailureKind::connect, std::strerror(err)};
  }
  return last;
}

std::variant<HttpAnswer, HttpFailure> HttpGetClient::get(const std::string& target,
                                                         std::chrono::milliseconds timeout) const
{
  // A fresh client per request: pdcheck sends a few requests, and a closed
  // connection each time is what SGLang's own decode (python requests) does too.
  httplib::Client client(m_host, m_port);
  client.set_keep_alive(false);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  const httplib::Headers headers = {{"User-Agent", "pdcheck/" PDCHECK_VERSION}, {"Accept", "application/json, text/plain"}};
  const auto start = std::chrono::steady_clock::now();
  // Bootstrap answers are a few hundred bytes; a cap keeps a wrong server (a
  // file or media server on that port) from filling memory.
  std::string body;
  bool too_big = false;
  bool cut = false;
  httplib::Result res = [&] {
    RequestWatchdog watchdog(client, start + timeout);
    httplib::Result r = client.Get(target, headers, [&](const char* data, std::size_t n) {
      too_big = body.size() + n > k_max_answer_bytes;
      if (!too_big) {
        body.append(data, n);
      }
      return !too_big;
    });
    cut = watchdog.finish();
    return r;
  }();
  if (res) {
    return HttpAnswer{res->status, std::move(body)};
  }
  if (cut && res.error() != httplib::Error::ConnectionTimeout) {
    // The answer may have been on its way, a byte at a time: not "no answer".
    return HttpFailure{HttpFailureKind::timeout, "no complete answer"};
  }
  if (too_big) {
    return HttpFailure{HttpFailureKind::broken, fmt::format("the answer is larger than {} bytes", k_max_answer_bytes)};
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  switch (res.error()) {
  case httplib::Error::Connection: return HttpFailure{HttpFailureKind::connect, "cannot connect"};
  case httplib::Error::ConnectionTimeout:
    return HttpFailure{HttpFailureKind::connect_timeout, "no answer"};
  case httplib::Error::Read:
    // The library says "Read" both for a read timeout and for a peer that hung
    // up; the clock tells them apart.
    // The read timeout and the watchdog run out together; whichever stopped
    // the request, the caller sees the same words.
    if (elapsed >= timeout * 9 / 10) {
      return HttpFailure{HttpFailureKind::timeout, "no complete answer"};
    }
    return HttpFailure{HttpFailureKind::broken, "the connection closed before a complete HTTP answer"};
  case httplib::Error::Write: return HttpFailure{HttpFailureKind::broken, "the request could not be sent"};
  default: return HttpFailure{HttpFailureKind::broken, "no HTTP answer (" + httplib::to_string(res.error()) + ")"};
  }
}

} // namespace pdcheck::io
