// `pdcheck explain LOG` on what operators see when one side of a transfer fails:
// the liveness texts (catalog rows prefill_maybe_dead ... mamba_ping_pong_exhausted),
// the transfer-thread wrapper's consequence, the link between a decode-side symptom
// and the prefill-side failure of the same bootstrap room, and the refusal of binary
// input. Log lines are rendered from the catalog with hand-chosen values.
#include "check/log_causes.hpp"
#include "check/log_explain.hpp"
#include "report/log_render.hpp"

#include "../../support/catalog_text.hpp"
#include "../../support/run_pdcheck.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

using namespace pdcheck;
using check::explain_log_text;
using test::message_head;

namespace {

constexpr std::int64_t k_room_a = 4751139391711345681;
constexpr std::int64_t k_room_b = 6593551520068383758;

/// A decode scheduler's line for a failed request, around `reason`.
std::string decode_line(std::int64_t room, const std::string& reason)
{
  return fmt::format("[2026-02-27 15:01:50 TP0] Decode transfer failed for request rank=0 decode_req.req.rid='7a9d' "
                     "decode_req.req.bootstrap_room={} with exception {}\n",
                     room,
                     render_message(MessageId::kv_transfer_error, {{"bootstrap_room", room}, {"reason", reason}}));
}

/// A prefill scheduler's line for a failed request, around `reason`.
std::string prefill_line(std::int64_t room, const std::string& reason)
{
  return fmt::format("[2026-02-27 15:01:50 TP0] Prefill transfer failed for request rank=0 req.rid='5e0b' "
                     "req.bootstrap_room={} with exception {}\n",
                     room,
                     render_message(MessageId::kv_transfer_error, {{"bootstrap_room", room}, {"reason", reason}}));
}

/// Scans each (file, text) in order and links them, as `pdcheck explain` does.
check::LogExplanation explain_logs(const std::vector<std::pair<std::string, std::string>>& logs)
{
  check::LogExplanation out;
  for (const auto& [file, text] : logs) {
    check::LogScanner scanner(file);
    scanner.feed(text);
    scanner.finish(out);
  }
  check::link_rooms(out);
  return out;
}

const std::string k_dead_session = "10.0.0.2:15295";

} // namespace

TEST_CASE("explain: the decode's 'prefill might be dead' keeps its room and points to the prefill's log",
          "[explain][liveness]")
{
  const std::string reason = render_message(MessageId::prefill_maybe_dead, {});
  const auto e = explain_log_text(decode_line(k_room_a, reason) + decode_line(k_room_b, reason), "d.log");
  REQUIRE(e.matches.size() == 1);
  const auto& m = e.matches[0];
  CHECK(m.rule.empty());
  CHECK(m.severity == "error");
  CHECK(m.runtime_error == reason);
  CHECK(m.count == 2);
  CHECK(m.values["bootstrap_room"] == k_room_a);
  CHECK(m.rooms == std::vector<std::int64_t>{k_room_a, k_room_b});
  CHECK(m.causes == std::vector<std::string>{"peer_failed"});
  CHECK(m.fix == std::string(check::cause_fix("peer_failed")));
  CHECK(m.explanation.find("in the prefill's log") != std::string::npos);
  CHECK(e.unrecognised.empty());
}

TEST_CASE("explain: the prefill's dead-session and failed-chunk reasons give the session and the room",
          "[explain][liveness]")
{
  const auto e = explain_log_text(
    prefill_line(k_room_a,
                 render_message(MessageId::kv_chunk_send_failed, {{"room", k_room_a}, {"peer", k_dead_session}})) +
      prefill_line(k_room_b, render_message(MessageId::decode_session_dead, {{"session", k_dead_session}})),
    "p.log");
  REQUIRE(e.matches.size() == 2);
  CHECK(e.matches[0].values ==
        nlohmann::ordered_json{{"room", k_room_a}, {"peer", k_dead_session}, {"bootstrap_room", k_room_a}});
  CHECK(e.matches[0].rooms == std::vector<std::int64_t>{k_room_a});
  CHECK(e.matches[0].causes == std::vector<std::string>{"transfer_failed"});
  CHECK(e.matches[1].line == 2);
  CHECK(e.matches[1].values["session"] == k_dead_session);
  CHECK(e.matches[1].causes == std::vector<std::string>{"peer_failed", "transfer_failed"});
  CHECK(e.matches[1].explanation.find("Mooncake session " + k_dead_session + " failed") != std::string::npos);
}

TEST_CASE("explain: an unreachable bootstrap server, rendered whole", "[explain][liveness]")
{
  const std::string reason =
    render_message(MessageId::bootstrap_info_unreachable, {{"bootstrap_addr", "10.99.91.41:8998"}});
  const auto e = explain_log_text(decode_line(k_room_a, reason), "b.log");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].values["bootstrap_addr"] == "10.99.91.41:8998");
  const std::string expected = fmt::format(
    "b.log:1: error [no rule]\n"
    "  SGLang: {}\n"
    "  cause: bootstrap_unreachable\n"
    "  The decode could not read the prefill's parallel layout from the bootstrap server at 10.99.91.41:8998 (HTTP GET "
    "/route), so it failed the request before any transfer. The prefill is down or still starting (its bootstrap "
    "server answers 503 until every prefill rank has registered), or the address is wrong: the port must be the "
    "prefill's --disaggregation-bootstrap-port, as given to the router.\n"
    "  fix: {}\n"
    "  confirm: {}\n"
    "\n"
    "1 known PD failure, 0 notes, 0 unrecognised\n",
    reason, check::cause_fix("bootstrap_unreachable"), e.matches[0].confirm);
  CHECK(report::log_explanation_to_text(e) == expected);
}

TEST_CASE("explain: NIXL_ERR_NOT_FOUND from any build of NIXL's binding", "[explain][liveness]")
{
  const std::string delivered = render_delivered(MessageId::nixl_not_found, {});
  const std::string text = render_message(MessageId::nixl_not_found, {});
  const auto e = explain_log_text("Exception in thread Thread-7 (bootstrap_thread):\n" + delivered + "\n" +
                                    "nixl_cu12._bindings.nixlNotFoundError: " + text + "\n",
                                  "p.log");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].count == 2);
  CHECK(e.matches[0].runtime_error == text);
  CHECK(e.matches[0].causes == std::vector<std::string>{"attn_tp_mismatch", "backend_version_too_old"});
  CHECK(e.matches[0].explanation.find("not an SGLang text") != std::string::npos);
}

TEST_CASE("explain: the Mamba ping-pong assertion is a pool too small for the requests", "[explain][liveness]")
{
  const std::string delivered = render_delivered(MessageId::mamba_ping_pong_exhausted, {});
  const auto e = explain_log_text("[2026-03-01 08:00:00 TP0] Scheduler hit an exception: Traceback (most recent call "
                                  "last):\n" +
                                    delivered + "\n",
                                  "d.log");
  REQUIRE(e.matches.size() == 1);
  CHECK(e.matches[0].line == 2);
  CHECK(e.matches[0].runtime_error == message_head(MessageId::mamba_ping_pong_exhausted, {}));
  CHECK(e.matches[0].causes == std::vector<std::string>{"mamba_pool_exhausted"});
  CHECK(e.matches[0].explanation.find("--mamba-scheduler-strategy extra_buffer") != std::string::npos);
}

TEST_CASE("explain: a known error inside the transfer-thread wrapper also says the worker is gone",
          "[explain][liveness]")
{
  const std::string inner = render_message(MessageId::mooncake_slot_size, {{"src", 2097152}, {"dst", 1048576}});
  const auto e = explain_log_text(
    render_delivered(MessageId::transfer_thread_failed, {{"error", inner}, {"bootstrap_port", 8998}}) + "\n", "p.log");
  REQUIRE(e.matches.size() == 1);
  const auto& m = e.matches[0];
  CHECK(m.rule == "mooncake-slot-size");
  CHECK(m.causes == std::vector<std::string>{"ssm_dtype_mismatch"});
  CHECK(m.analysis["transfer_thread_died"] == true);
  CHECK(m.explanation.find("exactly a factor 2 apart") != std::string::npos);
  CHECK(m.explanation.find("a transfer worker thread of the prefill (bootstrap port 8998)") != std::string::npos);
  CHECK(m.fix == std::string(check::cause_fix("ssm_dtype_mismatch")) +
                   " Then restart the prefill: its dead transfer worker does not come back.");
}

TEST_CASE("explain: a decode symptom links to the prefill failure of the same bootstrap room, and back",
          "[explain][liveness]")
{
  const std::string maybe_dead = render_message(MessageId::prefill_maybe_dead, {});
  const std::string chunk =
    render_message(MessageId::kv_chunk_send_failed, {{"room", k_room_a}, {"peer", k_dead_session}});
  const std::string session = render_message(MessageId::decode_session_dead, {{"session", k_dead_session}});
  const auto e = explain_logs({
    {"p.prefill.log", prefill_line(k_room_a, chunk) + prefill_line(k_room_b, session) + prefill_line(99, session)},
    {"d.decode.log", decode_line(k_room_a, maybe_dead) + decode_line(k_room_b, maybe_dead)},
  });
  REQUIRE(e.logs.size() == 2);
  CHECK(e.logs[0].role == "prefill");
  CHECK(e.logs[0].role_from == "name");
  REQUIRE(e.matches.size() == 3);
  const auto& decode = e.matches[2];
  CHECK(decode.file == "d.decode.log");
  REQUIRE(decode.links.size() == 2);
  CHECK(decode.links[0].room == k_room_a);
  CHECK(decode.links[0].role == "prefill");
  CHECK(decode.links[0].file == "p.prefill.log");
  CHECK(decode.links[0].line == 1);
  CHECK(decode.links[0].text == chunk);
  CHECK(decode.links[1].room == k_room_b);
  CHECK(decode.links[1].line == 2);
  CHECK(decode.links[1].text == session);
  // Each prefill failure names the decode symptom; room 99 has none on the decode.
  REQUIRE(e.matches[0].links.size() == 1);
  CHECK(e.matches[0].links[0].role == "decode");
  CHECK(e.matches[0].links[0].text == maybe_dead);
  CHECK(e.matches[1].rooms == std::vector<std::int64_t>{k_room_b, 99});
  CHECK(e.matches[1].links.size() == 1);
  const std::string text = report::log_explanation_to_text(e);
  CHECK(text.find(fmt::format("  prefill side, bootstrap room {}: p.prefill.log:1 [no rule]: {}\n", k_room_a, chunk)) !=
        std::string::npos);
  CHECK(text.find(fmt::format("  decode side, bootstrap room {}: d.decode.log:1 [no rule]: {}\n", k_room_a,
                              maybe_dead)) != std::string::npos);
  const auto j = report::log_explanation_to_json(e);
  CHECK(j["logs"][1] == nlohmann::ordered_json{{"file", "d.decode.log"}, {"role", "decode"}, {"role_from", "name"}});
  CHECK(j["matches"][2]["links"][1]["room"] == k_room_b);
  CHECK(j["matches"][2]["links"][1]["rule"].is_null());
}

TEST_CASE("explain: roles come from SGLang's server_args first, then the name; unknown roles are not linked",
          "[explain][liveness]")
{
  const std::string maybe_dead = render_message(MessageId::prefill_maybe_dead, {});
  const std::string session = render_message(MessageId::decode_session_dead, {{"session", k_dead_session}});
  const std::string prefill_args = "[2026-02-27 14:50:02] server_args=ServerArgs(tp_size=2, "
                                   "disaggregation_mode='prefill', disaggregation_bootstrap_port=8998)\n";
  // A file named "decode" whose server_args say prefill is a prefill log.
  const auto e = explain_logs({{"node-a/decode.log", prefill_args + prefill_line(k_room_b, session)},
                               {"node-b/server.log", decode_line(k_room_b, maybe_dead)}});
  REQUIRE(e.logs.size() == 2);
  CHECK(e.logs[0].role == "prefill");
  CHECK(e.logs[0].role_from == "server_args");
  CHECK(e.logs[1].role == "unknown");
  CHECK(e.logs[1].role_from.empty());
  for (const auto& m : e.matches) {
    CHECK(m.links.empty());
  }
  const auto j = report::log_explanation_to_json(e);
  CHECK(j["logs"][1]["role_from"].is_null());
  // An unrecognised prefill failure is linked too.
  const auto u = explain_logs({{"p.prefill.log", prefill_line(k_room_a, "RuntimeError: a mooncake error no one knows")},
                               {"d.decode.log", decode_line(k_room_a, maybe_dead)}});
  REQUIRE(u.unrecognised.size() == 1);
  CHECK(u.unrecognised[0].rooms == std::vector<std::int64_t>{k_room_a});
  REQUIRE(u.unrecognised[0].links.size() == 1);
  CHECK(u.unrecognised[0].links[0].file == "d.decode.log");
  REQUIRE(u.matches.size() == 1);
  REQUIRE(u.matches[0].links.size() == 1);
  CHECK(u.matches[0].links[0].text == u.unrecognised[0].text);
}

TEST_CASE("pdcheck explain: the bundled prefill and decode logs are linked by bootstrap room",
          "[explain][cli][liveness]")
{
  const test::CliRun r =
    test::run_pdcheck("explain --format json examples/logs/room-link.prefill.log examples/logs/room-link.decode.log");
  CHECK(r.code == 1);
  const auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["logs"].size() == 2);
  CHECK(j["logs"][0]["role_from"] == "server_args");
  CHECK(j["logs"][1]["role"] == "decode");
  REQUIRE(j["matches"].size() == 3);
  const auto& decode = j["matches"][2];
  CHECK(decode["runtime_error"] == render_message(MessageId::prefill_maybe_dead, {}));
  CHECK(decode["count"] == 2);
  REQUIRE(decode["links"].size() == 2);
  CHECK(decode["links"][0]["room"] == k_room_a);
  CHECK(decode["links"][0]["line"] == 4);
  CHECK(decode["links"][0]["text"] ==
        render_message(MessageId::kv_chunk_send_failed, {{"room", k_room_a}, {"peer", k_dead_session}}));
  CHECK(decode["links"][1]["room"] == k_room_b);
  CHECK(decode["links"][1]["line"] == 6);
  CHECK(decode["links"][1]["text"] == render_message(MessageId::decode_session_dead, {{"session", k_dead_session}}));
  CHECK(j["unrecognised"].empty());

  const test::CliRun text =
    test::run_pdcheck("explain examples/logs/room-link.prefill.log examples/logs/room-link.decode.log");
  CHECK(text.out.find(fmt::format("  prefill side, bootstrap room {}: examples/logs/room-link.prefill.log:6 [no rule]: "
                                  "{}\n",
                                  k_room_b,
                                  render_message(MessageId::decode_session_dead, {{"session", k_dead_session}}))) !=
        std::string::npos);
}

TEST_CASE("pdcheck explain: binary input is refused in one line, from a file or a pipe", "[explain][cli][liveness]")
{
  const test::TempDir dir;
  const std::string gz = dir.write("prefill.log.gz", std::string("\x1f\x8b\x08\x00", 4) + std::string(64, 'x'));
  const test::CliRun gzip = test::run_pdcheck("explain " + gz);
  CHECK(gzip.code == 2);
  CHECK(gzip.out == "pdcheck: error: " + gz +
                      ": expected a text log (plain or JSON lines), got gzip-compressed data (decompress it: zcat FILE "
                      "| pdcheck explain -)\n");
  const std::string pcap = dir.write("decode.pcap", std::string("\xd4\xc3\xb2\xa1\x02\x00\x04\x00", 8));
  const test::CliRun piped = test::run_pdcheck("explain - < " + pcap);
  CHECK(piped.code == 2);
  CHECK(piped.out ==
        "pdcheck: error: <stdin>: expected a text log (plain or JSON lines), got a packet capture (read it with "
        "`pdcheck capture`)\n");
  const std::string nul = dir.write("odd.log", std::string("ok\n\0\0binary", 12));
  const test::CliRun binary = test::run_pdcheck("explain " + nul);
  CHECK(binary.code == 2);
  CHECK(binary.out == "pdcheck: error: " + nul +
                        ": expected a text log (plain or JSON lines), got binary data (a NUL byte at offset 3)\n");
  // A text log through a pipe, in small pieces, is still read.
  const test::CliRun text = test::run_pdcheck("explain - < examples/logs/room-link.decode.log");
  CHECK(text.code == 1);
  CHECK(text.out.rfind("<stdin>:3: error [no rule] (2 times)\n", 0) == 0);
}
