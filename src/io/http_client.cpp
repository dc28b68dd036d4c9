#include "io/http_client.hpp"

#include <fmt/format.h>
#include <httplib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
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
  httplib::Result res = client.Get(target, headers, [&](const char* data, std::size_t n) {
    too_big = body.size() + n > k_max_answer_bytes;
    if (!too_big) {
      body.append(data, n);
    }
    return !too_big;
  });
  if (res) {
    return HttpAnswer{res->status, std::move(body)};
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
    if (elapsed >= timeout * 9 / 10) {
      return HttpFailure{HttpFailureKind::timeout, "no answer"};
    }
    return HttpFailure{HttpFailureKind::broken, "the connection closed before a complete HTTP answer"};
  case httplib::Error::Write: return HttpFailure{HttpFailureKind::broken, "the request could not be sent"};
  default: return HttpFailure{HttpFailureKind::broken, "no HTTP answer (" + httplib::to_string(res.error()) + ")"};
  }
}

} // namespace pdcheck::io
