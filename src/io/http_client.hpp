#pragma once

// The HTTP adapter of `pdcheck bootstrap`: plain HTTP/1.1 through cpp-httplib
// (in pdcheck-http.so, loaded on the first request: io/http_module_abi.h),
// GET only. Keeping every other method out of the interface makes "pdcheck never
// changes a prefill server" a property of the type, not of the caller's care.

#include <chrono>
#include <optional>
#include <string>
#include <variant>

namespace pdcheck::io {

/// A complete answer, whatever its status.
struct HttpAnswer
{
  int status = 0;
  std::string body;
};

enum class HttpFailureKind {
  resolve,         ///< the host name does not resolve
  refused,         ///< nothing listens on the port
  connect_timeout, ///< no TCP answer at all (filtered port, unreachable host)
  connect,         ///< another connect error (network unreachable, ...)
  timeout,         ///< connected, but no complete answer in time
  broken,          ///< the connection closed early or the answer was not HTTP
};

/// Why no answer came, as one line without the URL (the caller adds it). For
/// the two timeout kinds the text is "no answer" (connecting) or "no complete
/// answer": the caller knows which limit (its own deadline or the per-request
/// one) cut the wait.
struct HttpFailure
{
  HttpFailureKind kind = HttpFailureKind::broken;
  std::string text;
};

/// Sends GET requests to one plain-HTTP server; it has no other method.
class HttpGetClient
{
public:
  HttpGetClient(std::string host, int port);

  /// Opens and closes one TCP connection, so that "no such host", "connection
  /// refused" and "no answer" can be told apart (the HTTP library reports all
  /// three as one connection error). nullopt when the port accepts.
  std::optional<HttpFailure> probe(std::chrono::milliseconds timeout) const;

  /// `GET target` (path and query), waiting at most `timeout` in all: to
  /// connect, send and read the whole answer, however slowly it trickles in.
  /// Any status is an answer; only a missing answer is a failure. Throws
  /// CannotRun when pdcheck's HTTP module is missing.
  std::variant<HttpAnswer, HttpFailure> get(const std::string& target, std::chrono::milliseconds timeout) const;

private:
  std::string m_host;
  int m_port = 0;
};

} // namespace pdcheck::io
