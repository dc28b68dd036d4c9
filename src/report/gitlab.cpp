#include "report/gitlab.hpp"

#include "util/stable_hash.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

std::string_view gitlab_severity(Severity s)
{
  switch (s) {
  case Severity::error: return "critical";
  case Severity::warning: return "major";
  case Severity::info: return "info";
  }
  return "info";
}

} // namespace

nlohmann::ordered_json check_to_gitlab(const CheckReport& rep, const PathBase& paths)
{
  auto issues = nlohmann::ordered_json::array();
  for (const check::Cause& c : rep.triage.shown) {
    const Finding& f = c.finding;
    std::string description = fmt::format("[{}] {}", f.rule, message_with_pairs(c));
    auto sentence = [&description](std::string_view text) {
      description += description.back() == '.' ? " " : ". ";
      description += text;
    };
    if (f.runtime_error) {
      sentence("SGLang: " + *f.runtime_error);
    }
    if (!f.change.empty()) {
      sentence("Change: " + f.change);
    }
    sentence("Fix: " + f.fix);
    std::vector<std::pair<std::string, int>> places;
    for (const FileLocation& l : finding_locations(f, rep.in, paths)) {
      places.emplace_back(l.uri, l.line > 0 ? l.line : 1);
    }
    if (places.empty()) {
      // Launch arguments given on the command line: GitLab needs a path all the same.
      for (const sglang::Side* side : {&rep.in.prefill, &rep.in.decode}) {
        if (f.side.empty() || f.side == sglang::role_name(side->role)) {
          places.emplace_back(side->origin, 1);
        }
      }
    }
    for (const auto& [path, line] : places) {
      nlohmann::ordered_json issue;
      issue["type"] = "issue";
      issue["description"] = description;
      issue["check_name"] = f.rule;
      issue["categories"] = {"Bug Risk"};
      issue["fingerprint"] = stable_hash(c.fingerprint + "|" + path);
      issue["severity"] = gitlab_severity(f.severity);
      issue["location"] = {{"path", path}, {"lines", {{"begin", line}}}};
      issues.push_back(std::move(issue));
    }
  }
  return issues;
}

} // namespace pdcheck::report
