#include "report/junit.hpp"

#include "report/check_render.hpp"
#include "report/ci_common.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

#include <algorithm>

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

namespace {

std::string cause_detail(const check::Cause& c)
{
  const Finding& f = c.finding;
  std::string detail = fmt::format("{}: {}\n{}", severity_name(f.severity), f.message,
                                   other_pair_messages(c, "", c.pairs.size()));
  detail.pop_back();
  if (!c.pairs.empty()) {
    detail += fmt::format("\n{}: {}", counted(static_cast<long long>(c.pairs.size()), "rank pair"),
                          pairs_label(c, c.pairs.size()));
  }
  if (f.runtime_error) {
    detail += fmt::format("\nSGLang ({}): {}", f.where, *f.runtime_error);
  }
  if (!f.change.empty()) {
    detail += "\nchange: " + f.change;
  }
  detail += "\nfix: " + f.fix;
  return detail;
}

/// One pair's <testsuite> element and its counts.
struct Suite
{
  std::string xml;
  std::size_t tests = 0;
  int failures = 0;
  int skipped = 0;
};

Suite suite_of(const CheckReport& rep)
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
  for (const RuleOutcome& o : rule_outcomes(rep)) {
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
    // One testcase per rule and side, whatever the rank pairs: names stay the
    // same from run to run, so Jenkins and GitLab keep each case's history.
    std::vector<std::string> sides;
    auto note_side = [&sides](const std::string& side) {
      if (std::find(sides.begin(), sides.end(), side) == sides.end()) {
        sides.push_back(side);
      }
    };
    for (const check::Cause& c : rep.triage.shown) {
      if (c.finding.rule == id) {
        note_side(c.finding.side);
      }
    }
    for (const check::SuppressedCause& s : rep.triage.suppressed) {
      if (s.cause.finding.rule == id) {
        note_side(s.cause.finding.side);
      }
    }
    for (const std::string& side : sides) {
      const std::string name = side.empty() ? id : id + " " + side;
      std::vector<std::string> failing;
      std::vector<std::string> reported;
      std::string first_failing_message;
      Severity worst = Severity::info;
      for (const check::Cause& c : rep.triage.shown) {
        if (c.finding.rule != id || c.finding.side != side) {
          continue;
        }
        if (static_cast<int>(c.finding.severity) <= static_cast<int>(rep.fail_on)) {
          if (failing.empty()) {
            first_failing_message = c.finding.message;
            worst = c.finding.severity;
          }
          failing.push_back(cause_detail(c));
        } else {
          reported.push_back(cause_detail(c));
        }
      }
      std::vector<std::string> suppressed;
      for (const check::SuppressedCause& s : rep.triage.suppressed) {
        if (s.cause.finding.rule == id && s.cause.finding.side == side) {
          suppressed.push_back(fmt::format("suppressed ({}): {}", check::suppression_name(s.by), s.cause.finding.message));
        }
      }
      std::string body;
      if (!failing.empty()) {
        ++failures;
        body = fmt::format("<failure message=\"{}\" type=\"{}\">{}</failure>", xml_escape(first_failing_message),
                           severity_name(worst), xml_escape(fmt::format("{}", fmt::join(failing, "\n\n"))));
        reported.insert(reported.end(), suppressed.begin(), suppressed.end());
      } else if (reported.empty()) {
        ++skipped;
        body = fmt::format("<skipped message=\"{}\"/>", xml_escape(fmt::format("{}", fmt::join(suppressed, "; "))));
        suppressed.clear();
      } else {
        reported.insert(reported.end(), suppressed.begin(), suppressed.end());
      }
      if (!reported.empty()) {
        body += fmt::format("<system-out>{}</system-out>", xml_escape(fmt::format("{}", fmt::join(reported, "\n\n"))));
      }
      cases.push_back({classname, name, body});
    }
  }

  const std::string suite = fmt::format("pdcheck check {} {}", rep.in.prefill.origin, rep.in.decode.origin);
  std::string out = fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                                xml_escape(suite), cases.size(), failures, skipped);
  out += fmt::format("    <properties><property name=\"verdict\" value=\"{}\"/></properties>\n", rep.verdict());
  for (const Case& c : cases) {
    if (c.body.empty()) {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"/>\n", xml_escape(c.classname), xml_escape(c.name));
    } else {
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">{}</testcase>\n", xml_escape(c.classname),
                         xml_escape(c.name), c.body);
    }
  }
  out += "  </testsuite>\n";
  return Suite{std::move(out), cases.size(), failures, skipped};
}

} // namespace

std::string check_to_junit(const std::vector<CheckReport>& reports)
{
  std::string suites;
  Suite total;
  for (const CheckReport& rep : reports) {
    const Suite s = suite_of(rep);
    suites += s.xml;
    total.tests += s.tests;
    total.failures += s.failures;
    total.skipped += s.skipped;
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"pdcheck\" tests=\"{}\" failures=\"{}\" "
                     "errors=\"0\" skipped=\"{}\">\n{}</testsuites>\n",
                     total.tests, total.failures, total.skipped, suites);
}

std::string check_to_junit(const CheckReport& report)
{
  return check_to_junit(std::vector<CheckReport>{report});
}

} // namespace pdcheck::report
