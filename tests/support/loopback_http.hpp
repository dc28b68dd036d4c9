#pragma once

// An HTTP server on 127.0.0.1 for tests of pdcheck's read-only HTTP clients
// (bootstrap, server info): it answers every method and path through one
// function and records each request, so a test can prove what was sent.

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <httplib.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pdcheck::test {

struct Reply
{
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};

/// An HTTP server on 127.0.0.1, on a port the kernel picks, answering every
/// method and path through one function and recording each request.
class LoopbackServer
{
public:
  using Handler = std::function<Reply(const httplib::Request&)>;

  explicit LoopbackServer(Handler handler) : m_handler(std::move(handler))
  {
    // Pre-routing sees every request whatever its method or path, before any
    // route table could answer it, so nothing reaches the server unrecorded.
    m_server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_requests.push_back({req.method, req.path, req.target});
      }
      const Reply r = m_handler(req);
      res.status = r.status;
      res.set_content(r.body, r.content_type);
      return httplib::Server::HandlerResponse::Handled;
    });
    m_port = m_server.bind_to_any_port("127.0.0.1");
    REQUIRE(m_port > 0);
    m_thread = std::thread([this] { m_server.listen_after_bind(); });
    while (!m_server.is_running()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  ~LoopbackServer()
  {
    m_server.stop();
    m_thread.join();
  }

  int port() const { return m_port; }
  std::string url() const { return fmt::format("http://127.0.0.1:{}", m_port); }

  struct Seen
  {
    std::string method;
    std::string path;
    std::string target;
  };
  std::vector<Seen> requests() const
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_requests;
  }
  std::vector<std::string> targets() const
  {
    std::vector<std::string> out;
    for (const Seen& s : requests()) {
      out.push_back(s.method + " " + s.target);
    }
    return out;
  }

private:
  Handler m_handler;
  httplib::Server m_server;
  int m_port = 0;
  std::thread m_thread;
  mutable std::mutex m_mutex;
  std::vector<Seen> m_requests;
};

} // namespace pdcheck::test
