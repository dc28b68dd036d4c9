// Mori registration frames, one table per generation, rows in the order SGLang's
// parser evaluates them: python/sglang/srt/disaggregation/mori/conn.py,
// KVArgsRegisterInfo.from_zmq on payload = msg[1:] (parser) and
// MoriKVReceiver._register_kv_args (sender). Frame 0 is the guard
// b"MoriMsgGuard" (_validate_message drops anything else); the payload indices
// below do not count it.
//
// - flat: the single state_type Mori of PR #22665: payload 6 one flat msgpack
//   list of descriptors, 11/12 flat native 'I' arrays.
// - components: mori/conn.py @ 0094505d (PR #26539 fixed the half-migrated
//   v0.5.12): payload 6 a msgpack list of per-component lists, 11/12 pack_int_lists.

#include "wire/registration_backends.hpp"
#include "wire/registration_table.hpp"

namespace pdcheck::wire::detail {

namespace {

using A = Absent;
using C = Codec;
using R = Registration;

constexpr DescListMember kv_descs{&R::dst_kv_mem_descs, &R::kv_mem_desc_count};
constexpr DescListMember aux_descs{&R::dst_aux_mem_descs, &R::aux_mem_desc_count};
constexpr StateDescMember state_descs{&R::dst_state_mem_descs, &R::state_mem_desc_counts};

// The bootstrap thread tells registrations from requests by payload[0].
constexpr FrameRow flat_rows[] = {
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "engine_desc", C::engine_desc, A::required, &R::engine_desc),
  frame(4, "dst_kv_mem_descs", C::desc_list, A::required, kv_descs),
  frame(5, "dst_aux_mem_descs", C::desc_list, A::required, aux_descs),
  frame(6, "dst_state_mem_descs", C::state_desc_list, A::required, state_descs),
  frame(7, "gpu_id", C::ascii_int, A::required, &R::gpu_id),
  frame(8, "decode_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "decode_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(10, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(11, "dst_state_item_lens", C::component_u32, A::default_when_absent_or_empty, &R::dst_state_item_lens),
  frame(12, "dst_state_dim_per_tensor", C::component_u32, A::default_when_absent_or_empty,
        &R::dst_state_dim_per_tensor),
};

constexpr FrameRow components_rows[] = {
  frame(0, "room", C::none_literal, A::required, &R::room),
  frame(1, "endpoint", C::ascii_text, A::required, &R::endpoint),
  frame(2, "dst_port", C::ascii_int, A::required, &R::dst_port),
  frame(3, "engine_desc", C::engine_desc, A::required, &R::engine_desc),
  frame(4, "dst_kv_mem_descs", C::desc_list, A::required, kv_descs),
  frame(5, "dst_aux_mem_descs", C::desc_list, A::required, aux_descs),
  frame(6, "dst_state_mem_descs", C::state_desc_lists, A::required, state_descs),
  frame(7, "gpu_id", C::ascii_int, A::required, &R::gpu_id),
  frame(8, "decode_tp_size", C::ascii_int, A::required, &R::dst_attn_tp_size),
  frame(9, "decode_tp_rank", C::ascii_int, A::required, &R::dst_tp_rank),
  frame(10, "dst_kv_item_len", C::ascii_int, A::required, &R::dst_kv_item_len),
  frame(11, "dst_state_item_lens", C::lists_u32, A::default_when_absent_or_empty, &R::dst_state_item_lens),
  frame(12, "dst_state_dim_per_tensor", C::lists_u32, A::default_when_absent_or_empty,
        &R::dst_state_dim_per_tensor),
};

constexpr const char* opaque_note =
  "Mori descriptors are opaque to pdcheck: EngineDesc.unpack / MemoryDesc.unpack errors cannot be predicted";

// What a Mori generation cannot carry, in the order `pdcheck encode` notes it.
std::vector<std::string> mori_dropped(const Registration& r, Generation g)
{
  std::vector<std::string> dropped;
  if (g != Generation::components) {
    drop_if(dropped, r.dst_state_item_lens.size() > 1 || r.dst_state_dim_per_tensor.size() > 1,
            "state components after the first (one state_type per registration)");
  }
  drop_if(dropped, !r.dst_kv_ptrs.empty() || !r.dst_aux_ptrs.empty() || !r.dst_state_data_ptrs.empty(),
          "raw pointers (Mori sends memory descriptors instead)");
  drop_if(dropped, !r.dst_state_layer_ids.empty() || !r.dst_kv_layer_ids.empty(), "layer ids (Mori registers none)");
  drop_if(dropped, r.dst_dcp_size != 1 || r.dst_dcp_rank != 0, "DCP size and rank");
  return dropped;
}

constexpr RegistrationTable make(Generation g, std::span<const FrameRow> rows)
{
  return RegistrationTable{TransferBackend::mori, g, "MoriMsgGuard", rows, opaque_note, &mori_dropped};
}

constexpr RegistrationTable tables[] = {
  make(Generation::flat, flat_rows),
  make(Generation::components, components_rows),
};

} // namespace

const RegistrationTable* mori_registration_table(Generation g)
{
  for (const RegistrationTable& t : tables) {
    if (t.generation == g) {
      return &t;
    }
  }
  return nullptr;
}

} // namespace pdcheck::wire::detail
