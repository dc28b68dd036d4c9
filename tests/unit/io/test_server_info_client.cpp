// `check --prefill-url/--decode-url` against loopback servers that answer with
// recorded server-info bodies (tests/data/server_info): the launch read from
// the answer, the route rename, and the one-line refusals.

#include "io/server_info_client.hpp"
#include "sglang/server_info.hpp"
#include "util/error.hpp"

#include "../../support/bootstrap_server.hpp"
#include "../../support/error_of.hpp"
#include "../../support/loopback_http.hpp"
#include "../../support/run_pdcheck.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>


using namespace pdcheck;
using pdcheck::test::LoopbackServer;
using pdcheck::test::Reply;

namespace {

std::string body(const std::string& name)
{
  return test::test_data("server_info/" + name);
}

/// A server of today: GET /server_info.
LoopbackServer current(const std::string& file)
{
  return LoopbackServer([b = body(file)](const httplib::Request& req) {
    return req.path == "/server_info" ? Reply{200, b, "application/json"} : Reply{404, "Not Found"};
  });
}

const std::chrono::milliseconds k_timeout{5000};

} // namespace

TEST_CASE("launch_from_server_info: the modelled dests become launch options", "[io][server_info]")
{
  const auto launch = sglang::launch_from_server_info(
    nlohmann::json::parse(R"({"model_path": "m", "tp_size": 4, "enable_dp_attention": false, "page_size": null,
                              "disaggregation_mode": "prefill", "enable_unified_memory": true, "port": 30000,
                              "version": "0.5.20"})"),
    "U");
  // Keys in name order; false switches, nulls and dests pdcheck does not model (port) are left out.
  CHECK(launch.words == std::vector<std::string>{"--disaggregation-mode", "prefill", "--enable-unified-memory",
                                                 "--model-path", "m", "--tp-size", "4"});
  CHECK(launch.version == "0.5.20");
  try {
    sglang::launch_from_server_info(nlohmann::json::parse(R"({"status": "ready"})"), "U");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          "U: the server info has no model_path: this is not an SGLang server's /server_info");
  }
}

TEST_CASE("side_from_server: a running prefill's launch, read with one GET", "[io][server_info]")
{
  LoopbackServer server = current("prefill-0.5.20.json");
  const sglang::Side side = io::side_from_server(server.url(), "", k_timeout);
  CHECK(side.role == sglang::Role::prefill);
  CHECK(side.args.tp_size == 4);
  CHECK(side.profile.name == "0.5.20");
  CHECK(side.model.name == "qwen3-next-80b-a3b");
  CHECK(side.origin == server.url() + " (SGLang 0.5.20)");
  CHECK(server.targets() == std::vector<std::string>{"GET /server_info"});
}

TEST_CASE("side_from_server: a server from before the rename answers /get_server_info", "[io][server_info]")
{
  LoopbackServer server([b = body("decode-0.5.5.post3.json")](const httplib::Request& req) {
    return req.path == "/get_server_info" ? Reply{200, b, "application/json"} : Reply{404, "Not Found"};
  });
  const sglang::Side side = io::side_from_server(server.url(), "", k_timeout);
  CHECK(side.role == sglang::Role::decode);
  CHECK(side.profile.name == "0.5.5.post3");
  CHECK(server.targets() == std::vector<std::string>{"GET /server_info", "GET /get_server_info"});
}

TEST_CASE("side_from_server: servers pdcheck cannot read are one line, exit 3", "[io][server_info]")
{
  LoopbackServer locked([](const httplib::Request&) { return Reply{401, "Unauthorized"}; });
  CHECK(test::error_of([&] { io::side_from_server(locked.url(), "", k_timeout); }) ==
        "cannot run: " + locked.url() + ": GET /server_info answered 401: the server was started with --api-key, which pdcheck does "
                       "not send; check its launch as a side file instead");

  std::string plain = body("prefill-0.5.20.json");
  plain.replace(plain.find("\"disaggregation_mode\": \"prefill\""), 32, "\"disaggregation_mode\": \"null\"");
  LoopbackServer not_pd([plain](const httplib::Request&) { return Reply{200, plain, "application/json"}; });
  CHECK(test::error_of([&] { io::side_from_server(not_pd.url(), "", k_timeout); }) ==
        "cannot run: " + not_pd.url() + "/server_info: the server runs without --disaggregation-mode prefill or decode, so it is not "
                       "one side of a PD pair");

  LoopbackServer html([](const httplib::Request&) { return Reply{200, "<html>", "text/html"}; });
  CHECK(test::error_of([&] { io::side_from_server(html.url(), "", k_timeout); })
          .rfind("cannot run: " + html.url() + "/server_info: the answer is not JSON: ", 0) == 0);
}

TEST_CASE("check --prefill-url --decode-url: a rollout half-way, read from the running servers", "[io][server_info]")
{
  LoopbackServer prefill = current("prefill-0.5.20.json");
  LoopbackServer decode = current("decode-0.5.5.post3.json");
  const auto run = test::run_pdcheck("check --isolated --prefill-url " + prefill.url() + " --decode-url " + decode.url());
  CHECK(run.code == 1);
  CHECK(run.out.find("error [registration-generation]") != std::string::npos);
  CHECK(run.out.find("prefill  " + prefill.url() + " (SGLang 0.5.20)") != std::string::npos);

  LoopbackServer same = current("decode-0.5.20.json");
  CHECK(test::run_pdcheck("check --isolated -q --prefill-url " + prefill.url() + " --decode-url " + same.url()).code == 0);
  // The roles are checked: a decode given as --prefill-url is refused.
  const auto swapped = test::run_pdcheck("check --prefill-url " + same.url() + " --decode-url " + decode.url());
  CHECK(swapped.code == 2);
  CHECK(swapped.out == "pdcheck: error: --prefill-url: " + same.url() + " runs --disaggregation-mode decode, not prefill\n");
}


TEST_CASE("check --prefill-url reads the prefill's bootstrap server too", "[io][server_info]")
{
  LoopbackServer prefill = current("prefill-0.5.20.json");
  LoopbackServer decode = current("decode-0.5.20.json");
  const std::string urls = " --prefill-url " + prefill.url() + " --decode-url " + decode.url();
  SECTION("the server of this prefill, all four ranks registered")
  {
    LoopbackServer bootstrap = test::bootstrap_server(4);
    const auto run = test::run_pdcheck("check --isolated" + urls + " --prefill-bootstrap " + bootstrap.url());
    CHECK(run.code == 0);
    CHECK(run.out.find("note     prefill: bootstrap server " + bootstrap.url() + ": 4 of 4 ranks registered\n") !=
          std::string::npos);
    // GET only: the health, the server info and one query per rank.
    CHECK(bootstrap.requests().size() == 6);
    for (const auto& r : bootstrap.requests()) {
      CHECK(r.method == "GET");
    }
  }
  SECTION("another prefill answers on the port")
  {
    LoopbackServer bootstrap = test::bootstrap_server(2);
    const auto run = test::run_pdcheck("check --isolated --format json" + urls + " --prefill-bootstrap " +
                                       bootstrap.url());
    CHECK(run.code == 1);
    const auto j = nlohmann::json::parse(run.out);
    const auto& findings = j["findings"];
    REQUIRE(findings.size() == 1);
    CHECK(findings[0]["rule"] == "bootstrap-other-prefill");
    CHECK(j["prefill"]["notes"][0] == "bootstrap server " + bootstrap.url() + ": 2 of 2 ranks registered");
  }
  SECTION("nothing listens where the decode would look: a warning, the pair still checked")
  {
    // A port that was just free: the prefill's own HTTP port after it closes.
    int closed = 0;
    {
      LoopbackServer gone([](const httplib::Request&) { return Reply{}; });
      closed = gone.port();
    }
    const std::string where = "http://127.0.0.1:" + std::to_string(closed);
    const auto run = test::run_pdcheck("check --isolated" + urls + " --prefill-bootstrap " + where);
    CHECK(run.code == 0);
    CHECK(run.out.find("warning [bootstrap-unreachable] bootstrap · prefill\n  pdcheck could not read the "
                       "prefill's bootstrap server: " +
                       where + ": cannot connect: ") != std::string::npos);
  }
  SECTION("--prefill-bootstrap needs --prefill-url, and a URL it can use")
  {
    CHECK(test::run_pdcheck("check --isolated --prefill-bootstrap http://h:1 a.yaml b.yaml").out ==
          "pdcheck: error: --prefill-bootstrap: goes with --prefill-url (the running prefill it belongs to)\n");
    const auto bad = test::run_pdcheck("check --isolated" + urls + " --prefill-bootstrap https://h:1");
    CHECK(bad.code == 2);
    CHECK(bad.out == "pdcheck: error: --prefill-bootstrap: the SGLang bootstrap server speaks plain HTTP only (no "
                     "TLS); give http://HOST:PORT\n");
  }
}
