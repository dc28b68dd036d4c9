// Mooncake registration frames, one table per generation, rows in the order
// SGLang's parser evaluates them: python/sglang/srt/disaggregation/mooncake/conn.py,
// KVArgsRegisterInfo.from_zmq (parser) and MooncakeKVReceiver._register_kv_args
// (sender).
//
// - pre-dims: frames 0-9, before PR #16056 added the state item lens and dims.
// - flat: PR #16056's frames 10/11 as flat native 'I' arrays, 12 enable_hisparse,
//   13-14 staging (single state_type, before PR #24932).
// - components: PR #24932's per-component pack_int_lists in 6/10/11, the layer ids
//   of PR #32270 in 12/13, staging 14-15, DCP 16-17, slot layer ids 18
//   (mooncake/conn.py @ 0005973a: 19 frames).
// - components-layouts: mooncake/conn.py @ 6d8ea7e3 adds 19 (every KV item len)
//   and 20 (the unified layouts, json.dumps of TransferLayout.to_dict).

#include "wire/registration_backends.hpp"
#include "wire/registration_table.hpp"

namespace pdcheck::wire::detail {

namespace {

using A = Absent;
using C = Codec;
using R = Registration;

constexpr FrameRow pre_dims_rows[] = {
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "mooncake_session_id", C::ascii_text, A::required, &R::mooncake_session_id),
  frame(4, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(5, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(6, "dst_state_data_ptrs", C::component_u64, A::required, &R::dst_state_data_ptrs),
  frame(7, "dst_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(8, "dst_attn_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
};

constexpr FrameRow flat_rows[] = {
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "mooncake_session_id", C::ascii_text, A::required, &R::mooncake_session_id),
  frame(4, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(5, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(6, "dst_state_data_ptrs", C::component_u64, A::required, &R::dst_state_data_ptrs),
  frame(7, "dst_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(8, "dst_attn_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(10, "dst_state_item_lens", C::component_u32, A::default_when_absent_or_empty, &R::dst_state_item_lens),
  frame(11, "dst_state_dim_per_tensor", C::component_u32, A::default_when_absent_or_empty,
        &R::dst_state_dim_per_tensor),
  frame(12, "enable_hisparse", C::hisparse_flag, A::default_when_absent, &R::enable_hisparse),
  frame(13, "staging_base_ptr", C::staging_base, A::default_when_absent, &R::staging_base_ptr),
  frame(14, "staging_total_size", C::staging_total, A::default_when_absent_or_empty, &R::staging_total_size),
};

// Frames 0-17 in order; StagingRegisterInfo.from_zmq_fields(msg, 14,
// slot_ids_index=18) runs last.
constexpr FrameRow components_rows[] = {
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "mooncake_session_id", C::ascii_text, A::required, &R::mooncake_session_id),
  frame(4, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(5, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(6, "dst_state_data_ptrs", C::lists_u64, A::required, &R::dst_state_data_ptrs),
  frame(7, "dst_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(8, "dst_attn_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(10, "dst_state_item_lens", C::lists_u32, A::default_when_absent, &R::dst_state_item_lens),
  frame(11, "dst_state_dim_per_tensor", C::lists_u32, A::default_when_absent, &R::dst_state_dim_per_tensor),
  frame(12, "dst_kv_layer_ids", C::native_u32, A::default_when_absent_or_empty, &R::dst_kv_layer_ids),
  frame(13, "dst_state_layer_ids", C::lists_u32, A::default_when_absent_or_empty, &R::dst_state_layer_ids),
  frame(14, "staging_base_ptr", C::staging_base, A::default_when_absent, &R::staging_base_ptr),
  frame(15, "staging_total_size", C::staging_total, A::default_when_absent_or_empty, &R::staging_total_size),
  frame(16, "dst_dcp_size", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_size),
  frame(17, "dst_dcp_rank", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_rank),
  frame(18, "staging_slot_layer_ids", C::native_u64, A::default_when_absent_or_empty, &R::staging_slot_layer_ids),
};

// @ 6d8ea7e3: json.loads(msg[20]) is evaluated before any other field, and
// frame 19 before StagingRegisterInfo.from_zmq_fields reads frame 18.
constexpr FrameRow components_layouts_rows[] = {
  frame(20, "unified_layouts", C::layouts_json, A::default_when_absent_or_empty, &R::unified_layouts_json),
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "mooncake_session_id", C::ascii_text, A::required, &R::mooncake_session_id),
  frame(4, "dst_kv_ptrs", C::native_u64, A::required, &R::dst_kv_ptrs),
  frame(5, "dst_aux_ptrs", C::native_u64, A::required, &R::dst_aux_ptrs),
  frame(6, "dst_state_data_ptrs", C::lists_u64, A::required, &R::dst_state_data_ptrs),
  frame(7, "dst_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(8, "dst_attn_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(10, "dst_state_item_lens", C::lists_u32, A::default_when_absent, &R::dst_state_item_lens),
  frame(11, "dst_state_dim_per_tensor", C::lists_u32, A::default_when_absent, &R::dst_state_dim_per_tensor),
  frame(12, "dst_kv_layer_ids", C::native_u32, A::default_when_absent_or_empty, &R::dst_kv_layer_ids),
  frame(13, "dst_state_layer_ids", C::lists_u32, A::default_when_absent_or_empty, &R::dst_state_layer_ids),
  frame(14, "staging_base_ptr", C::staging_base, A::default_when_absent, &R::staging_base_ptr),
  frame(15, "staging_total_size", C::staging_total, A::default_when_absent_or_empty, &R::staging_total_size),
  frame(16, "dst_dcp_size", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_size),
  frame(17, "dst_dcp_rank", C::ascii_int, A::default_when_absent_or_empty, &R::dst_dcp_rank),
  frame(19, "dst_kv_item_lens", C::native_u64, A::default_when_absent_or_empty, &R::dst_kv_item_lens),
  frame(18, "staging_slot_layer_ids", C::native_u64, A::default_when_absent_or_empty, &R::staging_slot_layer_ids),
};

// What a Mooncake generation cannot carry, in the order `pdcheck encode` notes it.
std::vector<std::string> mooncake_dropped(const Registration& r, Generation g)
{
  std::vector<std::string> dropped;
  if (g == Generation::pre_dims || g == Generation::flat) {
    drop_if(dropped, r.dst_state_data_ptrs.size() > 1 || r.dst_state_item_lens.size() > 1 ||
                       r.dst_state_dim_per_tensor.size() > 1,
            "state components after the first (one state_type per registration)");
    drop_if(dropped, !r.dst_kv_layer_ids.empty() || !r.dst_state_layer_ids.empty(), "layer ids");
    drop_if(dropped, r.dst_dcp_size != 1 || r.dst_dcp_rank != 0, "DCP size and rank");
    drop_if(dropped, !r.staging_slot_layer_ids.empty(), "staging slot layer ids");
  }
  if (g != Generation::components_layouts) {
    drop_if(dropped, !r.dst_kv_item_lens.empty(), "dst_kv_item_lens (frame 19)");
    drop_if(dropped, r.unified_layouts_json.has_value(), "unified layouts (frame 20)");
  }
  if (g != Generation::flat) {
    drop_if(dropped, r.enable_hisparse, "enable_hisparse (flat frame 12)");
  }
  if (g == Generation::pre_dims) {
    drop_if(dropped, !r.dst_state_item_lens.empty() || !r.dst_state_dim_per_tensor.empty(),
            "dst_state_item_lens and dst_state_dim_per_tensor (added by #16056)");
    drop_if(dropped, r.staging_base_ptr != 0 || r.staging_total_size != 0, "staging");
  }
  return dropped;
}

constexpr RegistrationTable make(Generation g, std::span<const FrameRow> rows)
{
  return RegistrationTable{TransferBackend::mooncake, g, "", rows, nullptr, &mooncake_dropped};
}

constexpr RegistrationTable tables[] = {
  make(Generation::pre_dims, pre_dims_rows),
  make(Generation::flat, flat_rows),
  make(Generation::components, components_rows),
  make(Generation::components_layouts, components_layouts_rows),
};

} // namespace

const RegistrationTable* mooncake_registration_table(Generation g)
{
  for (const RegistrationTable& t : tables) {
    if (t.generation == g) {
      return &t;
    }
  }
  return nullptr;
}

} // namespace pdcheck::wire::detail
