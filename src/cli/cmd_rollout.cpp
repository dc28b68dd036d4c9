#include "check/checker.hpp"
#include "check/rollout.hpp"
#include "check/suggest.hpp"
#include "check/triage.hpp"
#include "cli/check_outputs.hpp"
#include "cli/command.hpp"
#include "cli/manifest_pairs.hpp"
#include "cli/options.hpp"
#include "io/side_file.hpp"
#include "report/rollout_render.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <ostream>

namespace pdcheck::cli {

namespace {

struct RolloutOptions
{
  std::string prefill_file;
  std::string decode_file;
  std::string to;
  std::string prefill_to;
  std::string decode_to;
  std::vector<std::string> changes;
  std::vector<std::string> manifests;
  std::string model;
  std::vector<std::string> manifest_env;
  ReportOptions report;
};

Verdict run_rollout(const RolloutOptions& o, CommandContext& ctx)
{
  check::Relaunch prefill;
  check::Relaunch decode;
  if (!o.to.empty() && (!o.prefill_to.empty() || !o.decode_to.empty())) {
    throw InputError("--to", "moves both sides; give it or --prefill-to/--decode-to, not both");
  }
  for (const auto& [release, side] : {std::pair{o.to, "both"}, std::pair{o.prefill_to, "prefill"},
                                      std::pair{o.decode_to, "decode"}}) {
    if (!release.empty()) {
      check::add_change(std::string(side) + ":sglang=" + release, prefill, decode);
    }
  }
  for (const std::string& c : o.changes) {
    check::add_change(c, prefill, decode);
  }
  std::vector<check::CheckInput> pairs;
  if (!o.manifests.empty()) {
    if (!o.prefill_file.empty() || !o.decode_file.empty()) {
      throw InputError("--manifest", "give either manifests or the two side files, not both");
    }
    pairs = manifest_pairs(ManifestRequest{o.manifests, o.model, "", "", o.manifest_env});
  } else {
    if (o.decode_file.empty()) {
      throw InputError("rollout", "expected PREFILL and DECODE side files, or --manifest FILE...");
    }
    check::CheckInput now;
    now.prefill = io::load_side_file(o.prefill_file);
    now.decode = io::load_side_file(o.decode_file);
    pairs.push_back(std::move(now));
  }

  report::RolloutReport rep;
  for (const check::CheckInput& now : pairs) {
    for (check::RolloutState& s : check::rollout_states(now, prefill, decode)) {
      if (pairs.size() > 1) {
        s.pair = fmt::format("prefill {} × decode {}", now.prefill.origin, now.decode.origin);
      }
      rep.states.push_back(std::move(s));
    }
  }
  rep.prefill_changes = prefill.texts;
  rep.decode_changes = decode.texts;
  std::vector<const check::CheckInput*> inputs;
  for (const check::RolloutState& s : rep.states) {
    inputs.push_back(&s.input);
  }
  const check::FindingPolicy policy;
  CheckedPairs checked = check_pairs(inputs, policy, o.report.fail_on_severity());
  rep.reports = std::move(checked.reports); // the results and triages stay in `checked`
  std::vector<bool> passes;
  for (std::size_t i = 0; i < rep.states.size(); ++i) {
    passes.push_back(rep.reports[i].passes());
    rep.suggestions.push_back(passes.back() ? std::vector<check::Suggestion>{}
                                            : check::suggestions(rep.states[i].input, policy, o.report.fail_on_severity()));
  }
  rep.order = check::safe_order(rep.states, passes);
  *ctx.out << (o.report.format == "json" ? report::rollout_to_json(rep).dump(2) + "\n" : report::rollout_to_text(rep));
  return rep.passes() ? Verdict::ok : Verdict::findings;
}

} // namespace

void install_rollout(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<RolloutOptions>();
  CLI::App* cmd = app.add_subcommand("rollout", "Check every mixed state of a rolling upgrade or change, and the "
                                                "order that keeps each working");
  cmd->add_option("prefill", o->prefill_file, "Prefill side file, as it runs now");
  cmd->add_option("decode", o->decode_file, "Decode side file, as it runs now");
  cmd->add_option("--manifest", o->manifests,
                  "Deployment holding the servers as they run now, as check --manifest reads it; every prefill x "
                  "decode pair rolls (repeatable; - reads standard input)")
    ->allow_extra_args(false);
  cmd->add_option("--model", o->model, "Model of the manifest's servers (catalog name, directory or config.json)");
  cmd->add_option("--manifest-env", o->manifest_env,
                  "Value of a variable the manifest leaves to run time, NAME=VALUE (repeatable)")
    ->allow_extra_args(false);
  cmd->add_option("--to", o->to, "SGLang release both sides move to");
  cmd->add_option("--prefill-to", o->prefill_to, "SGLang release the prefills move to");
  cmd->add_option("--decode-to", o->decode_to, "SGLang release the decodes move to");
  cmd->add_option("--change", o->changes,
                  "Another change, SIDE:CHANGE with SIDE prefill, decode or both and CHANGE launch words "
                  "(--tp-size 4), !--FLAG (remove it), NAME=VALUE (environment) or sglang=RELEASE (repeatable)")
    ->allow_extra_args(false);
  ReportFlags flags;
  flags.fail_on = true;
  add_report_options(cmd, o->report, flags);
  cmd->callback([o, &ctx] { ctx.verdict = run_rollout(*o, ctx); });
}

} // namespace pdcheck::cli
