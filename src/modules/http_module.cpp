// pdcheck-http.so: plain HTTP/1.1 GET through cpp-httplib, behind the C entry
// point of io/http_module_abi.h; loaded by io/http_client.cpp on the first
// request. Debian's cpp-httplib is built with OpenSSL, zlib and brotli: kept
// here, their loading and OpenSSL's initialisation cost only the commands
// that send requests.

#include "io/http_module_abi.h"

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

namespace {

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

int failed(int kind, const std::string& text, int* failure_kind, char* failure, int failure_size)
{
  *failure_kind = kind;
  if (failure != nullptr && failure_size > 0) {
    std::snprintf(failure, static_cast<std::size_t>(failure_size), "%s", text.c_str());
  }
  return 1;
}

int get(const char* host, int port, const char* target, long long timeout_ms, const char* user_agent,
        unsigned long long max_body, pdcheck_http_sink append, void* sink, int* status, int* failure_kind,
        char* failure, int failure_size)
{
  const std::chrono::milliseconds timeout(timeout_ms);
  // A fresh client per request: pdcheck sends a few requests, and a closed
  // connection each time is what SGLang's own decode (python requests) does too.
  httplib::Client client(host, port);
  client.set_keep_alive(false);
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
  const httplib::Headers headers = {{"User-Agent", user_agent}, {"Accept", "application/json, text/plain"}};
  const auto start = std::chrono::steady_clock::now();
  unsigned long long received = 0;
  bool too_big = false;
  bool cut = false;
  httplib::Result res = [&] {
    RequestWatchdog watchdog(client, start + timeout);
    httplib::Result r = client.Get(target, headers, [&](const char* data, std::size_t n) {
      too_big = received + n > max_body;
      if (!too_big) {
        received += n;
        append(sink, data, n);
      }
      return !too_big;
    });
    cut = watchdog.finish();
    return r;
  }();
  if (res) {
    *status = res->status;
    return 0;
  }
  if (cut && res.error() != httplib::Error::ConnectionTimeout) {
    // The answer may have been on its way, a byte at a time: not "no answer".
    return failed(PDCHECK_HTTP_TIMEOUT, "no complete answer", failure_kind, failure, failure_size);
  }
  if (too_big) {
    return failed(PDCHECK_HTTP_BROKEN, "the answer is larger than " + std::to_string(max_body) + " bytes",
                  failure_kind, failure, failure_size);
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  switch (res.error()) {
  case httplib::Error::Connection:
    return failed(PDCHECK_HTTP_CONNECT, "cannot connect", failure_kind, failure, failure_size);
  case httplib::Error::ConnectionTimeout:
    return failed(PDCHECK_HTTP_CONNECT_TIMEOUT, "no answer", failure_kind, failure, failure_size);
  case httplib::Error::Read:
    // The library says "Read" both for a read timeout and for a peer that hung
    // up; the clock tells them apart. The read timeout and the watchdog run
    // out together; whichever stopped the request, the caller sees the same words.
    if (elapsed >= timeout * 9 / 10) {
      return failed(PDCHECK_HTTP_TIMEOUT, "no complete answer", failure_kind, failure, failure_size);
    }
    return failed(PDCHECK_HTTP_BROKEN, "the connection closed before a complete HTTP answer", failure_kind, failure,
                  failure_size);
  case httplib::Error::Write:
    return failed(PDCHECK_HTTP_BROKEN, "the request could not be sent", failure_kind, failure, failure_size);
  default:
    return failed(PDCHECK_HTTP_BROKEN, "no HTTP answer (" + httplib::to_string(res.error()) + ")", failure_kind,
                  failure, failure_size);
  }
}

/// No C++ exception crosses the C interface: one (out of memory, a thread
/// that cannot start) is a failure with its text.
int get_entry(const char* host, int port, const char* target, long long timeout_ms, const char* user_agent,
              unsigned long long max_body, pdcheck_http_sink append, void* sink, int* status, int* failure_kind,
              char* failure, int failure_size) noexcept
{
  try {
    return get(host, port, target, timeout_ms, user_agent, max_body, append, sink, status, failure_kind, failure,
               failure_size);
  } catch (const std::exception& e) {
    return failed(PDCHECK_HTTP_BROKEN, std::string("the HTTP client failed: ") + e.what(), failure_kind, failure,
                  failure_size);
  } catch (...) {
    return failed(PDCHECK_HTTP_BROKEN, "the HTTP client failed", failure_kind, failure, failure_size);
  }
}

} // namespace

extern "C" __attribute__((visibility("default"))) const pdcheck_http_module* pdcheck_http_entry(void)
{
  static const pdcheck_http_module entry_points = {PDCHECK_HTTP_ABI_VERSION, get_entry};
  return &entry_points;
}
