// From findings to causes: grouping across rank pairs, the operator's policy
// (select, ignore, inline comments, advice, baseline, severity overrides) and
// the verdict that follows, on hand-made findings.
#include "check/triage.hpp"

#include "core/rules.hpp"
#include "util/stable_hash.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

Finding at(RuleId rule, std::string side, std::string message, std::optional<int> p, std::optional<int> d)
{
  Finding f = make_finding(rule, std::move(message));
  f.side = std::move(side);
  f.prefill_rank = p;
  f.decode_rank = d;
  return f;
}

std::vector<Finding> seed_like()
{
  return {
    at(RuleId::mooncake_layout_no_dims, "prefill", "layouts differ", 0, 0),
    at(RuleId::mooncake_layout_no_dims, "prefill", "layouts differ", 1, 1),
    at(RuleId::mooncake_layout_no_dims, "prefill", "layouts differ on rank 2", 2, 2),
    at(RuleId::scheduler_state_indices, "", "one index per component", 0, 0),
    at(RuleId::bootstrap_page_size, "decode", "prefill page size 64 != decode page size 16", std::nullopt, 1),
  };
}

} // namespace

TEST_CASE("triage: identical findings across rank pairs are one cause listing the pairs", "[check][triage]")
{
  const auto causes = check::group_causes(seed_like());
  REQUIRE(causes.size() == 4);
  CHECK(causes[0].finding.rule == "mooncake-layout-no-dims");
  REQUIRE(causes[0].pairs.size() == 2);
  CHECK(causes[0].pairs[0].label() == "P0→D0");
  CHECK(causes[0].pairs[1].label() == "P1→D1");
  CHECK(causes[1].finding.message == "layouts differ on rank 2"); // another text, another cause
  CHECK(causes[3].pairs[0].label() == "D1");
  // The fingerprint is the rule, the side and the message: never the ranks.
  CHECK(causes[0].fingerprint == stable_hash("mooncake-layout-no-dims|prefill|layouts differ"));
}

TEST_CASE("triage: the verdict counts causes, and advice is hidden unless asked", "[check][triage]")
{
  const check::Triage t = check::triage(seed_like(), {});
  CHECK(t.shown.size() == 3);
  CHECK(t.count(Severity::error) == 3);
  REQUIRE(t.suppressed.size() == 1);
  CHECK(t.suppressed[0].by == check::Suppression::advice_hidden);
  CHECK_FALSE(t.passes(Severity::error));

  check::FindingPolicy p;
  p.show_advice = true;
  CHECK(check::triage(seed_like(), p).count(Severity::info) == 1);
  check::FindingPolicy selected;
  selected.select = {"scheduler-state-indices"}; // naming advice in --select asks for it
  const check::Triage only = check::triage(seed_like(), selected);
  REQUIRE(only.shown.size() == 1);
  CHECK(only.count(check::Suppression::not_selected) == 3);
  CHECK(only.passes(Severity::error));
  CHECK_FALSE(only.passes(Severity::info));
}

TEST_CASE("triage: ignore, inline comments and severity overrides", "[check][triage]")
{
  check::FindingPolicy p;
  p.ignore = {"bootstrap-page-size"};
  p.severity["mooncake-layout-no-dims"] = Severity::warning;
  const check::Triage t = check::triage(seed_like(), p);
  CHECK(t.count(check::Suppression::ignored) == 1);
  CHECK(t.count(Severity::warning) == 2);
  CHECK(t.passes(Severity::error));
  CHECK_FALSE(t.passes(Severity::warning));

  // A comment in the decode's file silences the decode's causes and the pair's, not the prefill's.
  check::FindingPolicy inline_decode;
  inline_decode.inline_ignores["decode"] = {"bootstrap-page-size", "mooncake-layout-no-dims", "scheduler-state-indices"};
  inline_decode.show_advice = true;
  const check::Triage d = check::triage(seed_like(), inline_decode);
  CHECK(d.count(check::Suppression::inline_comment) == 2);
  CHECK(d.shown.size() == 2);
  CHECK(d.shown[0].finding.side == "prefill");
}

TEST_CASE("triage: a baseline accepts what it recorded, reports new causes and what was fixed", "[check][triage]")
{
  const check::Triage before = check::triage(seed_like(), {});
  check::FindingPolicy p;
  p.baseline = check::baseline_of(before);
  REQUIRE(p.baseline->size() == 3); // shown causes only: hidden advice is not recorded
  CHECK(check::triage(seed_like(), p).passes(Severity::info));

  std::vector<Finding> later = seed_like();
  later.erase(later.begin() + 4);                                                   // the page size was fixed
  later.push_back(at(RuleId::bootstrap_kv_cache_dtype, "decode", "kv dtype differs", std::nullopt, 0)); // a new cause
  const check::Triage after = check::triage(later, p);
  REQUIRE(after.shown.size() == 1);
  CHECK(after.shown[0].finding.rule == "bootstrap-kv-cache-dtype");
  CHECK(after.count(check::Suppression::baseline) == 2);
  REQUIRE(after.stale_baseline.size() == 1);
  CHECK(after.stale_baseline[0].rule == "bootstrap-page-size");
  // Writing the baseline again keeps the baselined causes and adds the new one, without the fixed one.
  CHECK(check::baseline_of(after).size() == 3);
}
