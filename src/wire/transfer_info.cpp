// Per-request TransferInfo frames of the three backends:
// python/sglang/srt/disaggregation/{mooncake,mori,nixl}/conn.py, TransferInfo.from_zmq
// (parser; Mori and NIXL on payload = msg[1:]) and the receivers' send_metadata
// (sender), the same in mooncake/conn.py @ 0005973a and @ 6d8ea7e3.

#include "wire/transfer_info.hpp"

#include "util/error.hpp"
#include "wire/field_codecs.hpp"
#include "wire/frame_reader.hpp"
#include "wire/int_lists.hpp"
#include "wire/scalars.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <stdexcept>
#include <tuple>

namespace pdcheck::wire {

namespace {

using detail::Absent;
using detail::FrameReader;

auto wire_fields(const TransferInfo& t)
{
  return std::tie(t.backend, t.room, t.endpoint, t.dst_port, t.mooncake_session_id, t.engine_key, t.agent_name,
                  t.dst_kv_indices, t.dst_aux_index, t.dst_state_indices, t.required_dst_info_num, t.decode_prefix_len,
                  t.dst_device_kv_indices, t.is_dummy_rank, t.transfer_generation, t.is_dummy);
}

std::string_view consequence(TransferBackend backend)
{
  switch (backend) {
  case TransferBackend::mooncake:
    return "the prefill bootstrap thread has no try/except, so it dies and reads no further message";
  case TransferBackend::mori:
    return "Mori catches it and logs 'Failed to parse transfer info message'; the request waits";
  case TransferBackend::nixl: return "NIXL records the error for this room and fails it";
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  return "";
}

using detail::FieldCodec;

auto ascii_int()
{
  return FieldCodec{[](ByteView b) { return decode_ascii_int(b); }, [](ByteView b) { return is_str_int(b); }};
}
auto ascii_text()
{
  return FieldCodec{[](ByteView b) { return decode_ascii_text(b); }, [](ByteView b) { return is_ascii(b); }};
}
auto int32_array()
{
  return FieldCodec{[](ByteView b) { return decode_int32_array(b); }, [](ByteView b) { return is_int32_array(b); }};
}
auto index_lists()
{
  return FieldCodec{[](ByteView b) { return unpack_int_lists_i32(b); }, [](ByteView b) { return is_sane_int_lists(b, 4); }};
}
auto opaque()
{
  return FieldCodec{[](ByteView b) { return detail::decode_opaque(b); }, [](ByteView) { return true; }};
}
// A flat int32 array read as one component (b"" -> none).
auto index_array_as_component()
{
  const auto decode = [](ByteView b) {
    Decoded<std::vector<std::int32_t>> d = decode_int32_array(b);
    Decoded<I32Lists> out;
    out.issue = d.issue;
    out.sglang = d.sglang;
    if (!d.value.empty()) {
      out.value.push_back(d.value);
    }
    if (d.sglang_value) {
      out.sglang_value = d.sglang_value->empty() ? I32Lists{} : I32Lists{*d.sglang_value};
    }
    return out;
  };
  return FieldCodec{decode, [](ByteView b) { return is_int32_array(b); }};
}

void decode_mooncake(FrameReader& reader, bool comp, TransferInfo& t)
{
  // The dummy test indexes msg[4] and msg[5] before anything else.
  if (!reader.present(4)) {
    reader.missing(4, "dst_kv_indices");
    return;
  }
  if (!reader.present(5)) {
    reader.missing(5, "dst_aux_index");
    return;
  }
  const bool dummy = reader.frame(4).empty() && reader.frame(5).empty();
  if (dummy) {
    reader.read<Bytes>(4, "dst_kv_indices", "int32 array (b'' for a dummy)", Absent::required, opaque());
    reader.read<Bytes>(5, "dst_aux_index", "ascii int (b'' for a dummy)", Absent::required, opaque());
    if (reader.present(6) && !reader.frame(6).empty()) {
      reader.note(fmt::format("frame 6 (dst_state_indices) holds {} bytes that SGLang ignores because the message is a "
                              "dummy",
                              reader.frame(6).size()));
    }
  } else {
    reader.read_into<std::vector<std::int32_t>>(t.dst_kv_indices, 4, "dst_kv_indices", "int32 array", Absent::required,
                                                int32_array());
    reader.read_into<std::int64_t>(t.dst_aux_index, 5, "dst_aux_index", "ascii int", Absent::required, ascii_int());
    if (comp) {
      reader.read_into<I32Lists>(t.dst_state_indices, 6, "dst_state_indices", "pack_int_lists 'i'", Absent::required,
                                 index_lists());
    } else {
      reader.read_into<I32Lists>(t.dst_state_indices, 6, "dst_state_indices", "int32 array", Absent::required,
                                 index_array_as_component());
    }
  }
  reader.read_into<std::int64_t>(t.room, 0, "room", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.endpoint, 1, "endpoint", "ascii", Absent::required, ascii_text());
  reader.read_into<std::int64_t>(t.dst_port, 2, "dst_port", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.mooncake_session_id, 3, "mooncake_session_id", "ascii", Absent::required,
                                ascii_text());
  reader.read_into<std::int64_t>(t.required_dst_info_num, 7, "required_dst_info_num", "ascii int", Absent::required,
                                 ascii_int());
  if (!comp) {
    return;
  }
  reader.read_into<std::int64_t>(t.decode_prefix_len, 8, "decode_prefix_len", "ascii int",
                                 Absent::default_when_absent_or_empty, ascii_int());
  reader.read_into<std::vector<std::int32_t>>(t.dst_device_kv_indices, 9, "dst_device_kv_indices", "int32 array or b''",
                                              Absent::default_when_absent_or_empty, int32_array());
}

void decode_mori(FrameReader& reader, bool comp, TransferInfo& t)
{
  reader.read_into<std::int64_t>(t.room, 0, "room", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.endpoint, 1, "endpoint", "ascii", Absent::required, ascii_text());
  reader.read_into<std::int64_t>(t.dst_port, 2, "dst_port", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.engine_key, 3, "engine_key", "ascii", Absent::required, ascii_text());
  // `if payload[4]:` indexes the frame, so it is required even when empty.
  if (!reader.present(4)) {
    reader.missing(4, "dst_kv_indices");
  } else {
    reader.read_into<std::vector<std::int32_t>>(t.dst_kv_indices, 4, "dst_kv_indices", "int32 array or b''",
                                                Absent::default_when_absent_or_empty, int32_array());
  }
  t.dst_aux_index = -1;
  if (!reader.present(5)) {
    reader.missing(5, "dst_aux_index");
  } else {
    reader.read_into<std::int64_t>(t.dst_aux_index, 5, "dst_aux_index", "ascii int or b''",
                                   Absent::default_when_absent_or_empty, ascii_int());
  }
  if (comp) {
    reader.read_into<I32Lists>(t.dst_state_indices, 6, "dst_state_indices", "pack_int_lists 'i' or b''",
                               Absent::default_when_absent_or_empty, index_lists());
  } else {
    reader.read_into<I32Lists>(t.dst_state_indices, 6, "dst_state_indices", "int32 array or b''",
                               Absent::default_when_absent_or_empty, index_array_as_component());
  }
  reader.read_into<std::int64_t>(t.required_dst_info_num, 7, "required_dst_info_num", "ascii int",
                                 Absent::default_when_absent, ascii_int());
  if (comp) {
    reader.read_into<std::int64_t>(t.decode_prefix_len, 8, "decode_prefix_len", "ascii int or b''",
                                   Absent::default_when_absent_or_empty, ascii_int());
  }
}

void decode_nixl(FrameReader& reader, bool comp, TransferInfo& t)
{
  if (comp) {
    // The bootstrap handler validates the generation tag before parsing.
    reader.read_into<std::string>(t.transfer_generation, 10, "transfer_generation", "ascii", Absent::required,
                                  ascii_text());
    if (!reader.stopped() && reader.present(10) && reader.frame(10).empty()) {
      reader.fail(10, "transfer_generation", 0, "expected a non-empty transfer generation tag",
                  "SGLang drops metadata without a valid generation");
    }
    reader.read_into<I32Lists>(t.dst_state_indices, 7, "dst_state_indices", "pack_int_lists 'i' or b''",
                               Absent::default_when_absent_or_empty, index_lists());
  } else {
    reader.read_into<I32Lists>(t.dst_state_indices, 7, "dst_state_indices", "int32 array or b''",
                               Absent::default_when_absent_or_empty, index_array_as_component());
  }
  reader.read_into<std::int64_t>(t.room, 0, "room", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.endpoint, 1, "endpoint", "ascii", Absent::required, ascii_text());
  reader.read_into<std::int64_t>(t.dst_port, 2, "dst_port", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::string>(t.agent_name, 3, "agent_name", "ascii", Absent::required, ascii_text());
  reader.read_into<std::vector<std::int32_t>>(t.dst_kv_indices, 4, "dst_kv_indices", "int32 array", Absent::required,
                                              int32_array());
  reader.read_into<std::int64_t>(t.dst_aux_index, 5, "dst_aux_index", "ascii int", Absent::required, ascii_int());
  reader.read_into<std::int64_t>(t.required_dst_info_num, 6, "required_dst_info_num", "ascii int", Absent::required,
                                 ascii_int());
  if (!comp) {
    return;
  }
  reader.read_into<std::int64_t>(t.decode_prefix_len, 8, "decode_prefix_len", "ascii int",
                                 Absent::default_when_absent_or_empty, ascii_int());
  reader.read_into<bool>(t.is_dummy_rank, 9, "is_dummy_rank", "ascii '0'/'1'", Absent::default_when_absent_or_empty,
                         [](ByteView b) { return detail::decode_dummy_flag(b); });
}

std::size_t payload_count(TransferBackend backend, Generation shape)
{
  const bool comp = shape == Generation::components;
  switch (backend) {
  case TransferBackend::mooncake: return comp ? 10 : 8;
  case TransferBackend::mori: return comp ? 9 : 8;
  case TransferBackend::nixl: return comp ? 11 : 8;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
  return 0;
}

} // namespace

bool operator==(const TransferInfo& a, const TransferInfo& b)
{
  return wire_fields(a) == wire_fields(b);
}

std::pair<bool, std::string> dummy_rule(const TransferInfo& t)
{
  switch (t.backend) {
  case TransferBackend::mooncake: {
    const bool dummy = t.dst_kv_indices.empty() && !t.dst_aux_index.has_value();
    return {dummy, "mooncake: dummy when frames 4 (kv indices) and 5 (aux index) are both b''"};
  }
  case TransferBackend::mori: {
    const bool flat = t.generation == Generation::flat || t.generation == Generation::pre_dims;
    const bool no_aux = t.dst_aux_index.value_or(-1) < 0;
    const bool no_prefix = flat || t.decode_prefix_len.value_or(0) == 0;
    return {t.dst_kv_indices.empty() && no_aux && no_prefix,
            flat ? "mori: dummy when there are no kv indices and the aux index is < 0"
                 : "mori: dummy when there are no kv indices, the aux index is < 0 and no decode_prefix_len"};
  }
  case TransferBackend::nixl:
    if (t.is_dummy_rank) {
      return {*t.is_dummy_rank, "nixl: frame 10 (is_dummy) decides"};
    }
    if (t.dst_kv_indices.empty() && t.decode_prefix_len.value_or(0) != 0) {
      return {false, "nixl: no kv indices but a decode_prefix_len: not a dummy (aux and state still needed)"};
    }
    return {t.dst_kv_indices.empty(), "nixl: dummy when there are no kv indices"};
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(t.backend);
  }
  return {false, ""};
}

namespace {

/// "a mori components TransferInfo": formatted once per backend and generation,
/// as a capture decodes a million of them.
std::string_view transfer_info_kind(TransferBackend backend, Generation generation)
{
  constexpr std::size_t k_backends = static_cast<std::size_t>(TransferBackend::mooncake_tcp) + 1;
  constexpr std::size_t k_generations = static_cast<std::size_t>(Generation::components_layouts) + 1;
  static const auto kinds = [] {
    std::array<std::array<std::string, k_generations>, k_backends> all;
    for (std::size_t b = 0; b < k_backends; ++b) {
      for (std::size_t g = 0; g < k_generations; ++g) {
        all[b][g] = fmt::format("a {} {} TransferInfo", transfer_backend_name(static_cast<TransferBackend>(b)),
                                generation_name(static_cast<Generation>(g)));
      }
    }
    return all;
  }();
  return kinds[static_cast<std::size_t>(backend)][static_cast<std::size_t>(generation)];
}

std::size_t guard_frames(TransferBackend backend)
{
  return backend == TransferBackend::mooncake ? 0 : 1;
}

std::string_view guard_text(TransferBackend backend)
{
  return backend == TransferBackend::mori ? "MoriMsgGuard" : "NixlMsgGuard";
}

/// A TransferInfo's shape follows from its frame count alone: more frames than
/// the flat parser reads makes it components.
Generation generation_by_count(TransferBackend backend, std::size_t frame_count)
{
  const std::size_t guard = guard_frames(backend);
  const std::size_t payload = frame_count > guard ? frame_count - guard : 0;
  return payload > payload_count(backend, Generation::flat) ? Generation::components : Generation::flat;
}

void decode_payload(TransferBackend backend, FrameReader& reader, bool comp, TransferInfo& t)
{
  switch (backend) {
  case TransferBackend::mooncake: decode_mooncake(reader, comp, t); break;
  case TransferBackend::mori: decode_mori(reader, comp, t); break;
  case TransferBackend::nixl: decode_nixl(reader, comp, t); break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(backend);
  }
}

} // namespace

std::pair<Generation, std::vector<std::string>> detect_transfer_info_generation(TransferBackend backend,
                                                                                const Frames& frames)
{
  const std::size_t guard = guard_frames(backend);
  std::vector<std::string> evidence;
  const Generation g = generation_by_count(backend, frames.size());
  const std::size_t expected = payload_count(backend, g) + guard;
  evidence.push_back(fmt::format("{} frames: a {} {} TransferInfo has {}", frames.size(),
                                 transfer_backend_name(backend), generation_name(g), expected));
  const std::size_t state = (backend == TransferBackend::nixl ? 7 : 6) + guard;
  if (state < frames.size() && !frames[state].empty()) {
    const bool sane = is_sane_int_lists(frames[state], 4);
    evidence.push_back(fmt::format("frame {} (dst_state_indices) {}", state,
                                   sane ? "parses as pack_int_lists 'i'" : "is not a pack_int_lists encoding"));
  }
  return {g, evidence};
}

TransferInfoDecode decode_transfer_info(TransferBackend backend, const Frames& frames,
                                        std::optional<Generation> generation, DecodeMode mode)
{
  TransferInfoDecode out;
  TransferInfo t;
  t.backend = backend;
  if (generation) {
    t.generation = transfer_info_shape(*generation);
    t.generation_evidence.push_back(fmt::format("given: parsed as {} {} TransferInfo", transfer_backend_name(backend),
                                                generation_name(t.generation)));
  } else {
    auto [g, evidence] = detect_transfer_info_generation(backend, frames);
    t.generation = g;
    t.generation_evidence = std::move(evidence);
  }
  const bool comp = t.generation == Generation::components;
  const std::size_t base = guard_frames(backend);
  const std::string_view kind = transfer_info_kind(backend, t.generation);
  FrameReader reader(frames, base, mode, kind, base + payload_count(backend, t.generation), consequence(backend));

  bool guard_ok = true;
  if (base == 1) {
    const std::string_view guard = guard_text(backend);
    if (frames.empty() || !bytes_equal(frames[0], guard)) {
      const std::string got = frames.empty() ? "no frames" : python_bytes_repr(frames[0]);
      reader.fail_wire(0, "guard", frames.empty() ? std::nullopt : std::optional<std::size_t>(0),
                       fmt::format("expected the guard b'{}', got {}", guard, got),
                       backend == TransferBackend::mori
                         ? "SGLang drops the message ('Received malformed bootstrap message')"
                         : "SGLang rejects it as foreign traffic");
      guard_ok = false;
    }
  }
  if (guard_ok) {
    decode_payload(backend, reader, comp, t);
  }
  t.frames = reader.take_info();
  std::sort(t.frames.begin(), t.frames.end(), [](const FrameInfo& a, const FrameInfo& b) { return a.index < b.index; });
  out.notes = reader.take_notes();
  const std::size_t read = base + payload_count(backend, t.generation);
  if (frames.size() > read) {
    out.notes.push_back(fmt::format("frames {}-{} are not read by the {} {} parser (SGLang ignores them)", read,
                                    frames.size() - 1, transfer_backend_name(backend), generation_name(t.generation)));
  }
  if (reader.problem()) {
    out.problem = reader.problem();
    return out;
  }
  t.is_dummy = dummy_rule(t).first;
  t.notes = out.notes;
  out.transfer_info = std::move(t);
  return out;
}

std::optional<Generation> transfer_info_verdict(TransferBackend backend, const Frames& frames)
{
  const std::size_t base = guard_frames(backend);
  if (base == 1 && (frames.empty() || !bytes_equal(frames[0], guard_text(backend)))) {
    return std::nullopt;
  }
  const Generation g = generation_by_count(backend, frames.size());
  FrameReader reader(frames, base, base + payload_count(backend, g), FrameReader::VerdictOnly{});
  TransferInfo unread; // the decoders' destination; a verdict-only reader stores nothing in it
  decode_payload(backend, reader, g == Generation::components, unread);
  if (reader.problem()) {
    return std::nullopt;
  }
  return g;
}

TransferInfo decode_transfer_info_or_throw(TransferBackend backend, const Frames& frames,
                                           std::optional<Generation> generation, const std::string& origin)
{
  TransferInfoDecode d = decode_transfer_info(backend, frames, generation, DecodeMode::strict);
  if (d.problem) {
    throw InputError(d.problem->where(origin), d.problem->message());
  }
  return std::move(*d.transfer_info);
}

Frames encode_transfer_info(const TransferInfo& t, std::optional<Generation> generation)
{
  const Generation shape = transfer_info_shape(generation.value_or(t.generation));
  const bool comp = shape == Generation::components;
  if (!comp && t.dst_state_indices.size() > 1) {
    throw std::invalid_argument("a flat TransferInfo carries one state component");
  }
  const std::vector<std::int32_t> flat_state = t.dst_state_indices.empty() ? std::vector<std::int32_t>{}
                                                                            : t.dst_state_indices[0];
  Frames f;
  switch (t.backend) {
  case TransferBackend::mooncake:
    f.push_back(encode_ascii_int(t.room));
    f.push_back(to_bytes(t.endpoint));
    f.push_back(encode_ascii_int(t.dst_port));
    f.push_back(to_bytes(t.mooncake_session_id));
    f.push_back(t.is_dummy ? Bytes{} : encode_int32_array(t.dst_kv_indices));
    f.push_back(t.is_dummy || !t.dst_aux_index ? Bytes{} : encode_ascii_int(*t.dst_aux_index));
    if (comp) {
      f.push_back(!t.is_dummy && !t.dst_state_indices.empty() ? pack_int_lists(t.dst_state_indices) : Bytes{});
    } else {
      f.push_back(!t.is_dummy ? encode_int32_array(flat_state) : Bytes{});
    }
    f.push_back(encode_ascii_int(t.required_dst_info_num));
    if (comp) {
      f.push_back(encode_ascii_int(t.decode_prefix_len.value_or(0)));
      f.push_back(!t.is_dummy && t.dst_device_kv_indices ? encode_int32_array(*t.dst_device_kv_indices) : Bytes{});
    }
    break;
  case TransferBackend::mori:
    f.push_back(to_bytes("MoriMsgGuard"));
    f.push_back(encode_ascii_int(t.room));
    f.push_back(to_bytes(t.endpoint));
    f.push_back(encode_ascii_int(t.dst_port));
    f.push_back(to_bytes(t.engine_key));
    f.push_back(t.is_dummy ? Bytes{} : encode_int32_array(t.dst_kv_indices));
    f.push_back(t.is_dummy || t.dst_aux_index.value_or(-1) < 0 ? Bytes{} : encode_ascii_int(*t.dst_aux_index));
    if (comp) {
      f.push_back(!t.is_dummy && !t.dst_state_indices.empty() ? pack_int_lists(t.dst_state_indices) : Bytes{});
    } else {
      f.push_back(!t.is_dummy ? encode_int32_array(flat_state) : Bytes{});
    }
    f.push_back(encode_ascii_int(t.required_dst_info_num));
    if (comp) {
      f.push_back(t.decode_prefix_len.value_or(0) > 0 ? encode_ascii_int(*t.decode_prefix_len) : Bytes{});
    }
    break;
  case TransferBackend::nixl:
    f.push_back(to_bytes("NixlMsgGuard"));
    f.push_back(encode_ascii_int(t.room));
    f.push_back(to_bytes(t.endpoint));
    f.push_back(encode_ascii_int(t.dst_port));
    f.push_back(to_bytes(t.agent_name));
    f.push_back(t.is_dummy ? Bytes{} : encode_int32_array(t.dst_kv_indices));
    f.push_back(encode_ascii_int(t.dst_aux_index.value_or(0)));
    f.push_back(encode_ascii_int(t.required_dst_info_num));
    if (comp) {
      f.push_back(!t.is_dummy && !t.dst_state_indices.empty() ? pack_int_lists(t.dst_state_indices) : Bytes{});
      f.push_back(encode_ascii_int(t.decode_prefix_len.value_or(0)));
      f.push_back(to_bytes(t.is_dummy ? "1" : "0"));
      f.push_back(to_bytes(t.transfer_generation));
    } else {
      f.push_back(!t.is_dummy ? encode_int32_array(flat_state) : Bytes{});
    }
    break;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: throw_not_wire_speaking(t.backend);
  }
  return f;
}

} // namespace pdcheck::wire
