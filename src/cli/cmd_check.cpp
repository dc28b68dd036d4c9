#include "check/checker.hpp"
#include "check/suggest.hpp"
#include "cli/check_outputs.hpp"
#include "cli/command.hpp"
#include "cli/manifest_pairs.hpp"
#include "cli/options.hpp"
#include "io/capture_file.hpp"
#include "io/manifest.hpp"
#include "io/bootstrap_client.hpp"
#include "io/server_info_client.hpp"
#include "io/output_file.hpp"
#include "io/settings_file.hpp"
#include "io/side_file.hpp"
#include "report/check_render.hpp"
#include "report/rollout_render.hpp"
#include "core/rules.hpp"
#include "util/error.hpp"
#include "util/plural.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

namespace pdcheck::cli {

namespace {

struct CheckOptions
{
  std::string prefill_file;
  std::string decode_file;
  std::string prefill_args;
  std::string decode_args;
  std::string model;
  std::string prefill_sglang;
  std::string decode_sglang;
  std::vector<std::string> prefill_env;
  std::vector<std::string> decode_env;
  std::vector<std::string> manifests;     ///< --manifest FILE (repeatable; - is standard input)
  std::vector<std::string> manifest_env;  ///< --manifest-env NAME=VALUE
  std::string prefill_url;                ///< --prefill-url: a running server's /server_info
  std::string decode_url;
  std::string prefill_bootstrap;          ///< --prefill-bootstrap: where its bootstrap server is read
  bool suggest = false;                   ///< --suggest: the nearest changes that make the pair work
  double timeout_seconds = 10;            ///< --timeout, per server
  std::string plan;
  ReportOptions report;
  std::vector<std::string> transfer_infos;  ///< --transfer-info CAPTURE
  std::vector<std::string> decode_captures; ///< --decode-capture FILE|DIR
  std::vector<std::string> outputs; ///< --output FORMAT=PATH
  std::string sarif_root;           ///< --sarif-root
  std::vector<std::string> ignore;  ///< --ignore RULE[,RULE]
  std::vector<std::string> select;  ///< --select RULE[,RULE]
  bool show_advice = false;
  std::string baseline;       ///< --baseline FILE
  std::string write_baseline; ///< --write-baseline FILE
  std::string settings;       ///< --settings FILE (else .pdcheck.yaml found upward)
  bool isolated = false;      ///< --isolated: no settings file
  bool quiet = false;
  bool format_given = false;  ///< --format was on the command line (it wins over the settings)
  bool fail_on_given = false;
};

std::pair<int, int> parse_pair(const std::string& text)
{
  int p = -1;
  int d = -1;
  char colon = 0;
  if (std::sscanf(text.c_str(), "%d%c%d", &p, &colon, &d) != 3 || colon != ':' || p < 0 || d < 0) {
    throw InputError("--plan", "expected PREFILL_RANK:DECODE_RANK, got '" + text + "'");
  }
  return {p, d};
}

/// Capture files named directly, or every *.json file of a named directory.
std::vector<std::string> capture_files(const std::vector<std::string>& paths)
{
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::string> in_dir;
      // increment(ec), not the range-for: its operator++ throws on a read error.
      for (std::filesystem::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        if (it->path().extension() == ".json") {
          in_dir.push_back(it->path().string());
        }
      }
      if (ec) {
        throw InputError(p, "cannot list capture directory: " + ec.message());
      }
      if (in_dir.empty()) {
        throw InputError(p, "no capture files (*.json) in this directory");
      }
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else {
      files.push_back(p);
    }
  }
  return files;
}

bool same_file(const std::string& a, const std::string& b)
{
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

/// PREFILL comes first: a decode side in the prefill's place (or a prefill in
/// the decode's) would be checked with every role swapped.
void refuse_misplaced_sides(const CheckOptions& o, const check::CheckInput& in)
{
  const bool prefill_is_decode = in.prefill.role == sglang::Role::decode;
  const bool decode_is_prefill = !o.decode_file.empty() && in.decode.role == sglang::Role::prefill;
  if (prefill_is_decode && decode_is_prefill) {
    throw InputError("check", fmt::format("the sides are swapped: {} is the decode side and {} the prefill side; "
                                          "run pdcheck check {} {}",
                                          o.prefill_file, o.decode_file, o.decode_file, o.prefill_file));
  }
  if (prefill_is_decode) {
    throw InputError(o.prefill_file, "is a decode side (role: decode) given as PREFILL; pdcheck check takes PREFILL, "
                                     "then DECODE");
  }
  if (decode_is_prefill) {
    throw InputError(o.decode_file, "is a prefill side (role: prefill) given as DECODE; pdcheck check takes PREFILL, "
                                    "then DECODE");
  }
}

/// --manifest: every prefill server paired with every decode server.
std::vector<check::CheckInput> manifest_pairs(const CheckOptions& o)
{
  if (!o.prefill_file.empty() || !o.decode_file.empty() || !o.prefill_args.empty() || !o.decode_args.empty()) {
    throw InputError("--manifest", "give either manifests or the two sides (side files or --prefill-args/--decode-args), "
                                   "not both");
  }
  if (!o.decode_captures.empty() || !o.transfer_infos.empty()) {
    throw InputError("--manifest", "--decode-capture and --transfer-info go with side files, one pair at a time");
  }
  return cli::manifest_pairs(ManifestRequest{o.manifests, o.model, o.prefill_sglang, o.decode_sglang, o.manifest_env});
}

/// The servers behind --prefill-url and --decode-url run the roles they are named for.
void refuse_running_roles(const CheckOptions& o, const check::CheckInput& in)
{
  for (const auto& [side, url, option, role] :
       {std::tuple{&in.prefill, o.prefill_url, "--prefill-url", sglang::Role::prefill},
        std::tuple{&in.decode, o.decode_url, "--decode-url", sglang::Role::decode}}) {
    if (side->role != role) {
      throw InputError(option, fmt::format("{} runs --disaggregation-mode {}, not {}", url,
                                           sglang::role_name(side->role), sglang::role_name(role)));
    }
  }
}

/// Where the decode finds the running prefill's bootstrap server: the prefill
/// URL's host at its --disaggregation-bootstrap-port, unless --prefill-bootstrap
/// names another address (a port-forward, a Service).
check::BootstrapUrl bootstrap_url_of(const CheckOptions& o, const sglang::Side& prefill)
{
  if (!o.prefill_bootstrap.empty()) {
    try {
      return check::parse_bootstrap_url(o.prefill_bootstrap);
    } catch (const InputError& e) {
      throw InputError("--prefill-bootstrap", e.detail());
    }
  }
  return check::at_port(check::parse_bootstrap_url(o.prefill_url), prefill.args.bootstrap_port);
}

check::CheckInput gather_inputs(const CheckOptions& o)
{
  check::CheckInput in;
  const bool files = !o.prefill_file.empty() || !o.decode_file.empty();
  const bool args = !o.prefill_args.empty() || !o.decode_args.empty();
  const bool urls = !o.prefill_url.empty() || !o.decode_url.empty();
  if (urls) {
    if (files || args || !o.decode_captures.empty()) {
      throw InputError("check", "give either --prefill-url/--decode-url or the sides as files or launch arguments, "
                                "not both");
    }
    if (o.prefill_url.empty() || o.decode_url.empty()) {
      throw InputError("check", "--prefill-url and --decode-url go together");
    }
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(o.timeout_seconds * 1000));
    in.prefill = io::side_from_server(o.prefill_url, o.model, timeout);
    in.decode = io::side_from_server(o.decode_url, o.model, timeout);
    refuse_running_roles(o, in);
    in.prefill_bootstrap = io::observe_bootstrap(bootstrap_url_of(o, in.prefill), timeout);
    in.prefill.notes.push_back(check::bootstrap_note(*in.prefill_bootstrap));
  } else if (files && args) {
    throw InputError("check", "give either two side files or --prefill-args/--decode-args, not both");
  } else if (files) {
    if (o.decode_file.empty() && o.decode_captures.empty()) {
      throw InputError("check", "expected two side files: PREFILL DECODE (or PREFILL --decode-capture FILE)");
    }
    if (!o.decode_file.empty() && same_file(o.prefill_file, o.decode_file)) {
      throw InputError("check", fmt::format("the same side file given twice ({}); give the prefill side, then the "
                                            "decode side",
                                            o.decode_file));
    }
    in.prefill = io::load_side_file(o.prefill_file);
    if (!o.decode_file.empty()) {
      in.decode = io::load_side_file(o.decode_file);
    }
    refuse_misplaced_sides(o, in);
  } else if (args) {
    if (o.prefill_args.empty() || o.decode_args.empty()) {
      throw InputError("check", "--prefill-args and --decode-args go together");
    }
    in.prefill = side_from_command_line(o.prefill_args, o.model, o.prefill_sglang, o.prefill_env, "--prefill-args",
                                        "--prefill-env");
    in.decode = side_from_command_line(o.decode_args, o.model, o.decode_sglang, o.decode_env, "--decode-args",
                                       "--decode-env");
    in.prefill.role = sglang::Role::prefill;
    in.decode.role = sglang::Role::decode;
  } else {
    throw InputError("check", "expected PREFILL and DECODE side files, or --prefill-args and --decode-args");
  }
  auto add_transfer_info = [&in](const io::Capture& capture, const std::string& path) {
    const wire::TransferInfo ti = io::transfer_info_from_capture(capture);
    check::ObservedTransferInfo obs;
    obs.origin = path;
    obs.dummy = ti.is_dummy;
    for (const auto& component : ti.dst_state_indices) {
      obs.state_index_counts.push_back(static_cast<int>(component.size()));
    }
    in.transfer_infos.push_back(std::move(obs));
  };
  for (const std::string& path : o.transfer_infos) {
    add_transfer_info(io::load_capture(path), path);
  }
  for (const std::string& path : capture_files(o.decode_captures)) {
    const io::Capture capture = io::load_capture(path);
    if (capture.kind == io::CaptureKind::transfer_info) {
      // A directory `pdcheck capture` wrote holds both kinds: requests count as --transfer-info.
      add_transfer_info(capture, path);
      continue;
    }
    const wire::Registration reg = io::registration_from_capture(capture); // strict: malformed frames exit 2
    if (o.decode_file.empty() && in.decode_registrations.empty()) {
      // Only captures: the decode server is the prefill's model at the
      // captured attention TP; simulation runs where the captured layout matches.
      in.decode = in.prefill;
      in.decode.role = sglang::Role::decode;
      in.decode.origin = path;
      in.decode.args.disaggregation_mode = sglang::DisaggregationMode::decode;
      in.decode.args.tp_size = static_cast<int>(reg.dst_attn_tp_size);
      in.decode.args.dp_size = 1;
      in.decode.args.enable_dp_attention = false;
      in.decode.args.attn_cp_size = 1;
    }
    in.decode_registrations.push_back({path, capture.backend, capture.frames});
  }
  if (files && o.decode_file.empty() && in.decode_registrations.empty()) {
    throw InputError("--decode-capture", "none of the captures is a registration, so there is no decode side: give "
                                         "the DECODE side file too, or a registration capture");
  }
  return in;
}

void require_rules(const std::vector<std::string>& ids, const std::string& option)
{
  std::vector<std::string> known;
  for (const Rule& r : rules()) {
    known.emplace_back(r.id);
  }
  for (const std::string& id : ids) {
    if (find_rule(id) == nullptr) {
      const auto hint = closest_match(id, known);
      throw InputError(option, fmt::format("unknown rule '{}'{}", id,
                                           hint ? fmt::format(" (did you mean '{}'?)", *hint)
                                                : std::string(" (pdcheck rules lists them)")));
    }
  }
}

/// The settings file in force: --settings, else the nearest .pdcheck.yaml
/// upward from the working directory, unless --isolated.
io::CheckSettings settings_of(const CheckOptions& o)
{
  if (o.isolated) {
    return {};
  }
  if (!o.settings.empty()) {
    return io::load_settings(o.settings);
  }
  if (auto found = io::find_settings_file(".")) {
    return io::load_settings(*found);
  }
  return {};
}

/// What the operator asked to see: the command line over the settings file.
check::FindingPolicy policy_of(const CheckOptions& o, const io::CheckSettings& s, const check::CheckInput& in)
{
  require_rules(o.ignore, "--ignore");
  require_rules(o.select, "--select");
  check::FindingPolicy p;
  p.ignore.insert(s.ignore.begin(), s.ignore.end());
  p.ignore.insert(o.ignore.begin(), o.ignore.end());
  const auto& select = o.select.empty() ? s.select : o.select;
  p.select.insert(select.begin(), select.end());
  p.severity = s.severity;
  p.show_advice = o.show_advice || s.show_advice.value_or(false);
  for (const sglang::Side* side : {&in.prefill, &in.decode}) {
    for (const auto& [rule, where] : side->inline_ignores) {
      p.inline_ignores[std::string(sglang::role_name(side->role))].insert(rule);
    }
  }
  const std::string baseline = !o.baseline.empty() ? o.baseline : s.baseline.value_or("");
  if (!baseline.empty() && o.write_baseline.empty()) {
    p.baseline = io::load_baseline(baseline);
  }
  return p;
}

Verdict run_check_command(const CheckOptions& o, CommandContext& ctx)
{
  const io::CheckSettings settings = settings_of(o);
  std::string format = o.report.format;
  if (!o.format_given && settings.format) {
    const auto& all = check_formats();
    if (std::find(all.begin(), all.end(), *settings.format) == all.end()) {
      throw InputError(settings.format_where, fmt::format("format: expected one of {}, got '{}'",
                                                          fmt::join(all, ", "), *settings.format));
    }
    format = *settings.format;
  }
  ReportOptions severity_options = o.report;
  if (!o.fail_on_given && settings.fail_on) {
    severity_options.fail_on = *settings.fail_on;
  }
  const Severity fail_on = severity_options.fail_on_severity();

  if (!o.prefill_bootstrap.empty() && o.prefill_url.empty()) {
    throw InputError("--prefill-bootstrap", "goes with --prefill-url (the running prefill it belongs to)");
  }
  if (o.suggest && ((format != "text" && format != "json") || !o.manifests.empty())) {
    throw InputError("--suggest", "goes with one pair and --format text or json");
  }
  if (!o.manifests.empty()) {
    if (!o.plan.empty() || !o.write_baseline.empty()) {
      throw InputError("--manifest", fmt::format("{} takes one pair: give it side files",
                                                 o.plan.empty() ? "--write-baseline" : "--plan"));
    }
    const std::vector<check::CheckInput> inputs = manifest_pairs(o);
    // One policy for every pair: manifests carry no inline ignores, so it
    // differs by nothing but would read the baseline file once per pair.
    const CheckedPairs checked = check_pairs(inputs, policy_of(o, settings, inputs.front()), fail_on);
    const std::vector<report::CheckReport>& reps = checked.reports;
    write_check_outputs(o.outputs, reps, o.sarif_root, *ctx.out);
    bool passes = true;
    for (const report::CheckReport& rep : reps) {
      passes = passes && rep.passes();
      if (o.quiet) {
        *ctx.out << report::check_to_summary_line(rep);
      }
    }
    if (!o.quiet) {
      *ctx.out << render_check_reports(format, reps, o.sarif_root, format == "text" && o.report.use_color());
    }
    return passes ? Verdict::ok : Verdict::findings;
  }

  check::CheckInput in = gather_inputs(o);
  in.keep_pair_copies = !o.plan.empty();
  const check::FindingPolicy policy = policy_of(o, settings, in);
  const check::CheckResult result = check::run_check(in);

  if (!o.plan.empty()) {
    const auto [p, d] = parse_pair(o.plan);
    for (const auto& pair : result.pairs) {
      if (pair.prefill_rank == p && pair.decode_rank == d) {
        *ctx.out << (format == "json" ? report::plan_to_json(pair).dump(2) + "\n" : report::plan_to_text(pair));
        return Verdict::ok;
      }
    }
    throw InputError("--plan", fmt::format("prefill rank {} does not send state to decode rank {} in this pairing "
                                           "({} talk)",
                                           p, d, counted(static_cast<long long>(result.pairs.size()), "pair")));
  }

  check::FindingPolicy policy_used = policy;
  check::Triage triage = check::triage(result.findings, policy);
  if (!o.write_baseline.empty()) {
    // Adopting pdcheck: every cause found now is accepted; only new ones fail later runs.
    policy_used.baseline = check::baseline_of(triage);
    io::write_output_file(o.write_baseline, io::baseline_to_text(*policy_used.baseline),
                          "--write-baseline " + o.write_baseline);
    triage = check::triage(result.findings, policy_used);
  }
  const report::CheckReport rep{in, result, triage, fail_on};
  write_check_outputs(o.outputs, {rep}, o.sarif_root, *ctx.out);
  if (o.quiet) {
    *ctx.out << report::check_to_summary_line(rep);
  } else if (o.suggest && format == "json") {
    nlohmann::ordered_json j = report::check_to_json(rep);
    // Judged like the pair itself: under the same ignores, overrides and baseline.
    j["suggestions"] = report::suggestions_to_json(rep.passes() ? std::vector<check::Suggestion>{}
                                                                : check::suggestions(in, policy_used, fail_on));
    *ctx.out << j.dump(2) << "\n";
  } else {
    *ctx.out << render_check_report(format, rep, o.sarif_root, format == "text" && o.report.use_color());
    if (o.suggest && !rep.passes()) {
      *ctx.out << report::suggestions_to_text(check::suggestions(in, policy_used, fail_on));
    }
  }
  return rep.passes() ? Verdict::ok : Verdict::findings;
}

} // namespace

void install_check(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Check a prefill/decode pair: SGLang's validations and the transfer plan");
  cmd->add_option("prefill", o->prefill_file, "Prefill side file");
  cmd->add_option("decode", o->decode_file, "Decode side file");
  cmd->add_option("--prefill-args", o->prefill_args, "Prefill launch arguments (instead of side files)");
  cmd->add_option("--decode-args", o->decode_args, "Decode launch arguments (instead of side files)");
  cmd->add_option("--model", o->model,
                  "Model for --prefill-args/--decode-args or --manifest (catalog name, directory or config.json)");
  cmd->add_option("--manifest", o->manifests,
                  "Kubernetes manifest, Helm values or srt-slurm recipe holding the prefill and decode servers "
                  "(repeatable; - reads standard input)")
    ->allow_extra_args(false);
  cmd->add_option("--prefill-url", o->prefill_url,
                  "A running prefill server, http://HOST:PORT: its launch is read from GET /server_info");
  cmd->add_option("--decode-url", o->decode_url, "A running decode server, http://HOST:PORT");
  cmd->add_option("--prefill-bootstrap", o->prefill_bootstrap,
                  "Where to read the running prefill's bootstrap server, http://HOST:PORT (default: the "
                  "--prefill-url host at its --disaggregation-bootstrap-port)");
  cmd->add_option("--timeout", o->timeout_seconds, "Seconds to wait for each server's answer (with --prefill-url)")
    ->check(number_range(0.1, 3600));
  cmd->add_option("--manifest-env", o->manifest_env,
                  "Value of a variable the manifest leaves to run time, NAME=VALUE (repeatable)")
    ->allow_extra_args(false);
  cmd->add_option("--prefill-sglang", o->prefill_sglang, "Prefill SGLang profile or release");
  cmd->add_option("--decode-sglang", o->decode_sglang, "Decode SGLang profile or release");
  cmd->add_option("--prefill-env", o->prefill_env, "Prefill environment KEY=VALUE (repeatable)");
  cmd->add_option("--decode-env", o->decode_env, "Decode environment KEY=VALUE (repeatable)");
  cmd->add_option("--transfer-info", o->transfer_infos,
                  "Captured TransferInfo whose state indices the backend must accept (repeatable)");
  cmd->add_option("--decode-capture", o->decode_captures,
                  "Captured decode registration(s), file or directory, standing in for the decode side (repeatable)");
  cmd->add_option("--plan", o->plan, "Print the copy plan of one pair, PREFILL_RANK:DECODE_RANK");
  ReportFlags flags;
  flags.formats = check_formats();
  flags.format_help = "Output format: text, json, sarif, junit, github, gitlab, markdown";
  flags.color = true;
  flags.fail_on = true;
  add_report_options(cmd, o->report, flags);
  cmd->add_option("--output", o->outputs, "Also write a report, FORMAT=PATH (repeatable; PATH - is standard output)")
    ->check(output_request_validator(check_formats()))
    ->allow_extra_args(false); // one FORMAT=PATH per --output: side files may follow
  cmd->add_option("--sarif-root", o->sarif_root, "Directory SARIF and GitHub paths are relative to (default: current directory)");
  cmd->add_option("--ignore", o->ignore, "Rules not to report, RULE[,RULE] (repeatable; adds to the settings file's)")
    ->delimiter(',');
  cmd->add_option("--select", o->select, "Report only these rules, RULE[,RULE] (repeatable; replaces the settings file's)")
    ->delimiter(',');
  cmd->add_flag("--show-advice", o->show_advice, "Also show advice meant for SGLang developers");
  cmd->add_flag("--suggest", o->suggest,
                "For an incompatible pair, try each side at other TP sizes and SGLang releases and say which work");
  cmd->add_option("--baseline", o->baseline, "Do not report the causes recorded in this baseline file");
  cmd->add_option("--write-baseline", o->write_baseline,
                  "Record every cause found now in this baseline file (they pass from now on)");
  cmd->add_option("--settings", o->settings, "Settings file to use instead of the nearest .pdcheck.yaml");
  cmd->add_flag("--isolated", o->isolated, "Read no settings file");
  cmd->add_flag("-q,--quiet", o->quiet, "Print only the verdict line (--output files are still written)");
  cmd->callback([o, cmd, &ctx] {
    o->format_given = cmd->get_option("--format")->count() > 0;
    o->fail_on_given = cmd->get_option("--fail-on")->count() > 0;
    ctx.verdict = run_check_command(*o, ctx);
  });
}

} // namespace pdcheck::cli
