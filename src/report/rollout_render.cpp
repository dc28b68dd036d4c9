#include "report/rollout_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

std::string changes_text(const std::vector<std::string>& changes)
{
  return changes.empty() ? "unchanged" : fmt::format("{}", fmt::join(changes, ", "));
}

std::string age(bool is_new)
{
  return is_new ? "new" : "old";
}

} // namespace

std::string suggestions_to_text(const std::vector<check::Suggestion>& suggestions)
{
  if (suggestions.empty()) {
    return "try: no single change of one side's TP size or SGLang release makes this pair work\n";
  }
  std::string out;
  for (const check::Suggestion& s : suggestions) {
    out += "try: " + s.text + "\n";
  }
  return out;
}

nlohmann::ordered_json suggestions_to_json(const std::vector<check::Suggestion>& suggestions)
{
  auto out = nlohmann::ordered_json::array();
  for (const check::Suggestion& s : suggestions) {
    out.push_back({{"side", s.side}, {"change", s.change}, {"values", s.values}, {"text", s.text}});
  }
  return out;
}

bool RolloutReport::passes() const
{
  return order != check::RolloutOrder::all_at_once && order != check::RolloutOrder::unreachable;
}

std::string rollout_to_text(const RolloutReport& r)
{
  std::string out = fmt::format("rollout  prefill: {}\n         decode:  {}\n", changes_text(r.prefill_changes),
                                changes_text(r.decode_changes));
  for (std::size_t i = 0; i < r.states.size(); ++i) {
    const check::RolloutState& s = r.states[i];
    const CheckReport& rep = r.reports[i];
    const check::PairOutcome o = check::outcome_of(rep.triage, rep.fail_on);
    if (!s.pair.empty() && (i == 0 || r.states[i - 1].pair != s.pair)) {
      out += "  " + s.pair + "\n";
    }
    out += fmt::format("{}  {:<14} {} prefill × {} decode  {}{}\n", s.pair.empty() ? "" : "  ", s.name,
                       age(s.prefill_new), age(s.decode_new), check::outcome_name(o.outcome),
                       o.rule.empty() ? "" : " [" + o.rule + "]");
  }
  // The full report of each state that fails, as `pdcheck check` prints it.
  for (std::size_t i = 0; i < r.states.size(); ++i) {
    if (!r.reports[i].passes()) {
      out += fmt::format("\n== {}: {} prefill × {} decode{}\n", r.states[i].name, age(r.states[i].prefill_new),
                         age(r.states[i].decode_new), r.states[i].pair.empty() ? "" : " (" + r.states[i].pair + ")") +
             check_to_text(r.reports[i], {}) + suggestions_to_text(r.suggestions.at(i));
    }
  }
  out += fmt::format("\norder: {}\n", check::order_text(r.order));
  return out;
}

nlohmann::ordered_json rollout_to_json(const RolloutReport& r)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["changes"] = {{"prefill", r.prefill_changes}, {"decode", r.decode_changes}};
  auto states = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.states.size(); ++i) {
    const check::RolloutState& s = r.states[i];
    const check::PairOutcome o = check::outcome_of(r.reports[i].triage, r.reports[i].fail_on);
    nlohmann::ordered_json x;
    x["name"] = s.name;
    x["pair"] = s.pair.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.pair);
    x["prefill"] = age(s.prefill_new);
    x["decode"] = age(s.decode_new);
    x["outcome"] = check::outcome_key(o.outcome);
    x["rule"] = o.rule.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.rule);
    x["suggestions"] = suggestions_to_json(r.suggestions.at(i));
    x["report"] = check_to_json(r.reports[i]);
    states.push_back(std::move(x));
  }
  j["states"] = std::move(states);
  j["order"] = check::order_key(r.order);
  j["order_text"] = check::order_text(r.order);
  j["verdict"] = r.passes() ? "safe" : "unsafe";
  return j;
}

} // namespace pdcheck::report
