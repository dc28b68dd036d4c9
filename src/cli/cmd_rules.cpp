#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/rules.hpp"
#include "util/error.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

namespace pdcheck::cli {

void install_rules(CLI::App& app, CommandContext& ctx)
{
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("rules", "List every rule id with its kind, severity and title");
  add_format_option(cmd, *format);
  cmd->callback([format, &ctx] {
    if (*format == "json") {
      auto list = nlohmann::ordered_json::array();
      for (const Rule& r : rules()) {
        list.push_back({{"id", r.id},
                        {"kind", finding_kind_name(r.kind)},
                        {"severity", severity_name(r.severity)},
                        {"title", r.title},
                        {"explanation", r.explanation},
                        {"fix", r.fix}});
      }
      *ctx.out << nlohmann::ordered_json{{"rules", list}}.dump(2) << "\n";
      return;
    }
    for (const Rule& r : rules()) {
      *ctx.out << fmt::format("{:<26} {:<18} {:<8} {}\n", r.id, finding_kind_name(r.kind), severity_name(r.severity),
                              r.title);
    }
  });
}

void install_explain(CLI::App& app, CommandContext& ctx)
{
  auto id = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("explain", "Explain a rule id");
  cmd->add_option("rule", *id, "Rule id (see `pdcheck rules`)")->required();
  cmd->callback([id, &ctx] {
    const Rule* r = find_rule(*id);
    if (r == nullptr) {
      std::vector<std::string> ids;
      for (const Rule& rule : rules()) {
        ids.emplace_back(rule.id);
      }
      const auto guess = closest_match(*id, ids);
      throw InputError("explain", fmt::format("unknown rule '{}'{}", *id,
                                              guess ? fmt::format(" (did you mean '{}'?)", *guess)
                                                    : std::string(" (see `pdcheck rules`)")));
    }
    *ctx.out << fmt::format("{} ({}, {})\n{}\n\n{}\n\nfix: {}\n", r->id, finding_kind_name(r->kind),
                            severity_name(r->severity), r->title, r->explanation, r->fix);
  });
}

} // namespace pdcheck::cli
