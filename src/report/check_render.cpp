#include "report/check_render.hpp"

#include "report/compact_text.hpp"
#include "report/finding_json.hpp"
#include "sglang/side_layout.hpp"
#include "util/plural.hpp"
#include "util/units.hpp"

#include <fmt/format.h>

#include <map>

namespace pdcheck::report {

namespace {

std::string confidence_of(const sglang::Side& s)
{
  return s.profile_confidence.empty() ? s.profile.confidence : s.profile_confidence;
}

/// "0.5.19 (components, confidence low)": the release the verdict assumes, the
/// behaviour profile it maps to and how sure that mapping is.
std::string sglang_text(const sglang::Side& s)
{
  if (s.profile.released.empty()) {
    return "profile " + s.profile.name;
  }
  const std::string assumed = s.profile_assumption.empty() ? "" : ", assumed from " + s.sglang;
  return fmt::format("{} ({}, confidence {}{})", s.profile.name, s.profile.base, confidence_of(s), assumed);
}

nlohmann::ordered_json side_json(const sglang::Side& s, const model::Layout& l)
{
  nlohmann::ordered_json j;
  j["origin"] = s.origin;
  j["role"] = sglang::role_name(s.role);
  j["model"] = s.model.name;
  j["architecture"] = s.model.architecture;
  j["profile"] = s.profile.name;
  j["profile_base"] = s.profile.base;
  j["profile_confidence"] = confidence_of(s);
  j["sglang"] = s.sglang;
  j["profile_assumption"] = s.profile_assumption.empty() ? nlohmann::ordered_json(nullptr)
                                                         : nlohmann::ordered_json(s.profile_assumption);
  j["backend"] = transfer_backend_name(s.args.transfer_backend);
  j["tp_size"] = s.args.tp_size;
  j["attn_tp_size"] = l.attn_tp_size;
  j["pp_size"] = s.args.pp_size;
  j["enable_unified_memory"] = s.args.enable_unified_memory;
  j["bytes_per_request"] = l.ranks.empty() ? 0 : l.ranks.front().bytes_per_request;
  j["notes"] = s.notes;
  return j;
}

const char* colour_of(Severity s)
{
  switch (s) {
  case Severity::error: return "\033[1;31m";
  case Severity::warning: return "\033[1;33m";
  case Severity::info: return "\033[1;36m";
  }
  return "";
}

} // namespace

std::string CheckReport::verdict() const
{
  return passes() ? "compatible" : "incompatible";
}

std::string pairs_label(const check::Cause& c, std::size_t limit)
{
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < c.pairs.size() && i < limit; ++i) {
    labels.push_back(c.pairs[i].label());
  }
  return fmt::format("{}{}", fmt::join(labels, " "), c.pairs.size() > limit ? " …" : "");
}

std::string message_with_pairs(const check::Cause& c)
{
  if (c.pairs.empty()) {
    return c.finding.message;
  }
  return fmt::format("{} ({}: {})", c.finding.message, counted(static_cast<long long>(c.pairs.size()), "rank pair"),
                     pairs_label(c));
}

std::string other_pair_messages(const check::Cause& c, std::string_view indent, std::size_t limit)
{
  std::string out;
  std::size_t shown = 0;
  std::size_t more = 0;
  for (const check::RankPair& p : c.pairs) {
    if (p.message.empty()) {
      continue;
    }
    if (shown < limit) {
      out += fmt::format("{}{}: {}\n", indent, p.label(), p.message);
      ++shown;
    } else {
      ++more;
    }
  }
  if (more > 0) {
    out += fmt::format("{}… {} more (--format json gives each)\n", indent,
                       counted(static_cast<long long>(more), "rank pair"));
  }
  return out;
}

std::string counts_text(const check::Triage& t)
{
  std::string out = fmt::format("{}, {}, {} info", counted(t.count(Severity::error), "error"),
                                counted(t.count(Severity::warning), "warning"), t.count(Severity::info));
  if (t.suppressed.empty()) {
    return out;
  }
  std::vector<std::string> reasons;
  for (auto [by, text] : {std::pair{check::Suppression::not_selected, "not selected"},
                          std::pair{check::Suppression::ignored, "ignored"},
                          std::pair{check::Suppression::inline_comment, "ignored in a side file"},
                          std::pair{check::Suppression::advice_hidden, "advice (--show-advice)"},
                          std::pair{check::Suppression::baseline, "in the baseline"}}) {
    if (const int n = t.count(by); n > 0) {
      reasons.push_back(fmt::format("{} {}", n, text));
    }
  }
  return fmt::format("{}; {} suppressed: {}", out, t.suppressed.size(), fmt::join(reasons, ", "));
}

namespace {

nlohmann::ordered_json cause_to_json(const check::Cause& c)
{
  nlohmann::ordered_json j = finding_to_json(c.finding);
  // A cause stands for every rank pair it was found on: the list replaces the
  // first occurrence's ranks.
  j.erase("prefill_rank");
  j.erase("decode_rank");
  auto pairs = nlohmann::ordered_json::array();
  for (const check::RankPair& p : c.pairs) {
    pairs.push_back({{"prefill_rank", p.prefill_rank ? nlohmann::ordered_json(*p.prefill_rank) : nullptr},
                     {"decode_rank", p.decode_rank ? nlohmann::ordered_json(*p.decode_rank) : nullptr},
                     {"message", p.message.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.message)}});
  }
  j["rank_pairs"] = std::move(pairs);
  j["fingerprint"] = c.fingerprint;
  return j;
}

} // namespace

nlohmann::ordered_json check_to_json(const CheckReport& rep)
{
  const check::CheckResult& r = rep.result;
  const check::Triage& t = rep.triage;
  nlohmann::ordered_json j;
  j["schema_version"] = 2;
  j["verdict"] = rep.verdict();
  j["fail_on"] = severity_name(rep.fail_on);
  j["prefill"] = side_json(rep.in.prefill, r.prefill_layout);
  j["decode"] = side_json(rep.in.decode, r.decode_layout);
  j["pairs"] = r.pairs.size();
  j["simulation"] = {{"decode_ranks", r.simulated_decode_ranks}, {"bytes", r.simulated_bytes}};
  j["counts"] = {{"error", t.count(Severity::error)},
                 {"warning", t.count(Severity::warning)},
                 {"info", t.count(Severity::info)},
                 {"suppressed", t.suppressed.size()}};
  auto findings = nlohmann::ordered_json::array();
  for (const check::Cause& c : t.shown) {
    findings.push_back(cause_to_json(c));
  }
  j["findings"] = std::move(findings);
  auto suppressed = nlohmann::ordered_json::array();
  for (const check::SuppressedCause& s : t.suppressed) {
    nlohmann::ordered_json c = cause_to_json(s.cause);
    c["suppressed_by"] = check::suppression_name(s.by);
    suppressed.push_back(std::move(c));
  }
  j["suppressed"] = std::move(suppressed);
  auto stale = nlohmann::ordered_json::array();
  for (const check::BaselineEntry& e : t.stale_baseline) {
    stale.push_back({{"rule", e.rule}, {"side", e.side}, {"fingerprint", e.fingerprint}, {"message", e.message}});
  }
  j["baseline_fixed"] = std::move(stale);
  return j;
}

std::string check_to_text(const CheckReport& rep, const RenderOptions& o)
{
  const check::CheckInput& in = rep.in;
  const check::CheckResult& r = rep.result;
  auto paint = [&](Severity s, const std::string& text) {
    return o.color ? fmt::format("{}{}\033[0m", colour_of(s), text) : text;
  };
  std::string out;
  for (const auto* side : {&in.prefill, &in.decode}) {
    const model::Layout& l = side == &in.prefill ? r.prefill_layout : r.decode_layout;
    // Everything the verdict depends on: release and its confidence, backend,
    // parallelism, state dtypes, unified memory.
    const model::LayoutInput li = sglang::layout_input(*side);
    out += fmt::format("{:<8} {} · {} · SGLang {} · {} · tp {} (attention TP {}) · pp {} · SSM {}, conv {}{}\n",
                       sglang::role_name(side->role), side->origin, side->model.name, sglang_text(*side),
                       transfer_backend_name(side->args.transfer_backend), side->args.tp_size, l.attn_tp_size,
                       side->args.pp_size, dtype_name(li.ssm_dtype), dtype_name(li.conv_dtype),
                       side->args.enable_unified_memory ? " · unified memory" : "");
  }
  for (const auto* side : {&in.prefill, &in.decode}) {
    for (const std::string& note : side->notes) {
      out += fmt::format("note     {}: {}\n", sglang::role_name(side->role), note);
    }
  }
  out += fmt::format("pairs    {} planned, {} simulated byte by byte ({})\n",
                     counted(static_cast<long long>(r.pairs.size()), "rank pair"),
                     counted(r.simulated_decode_ranks, "decode rank"),
                     bytes_text(static_cast<std::uint64_t>(r.simulated_bytes)));

  const FindingKind order[] = {FindingKind::startup, FindingKind::bootstrap, FindingKind::transfer,
                               FindingKind::silent_corruption, FindingKind::advice};
  for (FindingKind kind : order) {
    for (const check::Cause& c : rep.triage.shown) {
      const Finding& f = c.finding;
      if (f.kind != kind) {
        continue;
      }
      std::string head = fmt::format("{} [{}] {}", severity_name(f.severity), f.rule, finding_kind_name(f.kind));
      out += "\n" + paint(f.severity, head);
      if (!f.side.empty()) {
        out += fmt::format(" · {}", f.side);
      }
      if (!c.pairs.empty()) {
        out += fmt::format(" · {}: {}", counted(static_cast<long long>(c.pairs.size()), "rank pair"), pairs_label(c));
      }
      out += "\n  " + f.message + "\n";
      out += other_pair_messages(c, "  ", 3);
      // Long lists (72 item lengths) are written compactly here; JSON keeps SGLang's exact text.
      if (f.logged_warning) {
        out += fmt::format("  SGLang logs ({}): {}\n", f.where, compact_int_lists(*f.logged_warning));
      }
      if (f.runtime_error) {
        out += fmt::format("  SGLang ({}): {}\n", f.where, compact_int_lists(*f.runtime_error));
      }
      if (!f.change.empty()) {
        out += fmt::format("  change: {}\n", f.change);
      }
      out += fmt::format("  fix: {}\n", f.fix);
    }
  }
  for (const check::BaselineEntry& e : rep.triage.stale_baseline) {
    out += fmt::format("\nfixed since the baseline: [{}] {}\n", e.rule, e.message);
  }
  const std::string v = rep.verdict();
  out += fmt::format("\nverdict: {} ({})\n", o.color ? paint(v == "compatible" ? Severity::info : Severity::error, v) : v,
                     counts_text(rep.triage));
  return out;
}

std::string check_to_summary_line(const CheckReport& rep)
{
  return fmt::format("pdcheck: {} ({}): {} {}\n", rep.verdict(), counts_text(rep.triage), rep.in.prefill.origin,
                     rep.in.decode.origin);
}

nlohmann::ordered_json plan_to_json(const check::PairResult& pair)
{
  nlohmann::ordered_json j;
  j["prefill_rank"] = pair.prefill_rank;
  j["prefill_pp_rank"] = pair.prefill_pp_rank;
  j["decode_rank"] = pair.decode_rank;
  j["decode_pp_rank"] = pair.decode_pp_rank;
  j["path"] = plan::plan_path_name(pair.plan.path);
  j["function"] = pair.plan.function;
  j["runtime_error"] = pair.plan.error ? nlohmann::ordered_json(pair.plan.error->rendered()) : nlohmann::ordered_json(nullptr);
  j["logged"] = pair.plan.logged ? nlohmann::ordered_json(*pair.plan.logged) : nlohmann::ordered_json(nullptr);
  auto copies = nlohmann::ordered_json::array();
  for (const plan::Copy& c : pair.plan.copies) {
    copies.push_back({{"src_entry", c.src_entry},
                      {"dst_entry", c.dst_entry},
                      {"src_offset", c.src_offset},
                      {"dst_offset", c.dst_offset},
                      {"length", c.length}});
  }
  j["copies"] = std::move(copies);
  return j;
}

std::string plan_to_text(const check::PairResult& pair)
{
  std::string out = fmt::format("plan prefill rank {} (pp {}) -> decode rank {} (pp {}): {} via {}, {} copies\n",
                                pair.prefill_rank, pair.prefill_pp_rank, pair.decode_rank, pair.decode_pp_rank,
                                plan::plan_path_name(pair.plan.path), pair.plan.function, pair.plan.copies.size());
  if (pair.plan.error) {
    out += "  SGLang raises: " + pair.plan.error->rendered() + "\n";
  }
  out += fmt::format("  {:>9} {:>9} {:>14} {:>14} {:>10}\n", "src entry", "dst entry", "src offset", "dst offset",
                     "length");
  for (const plan::Copy& c : pair.plan.copies) {
    out += fmt::format("  {:>9} {:>9} {:>14} {:>14} {:>10}\n", c.src_entry, c.dst_entry, c.src_offset, c.dst_offset,
                       c.length);
  }
  return out;
}

} // namespace pdcheck::report
