// `pdcheck probe fleet`'s planning: rank specs, which rank runs which end,
// which pairs are probed (SGLang's rank mapping worked by hand), and rounds in
// which no rank is in two pairs.
#include "plan/fleet_pairs.hpp"

#include "../../support/error_of.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

using namespace pdcheck;
using test::error_of;

namespace {

plan::FleetPlan plan_of(const std::string& prefill, const std::string& decode,
                        plan::PairChoice pairs = plan::PairChoice::all)
{
  plan::FleetPlan p;
  p.origin = "plan.yaml";
  p.prefill_ranks = plan::parse_rank_spec(prefill, "plan.yaml:2:10");
  p.decode_ranks = plan::parse_rank_spec(decode, "plan.yaml:5:10");
  p.pairs = pairs;
  p.pairs_where = "plan.yaml:6:8";
  return p;
}

std::vector<std::pair<int, int>> as_pairs(const std::vector<plan::FleetPair>& v)
{
  std::vector<std::pair<int, int>> out;
  for (const plan::FleetPair& p : v) {
    out.emplace_back(p.prefill, p.decode);
  }
  return out;
}

} // namespace

TEST_CASE("fleet plan: rank specs are ranges, single ranks or rest", "[plan][fleet]")
{
  const plan::RankSpec s = plan::parse_rank_spec("0-3,8,10-11", "p:1:1");
  CHECK(s.ranges == std::vector<std::pair<int, int>>{{0, 3}, {8, 8}, {10, 11}});
  CHECK_FALSE(s.rest);
  CHECK(plan::parse_rank_spec("rest", "p:1:1").rest);
  CHECK(error_of([] { plan::parse_rank_spec("0-", "p:1:1"); }) ==
        "p:1:1: expected ranks such as \"0-3,8\" or \"rest\", got \"0-\"");
  CHECK(error_of([] { plan::parse_rank_spec("a", "p:1:1"); }) ==
        "p:1:1: expected ranks such as \"0-3,8\" or \"rest\", got \"a\"");
  CHECK(error_of([] { plan::parse_rank_spec("4-2", "p:1:1"); }) == "p:1:1: rank range 4-2 runs backwards");
  CHECK(error_of([] { plan::parse_rank_spec("1,,2", "p:1:1"); }) ==
        "p:1:1: expected ranks such as \"0-3,8\" or \"rest\", got \"1,,2\"");
}

TEST_CASE("fleet plan: roles, rest and the errors of a plan that does not fit the fleet", "[plan][fleet]")
{
  const plan::FleetRoles roles = plan::resolve_roles(plan_of("0-1", "rest"), 5);
  CHECK(roles.prefill == std::vector<int>{0, 1});
  CHECK(roles.decode == std::vector<int>{2, 3, 4});
  CHECK(plan::resolve_roles(plan_of("rest", "0,4"), 5).prefill == std::vector<int>{1, 2, 3});

  CHECK(error_of([] { plan::resolve_roles(plan_of("0-1", "2-4"), 4); }) ==
        "plan.yaml:5:10: decode rank 4 is outside the fleet of 4 ranks (0-3)");
  CHECK(error_of([] { plan::resolve_roles(plan_of("0-1", "1-3"), 4); }) ==
        "plan.yaml:5:10: rank 1 is named on both sides: one rank runs one end");
  CHECK(error_of([] { plan::resolve_roles(plan_of("0,0", "1"), 4); }) == "plan.yaml:2:10: rank 0 is named twice");
  CHECK(error_of([] { plan::resolve_roles(plan_of("rest", "rest"), 4); }) ==
        "plan.yaml:5:10: only one side can take the \"rest\" of the ranks");
  CHECK(error_of([] { plan::resolve_roles(plan_of("0-1", "rest"), 2); }) ==
        "plan.yaml:5:10: no decode rank in a fleet of 2 ranks");
  // A rank neither side names joins and waits: allowed.
  CHECK(plan::resolve_roles(plan_of("0", "2"), 4).decode == std::vector<int>{2});
}

TEST_CASE("fleet plan: SGLang's target_tp_ranks, worked by hand", "[plan][fleet]")
{
  // Decode attention TP 4 reading prefill TP 2: each decode rank reads one
  // prefill rank, rank // (4 / 2): 0,1 -> 0 and 2,3 -> 1.
  CHECK(plan::sglang_target_tp_ranks(0, 4, 2) == std::vector<int>{0});
  CHECK(plan::sglang_target_tp_ranks(1, 4, 2) == std::vector<int>{0});
  CHECK(plan::sglang_target_tp_ranks(3, 4, 2) == std::vector<int>{1});
  // Equal TP: the same rank.
  CHECK(plan::sglang_target_tp_ranks(5, 8, 8) == std::vector<int>{5});
  // Decode TP 2 reading prefill TP 8: ratio 4, decode rank 1 reads 4..7.
  CHECK(plan::sglang_target_tp_ranks(1, 2, 8) == std::vector<int>{4, 5, 6, 7});
}

TEST_CASE("fleet plan: the pairs of all, sglang and a list", "[plan][fleet]")
{
  const plan::FleetPlan all = plan_of("0-1", "rest");
  const plan::FleetRoles four = plan::resolve_roles(all, 4);
  CHECK(as_pairs(plan::fleet_pairs(all, four, 1, 1)) == std::vector<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 2}, {1, 3}});

  // One prefill instance at TP 2 (ranks 0-1), one decode instance at TP 4
  // (ranks 2-5): decode TP ranks 0,1 (fleet 2,3) read prefill TP rank 0
  // (fleet 0); decode 2,3 (fleet 4,5) read prefill 1 (fleet 1).
  const plan::FleetPlan sg = plan_of("0-1", "2-5", plan::PairChoice::sglang);
  const plan::FleetRoles six = plan::resolve_roles(sg, 6);
  CHECK(as_pairs(plan::fleet_pairs(sg, six, 2, 4)) == std::vector<std::pair<int, int>>{{0, 2}, {0, 3}, {1, 4}, {1, 5}});
  // Two prefill instances at TP 2 (0-1, 2-3) and one decode instance at TP 1
  // (4): the decode rank reads prefill TP ranks 0 and 1 of each instance.
  const plan::FleetPlan sg2 = plan_of("0-3", "4", plan::PairChoice::sglang);
  CHECK(as_pairs(plan::fleet_pairs(sg2, plan::resolve_roles(sg2, 5), 2, 1)) ==
        std::vector<std::pair<int, int>>{{0, 4}, {1, 4}, {2, 4}, {3, 4}});
  CHECK(error_of([&] { plan::fleet_pairs(sg, plan::resolve_roles(sg, 6), 2, 3); }) ==
        "plan.yaml:6:8: sglang pairs: attention TP 2 (prefill) and 3 (decode) do not divide one another, so SGLang "
        "has no rank mapping for them");
  // tp 2 / dp 4 with DP attention rounds down to 0: no mapping, not a division by zero.
  CHECK(error_of([&] { plan::fleet_pairs(sg, plan::resolve_roles(sg, 6), 0, 4); }) ==
        "plan.yaml:6:8: sglang pairs: attention TP 0 (prefill) and 4 (decode): a side SGLang cannot start has no "
        "rank mapping");
  const plan::FleetPlan odd = plan_of("0-2", "3-6", plan::PairChoice::sglang);
  CHECK(error_of([&] { plan::fleet_pairs(odd, plan::resolve_roles(odd, 7), 2, 4); }) ==
        "plan.yaml:6:8: sglang pairs need whole prefill instances: 3 prefill ranks at attention TP 2");

  plan::FleetPlan listed = plan_of("0-1", "rest", plan::PairChoice::listed);
  listed.listed = {{1, 3}, {0, 2}, {1, 3}};
  CHECK(as_pairs(plan::fleet_pairs(listed, four, 1, 1)) == std::vector<std::pair<int, int>>{{0, 2}, {1, 3}});
  listed.listed = {{2, 3}};
  CHECK(error_of([&] { plan::fleet_pairs(listed, four, 1, 1); }) ==
        "plan.yaml:6:8: pair [2, 3]: rank 2 is not a prefill rank");
  listed.listed = {{0, 1}};
  CHECK(error_of([&] { plan::fleet_pairs(listed, four, 1, 1); }) ==
        "plan.yaml:6:8: pair [0, 1]: rank 1 is not a decode rank");
}

TEST_CASE("fleet plan: rounds never put a rank in two pairs and run every pair once", "[plan][fleet]")
{
  std::mt19937 rng(20261203);
  for (int trial = 0; trial < 200; ++trial) {
    const int n_prefill = 1 + static_cast<int>(rng() % 6);
    const int n_decode = 1 + static_cast<int>(rng() % 6);
    std::vector<plan::FleetPair> pairs;
    for (int p = 0; p < n_prefill; ++p) {
      for (int d = 0; d < n_decode; ++d) {
        if (rng() % 3 != 0) {
          pairs.push_back({p, n_prefill + d});
        }
      }
    }
    const auto rounds = plan::schedule_rounds(pairs);
    std::vector<int> seen(pairs.size(), 0);
    std::map<int, int> degree;
    for (const plan::FleetPair& p : pairs) {
      ++degree[p.prefill];
      ++degree[p.decode];
    }
    int max_degree = 0;
    for (const auto& [rank, d] : degree) {
      max_degree = std::max(max_degree, d);
    }
    for (const auto& round : rounds) {
      REQUIRE_FALSE(round.empty());
      std::set<int> busy;
      for (std::size_t i : round) {
        ++seen[i];
        CHECK(busy.insert(pairs[i].prefill).second);
        CHECK(busy.insert(pairs[i].decode).second);
      }
    }
    CHECK(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
    // Greedy needs at most 2 x the busiest rank's pairs - 1 rounds (and at least that many).
    CHECK(static_cast<int>(rounds.size()) >= max_degree);
    CHECK(static_cast<int>(rounds.size()) <= std::max(0, 2 * max_degree - 1));
  }
  // 2 prefill x 2 decode, every pair: two rounds of two pairs.
  const auto two = plan::schedule_rounds({{0, 2}, {0, 3}, {1, 2}, {1, 3}});
  CHECK(two == std::vector<std::vector<std::size_t>>{{0, 3}, {1, 2}});
}
