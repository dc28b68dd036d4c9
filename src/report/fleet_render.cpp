#include "report/fleet_render.hpp"

#include "report/finding_json.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

bool counts(Severity s, Severity fail_on)
{
  return static_cast<int>(s) <= static_cast<int>(fail_on);
}

std::string role_text(const std::optional<sglang::Role>& r)
{
  return r ? std::string(sglang::role_name(*r)) : "?";
}

std::string port_text(const std::optional<int>& p)
{
  return p ? std::to_string(*p) : "none";
}

} // namespace

bool FleetReport::passes() const
{
  for (const Finding& f : findings) {
    if (counts(f.severity, fail_on)) {
      return false;
    }
  }
  for (const CheckReport& p : pairs) {
    if (!p.passes()) {
      return false;
    }
  }
  return true;
}

std::string fleet_to_text(const FleetReport& r)
{
  std::size_t prefills = 0;
  std::size_t decodes = 0;
  std::size_t silent = 0;
  for (const check::FleetWorker& w : r.workers) {
    const auto role = check::serving_role(w);
    prefills += role == sglang::Role::prefill ? 1 : 0;
    decodes += role == sglang::Role::decode ? 1 : 0;
    silent += w.side ? 0 : 1;
  }
  std::string out = fmt::format("fleet    {}: {}, {}{}\n", r.router, counted(static_cast<long long>(prefills), "prefill"),
                                counted(static_cast<long long>(decodes), "decode"),
                                silent > 0 ? fmt::format(" ({} not answering)", silent) : "");
  for (const check::FleetWorker& w : r.workers) {
    if (!w.side) {
      out += fmt::format("  {:<8} {}  does not answer\n", role_text(w.listed.role), w.listed.url);
      continue;
    }
    const sglang::Side& s = *w.side;
    out += fmt::format("  {:<8} {}  SGLang {} · {} · tp {} · bootstrap port {}", sglang::role_name(s.role),
                       w.listed.url, s.profile.name, s.model.name, s.args.tp_size, s.args.bootstrap_port);
    if (s.role == sglang::Role::prefill) {
      out += fmt::format(" (router: {})", port_text(w.listed.bootstrap_port));
    }
    out += "\n";
  }
  for (const Finding& f : r.findings) {
    out += fmt::format("\n{} [{}] {}\n  {}\n  fix: {}\n", severity_name(f.severity), f.rule, finding_kind_name(f.kind),
                       f.message, f.fix);
  }
  out += fmt::format("\n{} checked:\n", counted(static_cast<long long>(r.pairs.size()), "pair"));
  for (const CheckReport& p : r.pairs) {
    out += fmt::format("  {} ({}): prefill {} × decode {}\n", p.verdict(), counts_text(p.triage), p.in.prefill.origin,
                       p.in.decode.origin);
  }
  // The full report of each pair that fails, as `pdcheck check` prints it.
  for (const CheckReport& p : r.pairs) {
    if (!p.passes()) {
      out += "\n== prefill " + p.in.prefill.origin + " × decode " + p.in.decode.origin + "\n" + check_to_text(p, {});
    }
  }
  out += fmt::format("\nverdict: {}\n", r.passes() ? "compatible" : "incompatible");
  return out;
}

nlohmann::ordered_json fleet_to_json(const FleetReport& r)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["router"] = r.router;
  auto workers = nlohmann::ordered_json::array();
  for (const check::FleetWorker& w : r.workers) {
    nlohmann::ordered_json x;
    x["url"] = w.listed.url;
    x["listed_role"] = w.listed.role ? nlohmann::ordered_json(sglang::role_name(*w.listed.role)) : nullptr;
    x["registered_bootstrap_port"] = w.listed.bootstrap_port ? nlohmann::ordered_json(*w.listed.bootstrap_port) : nullptr;
    x["answered"] = w.side.has_value();
    x["failure"] = w.side ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(w.failure);
    x["role"] = w.side ? nlohmann::ordered_json(sglang::role_name(w.side->role)) : nullptr;
    x["sglang"] = w.side ? nlohmann::ordered_json(w.side->profile.name) : nullptr;
    x["bootstrap_port"] = w.side ? nlohmann::ordered_json(w.side->args.bootstrap_port) : nullptr;
    workers.push_back(std::move(x));
  }
  j["workers"] = std::move(workers);
  auto findings = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) {
    findings.push_back(finding_to_json(f));
  }
  j["findings"] = std::move(findings);
  auto pairs = nlohmann::ordered_json::array();
  for (const CheckReport& p : r.pairs) {
    pairs.push_back(check_to_json(p));
  }
  j["pairs"] = std::move(pairs);
  j["fail_on"] = severity_name(r.fail_on);
  j["verdict"] = r.passes() ? "compatible" : "incompatible";
  return j;
}

} // namespace pdcheck::report
