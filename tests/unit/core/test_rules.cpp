// The rule table's lookups and the findings made from it: ids are an interface
// (SARIF ruleId, CI suppressions, `pdcheck explain ID`), so they are checked
// as text here.
#include "core/finding.hpp"
#include "core/rules.hpp"

#include <catch2/catch.hpp>

#include <cctype>
#include <set>
#include <string>

using namespace pdcheck;

TEST_CASE("rules: handles give their ids, and ids find their rows", "[core][rules]")
{
  CHECK(rule_id(RuleId::mooncake_layout_no_dims) == "mooncake-layout-no-dims");
  CHECK(rule_id(RuleId::startup_parallel_sizes) == "startup-parallel-sizes");
  CHECK(rule_id(RuleId::mori_descriptor_count) == "mori-descriptor-count");
  const Rule* r = find_rule("mooncake-slot-size");
  REQUIRE(r != nullptr);
  CHECK(r->handle == RuleId::mooncake_slot_size);
  CHECK(r == &rule(RuleId::mooncake_slot_size));
  CHECK(r->kind == FindingKind::transfer);
  CHECK(r->severity == Severity::error);
  CHECK(r->scope == RuleScope::mooncake_transfer);
  CHECK(r->key == SideKey::env);
  const Rule* twice = find_rule("silent-written-twice");
  REQUIRE(twice != nullptr);
  CHECK(twice->severity == Severity::warning);
  const Rule* performance = find_rule("bootstrap-tp-performance");
  REQUIRE(performance != nullptr);
  CHECK(performance->kind == FindingKind::advice);
  CHECK(performance->severity == Severity::info);
  CHECK(find_rule("mooncake_slot_size") == nullptr); // the handle is not an id
  CHECK(find_rule("Mooncake-Slot-Size") == nullptr);
  CHECK(find_rule("") == nullptr);
}

TEST_CASE("rules: ids are unique lower-case words joined by hyphens", "[core][rules]")
{
  std::set<std::string> seen;
  for (const Rule& r : rules()) {
    const std::string id(r.id);
    INFO(id);
    CHECK(seen.insert(id).second);
    CHECK_FALSE(id.empty());
    CHECK(id.front() != '-');
    CHECK(id.back() != '-');
    CHECK(id.find("--") == std::string::npos);
    for (char c : id) {
      CHECK((std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-'));
    }
    CHECK_FALSE(r.title.empty());
    CHECK_FALSE(r.fix.empty());
  }
}

TEST_CASE("make_finding: the rule's id, kind, severity and fix with the caller's message", "[core][rules]")
{
  const Finding f = make_finding(RuleId::silent_written_twice, "16 bytes written twice");
  CHECK(f.rule == "silent-written-twice");
  CHECK(f.kind == FindingKind::silent_corruption);
  CHECK(f.severity == Severity::warning);
  CHECK(f.message == "16 bytes written twice");
  CHECK(f.fix == rule(RuleId::silent_written_twice).fix);
  CHECK_FALSE(f.fix.empty());
  CHECK_FALSE(f.runtime_error);
  CHECK_FALSE(f.logged_warning);
  CHECK(f.evidence.is_object());
  CHECK(f.evidence.empty());
}

TEST_CASE("severity, kind and side-key names", "[core][rules]")
{
  CHECK(severity_name(Severity::error) == "error");
  CHECK(severity_name(Severity::warning) == "warning");
  CHECK(severity_name(Severity::info) == "info");
  CHECK(finding_kind_name(FindingKind::startup) == "startup");
  CHECK(finding_kind_name(FindingKind::bootstrap) == "bootstrap");
  CHECK(finding_kind_name(FindingKind::transfer) == "transfer");
  CHECK(finding_kind_name(FindingKind::silent_corruption) == "silent_corruption");
  CHECK(finding_kind_name(FindingKind::advice) == "advice");
  CHECK(side_key_name(SideKey::args) == "args");
  CHECK(side_key_name(SideKey::model) == "model");
  CHECK(side_key_name(SideKey::role) == "role");
  CHECK(side_key_name(SideKey::sglang) == "sglang");
  CHECK(side_key_name(SideKey::env) == "env");
}
