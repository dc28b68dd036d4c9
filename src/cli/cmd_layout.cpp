#include "cli/command.hpp"
#include "cli/options.hpp"
#include "io/side_file.hpp"
#include "report/layout_render.hpp"
#include "sglang/side_layout.hpp"
#include "util/error.hpp"

#include <ostream>

namespace pdcheck::cli {

namespace {

struct LayoutOptions
{
  std::string side_file;
  std::string args;
  std::string model;
  std::string sglang;
  int tp = 0;
  int dp = 0;
  int pp = 0;
  bool dp_attention = false;
  std::string ssm_dtype;
  bool unified = false;
  std::vector<std::string> env;
  ReportOptions report;
};

/// The flag form (`--model M --tp N ...`) is turned into launch-argument words so
/// that every input path goes through the one SGLang argument parser.
std::string args_from_flags(const LayoutOptions& o)
{
  std::string words = o.args;
  auto add = [&](const std::string& w) { words += (words.empty() ? "" : " ") + w; };
  if (o.tp > 0) { add("--tp-size " + std::to_string(o.tp)); }
  if (o.dp > 0) { add("--dp-size " + std::to_string(o.dp)); }
  if (o.pp > 0) { add("--pp-size " + std::to_string(o.pp)); }
  if (o.dp_attention) { add("--enable-dp-attention"); }
  if (!o.ssm_dtype.empty()) { add("--mamba-ssm-dtype " + o.ssm_dtype); }
  if (o.unified) { add("--enable-unified-memory"); }
  return words;
}

Verdict run_layout(const LayoutOptions& o, CommandContext& ctx)
{
  sglang::Side side;
  if (!o.side_file.empty()) {
    if (!o.args.empty() || !o.model.empty() || o.tp > 0 || o.dp > 0 || o.pp > 0 || o.unified || o.dp_attention ||
        !o.ssm_dtype.empty()) {
      throw InputError("layout", "give either a side file or --model/--tp/--args options, not both");
    }
    side = io::load_side_file(o.side_file);
  } else {
    if (o.model.empty() && o.args.find("--model") == std::string::npos) {
      throw InputError("layout", "expected a side file, or --model (or --args with --model-path)");
    }
    side = side_from_command_line(args_from_flags(o), o.model, o.sglang, o.env, "--args");
  }
  const model::Layout layout = model::compute_layout(sglang::layout_input(side));
  if (o.report.format == "json") {
    *ctx.out << report::layout_to_json(side, layout).dump(2) << "\n";
  } else {
    *ctx.out << report::layout_to_text(side, layout);
  }
  return layout.servable() ? Verdict::ok : Verdict::findings;
}

} // namespace

void install_layout(CLI::App& app, CommandContext& ctx)
{
  auto opts = std::make_shared<LayoutOptions>();
  CLI::App* cmd = app.add_subcommand("layout", "Show the state tensors each rank allocates and registers for PD");
  cmd->add_option("side", opts->side_file, "Side file (YAML or JSON)");
  cmd->add_option("--args", opts->args, "SGLang launch arguments, as one string");
  cmd->add_option("--model", opts->model, "Catalog name, model directory or config.json");
  cmd->add_option("--sglang", opts->sglang, "SGLang profile or release (default: newest)");
  cmd->add_option("--tp", opts->tp, "Tensor parallel size")->check(positive_integer());
  cmd->add_option("--dp", opts->dp, "Data parallel size")->check(positive_integer());
  cmd->add_option("--pp", opts->pp, "Pipeline parallel size")->check(positive_integer());
  cmd->add_flag("--enable-dp-attention", opts->dp_attention, "DP attention (attention TP = tp / dp)");
  cmd->add_option("--mamba-ssm-dtype", opts->ssm_dtype, "float32, bfloat16 or float16");
  cmd->add_flag("--enable-unified-memory", opts->unified, "Unified memory pool (one envelope per slot)");
  cmd->add_option("--env", opts->env, "Environment for SGLang, KEY=VALUE (repeatable)");
  add_report_options(cmd, opts->report);
  cmd->callback([opts, &ctx] { ctx.verdict = run_layout(*opts, ctx); });
}

} // namespace pdcheck::cli
