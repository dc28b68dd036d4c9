#include "check/bootstrap.hpp"
#include "check/checker.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/bootstrap_client.hpp"
#include "io/side_file.hpp"
#include "report/bootstrap_render.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ostream>

namespace pdcheck::cli {

namespace {

struct BootstrapCommandOptions
{
  std::string url;
  std::string decode_file;
  std::string prefill_sglang;
  double timeout_s = 30.0;
  ReportOptions report;
};

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
  throw InputError("--prefill-sglang", unknown_profile_text(o.prefill_sglang));
}

report::BootstrapServer server_report(const io::BootstrapFetch& fetch)
{
  report::BootstrapServer s;
  s.url = fetch.url.text;
  s.health = std::string(io::health_state_name(fetch.health));
  s.health_answer = fetch.health_answer;
  s.info_target = fetch.info_target;
  s.info = fetch.info;
  s.endpoints = fetch.endpoints;
  s.missing_ranks = fetch.missing_ranks;
  s.notes = fetch.notes;
  s.requests = fetch.requests;
  s.not_ready_answers = fetch.not_ready_answers;
  return s;
}

Verdict run_bootstrap_command(const BootstrapCommandOptions& o, CommandContext& ctx)
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
  in.prefill_bootstrap = io::observed(fetch);
  const check::CheckResult result = check::run_check(in);
  const check::Triage triage = check::triage(result.findings, check::FindingPolicy{});
  const report::CheckReport rep{in, result, triage, o.report.fail_on_severity()};

  const report::BootstrapServer server = server_report(fetch);
  if (o.report.format == "json") {
    *ctx.out << report::bootstrap_to_json(server, from, rep).dump(2) << "\n";
  } else {
    report::RenderOptions ro;
    ro.color = o.report.use_color();
    *ctx.out << report::bootstrap_to_text(server, from, rep, ro);
  }
  return rep.passes() ? Verdict::ok : Verdict::findings;
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
    ->check(number_range(0.001, 86400.0))
    ->capture_default_str();
  ReportFlags flags;
  flags.color = true;
  flags.fail_on = true;
  add_report_options(cmd, o->report, flags);
  cmd->callback([o, &ctx] { ctx.verdict = run_bootstrap_command(*o, ctx); });
}

} // namespace pdcheck::cli
