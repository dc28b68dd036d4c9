// The one registration decoder and the one encoder: both walk the frame table
// of a (backend, generation) (registration_table.hpp), the decoder in SGLang's
// evaluation order, the encoder by frame index.

#include "core/sglang_messages.hpp"
#include "wire/field_codecs.hpp"
#include "wire/msgpack.hpp"
#include "wire/registration_backends.hpp"
#include "wire/registration_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace pdcheck::wire {

std::string_view codec_encoding(Codec codec)
{
  switch (codec) {
  case Codec::none_literal: return "ascii 'None'";
  case Codec::ascii_text: return "ascii";
  case Codec::ascii_int: return "ascii int";
  case Codec::optional_ascii_int:
  case Codec::staging_total: return "ascii int or b''";
  case Codec::native_u64:
  case Codec::component_u64:
  case Codec::kv_item_lens: return "native 'Q' array";
  case Codec::native_u32:
  case Codec::component_u32: return "native 'I' array";
  case Codec::lists_u64: return "pack_int_lists 'Q'";
  case Codec::lists_u32: return "pack_int_lists 'I'";
  case Codec::hisparse_flag: return "ascii '0'/'1'";
  case Codec::staging_base: return "8-byte native 'Q' or b''";
  case Codec::layouts_json: return "JSON or b''";
  case Codec::opaque: return "opaque";
  case Codec::engine_desc: return "opaque EngineDesc.pack()";
  case Codec::desc_list:
  case Codec::state_desc_list: return "msgpack list";
  case Codec::state_desc_lists: return "msgpack list of lists";
  case Codec::mem_kinds: return "ascii, comma-joined";
  }
  return "?";
}

const RegistrationTable* find_registration_table(TransferBackend backend, Generation g)
{
  switch (backend) {
  case TransferBackend::mooncake: return detail::mooncake_registration_table(g);
  case TransferBackend::mori: return detail::mori_registration_table(g);
  case TransferBackend::nixl: return detail::nixl_registration_table(g);
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  return nullptr;
}

const RegistrationTable& registration_table(TransferBackend backend, Generation g)
{
  if (const RegistrationTable* t = find_registration_table(backend, g)) {
    return *t;
  }
  throw std::invalid_argument(
    fmt::format("{} has no {} registration generation", transfer_backend_name(backend), generation_name(g)));
}

namespace {

// Whether `row` carries `member`; a Mori descriptor frame is also found by its bytes member.
bool carries(const FrameRow& row, const FrameMember& member)
{
  if (row.member == member) {
    return true;
  }
  const auto* bytes = std::get_if<Bytes Registration::*>(&member);
  if (bytes == nullptr) {
    return false;
  }
  if (const auto* d = std::get_if<DescListMember>(&row.member)) {
    return d->bytes == *bytes;
  }
  if (const auto* d = std::get_if<StateDescMember>(&row.member)) {
    return d->bytes == *bytes;
  }
  return false;
}

} // namespace

std::string_view registration_field_name(TransferBackend backend, const FrameMember& member)
{
  std::vector<Generation> generations = backend_generations(backend);
  std::reverse(generations.begin(), generations.end());
  for (Generation g : generations) {
    for (const FrameRow& row : registration_table(backend, g).rows) {
      if (carries(row, member)) {
        return row.field;
      }
    }
  }
  throw std::logic_error(fmt::format("no {} registration frame carries this field", transfer_backend_name(backend)));
}

namespace detail {

namespace {

using R = Registration;

/// A flat native array read as one component (b"" -> no component), for flat generations.
Decoded<U64Lists> native_as_component(ByteView b, IntFormat f)
{
  Decoded<std::vector<std::uint64_t>> d = decode_native_array(b, f);
  Decoded<U64Lists> out;
  out.issue = d.issue;
  out.sglang = d.sglang;
  if (!d.value.empty()) {
    out.value.push_back(d.value);
  }
  if (d.sglang_value && !d.sglang_value->empty()) {
    out.sglang_value = U64Lists{*d.sglang_value};
  } else if (d.sglang_value) {
    out.sglang_value = U64Lists{};
  }
  return out;
}

// A Mori descriptor frame decoded by shape; `want_nested` is what this parser expects.
Decoded<DescListShape> desc_frame(ByteView b, bool want_nested)
{
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
}

/// Reads `row` as T (what the codec's decoder yields) into member M of `r`.
template <typename T, typename M, typename F>
void read_member(FrameReader& reader, const FrameRow& row, Registration& r, F decode)
{
  reader.read_into<T>(r.*std::get<M R::*>(row.member), row.index, row.field, codec_encoding(row.codec).data(),
                      row.absent, std::move(decode));
}

void decode_row(FrameReader& reader, const FrameRow& row, Registration& r)
{
  using U64s = std::vector<std::uint64_t>;
  const char* encoding = codec_encoding(row.codec).data();
  switch (row.codec) {
  case Codec::none_literal:
    read_member<std::string, std::string>(reader, row, r, [](ByteView b) { return decode_none_literal(b); });
    return;
  case Codec::ascii_text:
    read_member<std::string, std::string>(reader, row, r, [](ByteView b) { return decode_ascii_text(b); });
    return;
  case Codec::ascii_int:
  case Codec::staging_total:
    read_member<std::int64_t, std::int64_t>(reader, row, r, [](ByteView b) { return decode_ascii_int(b); });
    return;
  case Codec::optional_ascii_int:
    read_member<std::int64_t, std::optional<std::int64_t>>(reader, row, r,
                                                           [](ByteView b) { return decode_ascii_int(b); });
    return;
  case Codec::native_u64:
  case Codec::native_u32: {
    const IntFormat f = row.codec == Codec::native_u64 ? IntFormat::u64 : IntFormat::u32;
    read_member<U64s, U64s>(reader, row, r, [f](ByteView b) { return decode_native_array(b, f); });
    return;
  }
  case Codec::lists_u64:
  case Codec::lists_u32: {
    const IntFormat f = row.codec == Codec::lists_u64 ? IntFormat::u64 : IntFormat::u32;
    read_member<U64Lists, U64Lists>(reader, row, r, [f](ByteView b) { return unpack_int_lists(b, f); });
    return;
  }
  case Codec::component_u64:
  case Codec::component_u32: {
    const IntFormat f = row.codec == Codec::component_u64 ? IntFormat::u64 : IntFormat::u32;
    read_member<U64Lists, U64Lists>(reader, row, r, [f](ByteView b) { return native_as_component(b, f); });
    return;
  }
  case Codec::hisparse_flag:
    read_member<bool, bool>(reader, row, r, [](ByteView b) { return decode_hisparse_flag(b); });
    return;
  case Codec::staging_base:
    read_member<std::uint64_t, std::uint64_t>(reader, row, r, [](ByteView b) { return decode_staging_base(b); });
    return;
  case Codec::layouts_json:
    read_member<std::optional<std::string>, std::optional<std::string>>(
      reader, row, r, [](ByteView b) { return decode_layouts_json(b); });
    return;
  case Codec::opaque:
  case Codec::engine_desc:
    read_member<Bytes, Bytes>(reader, row, r, [](ByteView b) { return decode_opaque(b); });
    return;
  case Codec::desc_list: {
    const DescListMember m = std::get<DescListMember>(row.member);
    if (auto v = reader.read<DescListShape>(row.index, row.field, encoding, row.absent,
                                            [](ByteView b) { return desc_frame(b, false); })) {
      (r.*m.bytes).assign(reader.frame(row.index).begin(), reader.frame(row.index).end());
      r.*m.count = v->counts.empty() ? 0 : v->counts[0];
    }
    return;
  }
  case Codec::state_desc_list:
  case Codec::state_desc_lists: {
    const StateDescMember m = std::get<StateDescMember>(row.member);
    const bool nested = row.codec == Codec::state_desc_lists;
    if (auto v = reader.read<DescListShape>(row.index, row.field, encoding, row.absent,
                                            [nested](ByteView b) { return desc_frame(b, nested); })) {
      (r.*m.bytes).assign(reader.frame(row.index).begin(), reader.frame(row.index).end());
      r.*m.counts = v->counts;
      // A flat list is one component, and an empty one is none at all (the shape
      // check lets only an empty flat list through for components).
      if (!v->nested && r.*m.counts == std::vector<std::size_t>{0}) {
        (r.*m.counts).clear();
      }
    }
    return;
  }
  case Codec::mem_kinds: {
    // nixl/conn.py KVArgsRegisterInfo.from_zmq: all VRAM unless frame 17 says otherwise.
    const std::size_t kv_ptrs = r.dst_kv_ptrs.size();
    std::vector<std::string>& kinds = r.*std::get<std::vector<std::string> R::*>(row.member);
    kinds.assign(kv_ptrs, "VRAM");
    reader.read_into<std::vector<std::string>>(kinds, row.index, row.field, encoding, row.absent,
                                               [kv_ptrs](ByteView b) { return decode_mem_kinds(b, kv_ptrs); });
    return;
  }
  case Codec::kv_item_lens: {
    // nixl/conn.py KVArgsRegisterInfo.from_zmq: `[dst_kv_item_len] * len(kv_ptrs)`
    // unless frame 18 is sent, and then one per KV pointer.
    const std::size_t kv_ptrs = r.dst_kv_ptrs.size();
    U64s& lens = r.*std::get<U64s R::*>(row.member);
    lens.assign(kv_ptrs, static_cast<std::uint64_t>(r.dst_kv_item_len));
    if (auto v = reader.read<U64s>(row.index, row.field, encoding, row.absent,
                                   [](ByteView b) { return decode_native_array(b, IntFormat::u64); })) {
      lens = *v;
      if (v->size() != kv_ptrs) {
        const std::string error =
          render_delivered(MessageId::nixl_item_lens_count, {{"got", v->size()}, {"expected", kv_ptrs}});
        if (reader.mode() == DecodeMode::strict) {
          reader.fail(row.index, row.field, 0,
                      fmt::format("expected {} item lens (one per KV pointer), got {}", kv_ptrs, v->size()),
                      "SGLang would raise " + error);
        } else {
          reader.fail(row.index, row.field, std::nullopt, error, std::string(reader.consequence()));
        }
      }
    }
    return;
  }
  }
}

bool has_staging(const Registration& r)
{
  return r.staging_base_ptr != 0 || r.staging_total_size != 0;
}

std::string join(const std::vector<std::string>& words, std::string_view sep)
{
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    out += (i == 0 ? "" : std::string(sep)) + words[i];
  }
  return out;
}

template <typename M>
const M& member_of(const Registration& r, const FrameRow& row)
{
  return r.*std::get<M R::*>(row.member);
}

Bytes encode_row(const Registration& r, const FrameRow& row)
{
  using U64s = std::vector<std::uint64_t>;
  switch (row.codec) {
  case Codec::none_literal:
  case Codec::ascii_text: return to_bytes(member_of<std::string>(r, row));
  case Codec::ascii_int: return encode_ascii_int(member_of<std::int64_t>(r, row));
  case Codec::optional_ascii_int: {
    const std::optional<std::int64_t>& v = member_of<std::optional<std::int64_t>>(r, row);
    return v ? encode_ascii_int(*v) : Bytes{};
  }
  case Codec::native_u64:
  case Codec::kv_item_lens: return encode_native_array(member_of<U64s>(r, row), IntFormat::u64);
  case Codec::native_u32: return encode_native_array(member_of<U64s>(r, row), IntFormat::u32);
  case Codec::lists_u64: return pack_int_lists(member_of<U64Lists>(r, row), IntFormat::u64);
  case Codec::lists_u32: return pack_int_lists(member_of<U64Lists>(r, row), IntFormat::u32);
  case Codec::component_u64:
    return encode_native_array(first_component(member_of<U64Lists>(r, row)), IntFormat::u64);
  case Codec::component_u32:
    return encode_native_array(first_component(member_of<U64Lists>(r, row)), IntFormat::u32);
  case Codec::hisparse_flag: return to_bytes(member_of<bool>(r, row) ? "1" : "0");
  case Codec::staging_base: {
    Bytes out;
    if (has_staging(r)) {
      append_le64(out, member_of<std::uint64_t>(r, row));
    }
    return out;
  }
  case Codec::staging_total:
    return has_staging(r) ? encode_ascii_int(member_of<std::int64_t>(r, row)) : Bytes{};
  case Codec::layouts_json: {
    const std::optional<std::string>& json = member_of<std::optional<std::string>>(r, row);
    return json ? to_bytes(*json) : Bytes{};
  }
  case Codec::opaque:
  case Codec::engine_desc: return member_of<Bytes>(r, row);
  case Codec::desc_list: return r.*std::get<DescListMember>(row.member).bytes;
  case Codec::state_desc_list:
  case Codec::state_desc_lists: return r.*std::get<StateDescMember>(row.member).bytes;
  case Codec::mem_kinds: return to_bytes(join(member_of<std::vector<std::string>>(r, row), ","));
  }
  return {};
}

} // namespace

void decode_registration_frames(FrameReader& reader, const RegistrationTable& table, Registration& r)
{
  for (const FrameRow& row : table.rows) {
    decode_row(reader, row, r);
  }
  if (table.sglang_note != nullptr && reader.mode() == DecodeMode::sglang && !reader.stopped()) {
    reader.note(table.sglang_note);
  }
}

EncodedRegistration encode_registration_frames(const Registration& r, const RegistrationTable& table)
{
  EncodedRegistration out;
  // By frame index, so that a value that does not fit names the first such frame.
  std::vector<const FrameRow*> by_index;
  for (const FrameRow& row : table.rows) {
    by_index.push_back(&row);
  }
  std::sort(by_index.begin(), by_index.end(), [](const FrameRow* a, const FrameRow* b) { return a->index < b->index; });
  if (!table.guard.empty()) {
    out.frames.push_back(to_bytes(table.guard));
  }
  for (const FrameRow* row : by_index) {
    out.frames.push_back(encode_row(r, *row));
  }
  if (table.dropped != nullptr) {
    out.dropped = table.dropped(r, table.generation);
  }
  return out;
}

std::vector<std::uint64_t> first_component(const U64Lists& lists)
{
  return lists.empty() ? std::vector<std::uint64_t>{} : lists[0];
}

void drop_if(std::vector<std::string>& dropped, bool condition, std::string what)
{
  if (condition) {
    dropped.push_back(std::move(what));
  }
}

} // namespace detail

} // namespace pdcheck::wire
