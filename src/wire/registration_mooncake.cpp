// Mooncake registration frames (mooncake/conn.py: MooncakeKVReceiver._register_kv_args
// and KVArgsRegisterInfo.from_zmq), every generation. Frame tables:
// ../shared/reference/sglang-pd-wire-and-checks.md §2.1-§2.2.

#include "wire/field_codecs.hpp"
#include "wire/registration_backends.hpp"

#include <fmt/format.h>

namespace pdcheck::wire::detail {

namespace {

bool has_components(Generation g)
{
  return g == Generation::components || g == Generation::components_layouts;
}

} // namespace

void decode_mooncake_registration(FrameReader& reader, Generation g, Registration& r)
{
  using A = Absent;
  const bool comp = has_components(g);
  const bool gen3 = g == Generation::components_layouts;

  // Gen-3 evaluates json.loads(msg[20]) before any other field.
  if (gen3) {
    reader.read_into<std::optional<std::string>>(r.unified_layouts_json, 20, "unified_layouts", "JSON or b''",
                                                 A::default_when_absent_or_empty,
                                                 [](ByteView b) { return decode_layouts_json(b); });
  }
  reader.read_into<std::string>(r.room, 0, "room", "ascii 'None'", A::required,
                                [](ByteView b) { return decode_none_literal(b); });
  reader.read_into<std::string>(r.endpoint, 1, "endpoint", "ascii", A::required, ascii_text());
  reader.read_into<std::int64_t>(r.dst_port, 2, "dst_port", "ascii int", A::required, ascii_int());
  reader.read_into<std::string>(r.mooncake_session_id, 3, "mooncake_session_id", "ascii", A::required, ascii_text());
  reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_ptrs, 4, "dst_kv_ptrs", "native 'Q' array", A::required,
                                               native_array(IntFormat::u64));
  reader.read_into<std::vector<std::uint64_t>>(r.dst_aux_ptrs, 5, "dst_aux_ptrs", "native 'Q' array", A::required,
                                               native_array(IntFormat::u64));
  if (comp) {
    reader.read_into<U64Lists>(r.dst_state_data_ptrs, 6, "dst_state_data_ptrs", "pack_int_lists 'Q'", A::required,
                               int_lists(IntFormat::u64));
  } else {
    reader.read_into<U64Lists>(r.dst_state_data_ptrs, 6, "dst_state_data_ptrs", "native 'Q' array", A::required,
                               native_as_component(IntFormat::u64));
  }
  reader.read_into<std::int64_t>(r.dst_tp_rank, 7, "dst_tp_rank", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_attn_tp_size, 8, "dst_attn_tp_size", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_kv_item_len, 9, "dst_kv_item_len", "ascii int", A::required, ascii_int());
  if (g == Generation::pre_dims) {
    return;
  }
  if (g == Generation::flat) {
    reader.read_into<U64Lists>(r.dst_state_item_lens, 10, "dst_state_item_lens", "native 'I' array",
                               A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
    reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 11, "dst_state_dim_per_tensor", "native 'I' array",
                               A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
    reader.read_into<bool>(r.enable_hisparse, 12, "enable_hisparse", "ascii '0'/'1'", A::default_when_absent,
                           [](ByteView b) { return decode_hisparse_flag(b); });
    reader.read_into<std::uint64_t>(r.staging_base_ptr, 13, "staging_base_ptr", "8-byte native 'Q' or b''",
                                    A::default_when_absent, [](ByteView b) { return decode_staging_base(b); });
    reader.read_into<std::int64_t>(r.staging_total_size, 14, "staging_total_size", "ascii int or b''",
                                   A::default_when_absent_or_empty, ascii_int());
    return;
  }
  reader.read_into<U64Lists>(r.dst_state_item_lens, 10, "dst_state_item_lens", "pack_int_lists 'I'",
                             A::default_when_absent, int_lists(IntFormat::u32));
  reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 11, "dst_state_dim_per_tensor", "pack_int_lists 'I'",
                             A::default_when_absent, int_lists(IntFormat::u32));
  reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_layer_ids, 12, "dst_kv_layer_ids", "native 'I' array",
                                               A::default_when_absent_or_empty, native_array(IntFormat::u32));
  reader.read_into<U64Lists>(r.dst_state_layer_ids, 13, "dst_state_layer_ids", "pack_int_lists 'I'",
                             A::default_when_absent_or_empty, int_lists(IntFormat::u32));
  reader.read_into<std::uint64_t>(r.staging_base_ptr, 14, "staging_base_ptr", "8-byte native 'Q' or b''",
                                  A::default_when_absent, [](ByteView b) { return decode_staging_base(b); });
  reader.read_into<std::int64_t>(r.staging_total_size, 15, "staging_total_size", "ascii int or b''",
                                 A::default_when_absent_or_empty, ascii_int());
  reader.read_into<std::int64_t>(r.dst_dcp_size, 16, "dst_dcp_size", "ascii int", A::default_when_absent_or_empty,
                                 ascii_int());
  reader.read_into<std::int64_t>(r.dst_dcp_rank, 17, "dst_dcp_rank", "ascii int", A::default_when_absent_or_empty,
                                 ascii_int());
  if (gen3) {
    reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_item_lens, 19, "dst_kv_item_lens", "native 'Q' array",
                                                 A::default_when_absent_or_empty, native_array(IntFormat::u64));
  }
  // StagingRegisterInfo.from_zmq_fields(msg, 14, slot_ids_index=18) runs last.
  reader.read_into<std::vector<std::uint64_t>>(r.staging_slot_layer_ids, 18, "staging_slot_layer_ids",
                                               "native 'Q' array", A::default_when_absent_or_empty,
                                               native_array(IntFormat::u64));
}

EncodedRegistration encode_mooncake_registration(const Registration& r, Generation g)
{
  EncodedRegistration out;
  Frames& f = out.frames;
  const bool comp = has_components(g);
  const bool flat_like = !comp;

  f.push_back(to_bytes(r.room));
  f.push_back(to_bytes(r.endpoint));
  f.push_back(encode_ascii_int(r.dst_port));
  f.push_back(to_bytes(r.mooncake_session_id));
  f.push_back(encode_native_array(r.dst_kv_ptrs, IntFormat::u64));
  f.push_back(encode_native_array(r.dst_aux_ptrs, IntFormat::u64));
  if (comp) {
    f.push_back(pack_int_lists(r.dst_state_data_ptrs, IntFormat::u64));
  } else {
    f.push_back(encode_native_array(first_component(r.dst_state_data_ptrs), IntFormat::u64));
  }
  f.push_back(encode_ascii_int(r.dst_tp_rank));
  f.push_back(encode_ascii_int(r.dst_attn_tp_size));
  f.push_back(encode_ascii_int(r.dst_kv_item_len));

  auto& dropped = out.dropped;
  if (flat_like) {
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
    return out;
  }
  if (g == Generation::flat) {
    f.push_back(encode_native_array(first_component(r.dst_state_item_lens), IntFormat::u32));
    f.push_back(encode_native_array(first_component(r.dst_state_dim_per_tensor), IntFormat::u32));
    f.push_back(to_bytes(r.enable_hisparse ? "1" : "0"));
    f.push_back(staging_base_frame(r));
    f.push_back(staging_total_frame(r));
    return out;
  }
  f.push_back(pack_int_lists(r.dst_state_item_lens, IntFormat::u32));
  f.push_back(pack_int_lists(r.dst_state_dim_per_tensor, IntFormat::u32));
  f.push_back(encode_native_array(r.dst_kv_layer_ids, IntFormat::u32));
  f.push_back(pack_int_lists(r.dst_state_layer_ids, IntFormat::u32));
  f.push_back(staging_base_frame(r));
  f.push_back(staging_total_frame(r));
  f.push_back(encode_ascii_int(r.dst_dcp_size));
  f.push_back(encode_ascii_int(r.dst_dcp_rank));
  f.push_back(encode_native_array(r.staging_slot_layer_ids, IntFormat::u64));
  if (g == Generation::components_layouts) {
    f.push_back(encode_native_array(r.dst_kv_item_lens, IntFormat::u64));
    f.push_back(r.unified_layouts_json ? to_bytes(*r.unified_layouts_json) : Bytes{});
  }
  return out;
}

} // namespace pdcheck::wire::detail
