#include "report/log_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

using json = nlohmann::ordered_json;

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
    matches.push_back(std::move(j));
  }
  json unrecognised = json::array();
  for (const check::LogUnrecognised& u : e.unrecognised) {
    unrecognised.push_back({{"file", u.file}, {"line", u.line}, {"count", u.count}, {"text", u.text}});
  }
  return json{{"matches", std::move(matches)}, {"unrecognised", std::move(unrecognised)}};
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
    out += fmt::format("  confirm: {}\n\n", m.confirm);
  }
  if (!e.unrecognised.empty()) {
    out += "unrecognised PD-looking errors:\n";
    for (const check::LogUnrecognised& u : e.unrecognised) {
      out += fmt::format("  {}:{}: {}{}\n", u.file, u.line, u.text,
                         u.count > 1 ? fmt::format(" ({} times)", u.count) : "");
    }
    out += "\n";
  }
  std::size_t failures = 0;
  for (const check::LogMatch& m : e.matches) {
    failures += m.severity != "info" ? 1 : 0;
  }
  out += fmt::format("{} known PD failure(s), {} note(s), {} unrecognised\n", failures, e.matches.size() - failures,
                     e.unrecognised.size());
  return out;
}

} // namespace pdcheck::report
