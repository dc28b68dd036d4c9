#include "check/side_checks.hpp"

#include "check/model_launch_checks.hpp"

#include "sglang/argparse.hpp"

#include "core/rules.hpp"
#include "core/sglang_messages.hpp"
#include "plan/fleet_pairs.hpp"
#include "sglang/environ.hpp"
#include "sglang/launch_flags.hpp"
#include "util/spellcheck.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::check {

namespace {

using sglang::Role;
using sglang::Side;

std::string backend_name(TransferBackend b)
{
  return std::string(transfer_backend_name(b));
}

} // namespace

Finding side_finding(const Side& side, RuleId rule, std::string message)
{
  Finding f = make_finding(rule, std::move(message));
  f.side = std::string(sglang::role_name(side.role));
  f.backend = backend_name(side.args.transfer_backend);
  return f;
}

/// Whether this side's backend transfers Mamba state in its SGLang version.
bool backend_moves_state(const Side& side)
{
  return moves_mamba_state(side.profile, side.args.transfer_backend);
}

namespace {

void unified_memory_findings(const Side& side, std::vector<Finding>& out)
{
  const sglang::ServerArgs& a = side.args;
  if (!a.enable_unified_memory || a.disaggregation_mode == sglang::DisaggregationMode::null) {
    return;
  }
  auto add = [&](std::string message, std::optional<std::string> runtime) {
    Finding f = side_finding(side, RuleId::startup_unified_memory, std::move(message));
    f.runtime_error = std::move(runtime);
    f.where = fmt::format("{} startup: handle_unified_memory_pool (arg_groups/kv_cache_hook.py)", sglang::role_name(side.role));
    out.push_back(std::move(f));
  };
  if (!side.profile.unified_memory) {
    return; // no such flag yet: argparse_findings reports it
  }
  if (!side.profile.unified_memory_pd) {
    add(fmt::format("SGLang {} does not accept --enable-unified-memory with PD disaggregation", side.profile.name),
        std::nullopt);
    return;
  }
  if (a.transfer_backend != TransferBackend::mooncake) {
    const std::string b = backend_name(a.transfer_backend);
    add(fmt::format("--enable-unified-memory with PD needs the mooncake backend, not {}", b),
        render_delivered(MessageId::unified_backend, {{"backend", fmt::format("'{}'", b)}}));
  }
  if (a.pp_size > 1) {
    add(fmt::format("--enable-unified-memory with PD needs pp 1, not {}", a.pp_size),
        render_delivered(MessageId::unified_pipeline, {}));
  }
  if (sglang::read_env_bool(a.env, "SGLANG_DISABLE_LAZY_COMPACTION", false).value) {
    add("--enable-unified-memory with PD needs lazy compaction, but SGLANG_DISABLE_LAZY_COMPACTION is set",
        render_delivered(MessageId::unified_lazy_compaction, {}));
  }
  if (a.enable_hisparse) {
    add("--enable-unified-memory with PD is not compatible with --enable-hisparse", std::nullopt);
  }
  if (a.speculative_algorithm && *a.speculative_algorithm != "DSPARK") {
    add(fmt::format("--enable-unified-memory allows no speculative algorithm other than DSPARK, got {}",
                    *a.speculative_algorithm),
        std::nullopt);
  }
  if (a.enable_hierarchical_cache) {
    add("--enable-unified-memory is not compatible with --enable-hierarchical-cache", std::nullopt);
  }
  if (a.dcp_size > 1) {
    add(fmt::format("--enable-unified-memory needs dcp size 1, not {}", a.dcp_size), std::nullopt);
  }
}

// CommonKVManager._check_dcp_compat runs in every KV manager's constructor and
// refuses DCP where the backend declares no DCP-aware transfer (Mori);
// disaggregation/common/conn.py @ 0094505d. PR #32837 (@ 1024c1db) removed it:
// from then on a prefill with DCP is only warned (pd_disaggregation_hook.py @
// 00e1106f), and what refuses a Mori decode there (that hook's ValueError) is
// not confirmed for any release, so the decode keeps this text, marked so.
void dcp_findings(const Side& side, std::vector<Finding>& out)
{
  const int dcp = side.args.dcp_size;
  if (dcp <= 1 || side.args.disaggregation_mode == sglang::DisaggregationMode::null) {
    return;
  }
  // From PR #32837 on a prefill's DCP meets the hook's warning, not _check_dcp_compat.
  if (side.profile.pd_decode_dcp && side.role == Role::prefill) {
    Finding f = side_finding(side, RuleId::startup_dcp_prefill,
                             fmt::format("the prefill runs --dcp-size {}: SGLang starts it with a warning", dcp));
    f.logged_warning = render_delivered(MessageId::dcp_prefill_overhead, {});
    f.where = fmt::format("prefill startup: arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation (@ 00e1106f; "
                          "not confirmed for {})",
                          side.profile.name);
    f.evidence["dcp_size"] = dcp;
    f.evidence["confidence"] = "unconfirmed";
    out.push_back(std::move(f));
    return;
  }
  if (side.args.transfer_backend != TransferBackend::mori) {
    return;
  }
  Finding f = side_finding(side, RuleId::startup_dcp_transfer,
                           fmt::format("--dcp-size {} with the mori backend, which has no DCP-aware transfer", dcp));
  f.runtime_error = render_delivered(MessageId::dcp_not_implemented, {{"manager", "MoriKVManager"}, {"dcp_size", dcp}});
  f.where = fmt::format("{} startup: CommonKVManager._check_dcp_compat (disaggregation/common/conn.py)",
                        sglang::role_name(side.role));
  f.evidence["dcp_size"] = dcp;
  f.evidence["backend"] = backend_name(side.args.transfer_backend);
  if (side.profile.pd_decode_dcp) {
    f.evidence["confidence"] = "unconfirmed";
  }
  out.push_back(std::move(f));
}

/// The words argparse rejects at the end, with a did-you-mean from `table`.
struct Rejection
{
  std::vector<std::string> words;
  std::string origin;
  std::string hint;
};

std::optional<Rejection> rejection_of(const Side& side, const sglang::ArgparseOutcome& outcome,
                                      const sglang::FlagTable& table)
{
  const sglang::ServerArgs& a = side.args;
  std::vector<sglang::ArgOrigin> rejected = outcome.unrecognized;
  // The release profiles know when --enable-unified-memory arrived (#33362),
  // whatever a flag list of another release says.
  if (auto it = a.given.find("enable_unified_memory"); it != a.given.end()) {
    const auto same_word = [&](const sglang::ArgOrigin& w) { return w.origin == it->second.origin; };
    if (side.profile.unified_memory) {
      rejected.erase(std::remove_if(rejected.begin(), rejected.end(), same_word), rejected.end());
    } else if (std::none_of(rejected.begin(), rejected.end(), same_word)) {
      rejected.push_back(it->second);
    }
  }
  if (rejected.empty()) {
    return std::nullopt;
  }
  Rejection r;
  r.origin = rejected.front().origin;
  for (const sglang::ArgOrigin& w : rejected) {
    r.words.push_back(w.flag);
  }
  const std::vector<std::string> names = table.option_names();
  for (const sglang::ArgOrigin& w : rejected) {
    if (w.flag.rfind("--", 0) != 0) {
      continue;
    }
    const std::string bare = w.flag.substr(0, w.flag.find('='));
    if (auto near = closest_match(bare, names); near && *near != bare) {
      r.hint = fmt::format("; did you mean {}?", *near);
      break;
    }
  }
  return r;
}

std::string table_text(const sglang::FlagTable& t)
{
  return fmt::format("{} (server_args.py @ {}, confidence {})", t.name() == "main" ? "SGLang main" : "SGLang " + t.name(),
                     t.commit().substr(0, 8), t.confidence());
}

/// SGLang's exact text for an outcome, "" when argparse accepts the words.
std::string outcome_text(const Side& side, const sglang::ArgparseOutcome& outcome, const sglang::FlagTable& table)
{
  if (outcome.stop) {
    return as_delivered(outcome.message_id, outcome.message);
  }
  if (auto r = rejection_of(side, outcome, table)) {
    return render_delivered(MessageId::argparse_unrecognized, {{"words", fmt::format("{}", fmt::join(r->words, " "))}});
  }
  return {};
}

/// The launch arguments as SGLang's argparse takes them (prepare_server_args,
/// allow_abbrev on): an ambiguous abbreviation or a flag without its value stops
/// the parser at once; unknown words are collected and rejected at the end.
/// The flag list is the side's release's own when pdcheck has one; otherwise
/// the nearest lists after and before it must agree, or the finding is only
/// information. --enable-unified-memory before #33362 is unknown whatever the list.
void argparse_findings(const Side& side, std::vector<Finding>& out)
{
  const sglang::ServerArgs& a = side.args;
  const sglang::FlagTableChoice choice = sglang::flag_tables_for(side.profile.name);
  const sglang::FlagTable& table = *choice.table;
  const sglang::ArgparseOutcome outcome =
    a.flag_table == table.name() ? a.argparse : sglang::argparse_outcome(table, a.words);
  const std::string lists = choice.before != nullptr
                              ? fmt::format("flag lists of {} and {}", table_text(*choice.before), table_text(table))
                              : fmt::format("flag list of {}", table_text(table));
  const std::string where =
    fmt::format("{} launch: argparse in prepare_server_args (exit status 2); {}", sglang::role_name(side.role), lists);
  // SGLang's text, which includes what the release profiles know
  // (--enable-unified-memory before #33362) whatever the list says.
  const std::string after_text = outcome_text(side, outcome, table);

  if (choice.before != nullptr) {
    const sglang::ArgparseOutcome earlier = sglang::argparse_outcome(*choice.before, a.words);
    const std::string before_text = outcome_text(side, earlier, *choice.before);
    if (after_text != before_text) {
      auto says = [](const std::string& text) {
        return text.empty() ? std::string("accepts the arguments") : fmt::format("says \"{}\"", text);
      };
      Finding f = side_finding(side, RuleId::startup_argparse_unconfirmed,
                               fmt::format("SGLang {} may exit at launch: with {}'s flag list argparse {}; with {}'s, "
                                           "it {}",
                                           side.profile.name, choice.before->name(), says(before_text), table.name(),
                                           says(after_text)));
      f.where = where;
      f.evidence["flag_table_before"] = choice.before->name();
      f.evidence["flag_table_after"] = table.name();
      f.evidence["before"] = before_text;
      f.evidence["after"] = after_text;
      out.push_back(std::move(f));
      return;
    }
  }

  auto finding = [&](std::string message, const std::string& origin) {
    Finding f = side_finding(side, RuleId::startup_argparse, std::move(message));
    f.runtime_error = after_text;
    f.where = where;
    f.evidence["origin"] = origin;
    f.evidence["flag_table"] = table.name();
    out.push_back(std::move(f));
  };
  if (outcome.stop) {
    finding(fmt::format("{} ({}): SGLang exits at launch: {}", outcome.stop->flag, outcome.stop->origin,
                        outcome.message),
            outcome.stop->origin);
    return;
  }
  const std::optional<Rejection> r = rejection_of(side, outcome, table);
  if (!r) {
    return;
  }
  const bool too_new = !side.profile.unified_memory && a.given.count("enable_unified_memory") > 0;
  finding(fmt::format("SGLang {} exits at launch: it does not know {} ({}){}{}", side.profile.name,
                      fmt::join(r->words, " "), r->origin, r->hint,
                      too_new ? "; --enable-unified-memory arrived with PR #33362 (0.5.18)" : ""),
          r->origin);
}

/// SGLang ignores SGLANG_* variables it does not read: a misspelt one leaves the
/// default in force without a word.
void env_findings(const Side& side, std::vector<Finding>& out)
{
  const std::vector<std::string> names = sglang::sglang_env_names();
  for (const auto& [name, value] : side.args.env) {
    if ((name.rfind("SGLANG_", 0) != 0 && name.rfind("SGL_", 0) != 0) || sglang::known_sglang_env(name)) {
      continue;
    }
    const auto near = closest_match(name, names);
    Finding f = side_finding(side, RuleId::unknown_env,
                             fmt::format("SGLang reads no environment variable {}{}", name,
                                         near ? fmt::format("; did you mean {}?", *near) : std::string()));
    f.where = fmt::format("{} environment; names from python/sglang/srt/environ.py", sglang::role_name(side.role));
    f.evidence["name"] = name;
    f.evidence["value"] = value;
    out.push_back(std::move(f));
  }
}


// Where the decode checks the prefill's parallel info (disaggregation/common/conn.py
// @ 0094505d): page size and KV dtype in try_ensure_parallel_info, the CP and PP
// assertions and the TP warning in _resolve_rank_mapping.
constexpr const char* k_parallel_info = "decode: CommonKVManager.try_ensure_parallel_info (disaggregation/common/conn.py)";
constexpr const char* k_rank_mapping = "decode: CommonKVManager._resolve_rank_mapping (disaggregation/common/conn.py)";

Finding bootstrap_finding(const Side& decode, RuleId rule, std::string message, std::string runtime,
                          const char* where = k_parallel_info)
{
  Finding f = side_finding(decode, rule, std::move(message));
  f.runtime_error = std::move(runtime);
  f.where = where;
  return f;
}

// Prefill context parallelism. The release's own ServerArgs refuses
// --enable-prefill-cp without a strategy; some stored SGLang builds also refuse
// prefill CP for linear-attention models under PD in arg_groups hooks that the
// modelled server_args.py does not call (rule prefill-cp-pd-unconfirmed).
void prefill_cp_findings(const Side& side, std::vector<Finding>& out)
{
  const sglang::ServerArgs& a = side.args;
  const sglang::PrefillCp cp = sglang::resolve_prefill_cp(a);
  const sglang::FlagTableChoice tables = sglang::flag_tables_for(side.profile.name);
  if (!cp.enabled || tables.table->match("--enable-prefill-cp").kind != sglang::OptionMatch::Kind::exact) {
    return; // not asked for, or the release has no such flag (argparse_findings reports it)
  }
  const std::string commit = tables.table->commit();
  if (!cp.strategy) {
    Finding f = side_finding(side, RuleId::startup_cp_strategy,
                             "--enable-prefill-cp is given without --cp-strategy");
    f.runtime_error = render_delivered(MessageId::cp_strategy_missing, {});
    f.where = fmt::format("{} startup: ServerArgs._handle_context_parallelism (server_args.py @ {}{})",
                          sglang::role_name(side.role), commit,
                          tables.exact ? "" : fmt::format(", {}'s flag list standing in for {}", tables.table->name(),
                                                          side.profile.name));
    out.push_back(std::move(f));
  }
  if (a.attn_cp_size > 1 && a.disaggregation_mode != sglang::DisaggregationMode::null) {
    Finding f = side_finding(
      side, RuleId::prefill_cp_pd_unconfirmed,
      fmt::format("--enable-prefill-cp with --attn-cp-size {} under PD on {}: SGLang {} (server_args.py @ {}) starts "
                  "and shards the state over attention TP {}; builds that resolve linear-attention prefill CP in "
                  "arg_groups hooks refuse it (\"{}\", linear_attn_cp_hook.py @ 3c11a67a and @ 129e0056)",
                  a.attn_cp_size, side.model.architecture, side.profile.name, commit.substr(0, 8),
                  model::attention_tp_size(a.tp_size, a.dp_size, a.enable_dp_attention, a.attn_cp_size),
                  render_message(MessageId::linear_attn_cp_pd, {})));
    f.where = fmt::format("{} startup: arg_groups/linear_attn_cp_hook.py resolve_linear_attn_cp (not in the modelled "
                          "release)",
                          sglang::role_name(side.role));
    f.evidence["attn_cp_size"] = a.attn_cp_size;
    f.evidence["confidence"] = "unconfirmed";
    out.push_back(std::move(f));
  }
}

void model_confidence_findings(const Side& side, const model::Layout& layout, std::vector<Finding>& out)
{
  const model::ModelSpec& m = side.model;
  const std::string where = fmt::format("pdcheck: architecture table (`pdcheck models`), {}: {}", m.architecture,
                                        m.sglang_source);
  if (m.confidence != "high") {
    Finding f = side_finding(side, RuleId::model_layout_unconfirmed,
                             fmt::format("{}'s state layout is confirmed with confidence {}: {}", m.architecture,
                                         m.confidence, m.confidence_note));
    f.where = where;
    f.evidence["architecture"] = m.architecture;
    f.evidence["confidence"] = m.confidence;
    out.push_back(std::move(f));
  }
  if (m.state_sharded_by_full_tp && layout.attn_tp_size > 0 && layout.attn_tp_size != layout.tp_size) {
    // The pool is sized by the whole TP width while the transfer pairs and
    // slices by attention TP rank; what SGLang then moves is not confirmed.
    Finding f = side_finding(side, RuleId::model_layout_unconfirmed,
                             fmt::format("{} shards its state by TP size {}, but PD transfers pair attention TP ranks "
                                         "({} of them); what SGLang moves then is not confirmed",
                                         m.architecture, layout.tp_size, layout.attn_tp_size));
    f.where = where;
    f.evidence["tp_size"] = layout.tp_size;
    f.evidence["attn_tp_size"] = layout.attn_tp_size;
    out.push_back(std::move(f));
  }
}

// Decode context parallelism between PD peers, from PR #32837
// (disaggregation/common/conn.py @ 1024c1db). DCP relays full-attention KV only:
// the Mamba state keeps its attention-TP layout, so neither check touches it.
bool dcp_pool_ok(const Side& side)
{
  return side.model.hybrid_mla; // is_mla_backend or is_hybrid_mla_backend of the side's own pool
}

// Whether the decode raises in try_ensure_parallel_info (decode_dcp_findings)
// before it registers, so no prefill ever sees its DCP size or rank.
bool decode_refuses_dcp(const Side& prefill, const Side& decode)
{
  return decode.profile.pd_decode_dcp && decode.args.dcp_size > 1 &&
         (!dcp_pool_ok(decode) || prefill.args.attn_cp_size != 1);
}

// The decode's checks in try_ensure_parallel_info, after page size and KV dtype,
// on its first request for a prefill (the prealloc loop does not catch them).
void decode_dcp_findings(const Side& prefill, const Side& decode, std::vector<Finding>& out)
{
  const auto& d = decode.args;
  if (!decode.profile.pd_decode_dcp || d.dcp_size <= 1) {
    return;
  }
  if (!dcp_pool_ok(decode)) {
    Finding f = bootstrap_finding(decode, RuleId::bootstrap_dcp_kv_pool,
                                  fmt::format("decode --dcp-size {} on {}, whose full-attention KV pool is not MLA",
                                              d.dcp_size, decode.model.architecture),
                                  render_delivered(MessageId::dcp_kv_pool, {}));
    f.evidence["dcp_size"] = d.dcp_size;
    f.evidence["architecture"] = decode.model.architecture;
    out.push_back(std::move(f));
    return; // raised before the CP check
  }
  if (prefill.args.attn_cp_size != 1) {
    Finding f = bootstrap_finding(
      decode, RuleId::bootstrap_dcp_prefill_cp,
      fmt::format("decode --dcp-size {} with prefill attention CP size {}", d.dcp_size, prefill.args.attn_cp_size),
      render_delivered(MessageId::dcp_prefill_cp, {{"prefill_attn_cp_size", prefill.args.attn_cp_size}}));
    f.evidence["dcp_size"] = d.dcp_size;
    f.evidence["prefill_attn_cp_size"] = prefill.args.attn_cp_size;
    out.push_back(std::move(f));
  }
}

// Where requires_dcp_relayout raises: on the prefill, when a decode's
// registration arrives.
std::string relayout_where(const Side& prefill)
{
  return prefill.args.transfer_backend == TransferBackend::nixl
           ? "prefill: CommonKVManager.requires_dcp_relayout, from NixlKVManager._add_remote_peer"
           : "prefill: CommonKVManager.requires_dcp_relayout, from the bootstrap thread (which it ends)";
}

// Whether the prefill can relay its KV to the decode's DCP layout: equal sizes,
// or prefill 1 -> decode N when the prefill's own pool is MLA
// (CommonKVManager.requires_dcp_relayout, raised on the prefill when the decode's
// registration arrives). A decode that refused first (decode_dcp_findings)
// never registers; a decode before the PR sends no DCP size, which the prefill
// reads as 1.
void dcp_topology_findings(const Side& prefill, const Side& decode, std::vector<Finding>& out)
{
  const bool relayout_checked = prefill.profile.pd_decode_dcp;
  const int p = prefill.args.dcp_size;
  const int d = relayout_checked && !decode.profile.pd_decode_dcp ? 1 : decode.args.dcp_size;
  if (p == d || decode_refuses_dcp(prefill, decode) || (p == 1 && (!relayout_checked || dcp_pool_ok(prefill)))) {
    return;
  }
  Finding f = side_finding(relayout_checked ? prefill : decode, RuleId::dcp_topology,
                           fmt::format("prefill --dcp-size {} cannot be relaid out to decode --dcp-size {}", p,
                                       decode.args.dcp_size));
  f.where = "prefill: DCP relayout of the KV transfer";
  if (relayout_checked) {
    f.runtime_error = render_delivered(MessageId::dcp_topology_unsupported, {{"prefill_dcp_size", p}, {"decode_dcp_size", d}});
    f.where = relayout_where(prefill);
    if (d != decode.args.dcp_size) {
      f.message += fmt::format(" (decode SGLang {} sends no DCP size: the prefill reads 1)", decode.profile.name);
    }
  }
  f.evidence["prefill"] = p;
  f.evidence["decode"] = decode.args.dcp_size;
  out.push_back(std::move(f));
}

// Equal DCP sizes on both sides: the prefill compares its own DCP rank with the
// dst_dcp_rank of each registration (requires_dcp_relayout); attention ranks
// are tp_rank % attn_tp. A decode rank registers with every prefill rank
// of target_tp_ranks (MLA dummies too), in whichever prefill DP group a request
// routes to, so every prefill DP group counts.
void dcp_rank_findings(const Side& prefill, const Side& decode, const model::Layout& pl, const model::Layout& dl,
                       std::vector<Finding>& out)
{
  const int dcp = prefill.args.dcp_size;
  if (!prefill.profile.pd_decode_dcp || !decode.profile.pd_decode_dcp || dcp <= 1 || decode.args.dcp_size != dcp ||
      decode_refuses_dcp(prefill, decode)) {
    return; // no check, another size, or the decode refused before it registers
  }
  const int p_attn = pl.attn_tp_size;
  const int d_attn = dl.attn_tp_size;
  if (p_attn <= 0 || d_attn <= 0 || (p_attn % d_attn != 0 && d_attn % p_attn != 0)) {
    return; // rank-mapping says why no rank pairs
  }
  struct Mismatch
  {
    int prefill_tp_rank, decode_tp_rank;
  };
  // The evidence lists the first few pairs; a fleet of thousands of DP groups
  // is counted, not listed.
  constexpr std::size_t k_listed = 16;
  std::vector<Mismatch> mismatches;
  std::int64_t mismatched = 0;
  std::int64_t registrations = 0;
  for (int d_rank = 0; d_rank < decode.args.tp_size; ++d_rank) {
    for (const int target : plan::sglang_target_tp_ranks(d_rank % d_attn, d_attn, p_attn)) {
      for (int p_rank = target; p_rank < prefill.args.tp_size; p_rank += p_attn) {
        ++registrations;
        if (plan::sglang_dcp_rank(p_rank, dcp) != plan::sglang_dcp_rank(d_rank, dcp)) {
          ++mismatched;
          if (mismatches.size() < k_listed) {
            mismatches.push_back({p_rank, d_rank});
          }
        }
      }
    }
  }
  if (mismatched == 0) {
    return;
  }
  const Mismatch& first = mismatches.front();
  Finding f = side_finding(
    prefill, RuleId::dcp_ranks,
    fmt::format("both sides run --dcp-size {}, but {} of {} registrations pair different DCP ranks (first: decode TP "
                "rank {}, DCP rank {}, registers with prefill TP rank {}, DCP rank {}; prefill attention TP {}, "
                "decode attention TP {})",
                dcp, mismatched, registrations, first.decode_tp_rank, plan::sglang_dcp_rank(first.decode_tp_rank, dcp),
                first.prefill_tp_rank, plan::sglang_dcp_rank(first.prefill_tp_rank, dcp), p_attn, d_attn));
  f.runtime_error = render_delivered(MessageId::dcp_rank_mismatch,
                                     {{"prefill_dcp_rank", plan::sglang_dcp_rank(first.prefill_tp_rank, dcp)},
                                      {"decode_dcp_rank", plan::sglang_dcp_rank(first.decode_tp_rank, dcp)}});
  f.where = relayout_where(prefill);
  f.evidence["dcp_size"] = dcp;
  f.evidence["prefill_attn_tp_size"] = p_attn;
  f.evidence["decode_attn_tp_size"] = d_attn;
  f.evidence["registrations"] = registrations;
  f.evidence["mismatched_registrations"] = mismatched;
  nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
  for (const Mismatch& m : mismatches) {
    pairs.push_back({{"prefill_tp_rank", m.prefill_tp_rank}, {"decode_tp_rank", m.decode_tp_rank}});
  }
  f.evidence["mismatched"] = std::move(pairs); // the first k_listed of them
  out.push_back(std::move(f));
}

} // namespace

void side_findings(const Side& side, const model::Layout& layout, std::vector<Finding>& out)
{
  argparse_findings(side, out);
  env_findings(side, out);
  for (Finding f : layout.findings) {
    f.side = std::string(sglang::role_name(side.role));
    out.push_back(std::move(f));
  }
  const auto mode = side.args.disaggregation_mode;
  const bool mode_ok = (side.role == Role::prefill && mode == sglang::DisaggregationMode::prefill) ||
                       (side.role == Role::decode && mode == sglang::DisaggregationMode::decode);
  if (!mode_ok) {
    Finding f = side_finding(side, RuleId::side_role,
                             fmt::format("the {} side runs with --disaggregation-mode {}", sglang::role_name(side.role),
                                         sglang::disaggregation_mode_name(mode)));
    f.evidence["role"] = sglang::role_name(side.role);
    f.evidence["disaggregation_mode"] = sglang::disaggregation_mode_name(mode);
    out.push_back(std::move(f));
  }
  if (!backend_moves_state(side)) {
    Finding f = side_finding(side, RuleId::startup_backend_state,
                             fmt::format("SGLang {} over {} does not transfer Mamba state", side.profile.name,
                                         backend_name(side.args.transfer_backend)));
    f.evidence["profile"] = side.profile.name;
    out.push_back(std::move(f));
  }
  model_release_findings(side, out);
  minicpm_override_findings(side, out);
  unified_memory_findings(side, out);
  dcp_findings(side, out);
  prefill_cp_findings(side, out);
  model_confidence_findings(side, layout, out);
  if (!side.profile_assumption.empty()) {
    Finding f = side_finding(side, RuleId::profile_assumed, side.profile_assumption);
    f.where = fmt::format("pdcheck: release table (`pdcheck profiles`), {} side's sglang: {}", sglang::role_name(side.role),
                          side.sglang);
    f.evidence["sglang"] = side.sglang;
    f.evidence["profile"] = side.profile.name;
    f.evidence["confidence"] = side.profile_confidence;
    out.push_back(std::move(f));
  }
  if (!side.model_path_conflict.empty()) {
    Finding f = side_finding(side, RuleId::side_model_path, side.model_path_conflict);
    f.where = fmt::format("{} side: model: and --model-path", sglang::role_name(side.role));
    f.evidence["model"] = side.model.name;
    f.evidence["model_path"] = side.args.model_path.value_or("");
    out.push_back(std::move(f));
  }
}

void bootstrap_findings(const Side& prefill, const Side& decode, const model::Layout& pl, const model::Layout& dl,
                        std::vector<Finding>& out)
{
  const auto& p = prefill.args;
  const auto& d = decode.args;
  if (p.page_size != d.page_size) {
    Finding f = bootstrap_finding(
      decode, RuleId::bootstrap_page_size, fmt::format("prefill page size {} != decode page size {}", p.page_size, d.page_size),
      render_delivered(MessageId::page_size_mismatch,
                       {{"prefill_page_size", p.page_size}, {"decode_page_size", d.page_size}}));
    f.evidence["prefill"] = p.page_size;
    f.evidence["decode"] = d.page_size;
    out.push_back(std::move(f));
  }
  if (p.kv_cache_dtype != d.kv_cache_dtype) {
    Finding f = bootstrap_finding(
      decode, RuleId::bootstrap_kv_cache_dtype,
      fmt::format("prefill kv cache dtype {} != decode kv cache dtype {}", p.kv_cache_dtype, d.kv_cache_dtype),
      render_delivered(MessageId::kv_cache_dtype_mismatch,
                       {{"prefill_kv_cache_dtype", p.kv_cache_dtype}, {"decode_kv_cache_dtype", d.kv_cache_dtype}}));
    f.evidence["prefill"] = p.kv_cache_dtype;
    f.evidence["decode"] = d.kv_cache_dtype;
    out.push_back(std::move(f));
  }
  decode_dcp_findings(prefill, decode, out);
  if (d.attn_cp_size != 1) {
    const std::string runtime =
      p.attn_cp_size == 1 ? render_delivered(MessageId::decode_attn_cp_size, {{"decode_attn_cp_size", d.attn_cp_size}})
                          : render_delivered(MessageId::decode_cp_size, {{"decode_cp_size", d.attn_cp_size}});
    out.push_back(bootstrap_finding(decode, RuleId::bootstrap_cp_size,
                                    fmt::format("decode attention CP size {} is not 1", d.attn_cp_size), runtime,
                                    k_rank_mapping));
  }
  dcp_topology_findings(prefill, decode, out);
  dcp_rank_findings(prefill, decode, pl, dl, out);
  if (d.pp_size != p.pp_size && d.pp_size != 1) {
    Finding f = bootstrap_finding(
      decode, RuleId::bootstrap_pp_size, fmt::format("decode pp size {} is neither prefill pp size {} nor 1", d.pp_size, p.pp_size),
      render_delivered(MessageId::decode_pp_size, {{"decode_pp_size", d.pp_size}, {"prefill_pp_size", p.pp_size}}),
      k_rank_mapping);
    f.evidence["prefill"] = p.pp_size;
    f.evidence["decode"] = d.pp_size;
    out.push_back(std::move(f));
  }
  if (pl.attn_tp_size != dl.attn_tp_size && !prefill.model.hybrid_mla) {
    Finding f = side_finding(decode, RuleId::bootstrap_tp_performance,
                             fmt::format("prefill attention TP {} != decode attention TP {}", pl.attn_tp_size,
                                         dl.attn_tp_size));
    f.logged_warning = render_delivered(MessageId::tp_performance, {});
    f.where = k_rank_mapping;
    out.push_back(std::move(f));
  }
}

} // namespace pdcheck::check
