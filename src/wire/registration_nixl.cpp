// NIXL registration frames, one table per generation, rows in the order SGLang's
// parser evaluates them: python/sglang/srt/disaggregation/nixl/conn.py,
// KVArgsRegisterInfo.from_zmq on payload = msg[1:] (parser) and
// NixlKVReceiver._register_kv_args (sender). Frame 0 is the guard
// b"NixlMsgGuard"; the payload indices below do not count it.
//
// - pre-dims: payload 0-11, state pointers (7) a flat native 'Q' array.
// - flat: PR #22240 adds 12/13 (flat native 'I' item lens and dims), staging 14-15.
// - components: the per-component parser of the list-of-lists refactor (PR #24932)
//   and what followed (commit not recorded): pack_int_lists in 7/12/13,
//   dst_num_slots 16, memory kinds 17, every KV item len 18, layer ids 19/20,
//   DCP 21/22.

#include "wire/registration_backends.hpp"
#include "wire/registration_table.hpp"

namespace pdcheck::wire::detail {

namespace {

using A = Absent;
using C = Codec;
using R = Registration;

// Older parsers: state pointers first, then the fields in frame order.
constexpr FrameRow pre_dims_rows[] = {
  frame(7, "dst_state_data_ptrs", C::component_u64, A::default_when_absent_or_empty, &R::dst_state_data_ptrs),
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "agent_name", C::ascii_text, A::required, &R::agent_name),
  frame(4, "agent_metadata", C::opaque, A::required, &R::agent_metadata),
  frame(5, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(6, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(8, "gpu_id", C::ascii_int, A::required, &R::gpu_id),
  frame(9, "decode_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(10, "decode_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(11, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
};

// As pre-dims, with the state item lens and dims read right after the state pointers.
constexpr FrameRow flat_rows[] = {
  frame(7, "dst_state_data_ptrs", C::component_u64, A::default_when_absent_or_empty, &R::dst_state_data_ptrs),
  frame(12, "dst_state_item_lens", C::component_u32, A::default_when_absent_or_empty, &R::dst_state_item_lens),
  frame(13, "dst_state_dim_per_tensor", C::component_u32, A::default_when_absent_or_empty,
        &R::dst_state_dim_per_tensor),
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "agent_name", C::ascii_text, A::required, &R::agent_name),
  frame(4, "agent_metadata", C::opaque, A::required, &R::agent_metadata),
  frame(5, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(6, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(8, "gpu_id", C::ascii_int, A::required, &R::gpu_id),
  frame(9, "decode_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(10, "decode_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(11, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(14, "staging_base_ptr", C::staging_base, A::default_when_absent, &R::staging_base_ptr),
  frame(15, "staging_total_size", C::staging_total, A::default_when_absent_or_empty, &R::staging_total_size),
};

// The per-component parser reads the KV pointers and their metadata first (the
// memory kinds and item lens are checked against len(kv_ptrs)), then the state
// lists, then the rest.
constexpr FrameRow components_rows[] = {
  frame(5, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(17, "dst_kv_mem_kinds", C::mem_kinds, A::default_when_absent, &R::dst_kv_mem_kinds),
  frame(11, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(18, "dst_kv_item_lens", C::kv_item_lens, A::default_when_absent_or_empty, &R::dst_kv_item_lens),
  frame(7, "dst_state_data_ptrs", C::lists_u64, A::default_when_absent_or_empty, &R::dst_state_data_ptrs),
  frame(12, "dst_state_item_lens", C::lists_u32, A::default_when_absent_or_empty, &R::dst_state_item_lens),
  frame(13, "dst_state_dim_per_tensor", C::lists_u32, A::default_when_absent_or_empty,
        &R::dst_state_dim_per_tensor),
  frame(16, "dst_num_slots", C::optional_ascii_int, A::default_when_absent_or_empty, &R::dst_num_slots),
  frame(19, "dst_state_layer_ids", C::lists_u32, A::default_when_absent_or_empty, &R::dst_state_layer_ids),
  frame(20, "dst_kv_layer_ids", C::native_u32, A::default_when_absent_or_empty, &R::dst_kv_layer_ids),
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "agent_name", C::ascii_text, A::required, &R::agent_name),
  frame(4, "agent_metadata", C::opaque, A::required, &R::agent_metadata),
  frame(6, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(8, "gpu_id", C::ascii_int, A::required, &R::gpu_id),
  frame(9, "decode_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(10, "decode_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(21, "dst_dcp_size", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_size),
  frame(22, "dst_dcp_rank", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_rank),
  frame(14, "staging_base_ptr", C::staging_base, A::default_when_absent, &R::staging_base_ptr),
  frame(15, "staging_total_size", C::staging_total, A::default_when_absent_or_empty, &R::staging_total_size),
};

// What a NIXL generation cannot carry, in the order `pdcheck encode` notes it.
std::vector<std::string> nixl_dropped(const Registration& r, Generation g)
{
  std::vector<std::string> dropped;
  if (g == Generation::components) {
    return dropped;
  }
  drop_if(dropped, r.dst_state_data_ptrs.size() > 1 || r.dst_state_item_lens.size() > 1,
          "state components after the first (one state_type per registration)");
  drop_if(dropped, !r.dst_state_layer_ids.empty() || !r.dst_kv_layer_ids.empty(), "layer ids");
  drop_if(dropped, r.dst_dcp_size != 1 || r.dst_dcp_rank != 0, "DCP size and rank");
  drop_if(dropped, r.dst_num_slots.has_value(), "dst_num_slots");
  if (g == Generation::pre_dims) {
    drop_if(dropped, !r.dst_state_item_lens.empty() || !r.dst_state_dim_per_tensor.empty(),
            "dst_state_item_lens and dst_state_dim_per_tensor (added by #22240)");
    drop_if(dropped, r.staging_base_ptr != 0 || r.staging_total_size != 0, "staging");
  }
  return dropped;
}

constexpr RegistrationTable make(Generation g, std::span<const FrameRow> rows)
{
  return RegistrationTable{TransferBackend::nixl, g, "NixlMsgGuard", rows, nullptr, &nixl_dropped};
}

constexpr RegistrationTable tables[] = {
  make(Generation::pre_dims, pre_dims_rows),
  make(Generation::flat, flat_rows),
  make(Generation::components, components_rows),
};

} // namespace

const RegistrationTable* nixl_registration_table(Generation g)
{
  for (const RegistrationTable& t : tables) {
    if (t.generation == g) {
      return &t;
    }
  }
  return nullptr;
}

} // namespace pdcheck::wire::detail
