#include "report/bootstrap_render.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

namespace {

/// Text output lists this many rank endpoints; JSON lists all.
constexpr std::size_t k_endpoints_shown = 32;

std::string value_text(const nlohmann::ordered_json& v)
{
  if (v.is_null()) {
    return "none";
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string server_text(const BootstrapServer& server, const check::PrefillFromServer& from)
{
  const check::PrefillServerInfo& info = server.info;
  std::string out = fmt::format("server   {} · GET /health {} · server info of the {} generation ({} keys)\n",
                                server.url, server.health_answer, check::info_generation_name(info.generation),
                                info.keys.size());
  std::vector<std::string> reported;
  for (const check::PrefillFact& f : from.facts) {
    if (f.source == check::FactSource::server) {
      reported.push_back(f.why.empty() ? fmt::format("{} {}", f.name, value_text(f.value))
                                       : fmt::format("{} {} ({})", f.name, value_text(f.value), f.why));
    }
  }
  out += fmt::format("  from the server: {}\n", fmt::join(reported, ", "));
  for (const check::PrefillFact& f : from.facts) {
    if (f.source != check::FactSource::server) {
      out += fmt::format("  {}: {} {} ({})\n", check::fact_source_name(f.source), f.name, value_text(f.value), f.why);
    }
  }
  out += fmt::format("  endpoints: {}{}\n", counted(static_cast<long long>(server.endpoints.size()), "prefill rank"),
                     server.missing_ranks.empty() ? ""
                                                  : fmt::format(", {} never registered", server.missing_ranks.size()));
  for (std::size_t i = 0; i < server.endpoints.size() && i < k_endpoints_shown; ++i) {
    const check::RankEndpoint& e = server.endpoints[i];
    const bool ipv6 = e.ip.find(':') != std::string::npos;
    out += fmt::format("    {}  {}:{}\n", check::rank_label(e.rank), ipv6 ? "[" + e.ip + "]" : e.ip, e.port);
  }
  if (server.endpoints.size() > k_endpoints_shown) {
    out += fmt::format("    … {} more (--format json lists every one)\n", server.endpoints.size() - k_endpoints_shown);
  }
  for (const std::string& note : server.notes) {
    out += "  note: " + note + "\n";
  }
  return out + "\n";
}

nlohmann::ordered_json server_json(const BootstrapServer& server, const check::PrefillFromServer& from)
{
  nlohmann::ordered_json j;
  j["url"] = server.url;
  j["health"] = server.health;
  j["health_answer"] = server.health_answer;
  j["generation"] = check::info_generation_name(server.info.generation);
  j["info_request"] = "GET " + server.info_target;
  j["info"] = server.info.raw;
  j["unknown_keys"] = server.info.unknown_keys;
  auto facts = nlohmann::ordered_json::array();
  for (const check::PrefillFact& f : from.facts) {
    facts.push_back({{"name", f.name}, {"value", f.value}, {"source", check::fact_source_name(f.source)}, {"why", f.why}});
  }
  j["facts"] = std::move(facts);
  auto endpoints = nlohmann::ordered_json::array();
  for (const check::RankEndpoint& e : server.endpoints) {
    endpoints.push_back({{"dp", e.rank.dp},
                         {"cp", e.rank.cp},
                         {"tp", e.rank.tp},
                         {"pp", e.rank.pp},
                         {"rank_ip", e.ip},
                         {"rank_port", e.port},
                         {"extra", e.extra}});
  }
  j["endpoints"] = std::move(endpoints);
  auto missing = nlohmann::ordered_json::array();
  for (const auto& [rank, answer] : server.missing_ranks) {
    missing.push_back({{"dp", rank.dp}, {"cp", rank.cp}, {"tp", rank.tp}, {"pp", rank.pp}, {"answer", answer}});
  }
  j["missing_ranks"] = std::move(missing);
  j["notes"] = server.notes;
  j["requests"] = server.requests;
  j["not_ready_answers"] = server.not_ready_answers;
  return j;
}

} // namespace

nlohmann::ordered_json bootstrap_to_json(const BootstrapServer& server, const check::PrefillFromServer& from,
                                         const CheckReport& report)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["verdict"] = report.verdict();
  j["server"] = server_json(server, from);
  j["check"] = check_to_json(report);
  return j;
}

std::string bootstrap_to_text(const BootstrapServer& server, const check::PrefillFromServer& from,
                              const CheckReport& report, const RenderOptions& options)
{
  return server_text(server, from) + check_to_text(report, options);
}

} // namespace pdcheck::report
