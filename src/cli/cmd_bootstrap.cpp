#include "check/bootstrap.hpp"
#include "check/checker.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/bootstrap_client.hpp"
#include "io/side_file.hpp"
#include "report/check_render.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <unistd.h>

namespace pdcheck::cli {

namespace {

/// Text output lists this many rank endpoints; JSON lists all.
constexpr std::size_t k_endpoints_shown = 32;

struct BootstrapCommandOptions
{
  std::string url;
  std::string decode_file;
  std::string prefill_sglang;
  double timeout_s = 30.0;
  std::string format = "text";
  std::string color = "auto";
  std::string fail_on = "error";
};

Severity parse_severity(const std::string& s)
{
  return s == "warning" ? Severity::warning : s == "info" ? Severity::info : Severity::error;
}

std::string value_text(const nlohmann::ordered_json& v)
{
  if (v.is_null()) {
    return "none";
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// The prefill SGLang: --prefill-sglang, else the decode side's (the usual
/// deployment runs one SGLang build on both sides).
std::pair<Profile, std::string> prefill_profile(const BootstrapCommandOptions& o, const sglang::Side& decode)
{
  if (o.prefill_sglang.empty()) {
    return {decode.profile, decode.sglang};
  }
  if (const Profile* p = find_profile(o.prefill_sglang)) {
    return {*p, o.prefill_sglang};
  }
  throw InputError("--prefill-sglang", fmt::format("unknown profile or version '{}'; known: {}", o.prefill_sglang,
                                                   fmt::join(profile_names(), ", ")));
}

std::string server_text(const io::BootstrapFetch& fetch, const check::PrefillFromServer& from)
{
  const check::PrefillServerInfo& info = fetch.info;
  std::string out = fmt::format("server   {} · GET /health {} · server info of the {} generation ({} keys)\n",
                                fetch.url.text, fetch.health_answer, check::info_generation_name(info.generation),
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
  out += fmt::format("  endpoints: {} prefill rank(s){}\n", fetch.endpoints.size(),
                     fetch.missing_ranks.empty() ? ""
                                                 : fmt::format(", {} never registered", fetch.missing_ranks.size()));
  for (std::size_t i = 0; i < fetch.endpoints.size() && i < k_endpoints_shown; ++i) {
    const check::RankEndpoint& e = fetch.endpoints[i];
    const bool ipv6 = e.ip.find(':') != std::string::npos;
    out += fmt::format("    {}  {}:{}\n", check::rank_label(e.rank), ipv6 ? "[" + e.ip + "]" : e.ip, e.port);
  }
  if (fetch.endpoints.size() > k_endpoints_shown) {
    out += fmt::format("    … {} more (--format json lists every one)\n", fetch.endpoints.size() - k_endpoints_shown);
  }
  for (const std::string& note : fetch.notes) {
    out += "  note: " + note + "\n";
  }
  return out + "\n";
}

nlohmann::ordered_json server_json(const io::BootstrapFetch& fetch, const check::PrefillFromServer& from)
{
  nlohmann::ordered_json j;
  j["url"] = fetch.url.text;
  j["health"] = io::health_state_name(fetch.health);
  j["health_answer"] = fetch.health_answer;
  j["generation"] = check::info_generation_name(fetch.info.generation);
  j["info_request"] = "GET " + fetch.info_target;
  j["info"] = fetch.info.raw;
  j["unknown_keys"] = fetch.info.unknown_keys;
  auto facts = nlohmann::ordered_json::array();
  for (const check::PrefillFact& f : from.facts) {
    facts.push_back({{"name", f.name}, {"value", f.value}, {"source", check::fact_source_name(f.source)}, {"why", f.why}});
  }
  j["facts"] = std::move(facts);
  auto endpoints = nlohmann::ordered_json::array();
  for (const check::RankEndpoint& e : fetch.endpoints) {
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
  for (const auto& [rank, answer] : fetch.missing_ranks) {
    missing.push_back({{"dp", rank.dp}, {"cp", rank.cp}, {"tp", rank.tp}, {"pp", rank.pp}, {"answer", answer}});
  }
  j["missing_ranks"] = std::move(missing);
  j["notes"] = fetch.notes;
  j["requests"] = fetch.requests;
  j["not_ready_answers"] = fetch.not_ready_answers;
  return j;
}

int run_bootstrap_command(const BootstrapCommandOptions& o, CommandContext& ctx)
{
  // Every input problem (exit 2) is found before the first byte goes out.
  const check::BootstrapUrl url = check::parse_bootstrap_url(o.url);
  check::CheckInput in;
  in.decode = io::load_side_file(o.decode_file);
  if (in.decode.role != sglang::Role::decode) {
    throw InputError(o.decode_file, "is a prefill side; pdcheck bootstrap checks a decode side against a running "
                                    "prefill server");
  }
  const auto [profile, sglang_text] = prefill_profile(o, in.decode);
  io::BootstrapOptions bo;
  bo.timeout = std::chrono::milliseconds(static_cast<long long>(std::ceil(o.timeout_s * 1000.0)));

  const io::BootstrapFetch fetch = io::fetch_bootstrap(url, bo);
  const check::PrefillFromServer from =
    check::prefill_side_from_server(fetch.info, in.decode, profile, sglang_text, url.text);
  in.prefill = from.side;
  check::CheckResult result = check::run_check(in);
  for (Finding& f : check::missing_rank_findings(fetch.missing_ranks, url.text)) {
    result.findings.push_back(std::move(f));
  }
  const Severity fail_on = parse_severity(o.fail_on);

  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["verdict"] = report::verdict(result, fail_on);
    j["server"] = server_json(fetch, from);
    j["check"] = report::check_to_json(in, result, fail_on);
    *ctx.out << j.dump(2) << "\n";
  } else {
    report::RenderOptions ro;
    ro.fail_on = fail_on;
    ro.color = o.color == "always" || (o.color == "auto" && std::getenv("NO_COLOR") == nullptr && isatty(1) == 1);
    *ctx.out << server_text(fetch, from) << report::check_to_text(in, result, ro);
  }
  return result.passes(fail_on) ? exit_code::ok : exit_code::findings;
}

} // namespace

void install_bootstrap(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<BootstrapCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
    "bootstrap", "Check a decode side against a running prefill's bootstrap server (read-only HTTP GETs)");
  cmd->add_option("url", o->url, "Prefill bootstrap server, http://HOST:PORT (port default 8998)")->required();
  cmd->add_option("decode", o->decode_file, "Decode side file")->required();
  cmd->add_option("--prefill-sglang", o->prefill_sglang,
                  "Prefill SGLang profile or release (default: the decode side's)");
  cmd->add_option("--timeout", o->timeout_s, "Seconds to wait in all for the server to answer and be fully registered")
    ->check(CLI::Range(0.001, 86400.0))
    ->capture_default_str();
  add_format_option(cmd, o->format);
  cmd->add_option("--color", o->color, "Colour: auto, always, never")->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--fail-on", o->fail_on, "Lowest severity that fails the check: error, warning, info")
    ->check(CLI::IsMember({"error", "warning", "info"}));
  cmd->callback([o, &ctx] { ctx.exit_status = run_bootstrap_command(*o, ctx); });
}

} // namespace pdcheck::cli
