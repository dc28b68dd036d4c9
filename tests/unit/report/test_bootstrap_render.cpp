// `pdcheck bootstrap` from plain data: the server's facts and endpoints (a
// long list cut in text, whole in JSON), ranks never registered, then the
// check report of the decode side against the prefill built from the server.
#include "report/bootstrap_render.hpp"

#include "io/side_file.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace pdcheck;

namespace {

const std::string k_root = PDCHECK_SOURCE_DIR;

struct Run
{
  report::BootstrapServer server;
  check::PrefillFromServer from;
  check::CheckInput in;
  check::CheckResult result;
  check::Triage triage;

  report::CheckReport report() const { return {in, result, triage, Severity::error}; }
};

Run run_with_endpoints(int endpoints)
{
  std::ifstream file(k_root + "/tests/data/bootstrap/server-info-15/info.json", std::ios::binary);
  REQUIRE(file);
  std::ostringstream body;
  body << file.rdbuf();
  const check::InfoParse parse = check::parse_server_info(body.str());
  REQUIRE(parse.info);

  Run r;
  r.in.decode = io::load_side_file(k_root + "/examples/bootstrap/decode.yaml");
  r.from = check::prefill_side_from_server(*parse.info, r.in.decode, r.in.decode.profile, r.in.decode.sglang,
                                           "http://10.0.0.1:8998");
  r.in.prefill = r.from.side;
  r.result = check::run_check(r.in);
  r.triage = check::triage(r.result.findings, {});

  r.server.url = "http://10.0.0.1:8998";
  r.server.health = "ok";
  r.server.health_answer = "200 OK";
  r.server.info_target = "/route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1";
  r.server.info = *parse.info;
  for (int i = 0; i < endpoints; ++i) {
    check::RankEndpoint e;
    e.rank.tp = i;
    e.ip = i == 1 ? "fd00::2" : "10.0.0.2";
    e.port = 17000 + i;
    r.server.endpoints.push_back(e);
  }
  r.server.missing_ranks = {{check::RankId{0, 0, 1, 0}, "404 Not Found"}};
  r.server.notes = {"the server answered 503 twice before every rank registered"};
  r.server.requests = 5;
  r.server.not_ready_answers = 2;
  return r;
}

} // namespace

TEST_CASE("bootstrap_to_text: the server, its endpoints and notes, then the check", "[report]")
{
  const Run r = run_with_endpoints(2);
  report::RenderOptions ro;
  const std::string text = report::bootstrap_to_text(r.server, r.from, r.report(), ro);
  const std::string head = fmt::format("server   http://10.0.0.1:8998 · GET /health 200 OK · server info of the {} "
                                       "generation ({} keys)\n",
                                       check::info_generation_name(r.server.info.generation),
                                       r.server.info.keys.size());
  CHECK(text.rfind(head, 0) == 0);
  CHECK(text.find("\n  from the server: attn_tp_size 2") != std::string::npos);
  CHECK(text.find("\n  derived: tp_size 2 (attn_tp_size × attn_cp_size)\n") != std::string::npos);
  CHECK(text.find("  endpoints: 2 prefill ranks, 1 never registered\n"
                  "    dp 0 cp 0 tp 0 pp 0  10.0.0.2:17000\n"
                  "    dp 0 cp 0 tp 1 pp 0  [fd00::2]:17001\n"
                  "  note: the server answered 503 twice before every rank registered\n\n") != std::string::npos);
  CHECK(text.find("more (--format json lists every one)") == std::string::npos);
  // The check report follows, exactly as `pdcheck check` prints it.
  const std::string check_text = report::check_to_text(r.report(), ro);
  REQUIRE(text.size() > check_text.size());
  CHECK(text.compare(text.size() - check_text.size(), check_text.size(), check_text) == 0);
}

TEST_CASE("bootstrap_to_text: 32 endpoints shown, the rest counted", "[report]")
{
  const Run r = run_with_endpoints(40);
  const std::string text = report::bootstrap_to_text(r.server, r.from, r.report(), {});
  CHECK(text.find("tp 31 pp 0  10.0.0.2:17031\n    … 8 more (--format json lists every one)\n") != std::string::npos);
  CHECK(text.find("tp 32 pp 0") == std::string::npos);
  CHECK(report::bootstrap_to_json(r.server, r.from, r.report())["server"]["endpoints"].size() ==
        40);
}

TEST_CASE("bootstrap_to_json: the verdict, the server as read, the check report", "[report]")
{
  const Run r = run_with_endpoints(2);
  const auto j = report::bootstrap_to_json(r.server, r.from, r.report());
  CHECK(j["schema_version"] == 1);
  CHECK(j["verdict"] == r.report().verdict());
  const auto& s = j["server"];
  CHECK(s["url"] == "http://10.0.0.1:8998");
  CHECK(s["health"] == "ok");
  CHECK(s["info_request"] == "GET /route?engine_rank=-1&target_dp_group=-1&target_pp_rank=-1");
  CHECK(s["info"] == r.server.info.raw);
  CHECK(s["endpoints"][1] == nlohmann::ordered_json({{"dp", 0},
                                                     {"cp", 0},
                                                     {"tp", 1},
                                                     {"pp", 0},
                                                     {"rank_ip", "fd00::2"},
                                                     {"rank_port", 17001},
                                                     {"extra", nlohmann::ordered_json::object()}}));
  CHECK(s["missing_ranks"][0]["answer"] == "404 Not Found");
  CHECK(s["requests"] == 5);
  CHECK(s["not_ready_answers"] == 2);
  CHECK(j["check"] == report::check_to_json(r.report()));
}
