// SARIF, JUnit and GitHub renderers on example pairs: stable rule ids and
// metadata, locations at the offending side-file key, fingerprints, pass /
// notApplicable results, one JUnit testcase per rule and rank-pair group, and
// GitHub's escaping. (tests/sarif validates real SARIF with the Multitool.)
#include "check/checker.hpp"
#include "io/side_file.hpp"
#include "report/ci_common.hpp"
#include "report/github.hpp"
#include "report/junit.hpp"
#include "report/sarif.hpp"
#include "util/stable_hash.hpp"

#include "../../support/report_pairs.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

const std::string k_root = PDCHECK_SOURCE_DIR;

using Pair = test::CheckedPair;

Pair load_pair(const std::string& name, const check::FindingPolicy& policy = {})
{
  return test::checked_pair(name, policy);
}

report::SarifOptions sarif_options()
{
  report::SarifOptions o;
  o.paths = report::PathBase{k_root, k_root};
  return o;
}

const nlohmann::ordered_json* result_for(const nlohmann::ordered_json& sarif, const std::string& rule)
{
  for (const auto& r : sarif["runs"][0]["results"]) {
    if (r["ruleId"] == rule) {
      return &r;
    }
  }
  return nullptr;
}

} // namespace

TEST_CASE("sarif: the driver lists every rule with stable id, title, help and level", "[report][sarif]")
{
  const Pair p = load_pair("page-size-mismatch");
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  CHECK(s["version"] == "2.1.0");
  CHECK(s["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json");
  const auto& rules_json = s["runs"][0]["tool"]["driver"]["rules"];
  REQUIRE(rules_json.size() == rules().size());
  for (std::size_t i = 0; i < rules().size(); ++i) {
    CHECK(rules_json[i]["id"] == rules()[i].id);
    CHECK(rules_json[i]["shortDescription"]["text"] == rules()[i].title);
    CHECK(rules_json[i]["help"]["text"].get<std::string>().find(std::string(rules()[i].fix)) != std::string::npos);
  }
  CHECK(rules_json[0]["name"] == "StartupParallelSizes");
}

TEST_CASE("sarif: a bootstrap finding points at the decode's --page-size, repository-relative", "[report][sarif]")
{
  const Pair p = load_pair("page-size-mismatch");
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  const auto* r = result_for(s, "bootstrap-page-size");
  REQUIRE(r != nullptr);
  CHECK((*r)["kind"] == "fail");
  CHECK((*r)["level"] == "error");
  const auto& loc = (*r)["locations"][0];
  CHECK(loc["physicalLocation"]["artifactLocation"]["uri"] == "examples/pairs/page-size-mismatch/decode.yaml");
  CHECK(loc["physicalLocation"]["region"]["startLine"] == 4);
  // 'args: "--tp 2 --page-size 16 ...': the flag is in column 15 of line 4.
  CHECK(loc["physicalLocation"]["region"]["startColumn"] == 15);
  CHECK(loc["logicalLocations"][0]["fullyQualifiedName"] == "decode.args");
  CHECK((*r)["partialFingerprints"]["pdcheck/v1"].get<std::string>().size() == 16);
  CHECK((*r)["properties"]["runtimeError"].get<std::string>().rfind("RuntimeError: Page size mismatch", 0) == 0);
}

TEST_CASE("sarif: fingerprints are stable across runs and ignore sizes", "[report][sarif]")
{
  const Pair p = load_pair("page-size-mismatch");
  const auto a = report::check_to_sarif(p.report(), sarif_options());
  const auto b = report::check_to_sarif(p.report(), sarif_options());
  CHECK(a == b);
  CHECK(stable_hash("abc") == "e71fa2190541574b");
}

TEST_CASE("sarif: rules without findings pass or do not apply, with the reason", "[report][sarif]")
{
  const Pair p = load_pair("page-size-mismatch");
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  const auto* pass = result_for(s, "model-mismatch");
  REQUIRE(pass != nullptr);
  CHECK((*pass)["kind"] == "pass");
  CHECK((*pass)["level"] == "none");
  CHECK((*pass)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "examples/pairs/page-size-mismatch/prefill.yaml");
  const auto* na = result_for(s, "mori-component-count");
  REQUIRE(na != nullptr);
  CHECK((*na)["kind"] == "notApplicable");
  CHECK((*na)["message"]["text"] == "Not applicable: the pair uses the mooncake backend.");
  // One result per rule without findings, plus one per finding group.
  CHECK(s["runs"][0]["results"].size() >= rules().size());
}

TEST_CASE("sarif: the seed pair's transfer error is a fail result at the prefill args key", "[report][sarif]")
{
  const Pair p = load_pair("seed-mooncake-unified-one-side");
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  const auto* r = result_for(s, "mooncake-layout-no-dims");
  REQUIRE(r != nullptr);
  CHECK((*r)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "examples/pairs/seed-mooncake-unified-one-side/prefill.yaml");
  CHECK((*r)["locations"][0]["physicalLocation"]["region"]["startLine"] == 7);
  CHECK(s["runs"][0]["properties"]["verdict"] == "incompatible");
}

TEST_CASE("sarif: a side file outside the root gets an absolute file URI", "[report][sarif]")
{
  const Pair p = load_pair("page-size-mismatch");
  report::SarifOptions o = sarif_options();
  o.paths.root = k_root + "/tests";
  const auto s = report::check_to_sarif(p.report(), o);
  const auto* r = result_for(s, "bootstrap-page-size");
  REQUIRE(r != nullptr);
  CHECK((*r)["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] ==
        "file://" + k_root + "/examples/pairs/page-size-mismatch/decode.yaml");
}

TEST_CASE("junit: one testcase per rule, failures for findings, skipped for rules that do not apply",
          "[report][junit]")
{
  const Pair p = load_pair("page-size-mismatch");
  const std::string x = report::check_to_junit(p.report());
  CHECK(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pdcheck\"", 0) == 0);
  CHECK(x.find("<testcase classname=\"pdcheck.startup\" name=\"model-mismatch\"/>") != std::string::npos);
  CHECK(x.find("<testcase classname=\"pdcheck.bootstrap\" name=\"bootstrap-page-size decode\"><failure "
               "message=\"prefill page size 64 != decode page size 16\" type=\"error\">") != std::string::npos);
  CHECK(x.find("<testcase classname=\"pdcheck.transfer\" name=\"mori-component-count\"><skipped message=\"not "
               "applicable: the pair uses the mooncake backend\"/></testcase>") != std::string::npos);
  CHECK(x.find("failures=\"1\"") != std::string::npos);
}

TEST_CASE("junit: findings below --fail-on pass with the finding in system-out", "[report][junit]")
{
  check::FindingPolicy show_advice;
  show_advice.show_advice = true;
  const Pair p = load_pair("hetero-tp-scatter-works", show_advice);
  const std::string x = report::check_to_junit(p.report());
  // scheduler advice is info: never a failure at the error threshold.
  const auto at = x.find("name=\"scheduler-state-indices");
  REQUIRE(at != std::string::npos);
  CHECK(x.find("<system-out>info: ", at) != std::string::npos);
  CHECK(x.find("<failure", at) == std::string::npos);
  CHECK(report::xml_escape("a<b & \"c\"\n") == "a&lt;b &amp; &quot;c&quot;&#10;");
}

TEST_CASE("github: annotations carry file, line, col and title, escaped", "[report][github]")
{
  const Pair p = load_pair("page-size-mismatch");
  const std::string g = report::check_to_github(p.report(), report::PathBase{k_root, k_root});
  CHECK(g.find("::error file=examples/pairs/page-size-mismatch/decode.yaml,line=4,col=15,title=pdcheck "
               "bootstrap-page-size::prefill page size 64 != decode page size 16%0ASGLang (") != std::string::npos);
  CHECK(g.find("\npdcheck: incompatible (") != std::string::npos);
  CHECK(report::github_escape_data("50% a\nb\r") == "50%25 a%0Ab%0D");
  CHECK(report::github_escape_property("a:b,c") == "a%3Ab%2Cc");
}

TEST_CASE("ci_common: rule keys follow what the rule is about", "[report]")
{
  CHECK(side_key_name(rule(RuleId::bootstrap_page_size).key) == "args");
  CHECK(side_key_name(rule(RuleId::registration_generation).key) == "sglang");
  CHECK(side_key_name(rule(RuleId::model_mismatch).key) == "model");
  CHECK(side_key_name(rule(RuleId::side_role).key) == "role");
}

TEST_CASE("junit: testcase names are the rule and side, never the rank pairs", "[report][junit]")
{
  // The seed pair fails on both rank pairs (P0→D0, P1→D1): one cause, one testcase.
  const Pair p = load_pair("seed-mooncake-unified-one-side");
  const std::string x = report::check_to_junit(p.report());
  CHECK(x.find("name=\"mooncake-layout-no-dims prefill\"><failure") != std::string::npos);
  CHECK(x.find("P0→D0") != std::string::npos); // in the failure's detail
  CHECK(x.find("name=\"mooncake-layout-no-dims prefill P") == std::string::npos);
  CHECK(x.find("2 rank pairs: P0→D0 P1→D1") != std::string::npos);
}

TEST_CASE("junit and sarif: a suppressed cause is skipped, and a SARIF result with suppressions", "[report][junit]")
{
  check::FindingPolicy policy;
  policy.ignore = {"bootstrap-page-size"};
  const Pair p = load_pair("page-size-mismatch", policy);
  const std::string x = report::check_to_junit(p.report());
  CHECK(x.find("<testcase classname=\"pdcheck.bootstrap\" name=\"bootstrap-page-size decode\"><skipped "
               "message=\"suppressed (ignored): prefill page size 64 != decode page size 16\"/></testcase>") !=
        std::string::npos);
  CHECK(x.find("failures=\"0\"") != std::string::npos);
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  const auto* r = result_for(s, "bootstrap-page-size");
  REQUIRE(r != nullptr);
  CHECK((*r)["kind"] == "fail");
  CHECK((*r)["suppressions"][0]["kind"] == "external");
  CHECK(s["runs"][0]["properties"]["verdict"] == "compatible");
}

TEST_CASE("sarif: every result has a physical location, also for launch arguments on the command line",
          "[report][sarif]")
{
  Pair p;
  p.in.prefill = io::side_from_args(sglang::Role::prefill, "--tp-size 2 --page-size 64 --disaggregation-mode prefill",
                                    "falcon-h1-1.5b", "0.5.20", {}, "--prefill-args");
  p.in.decode = io::side_from_args(sglang::Role::decode, "--tp-size 2 --page-size 16 --disaggregation-mode decode",
                                   "falcon-h1-1.5b", "0.5.20", {}, "--decode-args");
  p.result = check::run_check(p.in);
  p.triage = check::triage(p.result.findings, {});
  const auto s = report::check_to_sarif(p.report(), sarif_options());
  const auto& run = s["runs"][0];
  REQUIRE(run["artifacts"].size() == 2);
  CHECK(run["artifacts"][1]["location"]["uri"] == "--decode-args");
  CHECK(run["artifacts"][1]["contents"]["text"] == "--tp-size 2 --page-size 16 --disaggregation-mode decode");
  for (const auto& r : run["results"]) {
    INFO(r["ruleId"]);
    REQUIRE(!r["locations"].empty());
    CHECK(r["locations"][0].contains("physicalLocation"));
  }
  const auto* page = result_for(s, "bootstrap-page-size");
  REQUIRE(page != nullptr);
  const auto& loc = (*page)["locations"][0]["physicalLocation"];
  CHECK(loc["artifactLocation"]["uri"] == "--decode-args");
  CHECK(loc["artifactLocation"]["index"] == 1);
  CHECK(loc["region"]["charLength"] == 55);
}

TEST_CASE("github: a cause about the pair annotates both side files", "[report][github]")
{
  const Pair p = load_pair("seed-mooncake-unified-one-side");
  Pair pair_cause = p;
  pair_cause.triage.shown.front().finding.side = ""; // as model-mismatch and backend-mismatch are
  const std::string g = report::check_to_github(pair_cause.report(), report::PathBase{k_root, k_root});
  CHECK(g.find("::error file=examples/pairs/seed-mooncake-unified-one-side/prefill.yaml,line=7") != std::string::npos);
  CHECK(g.find("::error file=examples/pairs/seed-mooncake-unified-one-side/decode.yaml,") != std::string::npos);
  CHECK(g.find("(2 rank pairs: P0→D0 P1→D1)") != std::string::npos);
  CHECK(g.find("\npdcheck: incompatible (1 error, 0 warnings, 0 info)\n") != std::string::npos);
}
