#include "report/junit.hpp"

#include "report/check_render.hpp"
#include "report/ci_common.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

std::string xml_escape(std::string_view text)
{
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    case '\n': out += "&#10;"; break;
    default:
      // Control characters other than tab are not allowed in XML 1.0.
      if (static_cast<unsigned char>(c) < 0x20 && c != '\t') {
        out += ' ';
      } else {
        out += c;
      }
    }
  }
  return out;
}

std::string check_to_junit(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on)
{
  struct Case
  {
    std::string classname;
    std::string name;
    std::string body; ///< inner XML
  };
  std::vector<Case> cases;
  int failures = 0;
  int skipped = 0;
  const auto groups = group_findings(r.findings);
  for (const RuleOutcome& o : rule_outcomes(in, r)) {
    const std::string classname = fmt::format("pdcheck.{}", finding_kind_name(o.rule->kind));
    const std::string id(o.rule->id);
    if (o.status == RuleStatus::passed) {
      cases.push_back({classname, id, ""});
      continue;
    }
    if (o.status == RuleStatus::not_applicable) {
      ++skipped;
      cases.push_back({classname, id, fmt::format("<skipped message=\"{}\"/>", xml_escape("not applicable: " + o.reason))});
      continue;
    }
    for (const FindingGroup& g : groups) {
      const Finding& f = *g.first;
      if (f.rule != id) {
        continue;
      }
      std::string name = id;
      if (!f.side.empty()) {
        name += " " + f.side;
      }
      if (!g.pairs.empty()) {
        name += " " + pairs_label(g, 4);
      }
      std::string detail = f.message;
      if (!g.pairs.empty()) {
        detail += fmt::format("\nrank pairs ({}): {}", g.pairs.size(), pairs_label(g, g.pairs.size()));
      }
      if (f.runtime_error) {
        detail += fmt::format("\nSGLang ({}): {}", f.where, *f.runtime_error);
      }
      detail += "\nfix: " + f.fix;
      const bool fails = static_cast<int>(f.severity) <= static_cast<int>(fail_on);
      std::string body;
      if (fails) {
        ++failures;
        body = fmt::format("<failure message=\"{}\" type=\"{}\">{}</failure>", xml_escape(f.message),
                           severity_name(f.severity), xml_escape(detail));
      } else {
        body = fmt::format("<system-out>{}</system-out>", xml_escape(std::string(severity_name(f.severity)) + ": " +
                                                                   detail));
      }
      cases.push_back({classname, name, body});
    }
  }

  const std::string suite = fmt::format("pdcheck check {} {}", in.prefill.origin, in.decode.origin);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"pdcheck\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                     cases.size(), failures, skipped);
  out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                     xml_escape(suite), cases.size(), failures, skipped);
  out += fmt::format("    <properties><property name=\"verdict\" value=\"{}\"/></properties>\n", verdict(r, fail_on));
  for (const Case& c : cases) {
    if (c.body.empty()) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"/>\n", xml_escape(c.classname), xml_escape(c.name));
    } else {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">{}</testcase>\n", xml_escape(c.classname),
                         xml_escape(c.name), c.body);
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

} // namespace pdcheck::report
