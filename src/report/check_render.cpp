#include "report/check_render.hpp"

#include "report/finding_json.hpp"

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

std::string pair_label(const Finding& f)
{
  if (f.prefill_rank && f.decode_rank) {
    return fmt::format("P{}→D{}", *f.prefill_rank, *f.decode_rank);
  }
  if (f.decode_rank) {
    return fmt::format("D{}", *f.decode_rank);
  }
  return "";
}

} // namespace

std::string verdict(const check::CheckResult& r, Severity fail_on)
{
  return r.passes(fail_on) ? "compatible" : "incompatible";
}

nlohmann::ordered_json check_to_json(const check::CheckInput& in, const check::CheckResult& r, Severity fail_on)
{
  nlohmann::ordered_json j;
  j["schema_version"] = 1;
  j["verdict"] = verdict(r, fail_on);
  j["fail_on"] = severity_name(fail_on);
  j["prefill"] = side_json(in.prefill, r.prefill_layout);
  j["decode"] = side_json(in.decode, r.decode_layout);
  j["pairs"] = r.pairs.size();
  j["simulation"] = {{"decode_ranks", r.simulated_decode_ranks}, {"bytes", r.simulated_bytes}};
  auto findings = nlohmann::ordered_json::array();
  for (const Finding& f : r.findings) {
    findings.push_back(finding_to_json(f));
  }
  j["findings"] = std::move(findings);
  return j;
}

std::string check_to_text(const check::CheckInput& in, const check::CheckResult& r, const RenderOptions& o)
{
  auto paint = [&](Severity s, const std::string& text) {
    return o.color ? fmt::format("{}{}\033[0m", colour_of(s), text) : text;
  };
  std::string out;
  for (const auto* side : {&in.prefill, &in.decode}) {
    const model::Layout& l = side == &in.prefill ? r.prefill_layout : r.decode_layout;
    out += fmt::format("{:<8} {} · {} · SGLang {} · {} · tp {} (attention TP {}) · pp {}{}\n",
                       sglang::role_name(side->role), side->origin, side->model.name, sglang_text(*side),
                       transfer_backend_name(side->args.transfer_backend), side->args.tp_size, l.attn_tp_size,
                       side->args.pp_size, side->args.enable_unified_memory ? " · unified memory" : "");
  }
  out += fmt::format("pairs    {} rank pair(s) planned, {} decode rank(s) simulated byte by byte ({} bytes)\n",
                     r.pairs.size(), r.simulated_decode_ranks, r.simulated_bytes);

  // Collapse identical findings (same rule and text) across rank pairs.
  struct Group
  {
    const Finding* first;
    std::vector<std::string> pairs;
  };
  std::vector<Group> groups;
  std::map<std::string, std::size_t> index;
  for (const Finding& f : r.findings) {
    const std::string key = f.rule + "\n" + f.side + "\n" + f.runtime_error.value_or(f.message) + "\n" + f.message;
    auto it = index.find(key);
    if (it == index.end()) {
      index[key] = groups.size();
      groups.push_back({&f, {}});
      it = index.find(key);
    }
    const std::string label = pair_label(f);
    if (!label.empty()) {
      groups[it->second].pairs.push_back(label);
    }
  }
  const FindingKind order[] = {FindingKind::startup, FindingKind::bootstrap, FindingKind::transfer,
                               FindingKind::silent_corruption, FindingKind::advice};
  std::map<Severity, int> counts;
  for (FindingKind kind : order) {
    for (const Group& g : groups) {
      const Finding& f = *g.first;
      if (f.kind != kind) {
        continue;
      }
      counts[f.severity] += 1;
      std::string head = fmt::format("{} [{}] {}", severity_name(f.severity), f.rule, finding_kind_name(f.kind));
      out += "\n" + paint(f.severity, head);
      if (!f.side.empty()) {
        out += fmt::format(" · {}", f.side);
      }
      if (!g.pairs.empty()) {
        const std::size_t shown = std::min<std::size_t>(g.pairs.size(), 8);
        std::vector<std::string> first(g.pairs.begin(), g.pairs.begin() + static_cast<long>(shown));
        out += fmt::format(" · {} rank pair(s): {}{}", g.pairs.size(), fmt::join(first, " "),
                           g.pairs.size() > shown ? " …" : "");
      }
      out += "\n  " + f.message + "\n";
      if (f.logged_warning) {
        out += fmt::format("  SGLang logs ({}): {}\n", f.where, *f.logged_warning);
      }
      if (f.runtime_error) {
        out += fmt::format("  SGLang ({}): {}\n", f.where, *f.runtime_error);
      }
      out += fmt::format("  fix: {}\n", f.fix);
    }
  }
  const std::string v = verdict(r, o.fail_on);
  out += fmt::format("\nverdict: {} ({} error(s), {} warning(s), {} info)\n",
                     o.color ? paint(v == "compatible" ? Severity::info : Severity::error, v) : v,
                     counts[Severity::error], counts[Severity::warning], counts[Severity::info]);
  return out;
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
