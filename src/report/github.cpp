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

std::string check_to_github(const CheckReport& rep, const PathBase& paths)
{
  std::string out;
  for (const check::Cause& c : rep.triage.shown) {
    const Finding& f = c.finding;
    const char* command = f.severity == Severity::error ? "error" : f.severity == Severity::warning ? "warning" : "notice";
    std::string message = message_with_pairs(c);
    if (f.runtime_error) {
      message += fmt::format("\nSGLang ({}): {}", f.where, *f.runtime_error);
    }
    if (!f.change.empty()) {
      message += "\nchange: " + f.change;
    }
    message += "\nfix: " + f.fix + fmt::format("\nmore: pdcheck explain {}", f.rule);
    const std::string title = "title=" + github_escape_property(fmt::format("pdcheck {}", f.rule));

    // Annotations point at files in the checked-out repository only: the side
    // that has the finding, or both sides' files for a finding about the pair.
    std::vector<std::string> annotated;
    for (const FileLocation& l : finding_locations(f, rep.in, paths)) {
      if (l.uri.rfind("file://", 0) == 0) {
        continue;
      }
      std::vector<std::string> props{"file=" + github_escape_property(l.uri)};
      if (l.line > 0) {
        props.push_back(fmt::format("line={}", l.line));
      }
      if (l.column > 0) {
        props.push_back(fmt::format("col={}", l.column));
      }
      props.push_back(title);
      annotated.push_back(fmt::format("::{} {}::{}\n", command, fmt::join(props, ","), github_escape_data(message)));
    }
    if (annotated.empty()) {
      annotated.push_back(fmt::format("::{} {}::{}\n", command, title, github_escape_data(message)));
    }
    for (const std::string& line : annotated) {
      out += line;
    }
  }
  out += fmt::format("pdcheck: {} ({})\n", rep.verdict(), counts_text(rep.triage));
  return out;
}

} // namespace pdcheck::report
