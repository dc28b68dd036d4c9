// Fleet plans (`pdcheck probe fleet PLAN`): what they read, and the one-line
// errors, at the line and column, for what they refuse.
#include "io/fleet_plan_file.hpp"

#include "../../support/error_of.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using test::error_of;

TEST_CASE("fleet plan file: sides relative to the plan, ranks as text or lists, each kind of pairs", "[io][fleet]")
{
  test::TempDir dir("pdcheck-fleet-plan");
  const std::string path = dir.write("ci/plan.yaml", "prefill: {side: sides/p.yaml, ranks: 0-1}\n"
                                                     "decode:\n"
                                                     "  side: /abs/d.yaml\n"
                                                     "  ranks: [2, 3]\n"
                                                     "pairs: [[0, 2], [1, 3]]\n"
                                                     "coordinator: node0:29650\n");
  const plan::FleetPlan p = io::load_fleet_plan(path);
  CHECK(p.prefill_side == (dir.path / "ci/sides/p.yaml").string());
  CHECK(p.decode_side == "/abs/d.yaml");
  CHECK(p.prefill_ranks.ranges == std::vector<std::pair<int, int>>{{0, 1}});
  CHECK(p.prefill_ranks.where == path + ":1:38");
  CHECK(p.decode_ranks.ranges == std::vector<std::pair<int, int>>{{2, 2}, {3, 3}});
  CHECK(p.pairs == plan::PairChoice::listed);
  CHECK(p.listed == std::vector<std::pair<int, int>>{{0, 2}, {1, 3}});
  CHECK(p.pairs_where == path + ":5:8");
  CHECK(p.coordinator == "node0:29650");

  const plan::FleetPlan s = io::load_fleet_plan(
    dir.write("s.yaml", "prefill: {side: p.yaml, ranks: 0}\ndecode: {side: d.yaml, ranks: rest}\npairs: sglang\n"));
  CHECK(s.pairs == plan::PairChoice::sglang);
  CHECK(s.decode_ranks.rest);
  CHECK(io::load_fleet_plan(dir.write("a.yaml", "prefill: {side: p.yaml, ranks: 0}\ndecode: {side: d.yaml, ranks: 1}\n"))
          .pairs == plan::PairChoice::all);
}

TEST_CASE("fleet plan file: refusals name the file, line and column", "[io][fleet]")
{
  test::TempDir dir("pdcheck-fleet-plan");
  const auto err = [&](const std::string& text) {
    const std::string path = dir.write("plan.yaml", text);
    return error_of([&] { io::load_fleet_plan(path); }).substr(path.size());
  };
  CHECK(err("prefil: {side: p.yaml, ranks: 0}\n") ==
        ":1:1: unknown key 'prefil', did you mean 'prefill'? (keys: prefill, decode, pairs, coordinator)");
  CHECK(err("prefill: {side: p.yaml, rank: 0}\n") ==
        ":1:25: unknown key 'rank', did you mean 'ranks'? (keys: side, ranks)");
  CHECK(err("prefill: {side: p.yaml}\ndecode: {side: d.yaml, ranks: 1}\n") == ":1:10: prefill: missing ranks:");
  CHECK(err("prefill: {side: p.yaml, ranks: 0}\n") == ": missing decode: (a mapping with side: and ranks:)");
  CHECK(err("prefill: {side: p.yaml, ranks: 0-x}\ndecode: {side: d.yaml, ranks: 1}\n") ==
        ":1:32: expected ranks such as \"0-3,8\" or \"rest\", got \"0-x\"");
  CHECK(err("prefill: {side: p.yaml, ranks: [0, a]}\ndecode: {side: d.yaml, ranks: 1}\n") ==
        ":1:36: expected ranks such as \"0-3,8\" or \"rest\", got \"a\"");
  CHECK(err("prefill: {side: p.yaml, ranks: 0}\ndecode: {side: d.yaml, ranks: 1}\npairs: some\n") ==
        ":3:8: pairs: expected all, sglang or a list of [prefill, decode] rank pairs, got 'some'");
  CHECK(err("prefill: {side: p.yaml, ranks: 0}\ndecode: {side: d.yaml, ranks: 1}\npairs: [[0, 1, 2]]\n") ==
        ":3:9: pairs: expected [prefill rank, decode rank]");
  CHECK(err("- 1\n") == ":1:1: expected a fleet plan: a mapping with the keys prefill, decode, pairs, coordinator");
  CHECK(err("prefill: {side: 'p.yaml, ranks: 0}\n").rfind(":1:", 0) == 0);
}
