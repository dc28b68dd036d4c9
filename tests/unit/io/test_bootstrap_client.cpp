// `pdcheck bootstrap` against a loopback HTTP server started by each test: it
// serves the recorded answers of tests/data/bootstrap (and examples/bootstrap)
// with each SGLang generation's routing rules, and records every request, so
// the tests can prove that pdcheck only ever sends GET /health and GET /route.

#include "check/bootstrap.hpp"
#include "io/bootstrap_client.hpp"
#include "io/side_file.hpp"
#include "util/error.hpp"

#include "../../support/loopback_http.hpp"
#include "../../support/run_pdcheck.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <functional>
#include <mutex>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace pdcheck;
using pdcheck::test::LoopbackServer;
using pdcheck::test::Reply;

namespace {

std::string read_file(const std::string& path)
{
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string data(const std::string& rel)
{
  return read_file(std::string(PDCHECK_SOURCE_DIR) + "/tests/data/bootstrap/" + rel);
}

sglang::Side decode_side()
{
  return io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/examples/bootstrap/decode.yaml");
}

/// A server on 127.0.0.1 that sends `prefix` of its answer at once and the
/// rest a byte every `gap`, so no read of the client ever times out. It stops
/// by itself after `lifetime`, or when the test ends.
class TricklingServer
{
public:
  TricklingServer(std::string prefix, std::string slow, std::chrono::milliseconds gap,
                  std::chrono::milliseconds lifetime = std::chrono::seconds(10))
    : m_prefix(std::move(prefix)), m_slow(std::move(slow)), m_gap(gap),
      m_end(std::chrono::steady_clock::now() + lifetime)
  {
    m_listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(m_listener, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(m_listener, 8) == 0);
    socklen_t len = sizeof a;
    ::getsockname(m_listener, reinterpret_cast<sockaddr*>(&a), &len);
    m_port = ntohs(a.sin_port);
    m_thread = std::thread([this] { serve(); });
  }
  ~TricklingServer()
  {
    m_stop = true;
    m_thread.join();
    ::close(m_listener);
  }

  std::string url() const { return fmt::format("http://127.0.0.1:{}", m_port); }

private:
  bool running() const { return !m_stop && std::chrono::steady_clock::now() < m_end; }

  /// True while `fd` has room (and the client has not gone): waits at most 50 ms.
  static bool wait(int fd, short events)
  {
    pollfd p{fd, events, 0};
    return ::poll(&p, 1, 50) > 0 && (p.revents & (POLLERR | POLLHUP)) == 0;
  }

  void serve()
  {
    while (running()) {
      if (!wait(m_listener, POLLIN)) {
        continue;
      }
      const int fd = ::accept4(m_listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        continue;
      }
      answer(fd);
      ::close(fd);
    }
  }

  void answer(int fd)
  {
    // The request, until its blank line (pdcheck's first connection sends none).
    std::string request;
    char buf[1024];
    while (running() && request.find("\r\n\r\n") == std::string::npos) {
      if (!wait(fd, POLLIN)) {
        continue;
      }
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) {
        return;
      }
      request.append(buf, static_cast<std::size_t>(n));
    }
    if (::send(fd, m_prefix.data(), m_prefix.size(), MSG_NOSIGNAL) < 0) {
      return;
    }
    for (const char c : m_slow) {
      const auto next = std::chrono::steady_clock::now() + m_gap;
      while (running() && std::chrono::steady_clock::now() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (!running() || ::send(fd, &c, 1, MSG_NOSIGNAL) != 1) {
        return;
      }
    }
  }

  std::string m_prefix;
  std::string m_slow;
  std::chrono::milliseconds m_gap;
  std::chrono::steady_clock::time_point m_end;
  std::atomic<bool> m_stop{false};
  int m_listener = -1;
  int m_port = 0;
  std::thread m_thread;
};

/// Every request was a GET of /health or /route: never PUT /route, never POST
/// /register_dp_rank or /query_dp_ranks, nothing else.
void require_read_only(const LoopbackServer& server)
{
  const auto seen = server.requests();
  REQUIRE_FALSE(seen.empty());
  for (const auto& r : seen) {
    INFO(r.method << " " << r.target);
    CHECK(r.method == "GET");
    CHECK((r.path == "/health" || r.path == "/route"));
  }
}

enum class Gen { tp_dp, attn_tp_pp, server_info };

/// SGLang's bootstrap server of one generation, serving one recorded folder.
struct Emulated
{
  Gen gen = Gen::server_info;
  std::string dir = "server-info-15";
  int not_ready_info = 0;    ///< answer the first N server-info requests with "not ready"
  std::set<int> missing_tp;  ///< tp ranks that never registered
  std::string info_body;     ///< replaces <dir>/info.json when set
  int registered = 1;        ///< the count in the 503 text
  int info_calls = 0;

  Reply operator()(const httplib::Request& req)
  {
    const auto param = [&](const char* k) { return req.get_param_value(k); };
    const Reply not_found{404, "404: Not Found"};
    if (req.path == "/health") {
      return gen == Gen::tp_dp ? not_found : Reply{200, "OK"};
    }
    if (gen == Gen::server_info && (req.path == "/register_dp_rank" || req.path == "/query_dp_ranks")) {
      return req.method == "POST" ? Reply{200, req.path == "/register_dp_rank" ? "OK" : "{}"} : Reply{405, "405: Method Not Allowed"};
    }
    if (req.path != "/route") {
      return not_found;
    }
    if (req.method == "PUT") {
      return Reply{200, "OK"};
    }
    if (req.method != "GET") {
      return Reply{405, "Method not allowed", "application/json"};
    }
    std::vector<const char*> keys;
    switch (gen) {
    case Gen::tp_dp: keys = {"engine_rank", "target_dp_group"}; break;
    case Gen::attn_tp_pp: keys = {"engine_rank", "target_dp_group", "target_pp_rank"}; break;
    case Gen::server_info: keys = {"prefill_dp_rank", "prefill_cp_rank", "target_tp_rank", "target_pp_rank"}; break;
    }
    bool all_minus_one = true;
    for (const char* k : keys) {
      if (param(k).empty()) {
        return Reply{400, "Missing inputs for bootstrap server."};
      }
      all_minus_one = all_minus_one && param(k) == "-1";
    }
    const bool ready = info_calls >= not_ready_info;
    if (all_minus_one) {
      info_calls += 1;
      if (!ready) {
        if (gen == Gen::server_info) {
          return Reply{503, fmt::format("Prefill server not fully registered yet ({} workers registered).", registered)};
        }
        return Reply{200, data(dir + "/not-ready.json"), "application/json; charset=utf-8"};
      }
      return Reply{200, info_body.empty() ? data(dir + "/info.json") : info_body, "application/json; charset=utf-8"};
    }
    if (gen == Gen::server_info && !ready) {
      return Reply{503, fmt::format("Prefill server not fully registered yet ({} workers registered).", registered)};
    }
    const int tp = std::stoi(param(gen == Gen::server_info ? "target_tp_rank" : "engine_rank"));
    if (missing_tp.count(tp) != 0 || tp > 1) {
      if (gen == Gen::server_info) {
        return Reply{404, fmt::format("Bootstrap info not found for dp_rank={} cp_rank={} tp_rank={} pp_rank={}",
                                      param("prefill_dp_rank"), param("prefill_cp_rank"), tp, param("target_pp_rank"))};
      }
      return Reply{500, data("tp-dp/rank-missing-500.txt")};
    }
    return Reply{200, data(fmt::format("{}/rank-tp{}.json", dir, tp)), "application/json; charset=utf-8"};
  }
};

io::BootstrapOptions fast(int timeout_ms = 3000)
{
  io::BootstrapOptions o;
  o.timeout = std::chrono::milliseconds(timeout_ms);
  o.per_request = std::chrono::milliseconds(std::min(timeout_ms, 2000));
  o.first_backoff = std::chrono::milliseconds(20);
  o.max_backoff = std::chrono::milliseconds(80);
  return o;
}

std::string cannot_run(const std::string& url, const io::BootstrapOptions& o)
{
  try {
    io::fetch_bootstrap(check::parse_bootstrap_url(url), o);
  } catch (const CannotRun& e) {
    return e.what();
  }
  return "no error";
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
int closed_port()
{
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

using Run = test::CliRun;

/// Runs the pdcheck binary from the repository root; stderr joins stdout.
Run pdcheck_cli(const std::string& args)
{
  return test::run_pdcheck(args);
}

} // namespace

TEST_CASE("every known server generation, read-only", "[io][bootstrap]")
{
  struct Case
  {
    Gen gen;
    const char* dir;
    std::vector<std::string> targets;
    check::InfoGeneration generation;
    io::HealthState health;
    std::size_t notes;
  };
  const std::vector<Case> cases = {
    {Gen::tp_dp,
     "tp-dp",
     {"GET /health", "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1",
      "GET /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1", "GET /route?engine_rank=0&target_dp_group=0",
      "GET /route?engine_rank=1&target_dp_group=0"},
     check::InfoGeneration::tp_dp,
     io::HealthState::absent,
     2},
    {Gen::attn_tp_pp,
     "attn-tp-pp",
     {"GET /health", "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1",
      "GET /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1",
      "GET /route?engine_rank=0&target_dp_group=0&target_pp_rank=0",
      "GET /route?engine_rank=1&target_dp_group=0&target_pp_rank=0"},
     check::InfoGeneration::attn_tp_pp,
     io::HealthState::ok,
     1},
    {Gen::server_info,
     "server-info-7",
     {"GET /health", "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1",
      "GET /route?prefill_dp_rank=0&prefill_cp_rank=0&target_tp_rank=0&target_pp_rank=0",
      "GET /route?prefill_dp_rank=0&prefill_cp_rank=0&target_tp_rank=1&target_pp_rank=0"},
     check::InfoGeneration::server_info,
     io::HealthState::ok,
     0},
    {Gen::server_info,
     "server-info-15",
     {"GET /health", "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1",
      "GET /route?prefill_dp_rank=0&prefill_cp_rank=0&target_tp_rank=0&target_pp_rank=0",
      "GET /route?prefill_dp_rank=0&prefill_cp_rank=0&target_tp_rank=1&target_pp_rank=0"},
     check::InfoGeneration::server_info,
     io::HealthState::ok,
     0},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.dir)
    {
      Emulated e;
      e.gen = c.gen;
      e.dir = c.dir;
      LoopbackServer server(std::ref(e));
      const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast());
      CHECK(f.info.generation == c.generation);
      CHECK(f.info.attn_tp_size == 2);
      CHECK(f.health == c.health);
      CHECK(f.notes.size() == c.notes);
      REQUIRE(f.endpoints.size() == 2);
      CHECK(f.endpoints[1].ip == "10.0.0.11");
      CHECK(f.endpoints[1].port == 41002);
      CHECK(f.endpoints[1].rank == check::RankId{0, 0, 1, 0});
      CHECK(server.targets() == c.targets);
      CHECK(f.requests == static_cast<int>(c.targets.size()));
      require_read_only(server);
    }
  }
}

TEST_CASE("notes name an older server and unknown keys", "[io][bootstrap]")
{
  Emulated e;
  e.gen = Gen::tp_dp;
  e.dir = "tp-dp";
  {
    LoopbackServer server(std::ref(e));
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast());
    REQUIRE(f.notes.size() == 2);
    CHECK(f.notes[0] ==
          "GET /health answered 404 404: Not Found: a bootstrap server from before the /health route; going on with /route");
    CHECK(f.notes[1] == "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1 answered "
                        "400 Missing inputs for bootstrap server.: a server from before the four-rank query; asked GET "
                        "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1 instead");
  }
  Emulated future;
  future.dir = "future";
  LoopbackServer server(std::ref(future));
  const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast());
  REQUIRE(f.notes.size() == 1);
  CHECK(f.notes[0] ==
        "the server info has keys this pdcheck does not know (transfer_protocol_version): a newer SGLang? they are ignored");
  CHECK(f.endpoints[0].extra["transport_protocol"] == "rdma");
}

TEST_CASE("a server that is not fully registered yet is asked again", "[io][bootstrap]")
{
  SECTION("503, then ready")
  {
    Emulated e;
    e.not_ready_info = 3;
    LoopbackServer server(std::ref(e));
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast());
    CHECK(f.not_ready_answers == 3);
    CHECK(f.endpoints.size() == 2);
    require_read_only(server);
  }
  SECTION("null sizes of an older server, then ready")
  {
    Emulated e;
    e.gen = Gen::attn_tp_pp;
    e.dir = "attn-tp-pp";
    e.not_ready_info = 2;
    LoopbackServer server(std::ref(e));
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast());
    CHECK(f.not_ready_answers == 2);
    CHECK(f.info.attn_tp_size == 2);
    require_read_only(server);
  }
  SECTION("503 until the timeout")
  {
    Emulated e;
    e.not_ready_info = 1 << 30;
    e.registered = 3;
    LoopbackServer server(std::ref(e));
    const auto start = std::chrono::steady_clock::now();
    CHECK(cannot_run(server.url(), fast(600)) ==
          server.url() + ": the prefill bootstrap server did not become ready within 0.6 s; last answer to GET "
                         "/route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1: 503 "
                         "Prefill server not fully registered yet (3 workers registered).");
    const auto waited = std::chrono::steady_clock::now() - start;
    CHECK(waited >= std::chrono::milliseconds(400));
    CHECK(waited < std::chrono::milliseconds(2000));
    CHECK(server.requests().size() > 3);
    require_read_only(server);
  }
  SECTION("null sizes until the timeout")
  {
    Emulated e;
    e.gen = Gen::tp_dp;
    e.dir = "tp-dp";
    e.not_ready_info = 1 << 30;
    LoopbackServer server(std::ref(e));
    CHECK(cannot_run(server.url(), fast(300)) ==
          server.url() + ": the prefill bootstrap server did not become ready within 0.3 s; last answer to GET "
                         "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1: prefill_tp_size is null: no "
                         "prefill rank has registered yet");
  }
  SECTION("a rank that never registers: 404, reported, the others still read")
  {
    Emulated e;
    e.missing_tp = {1};
    LoopbackServer server(std::ref(e));
    const auto start = std::chrono::steady_clock::now();
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast(300));
    const auto waited = std::chrono::steady_clock::now() - start;
    CHECK(waited >= std::chrono::milliseconds(150));
    CHECK(waited < std::chrono::milliseconds(2000));
    REQUIRE(f.missing_ranks.size() == 1);
    CHECK(check::rank_label(f.missing_ranks[0].first) == "dp 0 cp 0 tp 1 pp 0");
    CHECK(f.missing_ranks[0].second ==
          "404 Bootstrap info not found for dp_rank=0 cp_rank=0 tp_rank=1 pp_rank=0");
    REQUIRE(f.endpoints.size() == 1);
    CHECK(f.endpoints[0].rank.tp == 0);
    require_read_only(server);
  }
  SECTION("every rank missing: each is asked once more after the budget is spent")
  {
    Emulated e;
    e.missing_tp = {0, 1};
    LoopbackServer server(std::ref(e));
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast(300));
    REQUIRE(f.missing_ranks.size() == 2);
    CHECK(f.endpoints.empty());
    // The prefill the info describes: no other finding than the missing ranks.
    const sglang::Side prefill =
      check::prefill_side_from_server(f.info, decode_side(), *find_profile("0.5.20"), "0.5.20", server.url()).side;
    const auto findings = check::bootstrap_findings(io::observed(f), prefill);
    REQUIRE(findings.size() == 2);
    CHECK(findings[1].rule == "bootstrap-rank-missing");
    CHECK(findings[1].message == "prefill rank dp 0 cp 0 tp 1 pp 0 has not registered its endpoint with " +
                                   server.url() +
                                   ": the last answer was 404 Bootstrap info not found for dp_rank=0 cp_rank=0 "
                                   "tp_rank=1 pp_rank=0");
    CHECK(findings[1].severity == Severity::error);
    require_read_only(server);
  }
  SECTION("a rank that never registers on an older server: 500 from its KeyError")
  {
    Emulated e;
    e.gen = Gen::attn_tp_pp;
    e.dir = "attn-tp-pp";
    e.missing_tp = {0};
    LoopbackServer server(std::ref(e));
    const io::BootstrapFetch f = io::fetch_bootstrap(check::parse_bootstrap_url(server.url()), fast(300));
    REQUIRE(f.missing_ranks.size() == 1);
    CHECK(f.missing_ranks[0].second == "500 500 Internal Server Error Server got itself in trouble");
  }
}

TEST_CASE("answers that no SGLang bootstrap server sends", "[io][bootstrap]")
{
  const std::string info_target =
    "GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1";
  SECTION("404 for /route: another server on this port")
  {
    LoopbackServer server([](const httplib::Request& req) {
      return req.path == "/health" ? Reply{200, "{\"status\": \"ok\"}"} : Reply{404, "{\"detail\":\"Not Found\"}"};
    });
    CHECK(cannot_run(server.url(), fast()) ==
          server.url() + ": " + info_target +
            " answered 404 {\"detail\":\"Not Found\"}: not an SGLang prefill bootstrap server (give the prefill's "
            "--disaggregation-bootstrap-port, default 8998)");
    require_read_only(server);
  }
  SECTION("405")
  {
    LoopbackServer server([](const httplib::Request& req) {
      return req.path == "/health" ? Reply{200, "OK"} : Reply{405, data("server-info-15/method-not-allowed-405.txt")};
    });
    CHECK(cannot_run(server.url(), fast()) ==
          server.url() + ": " + info_target +
            " answered 405 Method not allowed: this server refuses GET /route, so it is not an SGLang prefill "
            "bootstrap server");
  }
  SECTION("400 for both queries")
  {
    LoopbackServer server([](const httplib::Request& req) {
      return req.path == "/health" ? Reply{200, "OK"} : Reply{400, data("server-info-15/missing-inputs-400.txt")};
    });
    CHECK(cannot_run(server.url(), fast()) ==
          server.url() +
            ": GET /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1 answered 400 Missing inputs for "
            "bootstrap server.: the server takes neither the current (prefill_dp_rank, ...) nor the older "
            "(engine_rank, ...) query");
  }
  SECTION("200 that is not JSON")
  {
    LoopbackServer server([](const httplib::Request& req) {
      return req.path == "/health" ? Reply{200, "OK"} : Reply{200, "<html><body>hello</body></html>", "text/html"};
    });
    CHECK(cannot_run(server.url(), fast()) ==
          server.url() + ": " + info_target + ": the answer is not JSON: '<html><body>hello</body></html>'");
  }
  SECTION("a rank answer that is not JSON")
  {
    Emulated e;
    LoopbackServer server([&e](const httplib::Request& req) {
      return req.target.find("target_tp_rank=1") != std::string::npos ? Reply{200, "OK"} : e(req);
    });
    CHECK(cannot_run(server.url(), fast()) ==
          server.url() +
            ": GET /route?prefill_dp_rank=0&prefill_cp_rank=0&target_tp_rank=1&target_pp_rank=0: the answer is not "
            "JSON: 'OK'");
  }
  SECTION("an answer too large for any bootstrap server")
  {
    LoopbackServer server([](const httplib::Request&) { return Reply{200, std::string(2 << 20, 'x')}; });
    CHECK(cannot_run(server.url(), fast()) == server.url() + ": GET /health: the answer is larger than 1048576 bytes");
  }
  SECTION("a status outside the protocol")
  {
    LoopbackServer server([](const httplib::Request& req) {
      return req.path == "/health" ? Reply{200, "OK"} : Reply{502, "Bad Gateway"};
    });
    CHECK(cannot_run(server.url(), fast()) == server.url() + ": " + info_target + " answered 502 Bad Gateway");
  }
}

TEST_CASE("servers that cannot be reached", "[io][bootstrap]")
{
  SECTION("connection refused")
  {
    const int port = closed_port();
    CHECK(cannot_run(fmt::format("127.0.0.1:{}", port), fast()) ==
          fmt::format("http://127.0.0.1:{0}: cannot connect: Connection refused (is the prefill server running, and is "
                      "{0} its --disaggregation-bootstrap-port?)",
                      port));
  }
  SECTION("unknown host")
  {
    const std::string text = cannot_run("http://pdcheck-no-such-host.invalid:8998", fast());
    CHECK(text.rfind("http://pdcheck-no-such-host.invalid:8998: cannot resolve host 'pdcheck-no-such-host.invalid': ",
                     0) == 0);
  }
  SECTION("a server that accepts but never answers")
  {
    // listen() without accept(): the kernel completes the handshake, nobody reads.
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    REQUIRE(::listen(s, 8) == 0);
    socklen_t len = sizeof a;
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    const std::string url = fmt::format("http://127.0.0.1:{}", ntohs(a.sin_port));
    io::BootstrapOptions o = fast(5000);
    o.per_request = std::chrono::milliseconds(300);
    CHECK(cannot_run(url, o) == url + ": GET /health: no complete answer within 0.3 s");
    CHECK(cannot_run(url, fast(400)) == url + ": GET /health: no complete answer within the 0.4 s allowed in all");
    ::close(s);
  }
}

TEST_CASE("a server's answer is quoted with its escape sequences escaped", "[io][bootstrap]")
{
  LoopbackServer server([](const httplib::Request& req) {
    return req.path == "/health" ? Reply{200, "OK"} : Reply{502, "\x1b[2J\x1b]0;owned\x07" "Bad Gateway"};
  });
  CHECK(cannot_run(server.url(), fast()) ==
        server.url() +
          ": GET /route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1 answered 502 "
          "\\x1b[2J\\x1b]0;owned\\x07Bad Gateway");
}

TEST_CASE("a server that trickles its answer is cut at the deadline, not at each read", "[io][bootstrap]")
{
  using std::chrono::milliseconds;
  const auto elapsed_for = [](const std::string& url, const io::BootstrapOptions& o, std::string& error) {
    const auto t0 = std::chrono::steady_clock::now();
    error = cannot_run(url, o);
    return std::chrono::steady_clock::now() - t0;
  };
  std::string error;
  SECTION("the status line and headers a byte at a time")
  {
    const TricklingServer server("", "HTTP/1.1 200 OK\r\nX-Padding: " + std::string(200, 'x') + "\r\n\r\n", milliseconds(50));
    const auto took = elapsed_for(server.url(), fast(600), error);
    CHECK(error == server.url() + ": GET /health: no complete answer within the 0.6 s allowed in all");
    CHECK(took < milliseconds(1500));
  }
  SECTION("the body a byte at a time, with the per-request limit the shorter one")
  {
    const TricklingServer server("HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n", std::string(200, 'x'),
                                 milliseconds(50));
    io::BootstrapOptions o = fast(5000);
    o.per_request = milliseconds(400);
    const auto took = elapsed_for(server.url(), o, error);
    CHECK(error == server.url() + ": GET /health: no complete answer within 0.4 s");
    CHECK(took < milliseconds(1500));
  }
}

TEST_CASE("pdcheck bootstrap --timeout is the whole command's deadline", "[io][bootstrap][cli]")
{
  // The issue's server: a byte every 0.7 s. Before the deadline was total, each
  // byte restarted cpp-httplib's read timeout and --timeout 2 ran 30 s.
  const TricklingServer server("", "HTTP/1.1 200 OK\r\n" + std::string(100, 'x'), std::chrono::milliseconds(700));
  const auto t0 = std::chrono::steady_clock::now();
  const Run r = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --timeout 2");
  const auto took = std::chrono::steady_clock::now() - t0;
  CHECK(r.code == 3);
  CHECK(r.out == "pdcheck: cannot run: " + server.url() + ": GET /health: no complete answer within the 2 s allowed in all\n");
  CHECK(took < std::chrono::milliseconds(3500));
}

TEST_CASE("pdcheck bootstrap from the command line", "[io][bootstrap][cli]")
{
  const std::string example = std::string(PDCHECK_SOURCE_DIR) + "/examples/bootstrap/server/";
  // Serves examples/bootstrap/server/ like a ready server-info generation server.
  auto recorded = [&](const httplib::Request& req) -> Reply {
    if (req.path == "/health" && req.method == "GET") {
      return Reply{200, read_file(example + "health.txt")};
    }
    if (req.path != "/route" || req.method != "GET") {
      return Reply{404, "404: Not Found"};
    }
    const std::string dp = req.get_param_value("prefill_dp_rank");
    const std::string cp = req.get_param_value("prefill_cp_rank");
    const std::string tp = req.get_param_value("target_tp_rank");
    const std::string pp = req.get_param_value("target_pp_rank");
    if (dp.empty() || cp.empty() || tp.empty() || pp.empty()) {
      return Reply{400, "Missing inputs for bootstrap server."};
    }
    if (dp == "-1" && cp == "-1" && tp == "-1" && pp == "-1") {
      return Reply{200, read_file(example + "route-info.json"), "application/json; charset=utf-8"};
    }
    const std::string file = example + fmt::format("route-dp{}-cp{}-tp{}-pp{}.json", dp, cp, tp, pp);
    if (std::ifstream(file).good()) {
      return Reply{200, read_file(file), "application/json; charset=utf-8"};
    }
    return Reply{404, fmt::format("Bootstrap info not found for dp_rank={} cp_rank={} tp_rank={} pp_rank={}", dp, cp,
                                  tp, pp)};
  };

  SECTION("the bootstrap example: compatible")
  {
    LoopbackServer server(recorded);
    const Run r = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.rfind(fmt::format("server   {} · GET /health 200 OK · server info of the server-info generation (15 "
                                  "keys)\n"
                                  "  from the server: attn_tp_size 2, attn_cp_size 1, dp_size 1, pp_size 1, page_size "
                                  "64, kv_cache_dtype auto, follow_bootstrap_room true, enable_dsa_cache_layer_split "
                                  "false, prefill_http_port 30000\n"
                                  "  derived: tp_size 2 (attn_tp_size × attn_cp_size)\n",
                                  server.url()),
                      0) == 0);
    CHECK(r.out.find("  assumed: model qwen3-next-80b-a3b (the bootstrap server does not say which model the prefill "
                     "serves; the decode side's)\n") != std::string::npos);
    CHECK(r.out.find("  endpoints: 2 prefill ranks\n"
                     "    dp 0 cp 0 tp 0 pp 0  10.0.0.11:41001\n"
                     "    dp 0 cp 0 tp 1 pp 0  10.0.0.11:41002\n") != std::string::npos);
    CHECK(r.out.find("\nprefill  " + server.url() + " · qwen3-next-80b-a3b") != std::string::npos);
    CHECK(r.out.find("verdict: compatible") != std::string::npos);
    require_read_only(server);
  }
  SECTION("the bootstrap example: page size mismatch, JSON")
  {
    LoopbackServer server(recorded);
    const Run r = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode-page-size-1.yaml --format json");
    INFO(r.out);
    CHECK(r.code == 1);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["verdict"] == "incompatible");
    CHECK(j["server"]["generation"] == "server-info");
    CHECK(j["server"]["endpoints"].size() == 2);
    CHECK(j["check"]["prefill"]["origin"] == server.url());
    bool found = false;
    for (const auto& f : j["check"]["findings"]) {
      if (f["rule"] == "bootstrap-page-size") {
        found = true;
        CHECK(f["runtime_error"] == "RuntimeError: Page size mismatch: prefill server has page_size=64, but decode "
                                    "server has page_size=1. Both servers must use the same --page-size value.");
      }
    }
    CHECK(found);
    std::set<std::string> sources;
    for (const auto& f : j["server"]["facts"]) {
      sources.insert(f["source"].get<std::string>());
    }
    CHECK(sources == std::set<std::string>{"server", "derived", "assumed"});
    require_read_only(server);
  }
  SECTION("exit 3: connection refused, never ready")
  {
    const int port = closed_port();
    const Run refused = pdcheck_cli(fmt::format("bootstrap http://127.0.0.1:{} examples/bootstrap/decode.yaml", port));
    CHECK(refused.code == 3);
    CHECK(refused.out == fmt::format("pdcheck: cannot run: http://127.0.0.1:{0}: cannot connect: Connection refused (is "
                                     "the prefill server running, and is {0} its --disaggregation-bootstrap-port?)\n",
                                     port));
    Emulated e;
    e.not_ready_info = 1 << 30;
    LoopbackServer server(std::ref(e));
    const Run never = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --timeout 0.5");
    CHECK(never.code == 3);
    CHECK(never.out == "pdcheck: cannot run: " + server.url() +
                         ": the prefill bootstrap server did not become ready within 0.5 s; last answer to GET "
                         "/route?prefill_dp_rank=-1&prefill_cp_rank=-1&target_tp_rank=-1&target_pp_rank=-1: 503 "
                         "Prefill server not fully registered yet (1 workers registered).\n");
    require_read_only(server);
  }
  SECTION("exit 1: a rank that never registers is a finding, the rest is still checked")
  {
    Emulated e;
    e.missing_tp = {1};
    LoopbackServer server(std::ref(e));
    const Run r = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --timeout 0.4");
    CHECK(r.code == 1);
    CHECK(r.out.find("  endpoints: 1 prefill rank, 1 never registered\n") != std::string::npos);
    CHECK(r.out.find("error [bootstrap-rank-missing] bootstrap · prefill") != std::string::npos);
    CHECK(r.out.find("prefill rank dp 0 cp 0 tp 1 pp 0 has not registered its endpoint with " + server.url() +
                     ": the last answer was 404 Bootstrap info not found for dp_rank=0 cp_rank=0 tp_rank=1 "
                     "pp_rank=0\n") != std::string::npos);
    const Run j = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --timeout 0.4 --format json");
    CHECK(j.code == 1);
    const auto doc = nlohmann::json::parse(j.out);
    CHECK(doc["server"]["missing_ranks"] ==
          nlohmann::json::parse(R"([{"dp":0,"cp":0,"tp":1,"pp":0,"answer":"404 Bootstrap info not found for )"
                                R"(dp_rank=0 cp_rank=0 tp_rank=1 pp_rank=0"}])"));
    require_read_only(server);
  }
  SECTION("exit 2: bad URL, bad profile, a prefill side; nothing is sent")
  {
    LoopbackServer server(recorded);
    const Run https = pdcheck_cli("bootstrap https://127.0.0.1:8998 examples/bootstrap/decode.yaml");
    CHECK(https.code == 2);
    CHECK(https.out == "pdcheck: error: https://127.0.0.1:8998: the SGLang bootstrap server speaks plain HTTP only (no "
                       "TLS); give http://HOST:PORT\n");
    const Run profile =
      pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --prefill-sglang nonsense");
    CHECK(profile.code == 2);
    CHECK(profile.out == "pdcheck: error: --prefill-sglang: " + unknown_profile_text("nonsense") + "\n");
    const Run prefill = pdcheck_cli("bootstrap " + server.url() + " examples/pairs/page-size-mismatch/prefill.yaml");
    CHECK(prefill.code == 2);
    CHECK(prefill.out == "pdcheck: error: examples/pairs/page-size-mismatch/prefill.yaml: is a prefill side; pdcheck "
                         "bootstrap checks a decode side against a running prefill server\n");
    const Run timeout = pdcheck_cli("bootstrap " + server.url() + " examples/bootstrap/decode.yaml --timeout 0");
    CHECK(timeout.code == 2);
    CHECK(server.requests().empty());
  }
}
