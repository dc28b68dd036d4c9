#include "report/sarif.hpp"

#include "report/check_render.hpp"
#include "util/stable_hash.hpp"

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

json result_json(const check::Cause& c, int rule_index, const std::vector<FileLocation>& locations)
{
  const Finding& f = c.finding;
  json res;
  res["ruleId"] = f.rule;
  res["ruleIndex"] = rule_index;
  res["kind"] = "fail";
  res["level"] = level_of(f.severity);
  std::string text = message_with_pairs(c);
  if (f.runtime_error) {
    text += fmt::format(". SGLang ({}): {}", f.where, *f.runtime_error);
  }
  if (!f.change.empty()) {
    text += ". Change: " + f.change;
  }
  text += ". Fix: " + f.fix;
  res["message"] = {{"text", text}};
  json locs = json::array();
  for (const FileLocation& l : locations) {
    locs.push_back({{"physicalLocation", physical(l)},
                    {"logicalLocations", json::array({{{"name", l.key},
                                                       {"fullyQualifiedName", l.side + "." + l.key},
                                                       {"kind", "property"}}})}});
  }
  res["locations"] = std::move(locs);
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
  if (!c.pairs.empty()) {
    std::vector<std::string> labels;
    for (const check::RankPair& p : c.pairs) {
      labels.push_back(p.label());
    }
    props["rankPairs"] = labels;
  }
  if (f.runtime_error) {
    props["runtimeError"] = *f.runtime_error;
  }
  if (!f.evidence.empty()) {
    props["evidence"] = f.evidence;
  }
  res["properties"] = std::move(props);
  return res;
}

/// SARIF's suppression of a result the operator's policy silenced: inSource for
/// a comment in a side file, external for everything else.
json suppression_json(check::Suppression by)
{
  switch (by) {
  case check::Suppression::inline_comment:
    return {{"kind", "inSource"}, {"justification", "# pdcheck: ignore= in the side file"}};
  case check::Suppression::baseline:
    return {{"kind", "external"}, {"justification", "in the --baseline file"}};
  case check::Suppression::ignored:
    return {{"kind", "external"}, {"justification", "--ignore (or ignore: in .pdcheck.yaml)"}};
  case check::Suppression::not_selected:
    return {{"kind", "external"}, {"justification", "not in --select (or select: in .pdcheck.yaml)"}};
  case check::Suppression::advice_hidden:
    return {{"kind", "external"}, {"justification", "advice for SGLang developers, shown with --show-advice"}};
  }
  return json::object();
}

/// Launch arguments given on pdcheck's command line (--prefill-args,
/// --decode-args) have no file: SARIF gets them as artifacts with their text,
/// so results about those sides still carry a physical location.
struct ArtifactTable
{
  struct Entry
  {
    std::string role;
    std::string uri;
    std::string text;
  };
  std::vector<Entry> entries;
};

ArtifactTable command_line_artifacts(const check::CheckInput& in)
{
  ArtifactTable t;
  for (const sglang::Side* side : {&in.prefill, &in.decode}) {
    if (side->locations.empty() && !side->command_line.empty()) {
      t.entries.push_back({std::string(sglang::role_name(side->role)), side->origin, side->command_line});
    }
  }
  return t;
}

/// Adds the command-line artifacts of the sides `f` is about to `res`'s locations.
void add_command_line_locations(json& res, const Finding& f, const ArtifactTable& t)
{
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const auto& a = t.entries[i];
    if (!f.side.empty() && f.side != a.role) {
      continue;
    }
    json region{{"charOffset", 0}, {"charLength", a.text.size()}};
    res["locations"].push_back(
      {{"physicalLocation", {{"artifactLocation", {{"uri", a.uri}, {"index", i}}}, {"region", std::move(region)}}}});
  }
}

} // namespace

nlohmann::ordered_json check_to_sarif(const CheckReport& rep, const SarifOptions& o)
{
  const auto outcomes = rule_outcomes(rep);
  std::map<std::string, int> rule_index;
  json rules_json = json::array();
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    rule_index[std::string(outcomes[i].rule->id)] = static_cast<int>(i);
    rules_json.push_back(rule_descriptor(*outcomes[i].rule));
  }
  const ArtifactTable artifacts = command_line_artifacts(rep.in);
  // Every result carries a physical location (GitHub code scanning drops
  // results without one): the side file's key, or the launch-argument string
  // given on pdcheck's command line.
  auto locate = [&](const Finding& f) { return finding_locations(f, rep.in, o.paths); };

  json results = json::array();
  for (const check::Cause& c : rep.triage.shown) {
    json res = result_json(c, rule_index.at(c.finding.rule), locate(c.finding));
    add_command_line_locations(res, c.finding, artifacts);
    results.push_back(std::move(res));
  }
  for (const check::SuppressedCause& s : rep.triage.suppressed) {
    json res = result_json(s.cause, rule_index.at(s.cause.finding.rule), locate(s.cause.finding));
    add_command_line_locations(res, s.cause.finding, artifacts);
    res["suppressions"] = json::array({suppression_json(s.by)});
    results.push_back(std::move(res));
  }
  for (const RuleOutcome& oc : outcomes) {
    if (oc.status == RuleStatus::failed || oc.status == RuleStatus::suppressed) {
      continue;
    }
    json res;
    res["ruleId"] = oc.rule->id;
    res["ruleIndex"] = rule_index.at(std::string(oc.rule->id));
    res["kind"] = oc.status == RuleStatus::passed ? "pass" : "notApplicable";
    res["level"] = "none";
    res["message"] = {{"text", oc.status == RuleStatus::passed
                                 ? fmt::format("Checked and not found: {}.", oc.rule->title)
                                 : fmt::format("Not applicable: {}.", oc.reason)}};
    // GitHub code scanning wants a location on every result: the prefill side
    // file at the key the rule is about.
    Finding probe;
    probe.rule = std::string(oc.rule->id);
    probe.side = "prefill";
    const auto locations = finding_locations(probe, rep.in, o.paths);
    if (!locations.empty()) {
      res["locations"] = json::array({{{"physicalLocation", physical(locations.front())}}});
    } else {
      res["locations"] = json::array();
      add_command_line_locations(res, probe, artifacts);
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
  if (!artifacts.entries.empty()) {
    json list = json::array();
    for (const auto& a : artifacts.entries) {
      list.push_back({{"location", {{"uri", a.uri}}}, {"contents", {{"text", a.text}}}, {"roles", {"analysisTarget"}}});
    }
    run["artifacts"] = std::move(list);
  }
  run["results"] = std::move(results);
  run["properties"] = {{"verdict", rep.verdict()}, {"failOn", severity_name(rep.fail_on)}};

  json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = json::array({std::move(run)});
  return log;
}

} // namespace pdcheck::report
