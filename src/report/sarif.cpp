#include "report/sarif.hpp"

#include "report/check_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

using json = nlohmann::ordered_json;

std::string_view level_of(Severity s)
{
  switch (s) {
  case Severity::error: return "error";
  case Severity::warning: return "warning";
  case Severity::info: return "note";
  }
  return "none";
}

/// "mooncake-layout-no-dims" -> "MooncakeLayoutNoDims" (SARIF's rule `name`).
std::string pascal_case(std::string_view id)
{
  std::string out;
  bool upper = true;
  for (char c : id) {
    if (c == '-') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

/// Numbers change with the sizes involved, not with the problem: folding digits
/// keeps a fingerprint stable when, say, a rank count changes.
std::string fold_digits(std::string_view s)
{
  std::string out;
  for (char c : s) {
    const bool digit = c >= '0' && c <= '9';
    if (digit && !out.empty() && out.back() == '#') {
      continue;
    }
    out += digit ? '#' : c;
  }
  return out;
}

json rule_descriptor(const Rule& r)
{
  json j;
  j["id"] = r.id;
  j["name"] = pascal_case(r.id);
  j["shortDescription"] = {{"text", r.title}};
  j["fullDescription"] = {{"text", r.explanation}};
  j["help"] = {{"text", fmt::format("{}\n\nFix: {}\n\nMore: pdcheck explain {}", r.explanation, r.fix, r.id)},
               {"markdown", fmt::format("{}\n\n**Fix:** {}\n\nMore: `pdcheck explain {}`", r.explanation, r.fix, r.id)}};
  j["defaultConfiguration"] = {{"level", level_of(r.severity)}};
  j["properties"] = {{"kind", finding_kind_name(r.kind)},
                     {"tags", json::array({"pd-disaggregation", std::string(finding_kind_name(r.kind))})}};
  return j;
}

json physical(const FileLocation& l)
{
  json p;
  p["artifactLocation"] = {{"uri", l.uri}};
  if (l.line > 0) {
    json region{{"startLine", l.line}};
    if (l.column > 0) {
      region["startColumn"] = l.column;
    }
    p["region"] = std::move(region);
  }
  return p;
}

} // namespace

nlohmann::ordered_json check_to_sarif(const check::CheckInput& in, const check::CheckResult& r, const SarifOptions& o)
{
  const auto outcomes = rule_outcomes(in, r);
  std::map<std::string, int> rule_index;
  json rules_json = json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    rule_index[std::string(outcomes[i].rule->id)] = static_cast<int>(i);
    rules_json.push_back(rule_descriptor(*outcomes[i].rule));
  }

  json results = json::array();
  for (const FindingGroup& g : group_findings(r.findings)) {
    const Finding& f = *g.first;
    json res;
    res["ruleId"] = f.rule;
    res["ruleIndex"] = rule_index.at(f.rule);
    res["kind"] = "fail";
    res["level"] = level_of(f.severity);
    std::string text = f.message;
    if (!g.pairs.empty()) {
      text += fmt::format(" ({} rank pair(s): {})", g.pairs.size(), pairs_label(g));
    }
    if (f.runtime_error) {
      text += fmt::format(". SGLang ({}): {}", f.where, *f.runtime_error);
    }
    text += ". Fix: " + f.fix;
    res["message"] = {{"text", text}};
    const auto locations = finding_locations(f, in, o.paths);
    if (!locations.empty()) {
      json locs = json::array();
      for (const FileLocation& l : locations) {
        locs.push_back({{"physicalLocation", physical(l)},
                        {"logicalLocations", json::array({{{"name", l.key},
                                                           {"fullyQualifiedName", l.side + "." + l.key},
                                                           {"kind", "property"}}})}});
      }
      res["locations"] = std::move(locs);
    }
    const std::string where = locations.empty() ? std::string() : locations.front().uri + "#" + locations.front().key;
    res["partialFingerprints"] = {
      {"pdcheck/v1", stable_hash(f.rule + "|" + f.side + "|" + where + "|" + fold_digits(f.message))}};
    json props;
    props["kind"] = finding_kind_name(f.kind);
    props["severity"] = severity_name(f.severity);
    if (!f.side.empty()) {
      props["side"] = f.side;
    }
    if (!f.backend.empty()) {
      props["backend"] = f.backend;
    }
    if (!g.pairs.empty()) {
      props["rankPairs"] = g.pairs;
    }
    if (f.runtime_error) {
      props["runtimeError"] = *f.runtime_error;
    }
    if (!f.evidence.empty()) {
      props["evidence"] = f.evidence;
    }
    res["properties"] = std::move(props);
    results.push_back(std::move(res));
  }
  for (const RuleOutcome& oc : outcomes) {
    if (oc.status == RuleStatus::failed) {
      continue;
    }
    json res;
    res["ruleId"] = oc.rule->id;
    res["ruleIndex"] = rule_index.at(std::string(oc.rule->id));
    res["kind"] = oc.status == RuleStatus::passed ? "pass" : "notApplicable";
    res["level"] = "none";
    res["message"] = {{"text", oc.status == RuleStatus::passed
                                 ? fmt::format("passed: {}", oc.rule->title)
                                 : fmt::format("not applicable: {}", oc.reason)}};
    // GitHub code scanning wants a location on every result: the prefill side
    // file at the key the rule is about.
    Finding probe;
    probe.rule = std::string(oc.rule->id);
    probe.side = "prefill";
    const auto locations = finding_locations(probe, in, o.paths);
    if (!locations.empty()) {
      res["locations"] = json::array({{{"physicalLocation", physical(locations.front())}}});
    }
    results.push_back(std::move(res));
  }

  json driver;
  driver["name"] = "pdcheck";
  driver["version"] = PDCHECK_VERSION;
  driver["semanticVersion"] = PDCHECK_VERSION;
  driver["rules"] = std::move(rules_json);

  json invocation;
  invocation["executionSuccessful"] = true;
  if (!o.command_line.empty()) {
    invocation["commandLine"] = o.command_line;
  }
  json run;
  run["tool"] = {{"driver", std::move(driver)}};
  run["invocations"] = json::array({std::move(invocation)});
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);
  run["properties"] = {{"verdict", verdict(r, o.fail_on)}, {"failOn", severity_name(o.fail_on)}};

  json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = json::array({std::move(run)});
  return log;
}

} // namespace pdcheck::report
