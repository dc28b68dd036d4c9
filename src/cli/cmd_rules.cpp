#include "check/log_explain.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/rules.hpp"
#include "io/log_reader.hpp"
#include "report/catalog_render.hpp"
#include "report/log_render.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <ostream>

namespace pdcheck::cli {

namespace {

InputError unknown_rule(const std::string& id)
{
  std::vector<std::string> ids;
  for (const Rule& rule : rules()) {
    ids.emplace_back(rule.id);
  }
  const auto guess = closest_match(id, ids);
  return InputError("explain", fmt::format("unknown rule '{}'{}", id,
                                           guess ? fmt::format(" (did you mean '{}'?)", *guess)
                                                 : std::string(" (see `pdcheck rules`)")));
}

/// Says on stderr which lines were too long to scan whole, so that a reader
/// knows a failure message could hide past the cut.
void note_cut_lines(const std::string& name, const io::LogReadSummary& read, CommandContext& ctx)
{
  if (read.cut_lines == 0) {
    return;
  }
  *ctx.err << fmt::format("pdcheck: note: {}:{}: line longer than {} MiB; only its first {} MiB was scanned{}\n",
                          name, read.first_cut_line, io::k_max_log_line_bytes >> 20, io::k_max_log_line_bytes >> 20,
                          read.cut_lines > 1 ? fmt::format(" ({} such lines)", read.cut_lines) : std::string());
}

} // namespace

void install_rules(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("rules", "List every rule id with its kind, severity and title");
  add_report_options(cmd, *options);
  cmd->callback([options, &ctx] {
    ctx.verdict = Verdict::ok;
    *ctx.out << (options->format == "json" ? report::rules_to_json(rules()).dump(2) + "\n"
                                           : report::rules_to_text(rules()));
  });
}

void install_explain(CLI::App& app, CommandContext& ctx)
{
  auto targets = std::make_shared<std::vector<std::string>>();
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("explain", "Explain a rule id, or the PD failures in SGLang server logs");
  cmd->add_option("target", *targets, "A rule id (see `pdcheck rules`), or SGLang log files ('-' for standard input)")
    ->required();
  add_report_options(cmd, *options);
  cmd->callback([targets, options, &ctx] {
    const std::string& format = options->format;
    // One known rule id: the rule's long text (the original behaviour).
    if (targets->size() == 1 && find_rule(targets->front()) != nullptr) {
      const Rule& rule = *find_rule(targets->front());
      *ctx.out << (format == "json" ? report::rule_to_json(rule).dump(2) + "\n" : report::rule_to_text(rule));
      ctx.verdict = Verdict::ok;
      return;
    }
    for (const std::string& t : *targets) {
      if (find_rule(t) != nullptr) {
        throw InputError("explain", fmt::format("'{}' is a rule id: give one rule id, or log files, not both", t));
      }
      // A word that is neither a file nor path-like is a mistyped rule id. The
      // symlink itself counts as a file: a dangling link or a loop is reported
      // by the reader, naming why it cannot be read.
      std::error_code ec;
      if (targets->size() == 1 && t != "-" && !std::filesystem::exists(std::filesystem::symlink_status(t, ec)) &&
          t.find('/') == std::string::npos && t.find('.') == std::string::npos) {
        throw unknown_rule(t);
      }
    }
    check::LogExplanation result;
    for (const std::string& t : *targets) {
      const std::string name = t == "-" ? std::string("<stdin>") : t;
      check::LogScanner scanner(name);
      const io::LogReadSummary read =
        io::read_log_chunks(t, [&scanner](std::string_view chunk) { scanner.feed(chunk); });
      scanner.finish(result);
      note_cut_lines(name, read, ctx);
    }
    check::link_rooms(result);
    *ctx.out << (format == "json" ? report::log_explanation_to_json(result).dump(2) + "\n"
                                  : report::log_explanation_to_text(result));
    ctx.verdict = result.failures_found() ? Verdict::findings : Verdict::ok;
  });
}

} // namespace pdcheck::cli
