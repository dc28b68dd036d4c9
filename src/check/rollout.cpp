#include "check/rollout.hpp"

#include "sglang/argparse.hpp"
#include "sglang/launch_flags.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace pdcheck::check {

namespace {

bool is_env_name(std::string_view s)
{
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())) != 0) {
    return false;
  }
  for (char c : s) {
    if (!(std::isupper(static_cast<unsigned char>(c)) != 0 || std::isdigit(static_cast<unsigned char>(c)) != 0 ||
          c == '_')) {
      return false;
    }
  }
  return true;
}

/// Adds one parsed SPEC to `r`.
void apply_spec(std::string_view text, std::string_view spec, Relaunch& r)
{
  const auto bad = [&](const std::string& why) { throw InputError("--change", fmt::format("'{}': {}", text, why)); };
  if (spec.empty()) {
    bad("nothing after SIDE:; expected launch words, !--FLAG, NAME=VALUE or sglang=RELEASE");
  }
  if (spec.front() == '!') {
    const std::string flag(spec.substr(1));
    if (flag.rfind("--", 0) != 0 || flag.size() < 3 || flag.find('=') != std::string::npos) {
      bad("expected !--FLAG, the flag to remove");
    }
    r.drop_flags.push_back(flag);
  } else if (spec.front() == '-') {
    for (std::string& w : sglang::split_command_line(std::string(spec), "--change")) {
      r.add_words.push_back(std::move(w));
    }
  } else if (const std::size_t eq = spec.find('='); eq != std::string_view::npos) {
    const std::string_view name = spec.substr(0, eq);
    const std::string value(spec.substr(eq + 1));
    if (name == "sglang") {
      if (value.empty()) {
        bad("expected sglang=RELEASE");
      }
      r.sglang = value;
    } else if (is_env_name(name)) {
      r.env[std::string(name)] = value;
    } else {
      bad(fmt::format("'{}' is neither sglang nor an environment variable (upper case)", name));
    }
  } else {
    bad("expected launch words (--tp-size 4), !--FLAG, NAME=VALUE or sglang=RELEASE");
  }
  r.texts.emplace_back(spec);
}

/// The side's launch words without `flags` (each occurrence, and the values
/// that follow a flag written without '=').
std::vector<sglang::ArgWord> without(const std::vector<sglang::ArgWord>& words, const std::vector<std::string>& flags)
{
  std::vector<sglang::ArgWord> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    bool dropped = false;
    for (const std::string& f : flags) {
      if (w == f) {
        while (i + 1 < words.size() && !sglang::looks_like_flag(words[i + 1].text)) {
          ++i;
        }
        dropped = true;
        break;
      }
      if (w.size() > f.size() && w.compare(0, f.size(), f) == 0 && w[f.size()] == '=') {
        dropped = true;
        break;
      }
    }
    if (!dropped) {
      out.push_back(words[i]);
    }
  }
  return out;
}

std::string joined(const std::vector<std::string>& v)
{
  return fmt::format("{}", fmt::join(v, ", "));
}

} // namespace

void add_change(std::string_view text, Relaunch& prefill, Relaunch& decode)
{
  const std::size_t colon = text.find(':');
  const std::string_view side = colon == std::string_view::npos ? std::string_view{} : text.substr(0, colon);
  if (side != "prefill" && side != "decode" && side != "both") {
    throw InputError("--change", fmt::format("'{}': expected SIDE:CHANGE with SIDE prefill, decode or both "
                                             "(decode:--tp-size=4)",
                                             text));
  }
  const std::string_view spec = text.substr(colon + 1);
  if (side != "decode") {
    apply_spec(text, spec, prefill);
  }
  if (side != "prefill") {
    apply_spec(text, spec, decode);
  }
}

sglang::Side relaunched(const sglang::Side& side, const Relaunch& change)
{
  sglang::Side out = side;
  if (change.sglang) {
    const ProfileMatch m = resolve_profile(*change.sglang);
    if (m.profile == nullptr) {
      throw InputError("--change", fmt::format("sglang={}: {}", *change.sglang, unknown_profile_text(*change.sglang)));
    }
    out.sglang = *change.sglang;
    out.profile = *m.profile;
    out.profile_assumption = m.assumption;
    out.profile_confidence = std::string(mapping_confidence(m));
    // The file's lines name the release it ran before: remedies then point at
    // the relaunched side's origin, which names the change.
    out.locations.erase("sglang");
    out.locations.erase("args");
  }
  std::vector<std::string> words;
  std::vector<std::string> places;
  for (const sglang::ArgWord& w : without(side.args.words, change.drop_flags)) {
    words.push_back(w.text);
    places.push_back(w.origin);
  }
  for (const std::string& w : change.add_words) {
    words.push_back(w);
    places.emplace_back("--change");
  }
  std::map<std::string, std::string> env = side.args.env;
  for (const auto& [k, v] : change.env) {
    env[k] = v;
  }
  out.args = sglang::parse_launch_args(words, side.origin, env, nullptr, ".",
                                       sglang::flag_tables_for(out.profile.name).table, places);
  if (!change.texts.empty()) {
    out.origin = fmt::format("{} ({})", side.origin, joined(change.texts));
  }
  return out;
}

std::string_view outcome_name(Outcome o)
{
  switch (o) {
  case Outcome::cannot_start: return "cannot start";
  case Outcome::silent_corruption: return "silent corruption";
  case Outcome::runtime_error: return "runtime error";
  case Outcome::compatible: return "compatible";
  }
  return "?";
}

std::string_view outcome_key(Outcome o)
{
  switch (o) {
  case Outcome::cannot_start: return "cannot_start";
  case Outcome::silent_corruption: return "silent_corruption";
  case Outcome::runtime_error: return "runtime_error";
  case Outcome::compatible: return "compatible";
  }
  return "?";
}

PairOutcome outcome_of(const Triage& triage, Severity fail_on)
{
  PairOutcome worst;
  for (const Cause& c : triage.shown) {
    const Finding& f = c.finding;
    if (static_cast<int>(f.severity) > static_cast<int>(fail_on)) {
      continue;
    }
    Outcome o = Outcome::compatible;
    switch (f.kind) {
    case FindingKind::startup: o = Outcome::cannot_start; break;
    case FindingKind::silent_corruption: o = Outcome::silent_corruption; break;
    case FindingKind::bootstrap:
    case FindingKind::transfer: o = Outcome::runtime_error; break;
    case FindingKind::advice: continue;
    }
    if (static_cast<int>(o) < static_cast<int>(worst.outcome)) {
      worst = PairOutcome{o, f.rule, f.message};
    }
  }
  return worst;
}

std::vector<RolloutState> rollout_states(const CheckInput& now, const Relaunch& prefill, const Relaunch& decode)
{
  if (prefill.empty() && decode.empty()) {
    throw InputError("rollout", "nothing changes: give --to, --prefill-to, --decode-to or --change");
  }
  const sglang::Side new_prefill = prefill.empty() ? now.prefill : relaunched(now.prefill, prefill);
  const sglang::Side new_decode = decode.empty() ? now.decode : relaunched(now.decode, decode);
  auto state = [&](std::string name, bool p, bool d) {
    RolloutState s;
    s.name = std::move(name);
    s.prefill_new = p;
    s.decode_new = d;
    s.input = now;
    s.input.prefill = p ? new_prefill : now.prefill;
    s.input.decode = d ? new_decode : now.decode;
    return s;
  };
  std::vector<RolloutState> out;
  out.push_back(state("now", false, false));
  if (!prefill.empty() && !decode.empty()) {
    out.push_back(state("decode first", false, true));
    out.push_back(state("prefill first", true, false));
  }
  out.push_back(state("target", !prefill.empty(), !decode.empty()));
  return out;
}

std::string_view order_key(RolloutOrder o)
{
  switch (o) {
  case RolloutOrder::either: return "either";
  case RolloutOrder::decode_first: return "decode_first";
  case RolloutOrder::prefill_first: return "prefill_first";
  case RolloutOrder::one_side: return "one_side";
  case RolloutOrder::all_at_once: return "all_at_once";
  case RolloutOrder::unreachable: return "unreachable";
  }
  return "?";
}

std::string order_text(RolloutOrder o)
{
  switch (o) {
  case RolloutOrder::either: return "safe in either order: every mixed state works";
  case RolloutOrder::decode_first: return "upgrade the decodes first, then the prefills";
  case RolloutOrder::prefill_first: return "upgrade the prefills first, then the decodes";
  case RolloutOrder::one_side: return "safe: the changed side can roll while the other runs";
  case RolloutOrder::all_at_once:
    return "no rolling order is safe: both mixed states fail; switch all at once (blue-green: a second fleet, "
           "then move the router)";
  case RolloutOrder::unreachable: return "the target itself fails: no order reaches a working fleet";
  }
  return "?";
}

RolloutOrder safe_order(const std::vector<RolloutState>& states, const std::vector<bool>& passes)
{
  if (passes.empty() || passes.size() != states.size()) {
    throw std::logic_error("safe_order: one verdict per state");
  }
  std::map<std::string, bool> works; // by state name, over every pair
  for (std::size_t i = 0; i < states.size(); ++i) {
    auto [it, fresh] = works.try_emplace(states[i].name, true);
    it->second = it->second && passes[i];
  }
  if (!works["target"]) {
    return RolloutOrder::unreachable;
  }
  if (works.count("decode first") == 0) {
    return RolloutOrder::one_side;
  }
  const bool decode_first = works["decode first"];
  const bool prefill_first = works["prefill first"];
  if (decode_first && prefill_first) {
    return RolloutOrder::either;
  }
  if (decode_first) {
    return RolloutOrder::decode_first;
  }
  return prefill_first ? RolloutOrder::prefill_first : RolloutOrder::all_at_once;
}

} // namespace pdcheck::check
