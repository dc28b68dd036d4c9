#include "report/markdown.hpp"

#include "util/plural.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

std::string markdown_cell(std::string_view text)
{
  std::string out;
  for (char c : text) {
    switch (c) {
    case '|': out += "\\|"; break;
    case '\n': out += "<br>"; break;
    case '\r': break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    default: out += c;
    }
  }
  return out;
}

namespace {

/// Inline code that survives any backticks inside it (CommonMark: a longer fence).
std::string code(std::string_view text)
{
  const std::string fence = text.find('`') == std::string_view::npos ? "`" : "``";
  return fence + (fence.size() > 1 ? " " : "") + std::string(text) + (fence.size() > 1 ? " " : "") + fence;
}

std::string side_row(const sglang::Side& s, const model::Layout& l)
{
  return fmt::format("| {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} |\n", sglang::role_name(s.role),
                     markdown_cell(code(s.origin)), markdown_cell(s.model.name), markdown_cell(s.profile.name),
                     markdown_cell(s.profile.base), transfer_backend_name(s.args.transfer_backend), s.args.tp_size,
                     l.attn_tp_size, s.args.pp_size, s.args.enable_unified_memory ? "yes" : "no");
}

} // namespace

std::string check_to_markdown(const CheckReport& rep)
{
  const check::CheckResult& r = rep.result;
  std::string out = fmt::format("## pdcheck: {} {}\n\n", rep.passes() ? "✅" : "❌", rep.verdict());
  out += "| side | file | model | SGLang (profile) | backend | TP (attention TP) | PP | unified memory |\n";
  out += "|---|---|---|---|---|---|---|---|\n";
  out += side_row(rep.in.prefill, r.prefill_layout);
  out += side_row(rep.in.decode, r.decode_layout);
  out += fmt::format("\n{} planned, {} simulated byte by byte. **{}** (fails on {}).\n",
                     counted(static_cast<long long>(r.pairs.size()), "rank pair"),
                     counted(r.simulated_decode_ranks, "decode rank"), markdown_cell(counts_text(rep.triage)),
                     severity_name(rep.fail_on));
  if (rep.triage.shown.empty()) {
    return out;
  }
  out += "\n| severity | rule | kind | side | rank pairs | finding |\n|---|---|---|---|---|---|\n";
  for (const check::Cause& c : rep.triage.shown) {
    const Finding& f = c.finding;
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", severity_name(f.severity), code(f.rule),
                       finding_kind_name(f.kind), f.side.empty() ? "pair" : f.side,
                       c.pairs.empty() ? "" : markdown_cell(pairs_label(c, 4)), markdown_cell(f.message));
  }
  out += "\n";
  for (const check::Cause& c : rep.triage.shown) {
    const Finding& f = c.finding;
    out += fmt::format("<details><summary>{} {}: {}</summary>\n\n", severity_name(f.severity), markdown_cell(code(f.rule)),
                       markdown_cell(f.message));
    if (!c.pairs.empty()) {
      out += fmt::format("{}: {}\n\n", counted(static_cast<long long>(c.pairs.size()), "rank pair"),
                         pairs_label(c, c.pairs.size()));
      if (const std::string others = other_pair_messages(c, "- ", 8); !others.empty()) {
        out += "On the other rank pairs:\n\n" + others + "\n";
      }
    }
    if (f.runtime_error) {
      out += fmt::format("SGLang ({}) raises:\n\n```\n{}\n```\n\n", f.where, *f.runtime_error);
    }
    if (f.logged_warning) {
      out += fmt::format("SGLang ({}) logs:\n\n```\n{}\n```\n\n", f.where, *f.logged_warning);
    }
    if (!f.change.empty()) {
      out += fmt::format("**Change:** {}\n\n", markdown_cell(f.change));
    }
    out += fmt::format("**Fix:** {}\n\nMore: {}\n\n</details>\n\n", markdown_cell(f.fix),
                       code("pdcheck explain " + f.rule));
  }
  return out;
}

} // namespace pdcheck::report
