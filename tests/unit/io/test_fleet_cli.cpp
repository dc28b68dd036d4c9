// `pdcheck fleet --router URL` end to end: a loopback router lists loopback
// workers that answer with recorded server-info bodies.
#include "../../support/bootstrap_server.hpp"
#include "../../support/loopback_http.hpp"
#include "../../support/run_pdcheck.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <memory>

using namespace pdcheck;
using pdcheck::test::LoopbackServer;
using pdcheck::test::Reply;

namespace {

std::unique_ptr<LoopbackServer> worker(const std::string& file)
{
  return std::make_unique<LoopbackServer>([b = test::test_data("server_info/" + file)](const httplib::Request& req) {
    return req.path == "/server_info" ? Reply{200, b, "application/json"} : Reply{404, "Not Found"};
  });
}

} // namespace

TEST_CASE("fleet: every prefill x decode pair a router serves, with the fleet's own findings", "[io][fleet]")
{
  auto prefill = worker("prefill-0.5.20.json");
  auto decode_new = worker("decode-0.5.20.json");
  auto decode_old = worker("decode-0.5.5.post3.json");
  // A port nothing listens on: a worker that is down.
  const std::string down = "http://127.0.0.1:9";
  const nlohmann::json workers = {
    {"workers",
     {{{"url", prefill->url()}, {"worker_type", "prefill"}, {"bootstrap_port", 8998}},
      {{"url", decode_new->url()}, {"worker_type", "decode"}},
      {{"url", decode_old->url()}, {"worker_type", "decode"}},
      {{"url", down}, {"worker_type", "decode"}}}}};
  LoopbackServer router([body = workers.dump()](const httplib::Request& req) {
    return req.path == "/workers" ? Reply{200, body, "application/json"} : Reply{404, "Not Found"};
  });

  const auto run = test::run_pdcheck("fleet --timeout 2 --router " + router.url());
  CHECK(run.code == 1);
  CHECK(run.out.rfind("fleet    " + router.url() + ": 1 prefill, 3 decodes (1 not answering)\n", 0) == 0);
  CHECK(run.out.find("error [fleet-worker-unreachable] bootstrap\n  decode worker " + down + " does not answer: ") !=
        std::string::npos);
  // The new decode pairs cleanly; the old one is the half-done rollout.
  CHECK(run.out.find("2 pairs checked:\n  compatible ") != std::string::npos);
  CHECK(run.out.find("error [registration-generation]") != std::string::npos);
  CHECK(router.targets() == std::vector<std::string>{"GET /workers"});

  const auto json = test::run_pdcheck("fleet --timeout 2 --format json --router " + router.url());
  CHECK(json.code == 1);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["workers"].size() == 4);
  CHECK(doc["workers"][3]["answered"] == false);
  CHECK(doc["pairs"].size() == 2);
  CHECK(doc["findings"][0]["rule"] == "fleet-worker-unreachable");
  CHECK(doc["verdict"] == "incompatible");
}

TEST_CASE("fleet: a router that does not answer is exit 3", "[io][fleet]")
{
  const auto run = test::run_pdcheck("fleet --timeout 1 --router http://127.0.0.1:9");
  CHECK(run.code == 3);
  CHECK(run.out.rfind("pdcheck: cannot run: http://127.0.0.1:9: GET /workers: ", 0) == 0);
}

TEST_CASE("fleet: each prefill's bootstrap server is read where the decode looks for it", "[io][fleet]")
{
  // Another prefill (attention TP 2) answers on this prefill's (TP 4) bootstrap port.
  LoopbackServer bootstrap = test::bootstrap_server(2);
  std::string body = test::test_data("server_info/prefill-0.5.20.json");
  const std::string port_key = "\"disaggregation_bootstrap_port\": 8998";
  REQUIRE(body.find(port_key) != std::string::npos);
  body.replace(body.find(port_key), port_key.size(),
               "\"disaggregation_bootstrap_port\": " + std::to_string(bootstrap.port()));
  LoopbackServer prefill([body](const httplib::Request& req) {
    return req.path == "/server_info" ? Reply{200, body, "application/json"} : Reply{404, "Not Found"};
  });
  auto decode = worker("decode-0.5.20.json");
  const nlohmann::json workers = {
    {"workers",
     {{{"url", prefill.url()}, {"worker_type", "prefill"}, {"bootstrap_port", bootstrap.port()}},
      {{"url", decode->url()}, {"worker_type", "decode"}}}}};
  LoopbackServer router([b = workers.dump()](const httplib::Request& req) {
    return req.path == "/workers" ? Reply{200, b, "application/json"} : Reply{404, "Not Found"};
  });
  const auto run = test::run_pdcheck("fleet --timeout 2 --format json --router " + router.url());
  CHECK(run.code == 1);
  const auto doc = nlohmann::json::parse(run.out);
  REQUIRE(doc["pairs"].size() == 1);
  const auto& pair = doc["pairs"][0];
  REQUIRE(pair["findings"].size() == 1);
  CHECK(pair["findings"][0]["rule"] == "bootstrap-other-prefill");
  CHECK(pair["prefill"]["notes"][0] == "bootstrap server " + bootstrap.url() + ": 2 of 2 ranks registered");
  for (const auto& r : bootstrap.requests()) {
    CHECK(r.method == "GET");
  }
}
