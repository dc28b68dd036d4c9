// NIXL registration frames (nixl/conn.py: NixlKVReceiver._register_kv_args and
// KVArgsRegisterInfo.from_zmq on payload = msg[1:]). Frame 0 is the guard
// b"NixlMsgGuard". Reference: ../shared/reference/sglang-pd-wire-and-checks.md §2.4.

#include "wire/field_codecs.hpp"
#include "wire/registration_backends.hpp"

#include <fmt/format.h>

namespace pdcheck::wire::detail {

namespace {

std::string join(const std::vector<std::string>& words, std::string_view sep)
{
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    out += (i == 0 ? "" : std::string(sep)) + words[i];
  }
  return out;
}

void read_common_tail(FrameReader& reader, Registration& r)
{
  using A = Absent;
  reader.read_into<std::string>(r.room, 0, "room", "ascii 'None'", A::required,
                                [](ByteView b) { return decode_none_literal(b); });
  reader.read_into<std::string>(r.endpoint, 1, "endpoint", "ascii", A::required, ascii_text());
  reader.read_into<std::int64_t>(r.dst_port, 2, "dst_port", "ascii int", A::required, ascii_int());
  reader.read_into<std::string>(r.agent_name, 3, "agent_name", "ascii", A::required, ascii_text());
  reader.read_into<Bytes>(r.agent_metadata, 4, "agent_metadata", "opaque", A::required,
                          [](ByteView b) { return decode_opaque(b); });
}

} // namespace

void decode_nixl_registration(FrameReader& reader, Generation g, Registration& r)
{
  using A = Absent;
  if (g != Generation::components && g != Generation::components_layouts) {
    // Older parsers: state pointers first, then the fields in frame order.
    reader.read_into<U64Lists>(r.dst_state_data_ptrs, 7, "dst_state_data_ptrs", "native 'Q' array",
                               A::default_when_absent_or_empty, native_as_component(IntFormat::u64));
    if (g == Generation::flat) {
      reader.read_into<U64Lists>(r.dst_state_item_lens, 12, "dst_state_item_lens", "native 'I' array",
                                 A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
      reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 13, "dst_state_dim_per_tensor", "native 'I' array",
                                 A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
    }
    read_common_tail(reader, r);
    reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_ptrs, 5, "dst_kv_ptrs", "native 'Q' array", A::required,
                                                 native_array(IntFormat::u64));
    reader.read_into<std::vector<std::uint64_t>>(r.dst_aux_ptrs, 6, "dst_aux_ptrs", "native 'Q' array", A::required,
                                                 native_array(IntFormat::u64));
    reader.read_into<std::int64_t>(r.gpu_id, 8, "gpu_id", "ascii int", A::required, ascii_int());
    reader.read_into<std::int64_t>(r.dst_attn_tp_size, 9, "decode_tp_size", "ascii int", A::required, ascii_int());
    reader.read_into<std::int64_t>(r.dst_tp_rank, 10, "decode_tp_rank", "ascii int", A::required, ascii_int());
    reader.read_into<std::int64_t>(r.dst_kv_item_len, 11, "dst_kv_item_len", "ascii int", A::required, ascii_int());
    if (g == Generation::flat) {
      reader.read_into<std::uint64_t>(r.staging_base_ptr, 14, "staging_base_ptr", "8-byte native 'Q' or b''",
                                      A::default_when_absent, [](ByteView b) { return decode_staging_base(b); });
      reader.read_into<std::int64_t>(r.staging_total_size, 15, "staging_total_size", "ascii int or b''",
                                     A::default_when_absent_or_empty, ascii_int());
    }
    return;
  }

  // Per-component parser: KV pointers and their metadata first.
  reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_ptrs, 5, "dst_kv_ptrs", "native 'Q' array", A::required,
                                               native_array(IntFormat::u64));
  const std::size_t kv_ptrs = r.dst_kv_ptrs.size();
  if (reader.present(17)) {
    reader.read_into<std::vector<std::string>>(r.dst_kv_mem_kinds, 17, "dst_kv_mem_kinds", "ascii, comma-joined",
                                               A::default_when_absent,
                                               [kv_ptrs](ByteView b) { return decode_mem_kinds(b, kv_ptrs); });
  } else {
    r.dst_kv_mem_kinds.assign(kv_ptrs, "VRAM");
  }
  reader.read_into<std::int64_t>(r.dst_kv_item_len, 11, "dst_kv_item_len", "ascii int", A::required, ascii_int());
  r.dst_kv_item_lens.assign(kv_ptrs, static_cast<std::uint64_t>(r.dst_kv_item_len));
  if (auto v = reader.read<std::vector<std::uint64_t>>(18, "dst_kv_item_lens", "native 'Q' array",
                                                       A::default_when_absent_or_empty,
                                                       native_array(IntFormat::u64))) {
    r.dst_kv_item_lens = *v;
    if (v->size() != kv_ptrs) {
      const std::string error =
        fmt::format("ValueError: dst_kv_item_lens length mismatch: got {}, expected {}", v->size(), kv_ptrs);
      if (reader.mode() == DecodeMode::strict) {
        reader.fail(18, "dst_kv_item_lens", 0,
                    fmt::format("expected {} item lens (one per KV pointer), got {}", kv_ptrs, v->size()),
                    "SGLang would raise " + error);
      } else {
        reader.fail(18, "dst_kv_item_lens", std::nullopt, error, reader.consequence());
      }
    }
  }
  reader.read_into<U64Lists>(r.dst_state_data_ptrs, 7, "dst_state_data_ptrs", "pack_int_lists 'Q'",
                             A::default_when_absent_or_empty, int_lists(IntFormat::u64));
  reader.read_into<U64Lists>(r.dst_state_item_lens, 12, "dst_state_item_lens", "pack_int_lists 'I'",
                             A::default_when_absent_or_empty, int_lists(IntFormat::u32));
  reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 13, "dst_state_dim_per_tensor", "pack_int_lists 'I'",
                             A::default_when_absent_or_empty, int_lists(IntFormat::u32));
  reader.read_into<std::int64_t>(r.dst_num_slots, 16, "dst_num_slots", "ascii int or b''",
                                 A::default_when_absent_or_empty, ascii_int());
  reader.read_into<U64Lists>(r.dst_state_layer_ids, 19, "dst_state_layer_ids", "pack_int_lists 'I'",
                             A::default_when_absent_or_empty, int_lists(IntFormat::u32));
  reader.read_into<std::vector<std::uint64_t>>(r.dst_kv_layer_ids, 20, "dst_kv_layer_ids", "native 'I' array",
                                               A::default_when_absent_or_empty, native_array(IntFormat::u32));
  read_common_tail(reader, r);
  reader.read_into<std::vector<std::uint64_t>>(r.dst_aux_ptrs, 6, "dst_aux_ptrs", "native 'Q' array", A::required,
                                               native_array(IntFormat::u64));
  reader.read_into<std::int64_t>(r.gpu_id, 8, "gpu_id", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_attn_tp_size, 9, "decode_tp_size", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_tp_rank, 10, "decode_tp_rank", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_dcp_size, 21, "dst_dcp_size", "ascii int", A::default_when_absent_or_empty,
                                 ascii_int());
  reader.read_into<std::int64_t>(r.dst_dcp_rank, 22, "dst_dcp_rank", "ascii int", A::default_when_absent_or_empty,
                                 ascii_int());
  reader.read_into<std::uint64_t>(r.staging_base_ptr, 14, "staging_base_ptr", "8-byte native 'Q' or b''",
                                  A::default_when_absent, [](ByteView b) { return decode_staging_base(b); });
  reader.read_into<std::int64_t>(r.staging_total_size, 15, "staging_total_size", "ascii int or b''",
                                 A::default_when_absent_or_empty, ascii_int());
}

EncodedRegistration encode_nixl_registration(const Registration& r, Generation g)
{
  EncodedRegistration out;
  Frames& f = out.frames;
  const bool comp = g == Generation::components || g == Generation::components_layouts;
  f.push_back(to_bytes("NixlMsgGuard"));
  f.push_back(to_bytes(r.room));
  f.push_back(to_bytes(r.endpoint));
  f.push_back(encode_ascii_int(r.dst_port));
  f.push_back(to_bytes(r.agent_name));
  f.push_back(r.agent_metadata);
  f.push_back(encode_native_array(r.dst_kv_ptrs, IntFormat::u64));
  f.push_back(encode_native_array(r.dst_aux_ptrs, IntFormat::u64));
  if (comp) {
    f.push_back(pack_int_lists(r.dst_state_data_ptrs, IntFormat::u64));
  } else {
    drop_if(out.dropped, r.dst_state_data_ptrs.size() > 1 || r.dst_state_item_lens.size() > 1,
            "state components after the first (one state_type per registration)");
    f.push_back(encode_native_array(first_component(r.dst_state_data_ptrs), IntFormat::u64));
  }
  f.push_back(encode_ascii_int(r.gpu_id));
  f.push_back(encode_ascii_int(r.dst_attn_tp_size));
  f.push_back(encode_ascii_int(r.dst_tp_rank));
  f.push_back(encode_ascii_int(r.dst_kv_item_len));
  if (!comp) {
    drop_if(out.dropped, !r.dst_state_layer_ids.empty() || !r.dst_kv_layer_ids.empty(), "layer ids");
    drop_if(out.dropped, r.dst_dcp_size != 1 || r.dst_dcp_rank != 0, "DCP size and rank");
    drop_if(out.dropped, r.dst_num_slots.has_value(), "dst_num_slots");
  }
  if (g == Generation::pre_dims) {
    drop_if(out.dropped, !r.dst_state_item_lens.empty() || !r.dst_state_dim_per_tensor.empty(),
            "dst_state_item_lens and dst_state_dim_per_tensor (added by #22240)");
    drop_if(out.dropped, r.staging_base_ptr != 0 || r.staging_total_size != 0, "staging");
    return out;
  }
  if (!comp) {
    f.push_back(encode_native_array(first_component(r.dst_state_item_lens), IntFormat::u32));
    f.push_back(encode_native_array(first_component(r.dst_state_dim_per_tensor), IntFormat::u32));
    f.push_back(staging_base_frame(r));
    f.push_back(staging_total_frame(r));
    return out;
  }
  f.push_back(pack_int_lists(r.dst_state_item_lens, IntFormat::u32));
  f.push_back(pack_int_lists(r.dst_state_dim_per_tensor, IntFormat::u32));
  f.push_back(staging_base_frame(r));
  f.push_back(staging_total_frame(r));
  f.push_back(r.dst_num_slots ? encode_ascii_int(*r.dst_num_slots) : Bytes{});
  f.push_back(to_bytes(join(r.dst_kv_mem_kinds, ",")));
  f.push_back(encode_native_array(r.dst_kv_item_lens, IntFormat::u64));
  f.push_back(pack_int_lists(r.dst_state_layer_ids, IntFormat::u32));
  f.push_back(encode_native_array(r.dst_kv_layer_ids, IntFormat::u32));
  f.push_back(encode_ascii_int(r.dst_dcp_size));
  f.push_back(encode_ascii_int(r.dst_dcp_rank));
  return out;
}

} // namespace pdcheck::wire::detail
