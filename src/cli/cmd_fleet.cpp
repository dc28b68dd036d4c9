#include "check/checker.hpp"
#include "check/fleet.hpp"
#include "check/triage.hpp"
#include "cli/check_outputs.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/bootstrap_client.hpp"
#include "io/router_client.hpp"
#include "io/server_info_client.hpp"
#include "report/fleet_render.hpp"
#include "util/error.hpp"

#include <ostream>

namespace pdcheck::cli {

namespace {

struct FleetOptions
{
  std::string router;
  std::string model;
  double timeout_seconds = 10;
  ReportOptions report;
};

Verdict run_fleet(const FleetOptions& o, CommandContext& ctx)
{
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_seconds * 1000));
  std::vector<check::FleetWorker> workers;
  for (check::RouterWorker& listed : io::fetch_router_workers(o.router, timeout)) {
    check::FleetWorker w;
    w.listed = std::move(listed);
    try {
      w.side = io::side_from_server(w.listed.url, o.model, timeout);
    } catch (const CannotRun& e) {
      w.failure = e.what(); // a finding, not the end of the run: the other workers still count
    }
    if (w.side && w.side->role == sglang::Role::prefill) {
      w.bootstrap = io::observe_bootstrap(
        check::at_port(check::parse_bootstrap_url(w.listed.url), w.side->args.bootstrap_port), timeout);
      w.side->notes.push_back(check::bootstrap_note(*w.bootstrap));
    }
    workers.push_back(std::move(w));
  }
  std::vector<check::CheckInput> inputs;
  for (const check::FleetWorker& p : workers) {
    for (const check::FleetWorker& d : workers) {
      if (p.side && d.side && p.side->role == sglang::Role::prefill && d.side->role == sglang::Role::decode) {
        inputs.push_back(check::CheckInput{});
        inputs.back().prefill = *p.side;
        inputs.back().decode = *d.side;
        inputs.back().prefill_bootstrap = p.bootstrap;
      }
    }
  }
  report::FleetReport rep;
  rep.router = o.router;
  rep.fail_on = o.report.fail_on_severity();
  CheckedPairs checked = check_pairs(inputs, check::FindingPolicy{}, rep.fail_on);
  rep.pairs = std::move(checked.reports); // the results and triages stay in `checked`
  rep.findings = check::fleet_findings(workers);
  rep.workers = std::move(workers);
  *ctx.out << (o.report.format == "json" ? report::fleet_to_json(rep).dump(2) + "\n" : report::fleet_to_text(rep));
  return rep.passes() ? Verdict::ok : Verdict::findings;
}

} // namespace

void install_fleet(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<FleetOptions>();
  CLI::App* cmd = app.add_subcommand("fleet", "Check every prefill x decode pair a running PD router serves "
                                              "(read-only GETs)");
  cmd->add_option("--router", o->router, "The router, http://HOST:PORT (GET /workers, or /list_workers)")->required();
  cmd->add_option("--model", o->model, "Model of the workers whose --model-path pdcheck cannot read (catalog name "
                                       "or config.json)");
  cmd->add_option("--timeout", o->timeout_seconds, "Seconds to wait for each answer (default 10)")
    ->check(number_range(0.1, 3600));
  ReportFlags flags;
  flags.fail_on = true;
  add_report_options(cmd, o->report, flags);
  cmd->callback([o, &ctx] { ctx.verdict = run_fleet(*o, ctx); });
}

} // namespace pdcheck::cli
