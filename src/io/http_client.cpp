#include "io/http_client.hpp"

#include "io/http_module_abi.h"
#include "platform/loadable_module.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

constexpr const char* k_http_module_file = "pdcheck-http.so";

static_assert(PDCHECK_HTTP_RESOLVE == static_cast<int>(HttpFailureKind::resolve) &&
              PDCHECK_HTTP_REFUSED == static_cast<int>(HttpFailureKind::refused) &&
              PDCHECK_HTTP_CONNECT_TIMEOUT == static_cast<int>(HttpFailureKind::connect_timeout) &&
              PDCHECK_HTTP_CONNECT == static_cast<int>(HttpFailureKind::connect) &&
              PDCHECK_HTTP_TIMEOUT == static_cast<int>(HttpFailureKind::timeout) &&
              PDCHECK_HTTP_BROKEN == static_cast<int>(HttpFailureKind::broken),
              "the HTTP module's failure kinds are HttpFailureKind's");

/// The module, loaded on the first request; throws CannotRun when it is missing.
const pdcheck_http_module& http_module()
{
  const platform::LoadedModule loaded =
    platform::load_module(k_http_module_file, PDCHECK_HTTP_ENTRY, PDCHECK_HTTP_ABI_VERSION);
  if (loaded.entry_points == nullptr) {
    throw CannotRun(loaded.missing ? fmt::format("pdcheck's HTTP module is not installed ({}): reinstall pdcheck, "
                                                 "or set {} to the directory that holds it",
                                                 loaded.error, platform::k_module_dir_variable)
                                   : fmt::format("cannot load pdcheck's HTTP module: {}", loaded.error));
  }
  return *static_cast<const pdcheck_http_module*>(loaded.entry_points);
}

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
  const pdcheck_http_module& http = http_module();
  // Bootstrap answers are a few hundred bytes; a cap keeps a wrong server (a
  // file or media server on that port) from filling memory.
  std::string body;
  const auto append = [](void* sink, const char* data, unsigned long long n) {
    static_cast<std::string*>(sink)->append(data, static_cast<std::size_t>(n));
  };
  int status = 0;
  int kind = PDCHECK_HTTP_BROKEN;
  std::array<char, 256> failure{};
  if (http.get(m_host.c_str(), m_port, target.c_str(), timeout.count(), "pdcheck/" PDCHECK_VERSION,
               k_max_answer_bytes, append, &body, &status, &kind, failure.data(), static_cast<int>(failure.size())) == 0) {
    return HttpAnswer{status, std::move(body)};
  }
  const bool known = kind >= PDCHECK_HTTP_RESOLVE && kind <= PDCHECK_HTTP_BROKEN;
  return HttpFailure{known ? static_cast<HttpFailureKind>(kind) : HttpFailureKind::broken, failure.data()};
}

} // namespace pdcheck::io
