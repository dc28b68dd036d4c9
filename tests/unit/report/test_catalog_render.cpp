// `pdcheck rules`, `explain RULE` and `profiles` from made-up rows: the text
// layout and the JSON fields do not depend on what the real tables hold.
#include "report/catalog_render.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <vector>

using namespace pdcheck;

namespace {

std::vector<Rule> made_up_rules()
{
  Rule a{};
  a.id = "seed-rule";
  a.kind = FindingKind::startup;
  a.severity = Severity::error;
  a.title = "a title";
  a.explanation = "why it happens";
  a.fix = "what to change";
  Rule b = a;
  b.id = "other";
  b.kind = FindingKind::silent_corruption;
  b.severity = Severity::warning;
  b.title = "another title";
  return {a, b};
}

} // namespace

TEST_CASE("rules_to_text: one aligned line per rule, in table order", "[report]")
{
  const auto rules = made_up_rules();
  const std::string kind_a(finding_kind_name(rules[0].kind));
  const std::string kind_b(finding_kind_name(rules[1].kind));
  CHECK(report::rules_to_text(rules) ==
        fmt::format("{:<26} {:<18} {:<8} {}\n{:<26} {:<18} {:<8} {}\n", "seed-rule", kind_a, "error", "a title",
                    "other", kind_b, "warning", "another title"));
}

TEST_CASE("rule_to_text and rule_to_json: the long texts of one rule", "[report]")
{
  const Rule r = made_up_rules()[0];
  const std::string kind(finding_kind_name(r.kind));
  CHECK(report::rule_to_text(r) == "seed-rule (" + kind + ", error)\na title\n\nwhy it happens\n\nfix: what to change\n");
  const auto j = report::rule_to_json(r);
  CHECK(j.dump() == nlohmann::ordered_json{{"id", "seed-rule"},
                                           {"kind", kind},
                                           {"severity", "error"},
                                           {"title", "a title"},
                                           {"explanation", "why it happens"},
                                           {"fix", "what to change"}}
                      .dump());
  const auto all = report::rules_to_json(made_up_rules());
  REQUIRE(all.at("rules").size() == 2);
  CHECK(all["rules"][1]["id"] == "other");
  CHECK(all["rules"][1]["severity"] == "warning");
}

TEST_CASE("profile_to_json: enums by name, an unreleased profile has released null", "[report]")
{
  Profile p{};
  p.name = "made-up";
  p.base = "flat";
  p.mooncake_format = RegistrationFormat::no_state_lens;
  p.dim_rule = DimRule::slice_axis;
  p.pp_split = PpSplit::last_takes_remainder;
  p.unified_memory = true;
  auto j = report::profile_to_json(p);
  CHECK(j["name"] == "made-up");
  CHECK(j["released"].is_null());
  CHECK(j["registration_format"] == "no_state_lens");
  CHECK(j["dim_rule"] == "slice_axis");
  CHECK(j["pp_split"] == "last_takes_remainder");
  CHECK(j["unified_memory"] == true);
  p.released = "2026-01-01";
  p.mooncake_format = RegistrationFormat::components;
  p.pp_split = PpSplit::last_stages_one_extra;
  j = report::profile_to_json(p);
  CHECK(j["released"] == "2026-01-01");
  CHECK(j["registration_format"] == "components");
  CHECK(j["pp_split"] == "last_stages_one_extra");
}

TEST_CASE("profiles_to_text: a header, then one line per profile with '-' for no release date", "[report]")
{
  Profile p{};
  p.name = "made-up";
  p.base = "flat";
  p.confidence = "low";
  p.evidence = "dates";
  const std::vector<Profile> ps{p};
  CHECK(report::profiles_to_text(ps) ==
        fmt::format("{:<14} {:<11} {:<11} {:<10} {}\n{:<14} {:<11} {:<11} {:<10} {}\n", "profile", "behaves as",
                    "released", "confidence", "evidence", "made-up", "flat", "-", "low", "dates"));
}
