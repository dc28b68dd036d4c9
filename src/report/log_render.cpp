#include "report/log_render.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

using json = nlohmann::ordered_json;

namespace {

json links_to_json(const std::vector<check::LogLink>& links)
{
  json out = json::array();
  for (const check::LogLink& l : links) {
    out.push_back({{"room", l.room},
                   {"role", l.role},
                   {"file", l.file},
                   {"line", l.line},
                   {"rule", l.rule.empty() ? json(nullptr) : json(l.rule)},
                   {"text", l.text}});
  }
  return out;
}

/// "  prefill side, bootstrap room N: FILE:LINE [rule]: TEXT", one line per link.
std::string links_to_text(const std::vector<check::LogLink>& links, std::string_view indent)
{
  std::string out;
  for (const check::LogLink& l : links) {
    out += fmt::format("{}{} side, bootstrap room {}: {}:{} [{}]: {}\n", indent, l.role, l.room, l.file, l.line,
                       l.rule.empty() ? "no rule" : l.rule, l.text);
  }
  return out;
}

} // namespace

nlohmann::ordered_json log_explanation_to_json(const check::LogExplanation& e)
{
  json matches = json::array();
  for (const check::LogMatch& m : e.matches) {
    json j;
    j["file"] = m.file;
    j["line"] = m.line;
    j["count"] = m.count;
    j["lines"] = m.lines;
    j["rule"] = m.rule.empty() ? json(nullptr) : json(m.rule);
    j["severity"] = m.severity;
    j["runtime_error"] = m.runtime_error;
    j["values"] = m.values;
    j["analysis"] = m.analysis;
    j["causes"] = m.causes;
    j["explanation"] = m.explanation;
    j["fix"] = m.fix;
    j["confirm"] = m.confirm;
    j["rooms"] = m.rooms;
    j["links"] = links_to_json(m.links);
    matches.push_back(std::move(j));
  }
  json unrecognised = json::array();
  for (const check::LogUnrecognised& u : e.unrecognised) {
    unrecognised.push_back({{"file", u.file},
                            {"line", u.line},
                            {"count", u.count},
                            {"text", u.text},
                            {"rooms", u.rooms},
                            {"links", links_to_json(u.links)}});
  }
  json logs = json::array();
  for (const check::LogFile& f : e.logs) {
    logs.push_back(
      {{"file", f.file}, {"role", f.role}, {"role_from", f.role_from.empty() ? json(nullptr) : json(f.role_from)}});
  }
  return json{{"logs", std::move(logs)}, {"matches", std::move(matches)}, {"unrecognised", std::move(unrecognised)}};
}

std::string log_explanation_to_text(const check::LogExplanation& e)
{
  std::string out;
  for (const check::LogMatch& m : e.matches) {
    out += fmt::format("{}:{}: {} [{}]{}\n", m.file, m.line, m.severity, m.rule.empty() ? "no rule" : m.rule,
                       m.count > 1 ? fmt::format(" ({} times)", m.count) : "");
    out += fmt::format("  SGLang: {}\n", m.runtime_error);
    out += fmt::format("  cause: {}\n", fmt::join(m.causes, ", "));
    out += fmt::format("  {}\n", m.explanation);
    out += fmt::format("  fix: {}\n", m.fix);
    out += fmt::format("  confirm: {}\n", m.confirm);
    out += links_to_text(m.links, "  ");
    out += "\n";
  }
  if (!e.unrecognised.empty()) {
    out += "unrecognised PD-looking errors:\n";
    for (const check::LogUnrecognised& u : e.unrecognised) {
      out += fmt::format("  {}:{}: {}{}\n", u.file, u.line, u.text,
                         u.count > 1 ? fmt::format(" ({} times)", u.count) : "");
      out += links_to_text(u.links, "    ");
    }
    out += "\n";
  }
  std::size_t failures = 0;
  for (const check::LogMatch& m : e.matches) {
    failures += m.severity != "info" ? 1 : 0;
  }
  out += fmt::format("{}, {}, {} unrecognised\n", counted(static_cast<long long>(failures), "known PD failure"),
                     counted(static_cast<long long>(e.matches.size() - failures), "note"), e.unrecognised.size());
  return out;
}

} // namespace pdcheck::report
