// The probe against a peer that sends what no pdcheck sends: frames over the
// message limit, JSON nested without end, integers that do not fit, empty
// per-rank lists, refusal reasons of any length and with escape sequences.
// Each end stops with a handshake or transfer-info failure naming the message,
// the field and the limit (exit 3), and tells the peer, as for any other
// malformed message.

#include "io/side_file.hpp"
#include "model/layout.hpp"
#include "probe/fake_transport.hpp"
#include "probe/peer_fields.hpp"
#include "probe/probe_session.hpp"
#include "probe/session_steps.hpp"
#include "probe/side_wire.hpp"
#include "sglang/side_layout.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <limits>
#include <thread>

#include <sys/socket.h>

using namespace pdcheck;
using namespace pdcheck::probe;

namespace {

constexpr const char* k_hint = "that the peer is `pdcheck probe` of the same version, not another service";

sglang::Side side(sglang::Role role, const std::string& args = "--tp 1", const std::string& model = test::probe_model())
{
  const std::string mode = role == sglang::Role::prefill ? "prefill" : "decode";
  return io::side_from_args(role, args + " --disaggregation-mode " + mode, model, "0.5.11", {}, "test " + mode);
}

ProbeOptions options()
{
  ProbeOptions o;
  o.slots = 3;
  o.timeout = 5;
  return o;
}

/// Writes a frame header announcing `length` bytes, then `body` (which may be
/// shorter: the end under test must refuse on the header alone).
void send_frame(int fd, std::size_t length, const std::string& body)
{
  const std::uint8_t header[4] = {static_cast<std::uint8_t>(length >> 24), static_cast<std::uint8_t>(length >> 16),
                                  static_cast<std::uint8_t>(length >> 8), static_cast<std::uint8_t>(length)};
  send_all(fd, header, 4, Deadline::after(5), Phase::handshake);
  send_all(fd, body.data(), body.size(), Deadline::after(5), Phase::handshake);
}

/// Every message the peer gets until the end under test closes the connection.
std::vector<nlohmann::json> answers_until_closed(int fd)
{
  std::vector<nlohmann::json> out;
  try {
    for (;;) {
      out.push_back(recv_message(fd, Deadline::after(5), Phase::handshake, "answer"));
    }
  } catch (const ProbeError&) {
    // closed
  }
  return out;
}

struct EndRun
{
  ProbeReport report;
  std::vector<nlohmann::json> answers; ///< what the end under test sent the scripted peer
  double seconds = 0;                  ///< how long the end under test ran
};

/// The decode end (fake verbs) against a scripted prefill that writes what
/// `script` writes, then reads until the decode end closes.
EndRun decode_end_against(const std::function<void(int fd)>& script, bool read_answers = true, int timeout = 5)
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  EndRun out;
  std::thread peer([&] {
    Fd fd = connect_to("127.0.0.1", l.port(), Deadline::after(5), Phase::handshake);
    try {
      script(fd.get());
    } catch (const ProbeError&) {
      // the decode end closed while the script was writing
    }
    if (read_answers) {
      out.answers = answers_until_closed(fd.get());
    }
  });
  Fd oob = l.accept(Deadline::after(5), Phase::handshake);
  FakeVerbsTransport t(std::make_shared<FakeFabric>());
  ProbeOptions o = options();
  o.timeout = timeout;
  const auto t0 = std::chrono::steady_clock::now();
  out.report = run_decode_end(side(sglang::Role::decode), o, std::move(oob), t);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  peer.join();
  return out;
}

/// A prefill hello the decode end accepts.
nlohmann::json prefill_hello()
{
  return {{"type", "hello"},      {"magic", k_magic},           {"protocol", k_protocol_version},
          {"role", "prefill"},    {"transport", "fake-verbs"}, {"profile", "components"},
          {"endpoint", {{"fabric", "in-process"}}}};
}

/// The prefill end (fake verbs) against a scripted decode: the script gets the
/// connection and the prefill's hello, answers what it likes, and then reads
/// until the prefill end closes.
EndRun prefill_end_against(const std::function<void(int fd)>& script)
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  EndRun out;
  std::thread peer([&] {
    Fd fd = l.accept(Deadline::after(5), Phase::handshake);
    try {
      recv_message(fd.get(), Deadline::after(5), Phase::handshake, "hello");
      script(fd.get());
    } catch (const ProbeError&) {
      // the prefill end closed while the script was talking
    }
    out.answers = answers_until_closed(fd.get());
  });
  Fd oob = connect_to("127.0.0.1", l.port(), Deadline::after(5), Phase::handshake);
  FakeVerbsTransport t(std::make_shared<FakeFabric>());
  out.report = run_prefill_end(side(sglang::Role::prefill), options(), std::move(oob), t, "127.0.0.1");
  peer.join();
  return out;
}

/// The hello a real decode end sends for `decode`, with no regions (nothing is
/// written before the steps under test).
nlohmann::json decode_hello(const sglang::Side& decode = side(sglang::Role::decode))
{
  const model::Layout layout = model::compute_layout(sglang::layout_input(decode));
  FakeVerbsTransport t(std::make_shared<FakeFabric>());
  nlohmann::json h = steps::hello(decode, layout, t, options());
  h["side"] = side_to_json(decode);
  h["regions"] = nlohmann::json::array();
  h["slots"] = 3;
  return h;
}

/// A scripted decode that gets as far as the prefill's "go", then sends `transfer_info`.
std::function<void(int)> decode_sending(const nlohmann::json& transfer_info)
{
  return [transfer_info](int fd) {
    send_message(fd, decode_hello(), Deadline::after(5), Phase::handshake);
    send_message(fd, {{"type", "ready"}}, Deadline::after(5), Phase::connect);
    const nlohmann::json go = recv_message(fd, Deadline::after(5), Phase::connect, "go");
    REQUIRE(go["type"] == "go");
    send_message(fd, transfer_info, Deadline::after(5), Phase::transfer_info);
  };
}

void check_failure(const EndRun& run, const std::string& phase, const std::string& message)
{
  REQUIRE(run.report.failure);
  CHECK(run.report.verdict == pdcheck::Verdict::cannot_run);
  CHECK_FALSE(run.report.verified);
  CHECK(run.report.failure->phase == phase);
  CHECK(run.report.failure->message == message);
}

/// The peer was told why, with the same text (the last answer is the abort).
void check_told(const EndRun& run, const std::string& message)
{
  REQUIRE_FALSE(run.answers.empty());
  CHECK(run.answers.back()["type"] == "abort");
  CHECK(run.answers.back()["message"] == message);
}

} // namespace

TEST_CASE("probe::recv_message: a frame over the limit is refused from its header", "[probe]")
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  Fd client = connect_to("127.0.0.1", l.port(), Deadline::after(2), Phase::handshake);
  Fd server = l.accept(Deadline::after(2), Phase::handshake);
  send_frame(client.get(), std::size_t{64} << 20, "[[[[");
  CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(1), Phase::handshake, "hello"),
                    std::string("handshake: the peer's hello is 67108864 bytes, over the limit of 4194304 bytes for a "
                                "probe message; check: ") +
                      k_hint);
}

TEST_CASE("probe::recv_message: a message at the limit is read; one nested too deep is not parsed", "[probe]")
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  Fd client = connect_to("127.0.0.1", l.port(), Deadline::after(2), Phase::handshake);
  Fd server = l.accept(Deadline::after(2), Phase::handshake);
  std::thread writer([&] {
    const std::string padded = R"({"type": "bye"})" + std::string(k_max_message - 15, ' ');
    send_frame(client.get(), padded.size(), padded);
    const std::string deep = std::string(65, '[') + std::string(65, ']');
    send_frame(client.get(), deep.size(), deep);
  });
  CHECK(recv_message(server.get(), Deadline::after(5), Phase::transfer_info, "transfer_info or bye")["type"] == "bye");
  CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(5), Phase::transfer_info, "transfer_info or bye"),
                    std::string("transfer-info: the peer's transfer_info or bye nests JSON deeper than 64 levels, the "
                                "limit for a probe message; check: ") +
                      k_hint);
  writer.join();
}

TEST_CASE("probe::recv_message: text that is not a JSON object is refused naming the message", "[probe]")
{
  const Listener l = Listener::bind("127.0.0.1", 0, Phase::handshake);
  Fd client = connect_to("127.0.0.1", l.port(), Deadline::after(2), Phase::handshake);
  Fd server = l.accept(Deadline::after(2), Phase::handshake);
  send_frame(client.get(), 5, "[1,2]");
  send_frame(client.get(), 4, "nope");
  for (int i = 0; i < 2; ++i) {
    CHECK_THROWS_WITH(recv_message(server.get(), Deadline::after(1), Phase::connect, "go"),
                      std::string("connect: the peer's go is not a JSON object: not a pdcheck probe peer; check: ") +
                        k_hint);
  }
}

TEST_CASE("probe::k_max_message: the largest hello a decode end sends fits with room to spare", "[probe]")
{
  // The most state entries of any servable catalog layout under any profile:
  // Kimi-Linear at attention TP 32 (2560 entries). Each becomes one region,
  // with every field at its widest.
  const sglang::Side decode = side(sglang::Role::decode, "--tp 32", "kimi-linear-48b-a3b");
  const model::Layout layout = model::compute_layout(sglang::layout_input(decode));
  nlohmann::json h = decode_hello(decode);
  for (std::size_t r = 0; r < layout.ranks.size(); ++r) {
    for (std::size_t e = 0; e < layout.ranks[r].entries.size(); ++e) {
      h["regions"].push_back({{"rank", r},
                              {"entry", e},
                              {"addr", std::numeric_limits<std::uint64_t>::max()},
                              {"length", std::numeric_limits<std::int64_t>::max()},
                              {"rkey", std::numeric_limits<std::uint32_t>::max()},
                              {"item_len", std::numeric_limits<std::int64_t>::max()}});
    }
  }
  REQUIRE(h["regions"].size() == 2560);
  const std::size_t bytes = h.dump().size();
  INFO("largest decode hello: " << bytes << " bytes");
  CHECK(bytes * 8 < k_max_message);
}

TEST_CASE("probe::run_decode_end: 64 MiB of open brackets is a handshake failure naming the limit, not bad_alloc", "[probe]")
{
  const EndRun run = decode_end_against(
    [](int fd) { send_frame(fd, std::size_t{64} << 20, std::string(std::size_t{1} << 20, '[')); },
    // Unread bytes make the decode's close a reset, which may drop its abort.
    false);
  check_failure(run, "handshake",
                "the peer's hello is 67108864 bytes, over the limit of 4194304 bytes for a probe message");
  CHECK(run.report.failure->hint == k_hint);
}

TEST_CASE("probe::run_decode_end: a hello of 4 MiB of open brackets is refused before it is parsed", "[probe]")
{
  const EndRun run = decode_end_against([](int fd) {
    const std::string deep(k_max_message, '[');
    send_frame(fd, deep.size(), deep);
  });
  const std::string message = "the peer's hello nests JSON deeper than 64 levels, the limit for a probe message";
  check_failure(run, "handshake", message);
  check_told(run, message);
}

TEST_CASE("probe::run_decode_end: protocol 4294967297 is not protocol 1", "[probe]")
{
  nlohmann::json hello = prefill_hello();
  hello["protocol"] = std::uint64_t{4294967297};
  hello["pdcheck_version"] = "9.9";
  const EndRun run = decode_end_against([&](int fd) { send_message(fd, hello, Deadline::after(5), Phase::handshake); });
  const std::string why = fmt::format(
    "the peer speaks probe protocol 4294967297 (pdcheck 9.9), this pdcheck speaks 1 (pdcheck {})", PDCHECK_VERSION);
  check_failure(run, "handshake", "refused the peer: " + why);
  REQUIRE_FALSE(run.answers.empty());
  CHECK(run.answers[0]["type"] == "refuse");
  CHECK(run.answers[0]["reason"] == why);
}

TEST_CASE("probe::run_decode_end: the prefill's refusal reasons are escaped and cut before the report", "[probe]")
{
  const EndRun run = decode_end_against([](int fd) {
    send_message(fd, prefill_hello(), Deadline::after(5), Phase::handshake);
    recv_message(fd, Deadline::after(5), Phase::handshake, "hello");
    recv_message(fd, Deadline::after(5), Phase::connect, "ready");
    send_message(fd,
                 {{"type", "refuse"},
                  {"reasons", {"\x1b]0;owned\x07[rule] text", std::string(600'000, 'r')}},
                  {"prediction", "\x1b[2Jclear"}},
                 Deadline::after(5), Phase::connect);
  });
  CHECK(run.report.verdict == pdcheck::Verdict::findings);
  REQUIRE(run.report.refusals.size() == 2);
  CHECK(run.report.refusals[0] == "\\x1b]0;owned\\x07[rule] text");
  CHECK(run.report.refusals[1] == std::string(512, 'r') + "… (599488 bytes more)");
  CHECK(run.report.checker_prediction == "\\x1b[2Jclear");
  CHECK(probe_to_text(run.report).find('\x1b') == std::string::npos);
}

TEST_CASE("probe::run_prefill_end: a refusal of 600 KB with escape sequences is cut and escaped", "[probe]")
{
  const EndRun run = prefill_end_against([](int fd) {
    send_message(fd, {{"type", "refuse"}, {"reason", "\x1b[31m" + std::string(600'000, 'x')}}, Deadline::after(5),
                 Phase::handshake);
  });
  check_failure(run, "handshake", "the decode end refused: \\x1b[31m" + std::string(507, 'x') + "… (599493 bytes more)");
}

TEST_CASE("probe::run_prefill_end: an abort's message and hint are escaped", "[probe]")
{
  const EndRun run = prefill_end_against([](int fd) {
    send_message(fd, {{"type", "abort"}, {"message", "bad\nnews\x1b[0m"}, {"hint", "\x07"}}, Deadline::after(5),
                 Phase::handshake);
  });
  check_failure(run, "handshake", "the peer stopped: bad\\nnews\\x1b[0m");
  CHECK(run.report.failure->hint == "\\x07");
}

TEST_CASE("probe::run_prefill_end: a decode hello with protocol 4294967297 is refused", "[probe]")
{
  const EndRun run = prefill_end_against([](int fd) {
    nlohmann::json h = decode_hello();
    h["protocol"] = std::uint64_t{4294967297};
    send_message(fd, h, Deadline::after(5), Phase::handshake);
  });
  check_failure(run, "handshake",
                fmt::format("refused the peer: the peer speaks probe protocol 4294967297 (pdcheck {0}), this pdcheck "
                            "speaks 1 (pdcheck {0})",
                            PDCHECK_VERSION));
}

TEST_CASE("probe::run_prefill_end: region keys and model sizes that do not fit are refused by name", "[probe]")
{
  SECTION("an rkey past 32 bits")
  {
    const EndRun run = prefill_end_against([](int fd) {
      nlohmann::json h = decode_hello();
      h["regions"].push_back({{"rank", 0}, {"entry", 0}, {"addr", 4096}, {"rkey", std::uint64_t{1} << 32}});
      send_message(fd, h, Deadline::after(5), Phase::handshake);
    });
    const std::string message =
      "the peer's hello regions[0] has rkey = 4294967296: expected an integer from 0 to 4294967295";
    check_failure(run, "handshake", message);
    check_told(run, message);
  }
  SECTION("a layer count that would narrow to 1")
  {
    const EndRun run = prefill_end_against([](int fd) {
      nlohmann::json h = decode_hello();
      h["side"]["model"]["num_hidden_layers"] = std::uint64_t{4294967297};
      send_message(fd, h, Deadline::after(5), Phase::handshake);
    });
    check_failure(run, "handshake",
                  "the peer's hello side.model has num_hidden_layers = 4294967297: expected an integer from "
                  "-2147483648 to 2147483647");
  }
}

TEST_CASE("probe::run_prefill_end: a TransferInfo with no per-rank entry is refused, never acted on", "[probe]")
{
  const EndRun run = prefill_end_against(decode_sending(
    {{"type", "transfer_info"}, {"request", 0}, {"room", 1000}, {"per_rank", nlohmann::json::array()}}));
  const std::string message =
    "the peer's transfer_info for request 0 has per_rank = []: expected one entry for each of the decode's 1 rank";
  check_failure(run, "transfer-info", message);
  check_told(run, message);
  CHECK(run.report.requests.empty()); // nothing was written
}

TEST_CASE("probe::run_prefill_end: TransferInfo integers are range-checked", "[probe]")
{
  SECTION("a state index past 32 bits")
  {
    const EndRun run = prefill_end_against(decode_sending(
      {{"type", "transfer_info"},
       {"request", 0},
       {"per_rank", {{{"pp_rank", 0}, {"tp_rank", 0}, {"state_indices", {1, std::uint64_t{4294967297}}}}}}}));
    check_failure(run, "transfer-info",
                  "the peer's transfer_info per_rank[0] has state_indices[1] = 4294967297: expected an integer from "
                  "-2147483648 to 2147483647");
  }
  SECTION("a negative request number")
  {
    const EndRun run = prefill_end_against(decode_sending(
      {{"type", "transfer_info"}, {"request", -3}, {"per_rank", {{{"pp_rank", 0}, {"tp_rank", 0}, {"state_indices", {1}}}}}}));
    check_failure(run, "transfer-info",
                  "the peer's transfer_info has request = -3: expected an integer from 0 to 2147483647");
  }
  SECTION("a per-rank entry that is not an object")
  {
    const EndRun run = prefill_end_against(
      decode_sending({{"type", "transfer_info"}, {"request", 0}, {"per_rank", {7}}}));
    check_failure(run, "transfer-info",
                  "the peer's transfer_info per_rank[0] lacks pp_rank: expected an integer");
  }
}

TEST_CASE("probe::PeerObject: every integer is checked against the type it is read into", "[probe]")
{
  const nlohmann::json m = {{"small", 7},          {"negative", -1},    {"big", std::uint64_t{1} << 63},
                            {"float", 1.5},        {"text", "7"},       {"list", {1, 2, -40000}},
                            {"name", "a\x1b" "b"}, {"names", {"x", 3}}};
  const PeerObject in(m, "the peer's test", Phase::handshake);
  CHECK(in.integer<std::uint8_t>("small") == 7);
  CHECK(in.integer<std::int64_t>("negative") == -1);
  CHECK(in.integer<std::uint64_t>("big") == std::uint64_t{1} << 63);
  CHECK(in.integer_or<int>("absent", 42) == 42);
  CHECK(in.integers<std::int32_t>("list") == std::vector<std::int32_t>{1, 2, -40000});
  CHECK(in.text_or("name", "") == "a\\x1bb");
  CHECK(in.text_or("absent", "fallback") == "fallback");
  const auto error = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const ProbeError& e) {
      return e.detail();
    }
    return "no error";
  };
  CHECK(error([&] { in.integer<std::uint32_t>("negative"); }) ==
        "the peer's test has negative = -1: expected an integer from 0 to 4294967295");
  CHECK(error([&] { in.integer<std::int64_t>("big"); }) ==
        "the peer's test has big = 9223372036854775808: expected an integer from -9223372036854775808 to "
        "9223372036854775807");
  CHECK(error([&] { in.integer<int>("float"); }) ==
        "the peer's test has float = 1.5: expected an integer from -2147483648 to 2147483647");
  CHECK(error([&] { in.integer<int>("text"); }) ==
        "the peer's test has text = \"7\": expected an integer from -2147483648 to 2147483647");
  CHECK(error([&] { in.integer<int>("absent"); }) == "the peer's test lacks absent: expected an integer");
  CHECK(error([&] { in.integers<std::int16_t>("list"); }) ==
        "the peer's test has list[2] = -40000: expected an integer from -32768 to 32767");
  CHECK(error([&] { in.integer_in<int>("small", 0, 0, 5); }) ==
        "the peer's test has small = 7: expected an integer from 0 to 5");
  CHECK(error([&] { in.texts("names"); }) == "the peer's test has names = 3: expected a string for each item");
  CHECK(error([&] { in.text_or("small", ""); }) == "the peer's test has small = 7: expected a string");
}

TEST_CASE("probe::run_decode_end: a peer with the wrong magic is refused and told so", "[probe]")
{
  nlohmann::json hello = prefill_hello();
  hello["magic"] = "HTTP/1.1";
  const EndRun run = decode_end_against([&](int fd) { send_message(fd, hello, Deadline::after(5), Phase::handshake); });
  check_failure(run, "handshake", "refused the peer: the peer is not a pdcheck probe (wrong magic)");
  REQUIRE_FALSE(run.answers.empty());
  CHECK(run.answers[0]["type"] == "refuse");
  CHECK(run.answers[0]["reason"] == "the peer is not a pdcheck probe (wrong magic)");
}

TEST_CASE("probe::run_decode_end: a message cut short, then silence, ends at the deadline", "[probe]")
{
  const EndRun t = decode_end_against(
    [](int fd) {
      send_frame(fd, 100, "{\"type\": \"hel");
      // Silent, connection open, until the decode end gives up and closes.
      char sink[256];
      while (::recv(fd, sink, sizeof sink, 0) > 0) {
      }
    },
    false, 1);
  REQUIRE(t.report.failure);
  CHECK(t.report.failure->phase == "handshake");
  CHECK(t.report.verdict == pdcheck::Verdict::cannot_run);
  CHECK(t.seconds < 3.0); // 1 s deadline, generous for a loaded CI machine
}

TEST_CASE("probe::run_decode_end: one byte at a time does not stretch the deadline", "[probe]")
{
  const EndRun t = decode_end_against(
    [](int fd) {
      const std::string text = prefill_hello().dump();
      const std::uint8_t header[4] = {0, 0, static_cast<std::uint8_t>(text.size() >> 8),
                                      static_cast<std::uint8_t>(text.size())};
      send_all(fd, header, 4, Deadline::after(5), Phase::handshake);
      // Ends when the decode end closes and a send fails.
      for (const char c : text) {
        send_all(fd, &c, 1, Deadline::after(5), Phase::handshake);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    },
    false, 1);
  REQUIRE(t.report.failure);
  CHECK(t.report.failure->phase == "handshake");
  CHECK(t.seconds < 3.0);
}

TEST_CASE("probe::run_decode_end: a peer that hangs up at each step is a failure of that step", "[probe]")
{
  SECTION("before its hello")
  {
    const EndRun run = decode_end_against([](int) {}, false);
    REQUIRE(run.report.failure);
    CHECK(run.report.failure->phase == "handshake");
  }
  SECTION("after its hello")
  {
    const EndRun run = decode_end_against(
      [](int fd) { send_message(fd, prefill_hello(), Deadline::after(5), Phase::handshake); }, false);
    REQUIRE(run.report.failure);
    CHECK(run.report.failure->phase == "handshake");
  }
  SECTION("after the decode's ready")
  {
    const EndRun run = decode_end_against(
      [](int fd) {
        send_message(fd, prefill_hello(), Deadline::after(5), Phase::handshake);
        recv_message(fd, Deadline::after(5), Phase::handshake, "hello");
        recv_message(fd, Deadline::after(5), Phase::connect, "ready");
      },
      false);
    REQUIRE(run.report.failure);
    CHECK(run.report.failure->phase == "connect");
  }
}

TEST_CASE("probe::run_prefill_end: state indices of a million or below zero write nothing the decode did not register",
          "[probe]")
{
  // Region lengths are the decode's to enforce (as an RDMA NIC enforces its
  // memory regions); the prefill end writes only to regions the decode named.
  for (const std::int64_t index : {std::int64_t{1'000'000}, std::int64_t{-1}}) {
    DYNAMIC_SECTION("state index " << index)
    {
      const EndRun run = prefill_end_against(decode_sending(
        {{"type", "transfer_info"},
         {"request", 0},
         {"per_rank", {{{"pp_rank", 0}, {"tp_rank", 0}, {"state_indices", {index}}}}}}));
      check_failure(run, "write", "the plan writes to decode rank 0 entry 0, which the decode end did not register");
      CHECK(run.report.requests.empty());
    }
  }
}
