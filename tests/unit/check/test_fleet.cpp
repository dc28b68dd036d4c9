// The fleet's own findings, hand-checked: workers that do not answer, roles the
// router and the server disagree on, and bootstrap ports a decode would not find.
#include "check/fleet.hpp"

#include "util/error.hpp"

#include "../../support/checker_cases.hpp"
#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace pdcheck;
using sglang::Role;

namespace {

nlohmann::json router_answer(const std::string& name)
{
  std::ifstream in(std::string(PDCHECK_SOURCE_DIR) + "/tests/data/router/" + name);
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

check::FleetWorker answered(const std::string& url, std::optional<Role> listed, std::optional<int> port,
                            const sglang::Side& side)
{
  return check::FleetWorker{check::RouterWorker{url, listed, port}, side, "", std::nullopt};
}

} // namespace

TEST_CASE("parse_router_workers: every router's worker list", "[check][fleet]")
{
  const auto gateway = check::parse_router_workers(router_answer("workers-model-gateway.json"), "R");
  REQUIRE(gateway.size() == 2);
  CHECK(gateway[0].url == "http://10.0.0.11:30000");
  CHECK(gateway[0].role == Role::prefill);
  CHECK(gateway[0].bootstrap_port == 8998);
  CHECK(gateway[1].role == Role::decode);
  CHECK_FALSE(gateway[1].bootstrap_port);

  // sgl-router 0.2: a prefill registered without a port has bootstrap_port null.
  const auto v02 = check::parse_router_workers(router_answer("workers-0.2.json"), "R");
  REQUIRE(v02.size() >= 3);
  CHECK_FALSE(v02[1].bootstrap_port);

  // sgl-router 0.1 lists URLs only: the roles come from the servers.
  const auto old = check::parse_router_workers(router_answer("list-workers-0.1.json"), "R");
  REQUIRE(old.size() == 4);
  CHECK_FALSE(old[0].role);

  // Regular (non-PD) workers are not part of the pairs; lower-case types (smg) are read.
  const auto mixed = check::parse_router_workers(
    nlohmann::json::parse(R"([{"url": "a", "worker_type": "regular"}, {"url": "b", "worker_type": "Prefill"}])"), "R");
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0].role == Role::prefill);

  CHECK(test::error_of([] { check::parse_router_workers(nlohmann::json::parse(R"({"status": "ok"})"), "R"); }) ==
        "R: expected the router's worker list ({\"workers\": [...]} or {\"urls\": [...]})");
  CHECK(test::error_of([] { check::parse_router_workers(nlohmann::json::parse(R"({"workers": [{"id": 1}]})"), "R"); }) ==
        "R: workers[0]: expected a worker object with a url");
}

TEST_CASE("fleet_findings: unreachable workers and roles the router has wrong", "[check][fleet]")
{
  const sglang::Side decode = test::side(Role::decode, "--tp 4", "0.5.20");
  std::vector<check::FleetWorker> workers = {
    check::FleetWorker{check::RouterWorker{"http://p:30000", Role::prefill, 8998}, std::nullopt,
                       "http://p:30000: GET /server_info: Connection refused", std::nullopt},
    answered("http://d:30000", Role::prefill, std::nullopt, decode),
  };
  const auto found = check::fleet_findings(workers);
  REQUIRE(found.size() == 2);
  CHECK(found[0].rule == "fleet-worker-unreachable");
  CHECK(found[0].message ==
        "prefill worker http://p:30000 does not answer: http://p:30000: GET /server_info: Connection refused");
  CHECK(found[1].rule == "fleet-worker-role");
  CHECK(found[1].message ==
        "the router lists http://d:30000 as a prefill worker, but it runs --disaggregation-mode decode");
}

TEST_CASE("fleet_findings: the bootstrap port each decode would use for each prefill", "[check][fleet]")
{
  const sglang::Side prefill_9000 =
    test::side(Role::prefill, "--tp 4 --disaggregation-bootstrap-port 9000", "0.5.20");
  const sglang::Side decode = test::side(Role::decode, "--tp 4", "0.5.20"); // SGLang's default 8998

  // No port registered: the decode falls back to its own 8998, where this prefill does not listen.
  const auto none = check::fleet_findings({answered("http://p:30000", Role::prefill, std::nullopt, prefill_9000),
                                           answered("http://d:30000", Role::decode, std::nullopt, decode)});
  REQUIRE(none.size() == 1);
  CHECK(none[0].rule == "fleet-bootstrap-port");
  CHECK(none[0].message == "prefill http://p:30000 serves its bootstrap server on port 9000, but the router "
                           "registered no port for it, so decode http://d:30000 uses its own "
                           "--disaggregation-bootstrap-port 8998");
  CHECK(none[0].evidence["confidence"] == "medium");

  // A wrong registered port is one finding, whatever the number of decodes.
  const auto wrong = check::fleet_findings({answered("http://p:30000", Role::prefill, 8998, prefill_9000),
                                            answered("http://d1:30000", Role::decode, std::nullopt, decode),
                                            answered("http://d2:30000", Role::decode, std::nullopt, decode)});
  REQUIRE(wrong.size() == 1);
  CHECK(wrong[0].message ==
        "prefill http://p:30000 serves its bootstrap server on port 9000, but the router registered port 8998 for it");

  // Registered right, or both on the default: nothing to say.
  CHECK(check::fleet_findings({answered("http://p:30000", Role::prefill, 9000, prefill_9000),
                               answered("http://d:30000", Role::decode, std::nullopt, decode)})
          .empty());
  CHECK(check::fleet_findings({answered("http://p:30000", Role::prefill, std::nullopt,
                                        test::side(Role::prefill, "--tp 4", "0.5.20")),
                               answered("http://d:30000", Role::decode, std::nullopt, decode)})
          .empty());
}
