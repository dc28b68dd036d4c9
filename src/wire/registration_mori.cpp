// Mori registration frames (mori/conn.py: MoriKVReceiver._register_kv_args and
// KVArgsRegisterInfo.from_zmq on payload = msg[1:]). Frame 0 is the guard
// b"MoriMsgGuard". Reference: ../shared/reference/sglang-pd-wire-and-checks.md §2.3.

#include "wire/field_codecs.hpp"
#include "wire/msgpack.hpp"
#include "wire/registration_backends.hpp"

#include <fmt/format.h>

namespace pdcheck::wire::detail {

namespace {

// A descriptor frame decoded by shape; `want_nested` is what this parser expects.
auto desc_frame(bool want_nested)
{
  return [want_nested](ByteView b) {
    Decoded<DescListShape> d = decode_desc_list(b);
    if (d.ok() && !b.empty() && d.value.nested != want_nested && !(d.value.counts == std::vector<std::size_t>{0})) {
      // A well-formed msgpack list of the other shape: SGLang's list
      // comprehension hands MemoryDesc.unpack the wrong type.
      d.issue = WireIssue{0, want_nested ? "expected a msgpack list of per-component descriptor lists, got a flat list "
                                           "of descriptors (single state_type Mori)"
                                         : "expected a flat msgpack list of descriptors, got a list of lists "
                                           "(per-component Mori)"};
      d.sglang.raises = "an exception from MemoryDesc.unpack (it is handed the wrong type; pdcheck cannot name it)";
      d.sglang_value.reset();
    }
    return d;
  };
}

} // namespace

void decode_mori_registration(FrameReader& reader, Generation g, Registration& r)
{
  using A = Absent;
  const bool comp = g == Generation::components;

  // The bootstrap thread tells registrations from requests by payload[0].
  reader.read_into<std::string>(r.room, 0, "room", "ascii 'None'", A::required,
                                [](ByteView b) { return decode_none_literal(b); });
  reader.read_into<std::string>(r.endpoint, 1, "endpoint", "ascii", A::required, ascii_text());
  reader.read_into<std::int64_t>(r.dst_port, 2, "dst_port", "ascii int", A::required, ascii_int());
  reader.read_into<Bytes>(r.engine_desc, 3, "engine_desc", "opaque EngineDesc.pack()", A::required,
                          [](ByteView b) { return decode_opaque(b); });
  if (auto v = reader.read<DescListShape>(4, "dst_kv_mem_descs", "msgpack list", A::required, desc_frame(false))) {
    r.dst_kv_mem_descs.assign(reader.frame(4).begin(), reader.frame(4).end());
    r.kv_mem_desc_count = v->counts.empty() ? 0 : v->counts[0];
  }
  if (auto v = reader.read<DescListShape>(5, "dst_aux_mem_descs", "msgpack list", A::required, desc_frame(false))) {
    r.dst_aux_mem_descs.assign(reader.frame(5).begin(), reader.frame(5).end());
    r.aux_mem_desc_count = v->counts.empty() ? 0 : v->counts[0];
  }
  if (auto v = reader.read<DescListShape>(6, "dst_state_mem_descs",
                                          comp ? "msgpack list of lists" : "msgpack list", A::required,
                                          desc_frame(comp))) {
    r.dst_state_mem_descs.assign(reader.frame(6).begin(), reader.frame(6).end());
    r.state_mem_desc_counts = v->counts;
    // A flat list is one component, and an empty one is none at all (the shape
    // check above lets only an empty flat list through for components).
    if (!v->nested && r.state_mem_desc_counts == std::vector<std::size_t>{0}) {
      r.state_mem_desc_counts.clear();
    }
  }
  reader.read_into<std::int64_t>(r.gpu_id, 7, "gpu_id", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_attn_tp_size, 8, "decode_tp_size", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_tp_rank, 9, "decode_tp_rank", "ascii int", A::required, ascii_int());
  reader.read_into<std::int64_t>(r.dst_kv_item_len, 10, "dst_kv_item_len", "ascii int", A::required, ascii_int());
  if (comp) {
    reader.read_into<U64Lists>(r.dst_state_item_lens, 11, "dst_state_item_lens", "pack_int_lists 'I'",
                               A::default_when_absent_or_empty, int_lists(IntFormat::u32));
    reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 12, "dst_state_dim_per_tensor", "pack_int_lists 'I'",
                               A::default_when_absent_or_empty, int_lists(IntFormat::u32));
  } else {
    reader.read_into<U64Lists>(r.dst_state_item_lens, 11, "dst_state_item_lens", "native 'I' array",
                               A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
    reader.read_into<U64Lists>(r.dst_state_dim_per_tensor, 12, "dst_state_dim_per_tensor", "native 'I' array",
                               A::default_when_absent_or_empty, native_as_component(IntFormat::u32));
  }
  if (reader.mode() == DecodeMode::sglang && !reader.stopped()) {
    reader.note("Mori descriptors are opaque to pdcheck: EngineDesc.unpack / MemoryDesc.unpack errors cannot be "
                "predicted");
  }
}

EncodedRegistration encode_mori_registration(const Registration& r, Generation g)
{
  EncodedRegistration out;
  Frames& f = out.frames;
  const bool comp = g == Generation::components;
  f.push_back(to_bytes("MoriMsgGuard"));
  f.push_back(to_bytes(r.room));
  f.push_back(to_bytes(r.endpoint));
  f.push_back(encode_ascii_int(r.dst_port));
  f.push_back(r.engine_desc);
  f.push_back(r.dst_kv_mem_descs);
  f.push_back(r.dst_aux_mem_descs);
  f.push_back(r.dst_state_mem_descs);
  f.push_back(encode_ascii_int(r.gpu_id));
  f.push_back(encode_ascii_int(r.dst_attn_tp_size));
  f.push_back(encode_ascii_int(r.dst_tp_rank));
  f.push_back(encode_ascii_int(r.dst_kv_item_len));
  if (comp) {
    f.push_back(pack_int_lists(r.dst_state_item_lens, IntFormat::u32));
    f.push_back(pack_int_lists(r.dst_state_dim_per_tensor, IntFormat::u32));
  } else {
    drop_if(out.dropped, r.dst_state_item_lens.size() > 1 || r.dst_state_dim_per_tensor.size() > 1,
            "state components after the first (one state_type per registration)");
    f.push_back(encode_native_array(first_component(r.dst_state_item_lens), IntFormat::u32));
    f.push_back(encode_native_array(first_component(r.dst_state_dim_per_tensor), IntFormat::u32));
  }
  drop_if(out.dropped, !r.dst_kv_ptrs.empty() || !r.dst_aux_ptrs.empty() || !r.dst_state_data_ptrs.empty(),
          "raw pointers (Mori sends memory descriptors instead)");
  drop_if(out.dropped, !r.dst_state_layer_ids.empty() || !r.dst_kv_layer_ids.empty(),
          "layer ids (Mori registers none)");
  drop_if(out.dropped, r.dst_dcp_size != 1 || r.dst_dcp_rank != 0, "DCP size and rank");
  return out;
}

} // namespace pdcheck::wire::detail
