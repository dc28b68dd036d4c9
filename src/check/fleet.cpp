#include "check/fleet.hpp"

#include "core/rules.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace pdcheck::check {

namespace {

using sglang::Role;

std::optional<Role> role_of_type(const std::string& type)
{
  if (type == "prefill") {
    return Role::prefill;
  }
  if (type == "decode") {
    return Role::decode;
  }
  return std::nullopt;
}

std::string lower(std::string s)
{
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

RouterWorker worker_of(const nlohmann::json& w, const std::string& where)
{
  if (!w.is_object() || !w.contains("url") || !w["url"].is_string()) {
    throw InputError(where, "expected a worker object with a url");
  }
  RouterWorker out;
  out.url = w["url"].get<std::string>();
  if (w.contains("worker_type") && w["worker_type"].is_string()) {
    out.role = role_of_type(lower(w["worker_type"].get<std::string>()));
  }
  if (w.contains("bootstrap_port") && w["bootstrap_port"].is_number_integer()) {
    out.bootstrap_port = w["bootstrap_port"].get<int>();
  }
  return out;
}

} // namespace

std::vector<RouterWorker> parse_router_workers(const nlohmann::json& answer, const std::string& origin)
{
  std::vector<RouterWorker> out;
  const nlohmann::json* list = nullptr;
  if (answer.is_object() && answer.contains("workers") && answer["workers"].is_array()) {
    list = &answer["workers"];
  } else if (answer.is_array()) {
    list = &answer;
  }
  if (list != nullptr) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      const nlohmann::json& w = (*list)[i];
      const std::string type = w.is_object() && w.contains("worker_type") && w["worker_type"].is_string()
                                 ? lower(w["worker_type"].get<std::string>())
                                 : "";
      if (type == "regular") {
        continue; // not a PD worker
      }
      out.push_back(worker_of(w, fmt::format("{}: workers[{}]", origin, i)));
    }
    return out;
  }
  if (answer.is_object() && answer.contains("urls") && answer["urls"].is_array()) {
    for (const nlohmann::json& u : answer["urls"]) {
      if (!u.is_string()) {
        throw InputError(origin, "urls: expected a list of strings");
      }
      out.push_back(RouterWorker{u.get<std::string>(), std::nullopt, std::nullopt});
    }
    return out;
  }
  throw InputError(origin, "expected the router's worker list ({\"workers\": [...]} or {\"urls\": [...]})");
}

std::optional<Role> serving_role(const FleetWorker& w)
{
  return w.side ? std::optional<Role>(w.side->role) : w.listed.role;
}

std::vector<Finding> fleet_findings(const std::vector<FleetWorker>& workers)
{
  std::vector<Finding> out;
  for (const FleetWorker& w : workers) {
    const std::string listed_as = w.listed.role ? std::string(sglang::role_name(*w.listed.role)) + " " : "";
    if (!w.side) {
      Finding f = make_finding(RuleId::fleet_worker_unreachable,
                               fmt::format("{}worker {} does not answer: {}", listed_as, w.listed.url, w.failure));
      f.where = w.listed.url;
      f.evidence["url"] = w.listed.url;
      out.push_back(std::move(f));
      continue;
    }
    if (w.listed.role && *w.listed.role != w.side->role) {
      Finding f = make_finding(RuleId::fleet_worker_role,
                               fmt::format("the router lists {} as a {} worker, but it runs --disaggregation-mode {}",
                                           w.listed.url, sglang::role_name(*w.listed.role),
                                           sglang::role_name(w.side->role)));
      f.where = w.listed.url;
      f.evidence["url"] = w.listed.url;
      out.push_back(std::move(f));
    }
  }
  // The port each decode uses for each prefill: the router's, else the decode's own.
  for (const FleetWorker& p : workers) {
    if (!p.side || p.side->role != Role::prefill) {
      continue;
    }
    const int serves = p.side->args.bootstrap_port;
    for (const FleetWorker& d : workers) {
      if (!d.side || d.side->role != Role::decode) {
        continue;
      }
      const int used = p.listed.bootstrap_port.value_or(d.side->args.bootstrap_port);
      if (used == serves) {
        continue;
      }
      const std::string how = p.listed.bootstrap_port
                                ? fmt::format("the router registered port {} for it", used)
                                : fmt::format("the router registered no port for it, so decode {} uses its own "
                                              "--disaggregation-bootstrap-port {}",
                                              d.listed.url, used);
      Finding f = make_finding(RuleId::fleet_bootstrap_port,
                               fmt::format("prefill {} serves its bootstrap server on port {}, but {}", p.listed.url,
                                           serves, how));
      f.where = p.listed.url + " -> " + d.listed.url;
      f.evidence["prefill"] = p.listed.url;
      f.evidence["decode"] = d.listed.url;
      f.evidence["prefill_bootstrap_port"] = serves;
      f.evidence["port_used"] = used;
      if (!p.listed.bootstrap_port) {
        // The decode's fallback to its own port was read in stored copies of the
        // scheduler whose repository the index does not name.
        f.evidence["confidence"] = "medium";
      }
      out.push_back(std::move(f));
      if (p.listed.bootstrap_port) {
        break; // the router's port is the same for every decode: one finding
      }
    }
  }
  return out;
}

} // namespace pdcheck::check
