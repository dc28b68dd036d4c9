#include "check/triage.hpp"

#include "util/stable_hash.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::check {

std::string RankPair::label() const
{
  if (prefill_rank && decode_rank) {
    return fmt::format("P{}→D{}", *prefill_rank, *decode_rank);
  }
  if (decode_rank) {
    return fmt::format("D{}", *decode_rank);
  }
  if (prefill_rank) {
    return fmt::format("P{}", *prefill_rank);
  }
  return "";
}

std::string_view suppression_name(Suppression s)
{
  switch (s) {
  case Suppression::not_selected: return "not_selected";
  case Suppression::ignored: return "ignored";
  case Suppression::inline_comment: return "inline_comment";
  case Suppression::advice_hidden: return "advice_hidden";
  case Suppression::baseline: return "baseline";
  }
  return "?";
}

bool Triage::passes(Severity threshold) const
{
  return std::none_of(shown.begin(), shown.end(), [threshold](const Cause& c) {
    return static_cast<int>(c.finding.severity) <= static_cast<int>(threshold);
  });
}

int Triage::count(Severity s) const
{
  return static_cast<int>(
    std::count_if(shown.begin(), shown.end(), [s](const Cause& c) { return c.finding.severity == s; }));
}

int Triage::count(Suppression s) const
{
  return static_cast<int>(
    std::count_if(suppressed.begin(), suppressed.end(), [s](const SuppressedCause& c) { return c.by == s; }));
}

std::vector<Cause> group_causes(const std::vector<Finding>& findings)
{
  std::vector<Cause> causes;
  std::map<std::string, std::size_t> index;
  for (const Finding& f : findings) {
    // The texts without their numbers, not the ranks: the same refusal or the
    // same wrong slicing on every rank pair is one cause.
    const std::string key =
      fold_digits(fmt::format("{}\n{}\n{}\n{}\n{}", f.rule, f.side, f.message, f.runtime_error.value_or(""),
                              f.logged_warning.value_or("")));
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, causes.size()).first;
      Cause c;
      c.finding = f;
      c.fingerprint = stable_hash(fmt::format("{}|{}|{}", f.rule, f.side, fold_digits(f.message)));
      causes.push_back(std::move(c));
    }
    Cause& cause = causes[it->second];
    RankPair pair{f.prefill_rank, f.decode_rank, f.message == cause.finding.message ? "" : f.message};
    if (!pair.label().empty()) {
      cause.pairs.push_back(std::move(pair));
    }
  }
  return causes;
}

namespace {

bool silenced_inline(const Cause& c, const FindingPolicy& p)
{
  for (const auto& [side, rules] : p.inline_ignores) {
    const bool about_side = c.finding.side.empty() || c.finding.side == side;
    if (about_side && rules.count(c.finding.rule) != 0) {
      return true;
    }
  }
  return false;
}

std::optional<Suppression> suppression_of(const Cause& c, const FindingPolicy& p)
{
  const std::string& rule = c.finding.rule;
  if (!p.select.empty() && p.select.count(rule) == 0) {
    return Suppression::not_selected;
  }
  if (p.ignore.count(rule) != 0) {
    return Suppression::ignored;
  }
  if (silenced_inline(c, p)) {
    return Suppression::inline_comment;
  }
  // Advice is for SGLang's developers; naming the rule in --select asks for it.
  if (c.finding.kind == FindingKind::advice && !p.show_advice && p.select.count(rule) == 0) {
    return Suppression::advice_hidden;
  }
  if (p.baseline) {
    const auto& entries = *p.baseline;
    if (std::any_of(entries.begin(), entries.end(),
                    [&](const BaselineEntry& e) { return e.fingerprint == c.fingerprint; })) {
      return Suppression::baseline;
    }
  }
  return std::nullopt;
}

} // namespace

Triage triage(const std::vector<Finding>& findings, const FindingPolicy& policy)
{
  Triage t;
  for (Cause& c : group_causes(findings)) {
    if (auto it = policy.severity.find(c.finding.rule); it != policy.severity.end()) {
      c.finding.severity = it->second;
    }
    if (auto by = suppression_of(c, policy)) {
      t.suppressed.push_back({std::move(c), *by});
    } else {
      t.shown.push_back(std::move(c));
    }
  }
  if (policy.baseline) {
    for (const BaselineEntry& e : *policy.baseline) {
      const bool seen = std::any_of(t.suppressed.begin(), t.suppressed.end(), [&](const SuppressedCause& s) {
        return s.by == Suppression::baseline && s.cause.fingerprint == e.fingerprint;
      });
      if (!seen) {
        t.stale_baseline.push_back(e);
      }
    }
  }
  return t;
}

std::vector<BaselineEntry> baseline_of(const Triage& t)
{
  std::vector<BaselineEntry> out;
  auto add = [&out](const Cause& c) {
    out.push_back({c.finding.rule, c.finding.side, c.fingerprint, c.finding.message});
  };
  for (const Cause& c : t.shown) {
    add(c);
  }
  for (const SuppressedCause& s : t.suppressed) {
    if (s.by == Suppression::baseline) {
      add(s.cause);
    }
  }
  return out;
}

} // namespace pdcheck::check
