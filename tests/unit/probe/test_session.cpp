#include "io/side_file.hpp"
#include "probe/fake_transport.hpp"
#include "probe/probe_session.hpp"
#include "probe/tcp_transport.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>

#include <future>
#include <thread>

using namespace pdcheck;
using namespace pdcheck::probe;

namespace {

sglang::Side side(sglang::Role role, const std::string& args, const std::string& model = test::probe_model(),
                  const std::string& version = "0.5.11")
{
  const std::string mode = role == sglang::Role::prefill ? "prefill" : "decode";
  return io::side_from_args(role, args + " --disaggregation-mode " + mode, model, version, {}, "test " + mode);
}

TransportFactory fake_factory()
{
  auto fabric = std::make_shared<FakeFabric>();
  return [fabric](const std::string&) { return std::make_unique<FakeVerbsTransport>(fabric); };
}

TransportFactory tcp_factory()
{
  return [](const std::string& host) { return std::make_unique<TcpTransport>(host, 10); };
}

/// The decode end against a hand-written prefill that sends `hello` and
/// records every message it gets back until the decode end closes.
struct DecodeAgainst
{
  ProbeReport report;
  std::vector<nlohmann::json> answers;
};

DecodeAgainst decode_end_against(const nlohmann::json& hello)
{
  const auto d = side(sglang::Role::decode, "--tp 1");
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  DecodeAgainst out;
  std::thread peer([&] {
    Fd fd = connect_to("127.0.0.1", l.port(), Deadline::after(5), Phase::handshake);
    send_message(fd.get(), hello, Deadline::after(5), Phase::handshake);
    try {
      for (;;) {
        out.answers.push_back(recv_message(fd.get(), Deadline::after(5), Phase::handshake, "answer"));
      }
    } catch (const ProbeError&) {
      // closed
    }
  });
  Fd oob = l.accept(Deadline::after(5), Phase::handshake);
  auto fabric = std::make_shared<FakeFabric>();
  FakeVerbsTransport t(fabric);
  ProbeOptions o;
  o.slots = 3;
  o.timeout = 5;
  out.report = run_decode_end(d, o, std::move(oob), t); // closes the connection when it returns
  peer.join();
  return out;
}

ProbeOptions small()
{
  ProbeOptions o;
  o.requests = 2;
  o.slots = 3;
  o.timeout = 20;
  return o;
}

} // namespace

TEST_CASE("probe::loopback: a compatible pair verifies over the fake verbs and over TCP", "[probe]")
{
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const auto d = side(sglang::Role::decode, "--tp 1");
  for (const auto& [name, factory] : {std::pair{"fake", fake_factory()}, std::pair{"tcp", tcp_factory()}}) {
    INFO(name);
    const ProbeReport r = loopback(p, d, small(), factory);
    INFO(probe_to_text(r));
    CHECK(r.verified);
    CHECK(r.verdict == pdcheck::Verdict::ok);
    CHECK(r.requests.size() == 2);
    CHECK(r.tally.bytes > 0);
    CHECK(r.bytes == r.tally.bytes);
    CHECK_FALSE(r.failure);
    for (const RequestReport& q : r.requests) {
      CHECK(q.outcome == "verified");
      CHECK(q.dst_slot != 0);
    }
  }
}

TEST_CASE("probe::loopback: writes spread over several queue pairs verify, and the report says how many", "[probe]")
{
  // Two ranks a side: each request is a few dozen whole-entry writes.
  const auto p = side(sglang::Role::prefill, "--tp 2");
  const auto d = side(sglang::Role::decode, "--tp 2");
  auto fabric = std::make_shared<FakeFabric>();
  const TransportFactory three_qps = [fabric](const std::string&) {
    return std::make_unique<FakeVerbsTransport>(fabric, 64, std::nullopt, 3);
  };
  ProbeOptions o = small();
  o.write.batch = 2;
  o.write.lanes = 3;
  const ProbeReport r = loopback(p, d, o, three_qps);
  INFO(probe_to_text(r));
  CHECK(r.verified);
  CHECK(r.queue_pairs == 3);
  CHECK(r.bytes == r.tally.bytes);
  CHECK(probe_to_text(r).find(" over 3 queue pairs, ") != std::string::npos);
  CHECK(report::probe_to_json(probe_result(r), 0)["transfer"]["queue_pairs"] == 3);

  const ProbeReport tcp = loopback(p, d, o, tcp_factory());
  CHECK(tcp.verified);
  CHECK(tcp.queue_pairs == 1); // one ordered stream: --qps has nothing to spread over
}

TEST_CASE("probe::loopback: Mori with two state indices fails with SGLang's exact message", "[probe]")
{
  const auto p = side(sglang::Role::prefill, "--tp 1 --disaggregation-transfer-backend mori");
  const auto d = side(sglang::Role::decode, "--tp 1 --disaggregation-transfer-backend mori");
  ProbeOptions o = small();
  o.state_indices = 2;
  const ProbeReport r = loopback(p, d, o, fake_factory());
  INFO(probe_to_text(r));
  CHECK_FALSE(r.verified);
  CHECK(r.verdict == pdcheck::Verdict::findings);
  REQUIRE_FALSE(r.requests.empty());
  CHECK(r.requests[0].outcome == "failed");
  CHECK(r.requests[0].sglang_error == "PD state transfer failed: mamba requires single state index, got src=1, dst=2");
}

TEST_CASE("probe::loopback: empty state indices: Mori skips (never arrives), Mooncake fails", "[probe]")
{
  ProbeOptions o = small();
  o.state_indices = 0;
  SECTION("mori")
  {
    const auto p = side(sglang::Role::prefill, "--tp 1 --disaggregation-transfer-backend mori");
    const auto d = side(sglang::Role::decode, "--tp 1 --disaggregation-transfer-backend mori");
    const ProbeReport r = loopback(p, d, o, fake_factory());
    INFO(probe_to_text(r));
    CHECK_FALSE(r.verified);
    CHECK(r.verdict == pdcheck::Verdict::findings);
    REQUIRE_FALSE(r.requests.empty());
    CHECK(r.requests[0].outcome == "skipped");
    CHECK(r.tally.unwritten > 0);
    CHECK(r.tally.wrong == 0);
    REQUIRE_FALSE(r.tally.ranges.empty());
    CHECK(r.tally.ranges[0].never_arrived);
  }
  SECTION("mooncake")
  {
    const auto p = side(sglang::Role::prefill, "--tp 1");
    const auto d = side(sglang::Role::decode, "--tp 1");
    const ProbeReport r = loopback(p, d, o, fake_factory());
    INFO(probe_to_text(r));
    CHECK(r.verdict == pdcheck::Verdict::findings);
    REQUIRE_FALSE(r.requests.empty());
    CHECK(r.requests[0].outcome == "failed");
    CHECK(r.requests[0].sglang_error == "list index out of range");
  }
}

TEST_CASE("probe::run_decode_end: refuses a peer of another protocol version with the reason", "[probe]")
{
  const DecodeAgainst run = decode_end_against({{"type", "hello"},
                                                {"magic", k_magic},
                                                {"protocol", 99},
                                                {"pdcheck_version", "9.9"},
                                                {"role", "prefill"},
                                                {"transport", "fake-verbs"}});
  REQUIRE_FALSE(run.answers.empty());
  CHECK(run.answers[0]["type"] == "refuse");
  CHECK(run.answers[0]["reason"].get<std::string>().find("protocol 99") != std::string::npos);
  REQUIRE(run.report.failure);
  CHECK(run.report.failure->phase == "handshake");
  CHECK(run.report.verdict == pdcheck::Verdict::cannot_run);
}

TEST_CASE("probe::loopback: a peer that never answers is a timeout naming the phase", "[probe]")
{
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  // The silent peer holds the connection open until the prefill end has given
  // up, however long filling takes on a loaded machine.
  std::promise<void> prefill_done;
  std::shared_future<void> done = prefill_done.get_future().share();
  std::thread silent([&l, done] {
    Fd fd = l.accept(Deadline::after(5), Phase::handshake);
    done.wait_for(std::chrono::seconds(60));
  });
  Fd oob = connect_to("127.0.0.1", l.port(), Deadline::after(5), Phase::handshake);
  auto fabric = std::make_shared<FakeFabric>();
  FakeVerbsTransport t(fabric);
  ProbeOptions o = small();
  o.timeout = 0.3;
  const ProbeReport r = run_prefill_end(p, o, std::move(oob), t, "127.0.0.1");
  prefill_done.set_value();
  silent.join();
  REQUIRE(r.failure);
  CHECK(r.failure->phase == "handshake");
  CHECK(r.failure->message.find("timed out") != std::string::npos);
  CHECK(r.verdict == pdcheck::Verdict::cannot_run);
}

TEST_CASE("probe::run_decode_end: a hello without an endpoint is a handshake failure, not a crash", "[probe]")
{
  const DecodeAgainst run = decode_end_against(
    {{"type", "hello"}, {"magic", k_magic}, {"protocol", k_protocol_version}, {"role", "prefill"}, {"transport", "fake-verbs"}});
  REQUIRE(run.report.failure);
  CHECK(run.report.verdict == pdcheck::Verdict::cannot_run);
  CHECK(run.report.failure->phase == "handshake");
  CHECK(run.report.failure->message ==
        "a message from the peer lacks what this end needs: [json.exception.out_of_range.403] key 'endpoint' not found");
  // The decode answered with its own hello, then told the peer it stopped.
  REQUIRE(run.answers.size() == 2);
  CHECK(run.answers[0]["type"] == "hello");
  CHECK(run.answers[1]["type"] == "abort");
}
