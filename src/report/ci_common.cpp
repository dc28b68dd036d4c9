#include "report/ci_common.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>

namespace pdcheck::report {

namespace {

bool starts_with(std::string_view s, std::string_view prefix)
{
  return s.substr(0, prefix.size()) == prefix;
}

std::string relative_uri(const std::string& file, const PathBase& base)
{
  namespace fs = std::filesystem;
  fs::path p(file);
  if (p.is_relative()) {
    p = fs::path(base.cwd) / p;
  }
  p = p.lexically_normal();
  const fs::path rel = p.lexically_relative(fs::path(base.root).lexically_normal());
  if (rel.empty() || starts_with(rel.generic_string(), "..")) {
    // Outside the repository: an absolute URI (GitHub code scanning rejects these,
    // which is right: the file is not in the repository it scans).
    return "file://" + p.generic_string();
  }
  return rel.generic_string();
}

std::optional<FileLocation> side_location(const sglang::Side& side, std::string_view preferred, const PathBase& base)
{
  if (side.locations.empty()) {
    return std::nullopt;
  }
  for (std::string_view key : {preferred, std::string_view("args"), std::string_view("sglang"),
                               std::string_view("model"), std::string_view("role")}) {
    auto it = side.locations.find(std::string(key));
    if (it != side.locations.end()) {
      const sglang::SourceLocation& s = it->second;
      return FileLocation{relative_uri(s.file.empty() ? side.origin : s.file, base), it->first,
                          std::string(sglang::role_name(side.role)), s.line, s.column};
    }
  }
  const auto& [key, s] = *side.locations.begin();
  return FileLocation{relative_uri(s.file.empty() ? side.origin : s.file, base), key,
                      std::string(sglang::role_name(side.role)), s.line, s.column};
}

} // namespace

std::vector<RuleOutcome> rule_outcomes(const CheckReport& report)
{
  const check::CheckInput& in = report.in;
  const check::CheckResult& r = report.result;
  const TransferBackend backend = in.prefill.args.transfer_backend;
  const bool servable = r.prefill_layout.servable() && r.decode_layout.servable();
  const bool transfer = !r.pairs.empty();
  const bool unified = in.prefill.args.enable_unified_memory || in.decode.args.enable_unified_memory;
  const std::string backend_name(transfer_backend_name(backend));
  const std::string no_transfer = "the check stopped before any state transfer was planned";

  std::map<std::string, RuleStatus> status_of;
  for (const check::SuppressedCause& s : report.triage.suppressed) {
    status_of[s.cause.finding.rule] = RuleStatus::suppressed;
  }
  for (const check::Cause& c : report.triage.shown) {
    status_of[c.finding.rule] = RuleStatus::failed;
  }
  auto needs_transfer = [&]() -> std::optional<std::string> {
    return transfer ? std::nullopt : std::optional<std::string>(no_transfer);
  };
  auto needs_backend = [&](TransferBackend b) -> std::optional<std::string> {
    if (backend != b) {
      return fmt::format("the pair uses the {} backend", backend_name);
    }
    return needs_transfer();
  };
  const std::string no_unified = "neither side enables --enable-unified-memory";
  // Why a rule cannot apply to this pair (its scope in core/rules.def); nullopt when it applies.
  auto why_not = [&](RuleScope scope) -> std::optional<std::string> {
    switch (scope) {
    case RuleScope::always: return std::nullopt;
    case RuleScope::mooncake_transfer: return needs_backend(TransferBackend::mooncake);
    case RuleScope::mori_transfer: return needs_backend(TransferBackend::mori);
    case RuleScope::nixl_transfer: return needs_backend(TransferBackend::nixl);
    case RuleScope::decode_mori:
      return in.decode.args.transfer_backend == TransferBackend::mori
               ? std::nullopt
               : std::optional<std::string>(fmt::format("the decode uses the {} backend",
                                                        transfer_backend_name(in.decode.args.transfer_backend)));
    case RuleScope::unified_memory: return unified ? std::nullopt : std::optional<std::string>(no_unified);
    case RuleScope::unified_transfer: return unified ? needs_transfer() : std::optional<std::string>(no_unified);
    case RuleScope::bootstrapped:
      return servable ? std::nullopt : std::optional<std::string>("a side cannot start, so it never bootstraps");
    case RuleScope::simulated:
      return r.simulated_decode_ranks > 0 ? std::nullopt
                                          : std::optional<std::string>("no decode rank's transfer could be simulated");
    case RuleScope::transfer: return needs_transfer();
    case RuleScope::fleet: return std::optional<std::string>("checked by pdcheck fleet, against a running router");
    case RuleScope::live:
      return in.prefill_bootstrap ? std::nullopt
                                  : std::optional<std::string>("checked against a running prefill's bootstrap server "
                                                               "(check --prefill-url, pdcheck bootstrap)");
    }
    return std::nullopt;
  };

  std::vector<RuleOutcome> out;
  for (const Rule& rule : rules()) {
    RuleOutcome o;
    o.rule = &rule;
    if (auto it = status_of.find(std::string(rule.id)); it != status_of.end()) {
      o.status = it->second;
    } else if (auto reason = why_not(rule.scope)) {
      o.status = RuleStatus::not_applicable;
      o.reason = *reason;
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<FileLocation> finding_locations(const Finding& f, const check::CheckInput& in, const PathBase& base)
{
  std::vector<FileLocation> out;
  const Rule* rule = find_rule(f.rule);
  const std::string_view key = side_key_name(rule != nullptr ? rule->key : SideKey::args);
  const sglang::Side* first = f.side == "decode" ? &in.decode : &in.prefill;
  const sglang::Side* second = first == &in.prefill ? &in.decode : &in.prefill;
  // The line that sets the value behind the finding (check/remedy) when known,
  // else the side file's key for the rule.
  auto location = [&](const sglang::Side& side) -> std::optional<FileLocation> {
    const std::string_view role = sglang::role_name(side.role);
    for (const FindingPlace& p : f.places) {
      if (p.side == role) {
        return FileLocation{relative_uri(p.file, base), std::string(key), p.side, p.line, p.column};
      }
    }
    return side_location(side, key, base);
  };
  if (auto loc = location(*first)) {
    out.push_back(*loc);
  }
  if (f.side.empty()) {
    // A pair finding is about both sides' settings.
    if (auto loc = location(*second)) {
      out.push_back(*loc);
    }
  }
  return out;
}

} // namespace pdcheck::report
