#include "plan/plan.hpp"

#include <fmt/format.h>

namespace pdcheck::plan {

namespace {

/// Mooncake's transfer_worker handler re-raises what the state send raised:
/// the text the operator finds in the prefill's log.
std::string transfer_thread_death(const SglangError& e, const PairInput& in)
{
  return render_delivered(MessageId::transfer_thread_failed,
                          {{"error", e.message}, {"bootstrap_port", in.prefill_bootstrap_port}});
}

std::string slice_transfer_log(const PairInput& in)
{
  return render_message(MessageId::mamba_slice_transfer, {{"prefill_attn_tp_size", in.prefill_attn_tp_size},
                                                          {"decode_attn_tp_size", in.decode_attn_tp_size}});
}

std::int64_t at(const std::vector<std::uint64_t>& v, int i)
{
  return static_cast<std::int64_t>(v.at(static_cast<std::size_t>(i)));
}

/// Entry pairing as the prefill's generation does it. Before per-component
/// metadata (pre-dims and flat Mooncake) the whole-item loop walks the decode's
/// pointers (`decode_driven`).
Outcome<EntryPairs> pair_entries(const PairInput& in, const std::string& function, bool decode_driven = false)
{
  const int n_src = static_cast<int>(in.src.item_lens.size());
  const int n_dst = in.dst.num_entries;
  if (decode_driven) {
    return decode_driven_entry_pairs(n_src, n_dst, function);
  }
  if (!in.prefill_profile.state_layer_ids) {
    return positional_entry_pairs(n_src, n_dst, function);
  }
  return build_transfer_entry_pairs(in.src.layer_ids, in.dst.layer_ids, n_src, n_dst, in.prefill_pp_size == 1);
}

/// Whole items: `dst_len_for_address` is the item length SGLang uses to address
/// the decode slot (the decode's own when it registered one, else the source's).
void whole_item_copies(const PairInput& in, const EntryPairs& pairs, bool address_with_src_len, PairPlan& plan)
{
  plan.copies.reserve(plan.copies.size() + pairs.size()); // at most one copy a pair: sized once
  for (auto [i, j] : pairs) {
    const std::int64_t src_len = at(in.src.item_lens, i);
    if (src_len == 0) {
      continue;
    }
    const bool dst_known = !in.dst.item_lens.empty() && j < static_cast<int>(in.dst.item_lens.size());
    const std::int64_t dst_len = address_with_src_len || !dst_known ? src_len : at(in.dst.item_lens, j);
    plan.copies.push_back(Copy{i, j, src_len * in.src_slot, dst_len * in.dst_slot, src_len});
  }
}

void mooncake_whole(const PairInput& in, PairPlan& plan)
{
  plan.function = "_send_mamba_state";
  if (in.src_index_count != 1) {
    plan.error = sglang_error(MessageId::single_state_index, {}, plan.function);
    return;
  }
  const bool decode_driven = in.prefill_profile.mooncake_format != RegistrationFormat::components;
  auto pairs = pair_entries(in, plan.function, decode_driven);
  if (auto* e = std::get_if<SglangError>(&pairs)) {
    plan.error = *e;
    return;
  }
  const auto& pair_list = std::get<EntryPairs>(pairs);
  if (in.prefill_profile.mooncake_slot_size_check && !in.dst.item_lens.empty()) {
    for (auto [i, j] : pair_list) {
      if (j < static_cast<int>(in.dst.item_lens.size()) && at(in.src.item_lens, i) != at(in.dst.item_lens, j)) {
        plan.error = sglang_error(MessageId::mooncake_slot_size,
                                  {{"src", at(in.src.item_lens, i)}, {"dst", at(in.dst.item_lens, j)}}, plan.function);
        return;
      }
    }
  }
  plan.path = PlanPath::whole_item;
  // dst_state_ptr + src item length * dst index, in every generation.
  whole_item_copies(in, pair_list, true, plan);
}

void slice_copies(const PairInput& in, const EntryPairs& pairs, bool subgroups_and_outer, PairPlan& plan)
{
  const Profile& p = in.prefill_profile;
  for (auto [i, j] : pairs) {
    const std::int64_t src_len = at(in.src.item_lens, i);
    const std::int64_t dst_len = j < static_cast<int>(in.dst.item_lens.size()) ? at(in.dst.item_lens, j) : 0;
    const std::int64_t src_dim = at(in.src.dims, i);
    const std::int64_t dst_dim = j < static_cast<int>(in.dst.dims.size()) ? at(in.dst.dims, j) : 0;
    std::vector<ByteBlock> blocks;
    if (subgroups_and_outer) {
      const std::int64_t outer =
        i < static_cast<int>(in.src.outer_counts.size()) ? in.src.outer_counts[static_cast<std::size_t>(i)] : 1;
      static const std::vector<std::int64_t> k_no_groups;
      const auto& groups = i < static_cast<int>(in.src.conv_shard_groups.size())
                             ? in.src.conv_shard_groups[static_cast<std::size_t>(i)]
                             : k_no_groups;
      auto r = mamba_slice_byte_blocks(src_len, dst_len, src_dim, dst_dim, in.prefill_attn_tp_size,
                                       in.decode_attn_tp_size, in.prefill_rank, in.decode_rank, outer, groups,
                                       p.aggregation_writer_fix);
      if (auto* e = std::get_if<SglangError>(&r)) {
        plan.error = *e;
        return;
      }
      blocks = std::get<std::vector<ByteBlock>>(r);
    } else {
      if (src_dim == 0 || dst_dim == 0) {
        plan.error = sglang_error(MessageId::zero_division, {}, plan.function);
        return;
      }
      blocks = single_block_byte_blocks(src_len, dst_len, src_dim, dst_dim, in.prefill_attn_tp_size,
                                        in.decode_attn_tp_size, in.prefill_rank, in.decode_rank,
                                        p.aggregation_writer_fix);
    }
    for (const ByteBlock& b : blocks) {
      plan.copies.push_back(
        Copy{i, j, src_len * in.src_slot + b.src_offset, dst_len * in.dst_slot + b.dst_offset, b.length});
    }
  }
}

void mooncake_slice(const PairInput& in, PairPlan& plan)
{
  plan.function = "_send_mamba_state_slice";
  if (in.src_index_count != 1) {
    plan.error = sglang_error(MessageId::single_state_index, {}, plan.function);
    return;
  }
  auto pairs = pair_entries(in, plan.function);
  if (auto* e = std::get_if<SglangError>(&pairs)) {
    plan.error = *e;
    return;
  }
  const auto& pair_list = std::get<EntryPairs>(pairs);
  if (in.src.dims.empty() || in.dst.dims.empty()) {
    // Without dims on either side the slice path degrades to whole items,
    // addressing the decode slot with the source item length.
    plan.path = PlanPath::whole_fallback;
    whole_item_copies(in, pair_list, true, plan);
    return;
  }
  plan.path = PlanPath::slice;
  plan.logged = slice_transfer_log(in);
  slice_copies(in, pair_list, in.prefill_profile.conv_subgroup_slicing, plan);
}

void mooncake_plan(const PairInput& in, PairPlan& plan)
{
  const Profile& p = in.prefill_profile;
  const bool unequal_tp = in.prefill_attn_tp_size != in.decode_attn_tp_size;
  if (p.mooncake_format == RegistrationFormat::no_state_lens && unequal_tp) {
    // transfer_worker, after the last KV chunk and before maybe_send_extra; its
    // handler turns it into the transfer thread's death. The guard is `not
    // self.is_mla_backend`, which a hybrid pool never is: the text says
    // "non-MLA" yet Kimi-Linear raises too (docs/sglang-decisions.md §6).
    plan.function = "transfer_worker";
    plan.error = sglang_error(MessageId::mooncake_unequal_tp_hybrid, {}, plan.function);
    plan.error->surfaced_as = transfer_thread_death(*plan.error, in);
    return;
  }
  if (p.unified_unequal_tp && !in.src.unified && in.dst.unified_layout_sent) {
    plan.function = "_validate_unified_peer_layout";
    plan.error = sglang_error(MessageId::unified_peers_must_enable, {}, plan.function);
    return;
  }
  // _validate_envelope_kv_layout is reached from send_kvcache only, which an
  // unequal-TP pair takes for MLA and hybrid-MLA pools alone; any other pair
  // goes on to the layout check below (SGLang's source at v0.5.20,
  // docs/sglang-decisions.md §1).
  if (in.src.unified && unequal_tp && (in.hybrid_mla || p.unified_unequal_tp)) {
    plan.function = p.unified_unequal_tp ? "_validate_unified_peer_layout" : "_validate_envelope_kv_layout";
    plan.error =
      p.unified_unequal_tp
        ? sglang_error(MessageId::unified_unequal_tp_requirements, {}, plan.function)
        : sglang_error(MessageId::unified_unequal_tp,
                       {{"prefill_attn_tp_size", in.prefill_attn_tp_size},
                        {"decode_attn_tp_size", in.decode_attn_tp_size}},
                       plan.function);
    return;
  }
  if (p.mooncake_layout_check && (in.src.dims.empty() || in.dst.dims.empty()) && in.src.item_lens != in.dst.item_lens) {
    plan.function = "maybe_send_extra";
    plan.error = sglang_error(MessageId::mooncake_layout_no_dims,
                              {{"src_item_lens", in.src.item_lens}, {"dst_item_lens", in.dst.item_lens}},
                              plan.function);
    return;
  }
  if (in.dst_index_count == 0) {
    // No explicit check: indexing the empty index list fails inside the send.
    plan.function = unequal_tp ? "_send_mamba_state_slice" : "_send_mamba_state";
    plan.error = sglang_error(MessageId::list_index, {}, plan.function);
    return;
  }
  if (unequal_tp && p.mooncake_format != RegistrationFormat::no_state_lens) {
    mooncake_slice(in, plan);
  } else {
    mooncake_whole(in, plan);
  }
}

/// Mori before the per-component refactor (one state_type, v0.5.11): the
/// descriptor checks of send_state, then the same single-index mamba path.
bool mori_flat_checks(const PairInput& in, PairPlan& plan)
{
  plan.function = "send_state";
  const int n_src = static_cast<int>(in.src.item_lens.size());
  const int n_dst = in.dst.num_entries;
  if (n_dst == 0) {
    plan.error = sglang_error(MessageId::mori_no_state_descriptors,
                              {{"state_type", "mamba"},
                               {"prefill_tp_size", in.prefill_attn_tp_size},
                               {"decode_tp_size", in.decode_attn_tp_size}},
                              plan.function);
    return false;
  }
  if (n_src != n_dst) {
    plan.error = sglang_error(MessageId::mori_descriptor_count,
                              {{"local", n_src}, {"remote", n_dst}, {"state_type", "mamba"}}, plan.function);
    return false;
  }
  return true;
}

void mori_plan(const PairInput& in, PairPlan& plan)
{
  if (in.prefill_profile.mooncake_format == RegistrationFormat::flat && !mori_flat_checks(in, plan)) {
    return;
  }
  plan.function = "send_state";
  const bool flat = in.prefill_profile.mooncake_format == RegistrationFormat::flat;
  if (!flat && in.src.num_components != in.dst.num_components) {
    plan.error = sglang_error(MessageId::mori_component_count,
                              {{"local", in.src.num_components}, {"remote", in.dst.num_components}}, plan.function);
    return;
  }
  if (in.src_index_count == 0 || in.dst_index_count == 0) {
    // Empty components are skipped before dispatch: nothing is sent and
    // nothing is reported.
    plan.skipped = true;
    return;
  }
  plan.function = "_send_mamba_state";
  if (in.src_index_count != 1 || in.dst_index_count != 1) {
    plan.error = sglang_error(MessageId::mori_single_state_index,
                              {{"src", in.src_index_count}, {"dst", in.dst_index_count}}, plan.function);
    return;
  }
  auto pairs = positional_entry_pairs(static_cast<int>(in.src.item_lens.size()), in.dst.num_entries, plan.function);
  if (auto* e = std::get_if<SglangError>(&pairs)) {
    plan.error = *e;
    return;
  }
  const bool unequal_tp = in.prefill_attn_tp_size != in.decode_attn_tp_size;
  if (unequal_tp && !in.src.dims.empty() && !in.dst.dims.empty()) {
    plan.path = PlanPath::slice;
    plan.logged = slice_transfer_log(in);
    slice_copies(in, std::get<EntryPairs>(pairs), false, plan);
    return;
  }
  // Equal TP, or dims missing ("Mooncake compat"): whole items addressed with
  // the source item length; the decode's item length is never checked.
  plan.path = unequal_tp ? PlanPath::whole_fallback : PlanPath::whole_item;
  whole_item_copies(in, std::get<EntryPairs>(pairs), true, plan);
}

void nixl_plan(const PairInput& in, PairPlan& plan)
{
  const bool unequal_tp = in.prefill_attn_tp_size != in.decode_attn_tp_size;
  plan.function = "_send_mamba_state";
  if (unequal_tp && !in.prefill_profile.nixl_dims) {
    plan.function = "maybe_send_extra";
    plan.error = sglang_error(MessageId::nixl_unequal_tp, {}, plan.function);
    return;
  }
  if (in.src_index_count != 1) {
    plan.error = sglang_error(MessageId::single_state_index, {}, plan.function);
    return;
  }
  // NIXL pairs by layer id once registrations carry them (positional fallback
  // only at PP 1), and before that walks the decode's entries by position.
  auto pairs = in.prefill_profile.state_layer_ids
                 ? pair_entries(in, plan.function)
                 : decode_driven_entry_pairs(static_cast<int>(in.src.item_lens.size()), in.dst.num_entries,
                                             plan.function);
  if (auto* e = std::get_if<SglangError>(&pairs)) {
    plan.error = *e;
    return;
  }
  if (unequal_tp && !in.src.dims.empty() && !in.dst.dims.empty()) {
    plan.function = "_send_mamba_state_slice";
    plan.path = PlanPath::slice;
    slice_copies(in, std::get<EntryPairs>(pairs), in.prefill_profile.conv_subgroup_slicing, plan);
    return;
  }
  if (in.dst_index_count != in.src_index_count) {
    plan.error = sglang_error(MessageId::state_index_count_mismatch, {}, plan.function);
    return;
  }
  plan.path = unequal_tp ? PlanPath::whole_fallback : PlanPath::whole_item;
  whole_item_copies(in, std::get<EntryPairs>(pairs), true, plan);
}

} // namespace

std::string_view plan_path_name(PlanPath p)
{
  switch (p) {
  case PlanPath::none: return "none";
  case PlanPath::whole_item: return "whole_item";
  case PlanPath::whole_fallback: return "whole_item_fallback";
  case PlanPath::slice: return "slice";
  }
  return "?";
}

StateMetadata own_metadata(const model::RankLayout& rank, const Profile& profile)
{
  StateMetadata m;
  m.unified = rank.unified;
  for (const model::StateEntry& e : rank.entries) {
    m.item_lens.push_back(static_cast<std::uint64_t>(e.item_len));
    if (rank.unified) {
      continue;
    }
    const model::StateTensor& t = rank.tensors[static_cast<std::size_t>(e.tensor)];
    if (profile.mooncake_format != RegistrationFormat::no_state_lens) {
      m.dims.push_back(static_cast<std::uint64_t>(e.dim));
    }
    if (profile.state_layer_ids) {
      m.layer_ids.push_back(static_cast<std::uint64_t>(e.layer_id));
    }
    m.outer_counts.push_back(profile.dim_rule == DimRule::slice_axis ? t.outer_count : 1);
    m.conv_shard_groups.push_back(profile.conv_subgroup_slicing ? t.conv_shard_groups : std::vector<std::int64_t>{});
  }
  m.num_entries = static_cast<int>(rank.entries.size());
  m.unified_layout_sent = rank.unified && profile.unified_unequal_tp;
  return m;
}

StateMetadata registered_metadata(const model::RankLayout& rank, const Profile& profile)
{
  StateMetadata m;
  m.unified = rank.unified;
  m.num_entries = static_cast<int>(rank.entries.size());
  m.unified_layout_sent = rank.unified && profile.unified_unequal_tp;
  if (!rank.state_item_lens.empty()) {
    m.item_lens = rank.state_item_lens[0];
  }
  if (!rank.state_dim_per_tensor.empty()) {
    m.dims = rank.state_dim_per_tensor[0];
  }
  if (!rank.state_layer_ids.empty()) {
    m.layer_ids = rank.state_layer_ids[0];
  }
  return m;
}

PairPlan build_pair_plan(const PairInput& in)
{
  PairPlan plan;
  switch (in.backend) {
  case TransferBackend::mori: mori_plan(in, plan); break;
  case TransferBackend::nixl: nixl_plan(in, plan); break;
  default:
    mooncake_plan(in, plan);
    if (plan.error && plan.error->surfaced_as.empty()) {
      // transfer_worker's handler re-raises whatever the state send raised.
      plan.error->surfaced_as = transfer_thread_death(*plan.error, in);
    }
    break;
  }
  if (plan.error) {
    plan.copies.clear();
    plan.path = PlanPath::none;
  }
  return plan;
}

} // namespace pdcheck::plan
