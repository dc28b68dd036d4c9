#include "check/matrix.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/model_loader.hpp"
#include "report/matrix_render.hpp"
#include "sglang/server_args.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace pdcheck::cli {

namespace {

struct MatrixOptions
{
  std::string model;
  std::string versions;
  std::vector<int> tp_sizes;
  std::string sglang;
  std::string backend;
  std::string args;
  ReportOptions report;
};

std::size_t release_index(const std::vector<const Profile*>& all, const std::string& text, const std::string& option)
{
  const Profile* p = find_profile(text);
  const auto it = std::find(all.begin(), all.end(), p);
  if (p == nullptr || it == all.end()) {
    throw InputError(option, fmt::format("'{}' is not an SGLang release pdcheck knows (pdcheck profiles lists them)",
                                         text));
  }
  return static_cast<std::size_t>(it - all.begin());
}

/// --versions A..B (either end may be left out), inclusive.
std::vector<const Profile*> release_range(const std::string& text)
{
  const std::vector<const Profile*> all = release_profiles();
  if (text.empty()) {
    return all;
  }
  const std::size_t dots = text.find("..");
  if (dots == std::string::npos) {
    throw InputError("--versions", fmt::format("expected FIRST..LAST (either may be left out), got '{}'", text));
  }
  const std::string first = text.substr(0, dots);
  const std::string last = text.substr(dots + 2);
  const std::size_t a = first.empty() ? 0 : release_index(all, first, "--versions");
  const std::size_t b = last.empty() ? all.size() - 1 : release_index(all, last, "--versions");
  if (a > b) {
    throw InputError("--versions", fmt::format("{} comes after {}; give the older release first", first, last));
  }
  return {all.begin() + static_cast<std::ptrdiff_t>(a), all.begin() + static_cast<std::ptrdiff_t>(b) + 1};
}

Verdict run_matrix(const MatrixOptions& o, CommandContext& ctx)
{
  check::MatrixRequest r;
  r.fail_on = o.report.fail_on_severity();
  if (o.tp_sizes.size() > 1) {
    if (!o.versions.empty()) {
      throw InputError("--tp", "a TP list makes TP the axis; give --sglang for the release, not --versions");
    }
    r.axis = check::MatrixAxis::tp;
    r.tp_sizes = o.tp_sizes;
    const std::vector<const Profile*> all = release_profiles();
    r.releases = {o.sglang.empty() ? all.back() : all[release_index(all, o.sglang, "--sglang")]};
  } else {
    if (!o.sglang.empty()) {
      throw InputError("--sglang", "the releases are the axis; give --versions, or a TP list (--tp 1,2,4) to make "
                                   "TP the axis");
    }
    r.axis = check::MatrixAxis::release;
    r.tp_sizes = {o.tp_sizes.empty() ? 1 : o.tp_sizes.front()};
    r.releases = release_range(o.versions);
  }
  if (!o.backend.empty()) {
    r.extra_words = {"--disaggregation-transfer-backend", o.backend};
  }
  for (std::string& w : sglang::split_command_line(o.args, "--args")) {
    r.extra_words.push_back(std::move(w));
  }
  r.model = io::load_model(o.model);
  const check::Matrix m = check::build_matrix(r);
  const std::string& f = o.report.format;
  *ctx.out << (f == "json"  ? report::matrix_to_json(m).dump(2) + "\n"
               : f == "svg" ? report::matrix_to_svg(m)
               : f == "html" ? report::matrix_to_html(m)
                             : report::matrix_to_text(m));
  return Verdict::ok;
}

} // namespace

void install_matrix(CLI::App& app, CommandContext& ctx)
{
  auto o = std::make_shared<MatrixOptions>();
  CLI::App* cmd = app.add_subcommand("matrix", "Check one model at every prefill x decode release (or TP size) pair: "
                                               "a compatibility grid");
  cmd->add_option("--model", o->model, "Model (catalog name, directory or config.json)")->required();
  cmd->add_option("--versions", o->versions, "Releases on both axes, FIRST..LAST (default: every release pdcheck "
                                             "knows)");
  cmd->add_option("--tp", o->tp_sizes, "TP size of both sides; a list (1,2,4,8) makes TP the axis")
    ->delimiter(',')
    ->check(positive_integer());
  cmd->add_option("--sglang", o->sglang, "Release of both sides when TP is the axis (default: the newest)");
  cmd->add_option("--backend", o->backend, "Transfer backend of both sides (mooncake, nixl, mori)");
  cmd->add_option("--args", o->args, "More launch arguments for both sides");
  ReportFlags flags;
  flags.formats = {"text", "json", "svg", "html"};
  flags.format_help = "Output format: text, json, svg (a heat map), html (the heat map on a page)";
  flags.fail_on = true;
  add_report_options(cmd, o->report, flags);
  cmd->callback([o, &ctx] { ctx.verdict = run_matrix(*o, ctx); });
}

} // namespace pdcheck::cli
