#include "check/checker.hpp"

#include "check/remedy.hpp"

#include "core/rules.hpp"
#include "check/side_checks.hpp"
#include "core/sglang_messages.hpp"
#include "plan/extra_state.hpp"
#include "plan/fleet_pairs.hpp"
#include "plan/meaning.hpp"
#include "sglang/launch_flags.hpp"
#include "sglang/side_layout.hpp"
#include "util/spellcheck.hpp"
#include "wire/registration.hpp"
#include "wire/registration_codec.hpp"
#include "util/plural.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

namespace pdcheck::check {

namespace {

using sglang::Role;
using sglang::Side;

std::string backend_name(TransferBackend b)
{
  return std::string(transfer_backend_name(b));
}

bool same_state_model(const model::ModelSpec& a, const model::ModelSpec& b)
{
  return a.family == b.family && a.num_hidden_layers == b.num_hidden_layers &&
         a.state_layer_ids == b.state_layer_ids && a.intermediate_size == b.intermediate_size &&
         a.n_groups == b.n_groups && a.num_heads == b.num_heads && a.head_dim == b.head_dim &&
         a.state_size == b.state_size && a.conv_kernel == b.conv_kernel && a.kda_num_heads == b.kda_num_heads &&
         a.kda_head_dim == b.kda_head_dim && a.kda_num_k_heads == b.kda_num_k_heads &&
         a.kda_head_k_dim == b.kda_head_k_dim;
}

/// The backend whose registration frames the checker models: a wire-speaking
/// one; nullopt for mooncake_tcp, ascend and fake.
std::optional<TransferBackend> wire_backend(TransferBackend b)
{
  return wire::wire_speaking(b) ? std::optional<TransferBackend>(b) : std::nullopt;
}

/// The Mamba component of a registration as the prefill holds it after parsing.
plan::StateMetadata metadata_from_registration(const wire::Registration& r)
{
  plan::StateMetadata m;
  const auto counts = wire::state_entry_counts(r);
  m.num_components = static_cast<int>(counts.size());
  m.num_entries = counts.empty() ? 0 : static_cast<int>(counts[0]);
  if (!r.dst_state_item_lens.empty()) {
    m.item_lens = r.dst_state_item_lens[0];
  }
  if (!r.dst_state_dim_per_tensor.empty()) {
    m.dims = r.dst_state_dim_per_tensor[0];
  }
  if (!r.dst_state_layer_ids.empty()) {
    m.layer_ids = r.dst_state_layer_ids[0];
  }
  m.unified = m.num_entries == 1 && m.dims.empty();
  m.unified_layout_sent = r.unified_layouts_json.has_value() && !r.unified_layouts_json->empty();
  return m;
}

/// What the prefill makes of a decode registration: SGLang's parser of the
/// prefill's generation run over the decode's frames (garbage included), or the
/// exception it raises.
struct ParsedRegistration
{
  std::optional<wire::Registration> registration;
  std::optional<std::string> raised;
  std::string raised_field; ///< SGLang's name of the frame whose parsing raised
  std::vector<std::string> notes;
};

ParsedRegistration parse_as_prefill(TransferBackend backend, const wire::Frames& frames, const Side& prefill)
{
  const auto generation = wire::generation_for_profile(backend, prefill.profile);
  auto decoded = wire::decode_registration(backend, frames, generation, wire::DecodeMode::sglang);
  ParsedRegistration out;
  out.notes = decoded.notes;
  if (decoded.registration) {
    out.registration = std::move(decoded.registration);
  } else if (decoded.problem) {
    out.raised = decoded.problem->what;
    out.raised_field = decoded.problem->field;
  } else {
    out.raised = "the registration could not be parsed";
  }
  return out;
}

/// The frames a decode rank of `decode` sends (synthetic pointers).
wire::Frames derived_registration_frames(TransferBackend backend, const model::RankLayout& rank, int decode_rank,
                                         int decode_attn_tp, const Side& decode)
{
  wire::RegistrationParams params;
  params.backend = backend;
  params.generation = wire::generation_for_profile(backend, decode.profile);
  params.dst_tp_rank = decode_rank;
  params.dst_attn_tp_size = decode_attn_tp;
  if (decode.profile.pd_decode_dcp) {
    params.dcp_size = decode.args.dcp_size;
    params.dcp_rank = plan::sglang_dcp_rank(decode_rank, decode.args.dcp_size); // attn_tp is a multiple of it
  }
  return wire::encode_registration(wire::registration_from_layout(rank, params)).frames;
}

std::optional<plan::SglangError> component_error(const Side& prefill, sglang::ExtraStateType t, int p_tp, int d_tp,
                                                 int p_pp)
{
  plan::ExtraStateInput in;
  in.backend = prefill.args.transfer_backend;
  in.type = t;
  in.prefill_attn_tp_size = p_tp;
  in.decode_attn_tp_size = d_tp;
  in.prefill_pp_size = p_pp;
  in.hybrid_mla = prefill.model.hybrid_mla;
  plan::set_release_flags(in, prefill.profile);
  return plan::extra_state_error(in);
}

std::optional<plan::SglangError> extra_state_error(const Side& prefill, int p_tp, int d_tp, int p_pp)
{
  for (const sglang::ExtraStateType t : prefill.extra_state_types) {
    if (auto e = component_error(prefill, t, p_tp, d_tp, p_pp)) {
      return e;
    }
  }
  return std::nullopt;
}

/// Mori's _send_swa_dsa_state (mori/conn.py @ 0094505d) pairs a component's
/// i-th source buffer with the decode's i-th registered buffer, with no
/// prefill_start_layer offset, where its KV path and NIXL's state path offset
/// by the stage's first layer. A PP 1 decode registered every layer, so each
/// prefill stage after the first writes over the first layers' slots.
void mori_state_pp_findings(const Side& prefill, int p_tp, int d_tp, int p_pp, int d_pp, std::vector<Finding>& out)
{
  if (prefill.args.transfer_backend != TransferBackend::mori || p_pp == 1 || d_pp == p_pp ||
      prefill.profile.mooncake_format != RegistrationFormat::components) {
    return; // a decode stage k registers stage k's own buffers when the PP sizes match
  }
  for (const sglang::ExtraStateType t : prefill.extra_state_types) {
    const bool page_indexed = t == sglang::ExtraStateType::swa || t == sglang::ExtraStateType::dsa ||
                              t == sglang::ExtraStateType::swa_ring || t == sglang::ExtraStateType::c128_state;
    if (!page_indexed || component_error(prefill, t, p_tp, d_tp, p_pp)) {
      continue; // MiniMax state refuses PP itself; a component that raises moves nothing
    }
    const std::string type(sglang::extra_state_type_name(t));
    Finding f = make_finding(RuleId::mori_state_pp_positional,
                             fmt::format("prefill PP {} -> decode PP {}: Mori writes the {} state of prefill stages "
                                         "1-{} into the decode's first {} buffers, over stage 0's layers",
                                         p_pp, d_pp, type, p_pp - 1, type));
    f.side = "prefill";
    f.backend = backend_name(prefill.args.transfer_backend);
    f.where = "prefill: mori backend, _send_swa_dsa_state";
    f.evidence["state_type"] = type;
    f.evidence["prefill_pp_size"] = p_pp;
    f.evidence["decode_pp_size"] = d_pp;
    f.evidence["misplaced_stages"] = p_pp - 1;
    f.evidence["confidence"] = "medium";
    f.evidence["note"] = "the positional pairing is read in mori/conn.py @ 0094505d; that a prefill stage registers "
                         "only its own layers' buffers is inferred from that file, not read in the memory pool";
    out.push_back(std::move(f));
  }
}

/// Whether `e` is Mooncake's unequal-TP refusal of page-indexed state for a
/// hybrid-MLA model by a release without the exemption, yet after PR #32837's
/// branch (pd_decode_dcp, 0.5.17 on): v0.5.20's code has the exemption and that
/// branch has not, but the change between them was not found
/// (docs/sglang-decisions.md §13), so such a release may have it already.
bool unconfirmed_hybrid_mla_refusal(const Side& prefill, const plan::SglangError& e)
{
  const auto b = prefill.args.transfer_backend;
  return e.rule == RuleId::extra_state_unequal_tp && prefill.model.hybrid_mla &&
         (b == TransferBackend::mooncake || b == TransferBackend::mooncake_tcp) &&
         !prefill.profile.mooncake_hybrid_mla_extra_state && prefill.profile.pd_decode_dcp;
}

Finding pair_finding(RuleId rule, std::string message, const PairResult& pr, const Side& prefill)
{
  Finding f = make_finding(rule, std::move(message));
  f.prefill_rank = pr.prefill_rank;
  f.decode_rank = pr.decode_rank;
  f.backend = backend_name(prefill.args.transfer_backend);
  f.component = 0;
  return f;
}

Finding plan_error_finding(const plan::SglangError& e, const PairResult& pr, const Side& prefill)
{
  Finding f = pair_finding(e.rule, fmt::format("{}: SGLang's {} raises {}", rule(e.rule).title, e.function, e.python_class),
                           pr, prefill);
  f.runtime_error = e.rendered();
  f.where = fmt::format("prefill: {} backend, {}", backend_name(prefill.args.transfer_backend), e.function);
  f.side = "prefill";
  if (!e.surfaced_as.empty()) {
    // The full re-raised text repeats the error: evidence keeps it, the message says what it means.
    f.message += fmt::format("; the prefill's transfer thread dies with it (bootstrap_port={}): every later request "
                             "on that prefill fails",
                             prefill.args.bootstrap_port);
    f.evidence["surfaced_as"] = e.surfaced_as;
  }
  return f;
}

std::vector<int> writers_for(int decode_rank, int p, int d)
{
  if (p == d) {
    return {decode_rank};
  }
  if (d > p) {
    return {decode_rank / (d / p)};
  }
  std::vector<int> w;
  for (int i = decode_rank * (p / d); i < (decode_rank + 1) * (p / d); ++i) {
    w.push_back(i);
  }
  return w;
}

void simulation_findings(const SimulationResult& r, int decode_rank, const Side& prefill, std::vector<Finding>& out)
{
  auto base = [&](RuleId rule, std::string message, std::int64_t bytes) {
    Finding f = make_finding(rule, std::move(message));
    f.decode_rank = decode_rank;
    f.backend = backend_name(prefill.args.transfer_backend);
    f.component = 0;
    f.where = "pdcheck simulation of the copy plan";
    f.evidence["bytes"] = bytes;
    f.evidence["slot_bytes"] = r.slot_bytes;
    return f;
  };
  if (r.wrong > 0) {
    const ByteExample& e = *r.first_wrong;
    Finding f = base(RuleId::silent_wrong_bytes,
                     fmt::format("{} of {} state bytes per request come from the wrong logical element; first at "
                                 "entry {} byte {}: expected {}, got {} from prefill rank {}",
                                 r.wrong, r.slot_bytes, e.dst_entry, e.offset, plan::describe(e.expected),
                                 plan::describe(e.got), e.prefill_rank),
                     r.wrong);
    f.prefill_rank = e.prefill_rank;
    out.push_back(std::move(f));
  }
  if (r.unwritten > 0) {
    const ByteExample& e = *r.first_unwritten;
    out.push_back(base(RuleId::silent_unwritten,
                       fmt::format("{} of {} state bytes per request are never written; first at entry {} byte {} "
                                   "({})",
                                   r.unwritten, r.slot_bytes, e.dst_entry, e.offset,
                                   plan::describe(e.expected)),
                       r.unwritten));
  }
  if (r.written_twice > 0) {
    out.push_back(base(RuleId::silent_written_twice,
                       fmt::format("{} state bytes per request are written more than once", r.written_twice),
                       r.written_twice));
  }
  if (r.outside_slot > 0) {
    const ByteExample& e = *r.first_outside;
    Finding f = base(RuleId::silent_outside_slot,
                     fmt::format("{} bytes per request land outside the request's slot (entry {}, {} bytes from the "
                                 "slot start), overwriting other requests' state",
                                 r.outside_slot, e.dst_entry, e.offset),
                     r.outside_slot);
    f.prefill_rank = e.prefill_rank;
    out.push_back(std::move(f));
  }
}

/// What the backend does when a scheduler sends 2 (batched) or 0 (empty) state
/// indices for this pair: advice pinned to the pair's real semantics.
void scheduler_advice(const plan::PairInput& base, const PairResult& pr, const Side& prefill, std::vector<Finding>& out)
{
  std::vector<std::string> outcomes;
  nlohmann::ordered_json by_count = nlohmann::ordered_json::object();
  for (int count : {2, 0}) {
    plan::PairInput in = base;
    in.dst_index_count = count;
    const plan::PairPlan p = plan::build_pair_plan(in);
    const std::string what = count == 2 ? "batched (2 indices)" : "empty (0 indices)";
    if (p.error) {
      outcomes.push_back(fmt::format("{}: {}", what, p.error->rendered()));
      by_count[std::to_string(count)] = "refused";
    } else if (p.skipped) {
      outcomes.push_back(fmt::format("{}: component skipped silently, the state never arrives", what));
      by_count[std::to_string(count)] = "skipped";
    } else {
      outcomes.push_back(fmt::format("{}: sent as one request", what));
      by_count[std::to_string(count)] = "sent";
    }
  }
  Finding f = pair_finding(RuleId::scheduler_state_indices,
                           fmt::format("{} with non-single state indices: {}", backend_name(prefill.args.transfer_backend),
                                       fmt::join(outcomes, "; ")),
                           pr, prefill);
  // What the backend does with each state-index count a scheduler could send.
  f.evidence["state_indices"] = std::move(by_count);
  out.push_back(std::move(f));
}

} // namespace

bool CheckResult::passes(Severity threshold) const
{
  for (const Finding& f : findings) {
    if (static_cast<int>(f.severity) <= static_cast<int>(threshold)) {
      return false;
    }
  }
  return true;
}

namespace {

/// Drops the copy lists of the pairs from `first` on when it goes out of scope,
/// unless they are kept.
struct ReleaseCopies
{
  std::vector<PairResult>& pairs;
  std::size_t first;
  bool keep;
  ~ReleaseCopies()
  {
    for (std::size_t i = first; !keep && i < pairs.size(); ++i) {
      std::vector<plan::Copy>().swap(pairs[i].plan.copies);
    }
  }
};

/// How far a check goes: everything, or only as far as the pairs' copy plans.
enum class Depth { full, plans_only };

CheckResult check(const CheckInput& input, Depth depth)
{
  CheckResult result;
  const Side& prefill = input.prefill;
  const Side& decode = input.decode;
  result.prefill_layout = model::compute_layout(sglang::layout_input(prefill));
  result.decode_layout = model::compute_layout(sglang::layout_input(decode));
  auto& out = result.findings;

  if (!same_state_model(prefill.model, decode.model)) {
    Finding f = make_finding(RuleId::model_mismatch, fmt::format("prefill serves {} ({}) but decode serves {} ({})",
                                                           prefill.model.name, prefill.model.architecture,
                                                           decode.model.name, decode.model.architecture));
    f.evidence["prefill"] = prefill.model.name;
    f.evidence["decode"] = decode.model.name;
    out.push_back(std::move(f));
  }
  if (prefill.args.transfer_backend != decode.args.transfer_backend) {
    Finding f = make_finding(RuleId::backend_mismatch, fmt::format("prefill uses {} but decode uses {}",
                                                             backend_name(prefill.args.transfer_backend),
                                                             backend_name(decode.args.transfer_backend)));
    f.evidence["prefill"] = backend_name(prefill.args.transfer_backend);
    f.evidence["decode"] = backend_name(decode.args.transfer_backend);
    out.push_back(std::move(f));
  }
  side_findings(prefill, result.prefill_layout, out);
  side_findings(decode, result.decode_layout, out);
  if (decode.args.transfer_backend == TransferBackend::mori && decode.profile.mori_broken_pack) {
    Finding f = side_finding(decode, RuleId::mori_registration_pack,
                             fmt::format("SGLang {} packs per-component state lists as flat integers on Mori",
                                         decode.profile.name));
    f.runtime_error = render_delivered(MessageId::mori_flat_pack, {});
    f.where = "decode: MoriKVReceiver._register_kv_args";
    out.push_back(std::move(f));
  }
  const bool startup_refused = std::any_of(out.begin(), out.end(), [](const Finding& f) {
    return f.kind == FindingKind::startup && f.severity == Severity::error;
  });
  if (startup_refused || !result.prefill_layout.servable() || !result.decode_layout.servable()) {
    return result; // a side that cannot start transfers nothing
  }
  bootstrap_findings(prefill, decode, result.prefill_layout, result.decode_layout, out);
  const bool bootstrap_refused = std::any_of(out.begin(), out.end(), [](const Finding& f) {
    return (f.kind == FindingKind::bootstrap && f.severity == Severity::error) ||
           ((f.rule == rule_id(RuleId::dcp_topology) || f.rule == rule_id(RuleId::dcp_ranks)) && f.runtime_error);
  });
  if (bootstrap_refused) {
    // The decode raises before it registers, or the prefill raises when a
    // registration arrives (requires_dcp_relayout): nothing is transferred, as
    // a request waits for every prefill rank it maps to.
    return result;
  }

  const int p_tp = result.prefill_layout.attn_tp_size;
  const int d_tp = result.decode_layout.attn_tp_size;
  const int p_pp = result.prefill_layout.pp_size;
  const int d_pp = result.decode_layout.pp_size;
  if (p_tp % d_tp != 0 && d_tp % p_tp != 0) {
    Finding f = make_finding(RuleId::rank_mapping, fmt::format("prefill attention TP {} and decode attention TP {} do not "
                                                         "divide each other",
                                                         p_tp, d_tp));
    f.evidence["prefill_attn_tp_size"] = p_tp;
    f.evidence["decode_attn_tp_size"] = d_tp;
    out.push_back(std::move(f));
    return result;
  }
  if (d_pp != p_pp && d_pp != 1) {
    return result; // the bootstrap assertion stops the decode
  }
  if (prefill.args.transfer_backend != decode.args.transfer_backend) {
    return result;
  }
  if (!backend_moves_state(prefill)) {
    return result; // reported as startup-backend-state
  }
  const auto backend = wire_backend(prefill.args.transfer_backend);
  if (!backend) {
    return result; // ascend and fake: frames not modelled
  }
  mori_state_pp_findings(prefill, p_tp, d_tp, p_pp, d_pp, out);

  // Meanings are built once per rank and shared by every pair.
  std::vector<std::unique_ptr<plan::RankMeaning>> p_meaning;
  for (const auto& r : result.prefill_layout.ranks) {
    if (depth == Depth::full) {
      p_meaning.push_back(std::make_unique<plan::RankMeaning>(prefill.model, r, p_tp));
    }
  }
  int dst_index_count = 1;
  for (const ObservedTransferInfo& ti : input.transfer_infos) {
    if (!ti.dummy && !ti.state_index_counts.empty() && ti.state_index_counts[0] != 1) {
      dst_index_count = ti.state_index_counts[0];
    }
  }

  // One registration per decode rank that talks: captured, or derived from the
  // decode side and encoded in its generation.
  struct DecodeRank
  {
    int rank;
    int pp_rank;
    std::string origin;
    wire::Frames frames;
  };
  std::vector<DecodeRank> decode_ranks;
  if (!input.decode_registrations.empty()) {
    for (const ObservedRegistration& obs : input.decode_registrations) {
      const auto probe = wire::decode_registration(obs.backend, obs.frames, std::nullopt, wire::DecodeMode::sglang);
      const int attn = probe.registration ? static_cast<int>(std::max<std::int64_t>(1, probe.registration->dst_attn_tp_size)) : d_tp;
      const int rank = probe.registration ? static_cast<int>(probe.registration->dst_tp_rank % attn) : 0;
      decode_ranks.push_back({rank, 0, obs.origin, obs.frames});
    }
  } else {
    for (int dpp = 0; dpp < d_pp; ++dpp) {
      for (int d = 0; d < d_tp; ++d) {
        decode_ranks.push_back({d, dpp, "", {}}); // its frames are encoded when it is checked
      }
    }
  }

  // One PairInput serves every pair: what is the same for all of them is set
  // once, and a prefill rank's own metadata is rebuilt only when its lists are
  // not the ones the previous rank shares (the ranks of a PP stage share them).
  plan::PairInput in;
  in.backend = prefill.args.transfer_backend;
  in.prefill_profile = prefill.profile;
  in.prefill_pp_size = p_pp;
  in.prefill_attn_tp_size = p_tp;
  in.hybrid_mla = prefill.model.hybrid_mla;
  in.prefill_bootstrap_port = prefill.args.bootstrap_port;
  in.src_slot = input.src_slot;
  in.dst_slot = input.dst_slot;
  in.dst_index_count = dst_index_count;
  const model::RankLayout* src_of = nullptr; // the prefill rank in.src was built from
  auto set_src = [&](const model::RankLayout& rank) {
    if (src_of != nullptr && src_of->entries.same_storage(rank.entries) && src_of->tensors.same_storage(rank.tensors) &&
        src_of->unified == rank.unified) {
      return;
    }
    in.src = plan::own_metadata(rank, prefill.profile);
    if (in.backend == TransferBackend::mori) {
      in.src.layer_ids.clear(); // Mori registers and pairs without layer ids
    }
    src_of = &rank;
  };
  const bool keep_copies = input.keep_pair_copies || depth == Depth::plans_only;

  bool advice_given = false;
  for (const DecodeRank& dr : decode_ranks) {
    const int d = dr.rank;
    const int dpp = dr.pp_rank;
    // A derived registration exists only while its rank is checked: a 16k-rank
    // decode side would otherwise hold every rank's frames at once.
    const wire::Frames& frames =
      dr.origin.empty()
        ? derived_registration_frames(*backend, result.decode_layout.ranks[static_cast<std::size_t>(dpp * d_tp + d)], d,
                                      d_tp, decode)
        : dr.frames;
    const ParsedRegistration parsed = parse_as_prefill(*backend, frames, prefill);
    if (!parsed.registration) {
      Finding f = make_finding(
        RuleId::registration_generation,
        fmt::format("prefill SGLang {} ({} frames) cannot parse the decode's registration{}", prefill.profile.name,
                    wire::generation_name(wire::generation_for_profile(*backend, prefill.profile)),
                    dr.origin.empty() ? fmt::format(" (SGLang {})", decode.profile.name) : " from " + dr.origin));
      f.runtime_error = *parsed.raised;
      const bool pointer_frame = parsed.raised_field.find("_ptrs") != std::string::npos;
      if (dr.origin.empty() && pointer_frame) {
        // The parser took pointer bytes for a count: the number in SGLang's text
        // comes from the decode's real pointer, which pdcheck can only stand in for.
        f.message += fmt::format("; the byte count in SGLang's message comes from the low 32 bits of the decode's "
                                 "first {} value, so it differs on each server",
                                 parsed.raised_field);
        f.evidence["pointer_dependent"] = true;
      }
      f.side = "prefill";
      f.decode_rank = d;
      f.backend = backend_name(prefill.args.transfer_backend);
      // Mooncake's bootstrap thread has no handler and dies; Mori catches and logs
      // it in _handle_register_message and goes on without that registration.
      f.where = *backend == TransferBackend::mori
                  ? "prefill: MoriKVManager._handle_register_message (logged, thread goes on)"
                  : "prefill: KVArgsRegisterInfo.from_zmq (bootstrap thread)";
      f.evidence["prefill_profile"] = prefill.profile.name;
      f.evidence["decode_profile"] = decode.profile.name;
      out.push_back(std::move(f));
      continue;
    }
    const wire::Registration& reg = *parsed.registration;
    plan::StateMetadata dst = metadata_from_registration(reg);
    if (!backend_moves_state(decode)) {
      dst.num_components = 0;
      dst.num_entries = 0;
    }
    const int dst_attn_tp = static_cast<int>(std::max<std::int64_t>(1, reg.dst_attn_tp_size));
    const model::RankLayout* drank = nullptr;
    if (dpp < d_pp && d < d_tp) {
      drank = &result.decode_layout.ranks[static_cast<std::size_t>(dpp * d_tp + d)];
      // Frame 20 is never synthesized; the prefill's generation decides whether it is read.
      if (dr.origin.empty() && drank->unified && prefill.profile.unified_unequal_tp) {
        dst.unified_layout_sent = true;
      }
    }
    std::vector<int> stages;
    if (d_pp == p_pp) {
      stages = {dpp};
    } else {
      for (int s = 0; s < p_pp; ++s) {
        stages.push_back(s);
      }
    }
    if (p_tp % dst_attn_tp != 0 && dst_attn_tp % p_tp != 0) {
      continue; // reported as rank-mapping above for derived registrations
    }
    const std::size_t first_pair = result.pairs.size();
    // Once this decode rank is done, only `check --plan` still reads its copies.
    const ReleaseCopies release{result.pairs, first_pair, keep_copies};
    bool aborted = false;
    in.decode_attn_tp_size = dst_attn_tp;
    in.decode_rank = d;
    in.dst = std::move(dst);
    // Components after Mamba are validated in registration order; the first
    // that raises stops the transfer like a Mamba error would.
    const std::optional<plan::SglangError> extra_error = extra_state_error(prefill, p_tp, dst_attn_tp, p_pp);
    const bool extra_error_unconfirmed = extra_error && unconfirmed_hybrid_mla_refusal(prefill, *extra_error);
    for (int stage : stages) {
      for (int p : writers_for(d, p_tp, dst_attn_tp)) {
        const std::size_t pi = static_cast<std::size_t>(stage * p_tp + p);
        in.prefill_rank = p;
        set_src(result.prefill_layout.ranks[pi]);
        PairResult pr{p, stage, d, dpp, plan::build_pair_plan(in)};
        bool from_extra_state = false;
        if (!pr.plan.error && !pr.plan.skipped) {
          if (extra_error) {
            pr.plan.error = extra_error;
            pr.plan.copies.clear();
            pr.plan.path = plan::PlanPath::none;
            from_extra_state = true;
          }
        }
        if (pr.plan.error) {
          out.push_back(plan_error_finding(*pr.plan.error, pr, prefill));
          if (from_extra_state && extra_error_unconfirmed) {
            out.back().evidence["confidence"] = "low";
            out.back().evidence["note"] =
              "Mooncake lets a hybrid-MLA pool past this check in v0.5.20's code; which release first does is not "
              "confirmed, so this release may already pass it";
          }
          aborted = true;
        } else if (pr.plan.skipped) {
          Finding f = pair_finding(RuleId::mori_empty_index_skipped, "the Mamba component is skipped: empty state indices", pr,
                                   prefill);
          f.where = "prefill: mori backend, send_state";
          out.push_back(std::move(f));
          aborted = true;
        } else if (depth == Depth::full && !advice_given && dst_index_count == 1) {
          scheduler_advice(in, pr, prefill, out);
          advice_given = true;
        }
        result.pairs.push_back(std::move(pr));
      }
    }
    // A failed transfer is reported as such, not simulated; a captured decode
    // rank is simulated only when its layout is the one the decode side implies.
    if (aborted || drank == nullptr || depth == Depth::plans_only) {
      continue;
    }
    if (!dr.origin.empty() && plan::registered_metadata(*drank, decode.profile).item_lens != in.dst.item_lens) {
      continue;
    }
    if (dr.origin.empty() && *backend != TransferBackend::mori && backend_moves_state(decode)) {
      // The pointers the prefill parsed must be the ones the decode registered;
      // a parser of another generation can take other frames' bytes for them.
      std::vector<std::uint64_t> registered;
      for (std::size_t e = 0; e < drank->entries.size(); ++e) {
        registered.push_back(wire::synthetic_state_ptr(0, e));
      }
      const std::vector<std::uint64_t> parsed_ptrs =
        reg.dst_state_data_ptrs.empty() ? std::vector<std::uint64_t>{} : reg.dst_state_data_ptrs[0];
      if (parsed_ptrs != registered) {
        Finding f = make_finding(RuleId::registration_misread,
                                 fmt::format("prefill SGLang {} reads {} from decode SGLang {}'s "
                                             "registration where the decode registered {}; the writes go to "
                                             "addresses the decode never registered",
                                             prefill.profile.name, counted(static_cast<long long>(parsed_ptrs.size()), "state pointer"), decode.profile.name,
                                             registered.size()));
        f.side = "prefill";
        f.decode_rank = d;
        f.backend = backend_name(prefill.args.transfer_backend);
        f.where = "prefill: KVArgsRegisterInfo.from_zmq, then the state send";
        f.evidence["parsed_pointers"] = parsed_ptrs.size();
        f.evidence["registered_pointers"] = registered.size();
        out.push_back(std::move(f));
        continue;
      }
    }
    const plan::RankMeaning d_meaning(decode.model, *drank, d_tp);
    std::vector<Writer> writers;
    for (std::size_t i = first_pair; i < result.pairs.size(); ++i) {
      const PairResult& pr = result.pairs[i];
      writers.push_back(Writer{pr.prefill_rank, pr.prefill_pp_rank,
                               p_meaning[static_cast<std::size_t>(pr.prefill_pp_rank * p_tp + pr.prefill_rank)].get(),
                               &pr.plan, input.src_slot});
    }
    const SimulationResult sim = simulate_decode_rank(d_meaning, input.dst_slot, writers);
    result.simulated_decode_ranks += 1;
    result.simulated_bytes += sim.slot_bytes;
    simulation_findings(sim, d, prefill, out);
  }
  return result;
}

} // namespace

CheckResult run_check(const CheckInput& input)
{
  CheckResult r = check(input, Depth::full);
  if (input.prefill_bootstrap) {
    // Read from running servers: true whether or not the sides could start.
    for (Finding& f : bootstrap_findings(*input.prefill_bootstrap, input.prefill)) {
      r.findings.push_back(std::move(f));
    }
  }
  add_remedies(r.findings, input);
  return r;
}

std::vector<PairResult> pair_plans(const CheckInput& input)
{
  return check(input, Depth::plans_only).pairs;
}

} // namespace pdcheck::check
