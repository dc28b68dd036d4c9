#include "report/github.hpp"

#include "report/check_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

std::string github_escape_data(std::string_view text)
{
  std::string out;
  for (char c : text) {
    switch (c) {
    case '%': out += "%25"; break;
    case '\r': out += "%0D"; break;
    case '\n': out += "%0A"; break;
    default: out += c;
    }
  }
  return out;
}

std::string github_escape_property(std::string_view text)
{
  std::string out;
  for (char c : github_escape_data(text)) {
    switch (c) {
    case ':': out += "%3A"; break;
    case ',': out += "%2C"; break;
    default: out += c;
    }
  }
  return out;
}

std::string check_to_github(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on,
                            const PathBase& paths)
{
  std::string out;
  int errors = 0;
  int warnings = 0;
  int notes = 0;
  for (const FindingGroup& g : group_findings(r.findings)) {
    const Finding& f = *g.first;
    const char* command = f.severity == Severity::error ? "error" : f.severity == Severity::warning ? "warning" : "notice";
    (f.severity == Severity::error ? errors : f.severity == Severity::warning ? warnings : notes) += 1;
    std::vector<std::string> props;
    const auto locations = finding_locations(f, in, paths);
    // Annotations point at files in the checked-out repository only.
    if (!locations.empty() && locations.front().uri.rfind("file://", 0) != 0) {
      const FileLocation& l = locations.front();
      props.push_back("file=" + github_escape_property(l.uri));
      if (l.line > 0) {
        props.push_back(fmt::format("line={}", l.line));
      }
      if (l.column > 0) {
        props.push_back(fmt::format("col={}", l.column));
      }
    }
    props.push_back("title=" + github_escape_property(fmt::format("pdcheck {}", f.rule)));
    std::string message = f.message;
    if (!g.pairs.empty()) {
      message += fmt::format(" ({} rank pair(s): {})", g.pairs.size(), pairs_label(g));
    }
    if (f.runtime_error) {
      message += fmt::format("\nSGLang ({}): {}", f.where, *f.runtime_error);
    }
    message += "\nfix: " + f.fix + fmt::format("\nmore: pdcheck explain {}", f.rule);
    out += fmt::format("::{} {}::{}\n", command, fmt::join(props, ","), github_escape_data(message));
  }
  out += fmt::format("pdcheck: {} ({} error(s), {} warning(s), {} notice(s))\n", verdict(r, fail_on), errors, warnings,
                     notes);
  return out;
}

} // namespace pdcheck::report
