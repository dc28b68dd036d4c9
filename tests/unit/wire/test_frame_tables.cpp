// The registration frame tables against SGLang: frame counts, dense indices,
// SGLang's field names and encodings frame by frame, the evaluation order that
// decides which exception SGLang raises first, and encode -> decode of a
// registration with every carried field set. Expectations are written out by
// hand from mooncake/conn.py (@ 0005973a and 6d8ea7e3), mori/conn.py
// (@ 0094505d) and nixl/conn.py (KVArgsRegisterInfo.from_zmq of each).

#include "wire/msgpack.hpp"
#include "wire/registration_codec.hpp"
#include "wire/registration_table.hpp"
#include "wire/transfer_info.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace pdcheck::wire;
using pdcheck::TransferBackend;

namespace {

using R = Registration;

struct Case
{
  TransferBackend backend;
  Generation generation;
};

std::vector<Case> every_table()
{
  std::vector<Case> out;
  for (TransferBackend b : {TransferBackend::mooncake, TransferBackend::mori, TransferBackend::nixl}) {
    for (Generation g : backend_generations(b)) {
      out.push_back({b, g});
    }
  }
  return out;
}

std::string describe(const Case& c)
{
  return fmt::format("{} {}", transfer_backend_name(c.backend), generation_name(c.generation));
}

// The rows of a table by frame index.
std::vector<const FrameRow*> by_index(const RegistrationTable& t)
{
  std::vector<const FrameRow*> rows;
  for (const FrameRow& row : t.rows) {
    rows.push_back(&row);
  }
  std::sort(rows.begin(), rows.end(), [](const FrameRow* a, const FrameRow* b) { return a->index < b->index; });
  return rows;
}

std::vector<std::string> fields_by_index(const RegistrationTable& t)
{
  std::vector<std::string> out;
  for (const FrameRow* row : by_index(t)) {
    out.emplace_back(row->field);
  }
  return out;
}

std::vector<std::size_t> evaluation_order(const RegistrationTable& t)
{
  std::vector<std::size_t> out;
  for (const FrameRow& row : t.rows) {
    out.push_back(row.index);
  }
  return out;
}

Bytes desc_list(std::size_t n, std::uint8_t seed)
{
  Bytes out;
  append_msgpack_array_header(out, n);
  for (std::size_t i = 0; i < n; ++i) {
    append_msgpack_bin(out, Bytes{seed, static_cast<std::uint8_t>(i), 0xee});
  }
  return out;
}

// A registration with a distinct, non-default value in every field the table
// carries (and SGLang's defaults elsewhere).
Registration populated(const RegistrationTable& t)
{
  Registration r;
  r.backend = t.backend;
  r.generation = t.generation;
  for (const FrameRow& row : t.rows) {
    const std::uint64_t i = row.index;
    switch (row.codec) {
    case Codec::none_literal: r.*std::get<std::string R::*>(row.member) = "None"; break;
    case Codec::ascii_text: r.*std::get<std::string R::*>(row.member) = fmt::format("text-{}", i); break;
    case Codec::ascii_int:
    case Codec::staging_total: r.*std::get<std::int64_t R::*>(row.member) = static_cast<std::int64_t>(1000 + i); break;
    case Codec::optional_ascii_int: r.*std::get<std::optional<std::int64_t> R::*>(row.member) = 4096; break;
    case Codec::native_u64:
      r.*std::get<std::vector<std::uint64_t> R::*>(row.member) = {0x7f0000000000 + i, 2, 0xffffffffffffffff};
      break;
    case Codec::native_u32: r.*std::get<std::vector<std::uint64_t> R::*>(row.member) = {i, 40, 0xffffffff}; break;
    case Codec::lists_u64: r.*std::get<U64Lists R::*>(row.member) = {{0x7f0000000000 + i, 3}, {}, {9}}; break;
    case Codec::lists_u32: r.*std::get<U64Lists R::*>(row.member) = {{i, 0xffffffff}, {}, {7}}; break;
    case Codec::component_u64: r.*std::get<U64Lists R::*>(row.member) = {{0x7e0000000000 + i, 5}}; break;
    case Codec::component_u32: r.*std::get<U64Lists R::*>(row.member) = {{i, 6, 7}}; break;
    case Codec::hisparse_flag: r.*std::get<bool R::*>(row.member) = true; break;
    case Codec::staging_base: r.*std::get<std::uint64_t R::*>(row.member) = 0x7d0000001000; break;
    case Codec::layouts_json:
      r.*std::get<std::optional<std::string> R::*>(row.member) =
        R"({"kv": {"block_bytes": 64, "rows_per_block": 1, "tensors": []}, "state": {"block_bytes": 8, )"
        R"("rows_per_block": 1, "tensors": []}})";
      break;
    case Codec::opaque:
    case Codec::engine_desc:
      r.*std::get<Bytes R::*>(row.member) = Bytes{0x00, 0xff, static_cast<std::uint8_t>(i)};
      break;
    case Codec::desc_list: {
      const DescListMember m = std::get<DescListMember>(row.member);
      r.*m.bytes = desc_list(2, static_cast<std::uint8_t>(i));
      r.*m.count = 2;
      break;
    }
    case Codec::state_desc_list: {
      const StateDescMember m = std::get<StateDescMember>(row.member);
      r.*m.bytes = desc_list(3, static_cast<std::uint8_t>(i));
      r.*m.counts = {3};
      break;
    }
    case Codec::state_desc_lists: {
      const StateDescMember m = std::get<StateDescMember>(row.member);
      Bytes nested;
      append_msgpack_array_header(nested, 2);
      for (std::size_t n : {2, 1}) {
        const Bytes inner = desc_list(n, static_cast<std::uint8_t>(i + n));
        nested.insert(nested.end(), inner.begin(), inner.end());
      }
      r.*m.bytes = nested;
      r.*m.counts = {2, 1};
      break;
    }
    case Codec::mem_kinds:
    case Codec::kv_item_lens: break; // one per KV pointer: below
    }
  }
  for (const FrameRow& row : t.rows) {
    if (row.codec == Codec::mem_kinds) {
      auto& kinds = r.*std::get<std::vector<std::string> R::*>(row.member);
      for (std::size_t k = 0; k < r.dst_kv_ptrs.size(); ++k) {
        kinds.push_back(k % 2 == 0 ? "DRAM" : "VRAM");
      }
    } else if (row.codec == Codec::kv_item_lens) {
      auto& lens = r.*std::get<std::vector<std::uint64_t> R::*>(row.member);
      for (std::size_t k = 0; k < r.dst_kv_ptrs.size(); ++k) {
        lens.push_back(65536 + k);
      }
    }
  }
  return r;
}

} // namespace

TEST_CASE("every registration table: frame count, dense indices, codecs that fit", "[wire][frame_tables]")
{
  for (const Case& c : every_table()) {
    INFO(describe(c));
    const RegistrationTable& t = registration_table(c.backend, c.generation);
    CHECK(t.backend == c.backend);
    CHECK(t.generation == c.generation);
    CHECK(t.guard == (c.backend == TransferBackend::mooncake ? ""
                      : c.backend == TransferBackend::mori   ? "MoriMsgGuard"
                                                             : "NixlMsgGuard"));
    CHECK(registration_frame_count(c.backend, c.generation) == t.wire_frames());
    const std::vector<const FrameRow*> rows = by_index(t);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      INFO("frame " << rows[i]->field);
      CHECK(rows[i]->index == i); // unique and dense from 0
      CHECK(codec_fits(rows[i]->codec, rows[i]->member));
      CHECK_FALSE(std::string_view(rows[i]->field).empty());
      CHECK(codec_encoding(rows[i]->codec) != "?");
    }
  }
}

TEST_CASE("frame counts are SGLang's", "[wire][frame_tables]")
{
  CHECK(registration_frame_count(TransferBackend::mooncake, Generation::pre_dims) == 10);
  CHECK(registration_frame_count(TransferBackend::mooncake, Generation::flat) == 15);
  CHECK(registration_frame_count(TransferBackend::mooncake, Generation::components) == 19);
  CHECK(registration_frame_count(TransferBackend::mooncake, Generation::components_layouts) == 21);
  CHECK(registration_frame_count(TransferBackend::mori, Generation::flat) == 14);
  CHECK(registration_frame_count(TransferBackend::mori, Generation::components) == 14);
  CHECK(registration_frame_count(TransferBackend::nixl, Generation::pre_dims) == 13);
  CHECK(registration_frame_count(TransferBackend::nixl, Generation::flat) == 17);
  CHECK(registration_frame_count(TransferBackend::nixl, Generation::components) == 24);
  CHECK(registration_frame_count(TransferBackend::mori, Generation::pre_dims) == 0);
  CHECK(find_registration_table(TransferBackend::nixl, Generation::components_layouts) == nullptr);
  CHECK_THROWS_AS(registration_table(TransferBackend::mori, Generation::components_layouts), std::invalid_argument);
}

TEST_CASE("the codecs speak Mooncake's, Mori's and NIXL's frames and refuse other backends", "[wire][frame_tables]")
{
  for (TransferBackend b : k_wire_backends) {
    CHECK(wire_speaking(b));
    CHECK(frames_backend(b) == b);
    CHECK(parse_wire_backend(pdcheck::transfer_backend_name(b)) == b);
  }
  CHECK(frames_backend(TransferBackend::mooncake_tcp) == TransferBackend::mooncake);
  for (TransferBackend b : {TransferBackend::mooncake_tcp, TransferBackend::ascend, TransferBackend::fake}) {
    INFO(pdcheck::transfer_backend_name(b));
    CHECK_FALSE(wire_speaking(b));
    CHECK_FALSE(parse_wire_backend(pdcheck::transfer_backend_name(b)));
    CHECK_THROWS_AS(backend_generations(b), std::logic_error);
    CHECK_THROWS_AS(decode_registration(b, Frames{}, std::nullopt), std::logic_error);
    CHECK_THROWS_AS(decode_transfer_info(b, Frames{}, std::nullopt, DecodeMode::strict), std::logic_error);
  }
  CHECK_FALSE(frames_backend(TransferBackend::ascend));
  CHECK_FALSE(frames_backend(TransferBackend::fake));
}

TEST_CASE("SGLang's field names, frame by frame", "[wire][frame_tables]")
{
  const std::vector<std::string> mooncake = {
    "room", "endpoint", "dst_port", "mooncake_session_id", "dst_kv_ptrs", "dst_aux_ptrs", "dst_state_data_ptrs",
    "dst_tp_rank", "dst_attn_tp_size", "dst_kv_item_len", "dst_state_item_lens", "dst_state_dim_per_tensor",
    "dst_kv_layer_ids", "dst_state_layer_ids", "staging_base_ptr", "staging_total_size", "dst_dcp_size",
    "dst_dcp_rank", "staging_slot_layer_ids", "dst_kv_item_lens", "unified_layouts"};
  CHECK(fields_by_index(registration_table(TransferBackend::mooncake, Generation::components_layouts)) == mooncake);
  CHECK(fields_by_index(registration_table(TransferBackend::mooncake, Generation::components)) ==
        std::vector<std::string>(mooncake.begin(), mooncake.begin() + 19));
  CHECK(fields_by_index(registration_table(TransferBackend::mooncake, Generation::pre_dims)) ==
        std::vector<std::string>(mooncake.begin(), mooncake.begin() + 10));
  std::vector<std::string> flat(mooncake.begin(), mooncake.begin() + 12);
  flat.insert(flat.end(), {"enable_hisparse", "staging_base_ptr", "staging_total_size"});
  CHECK(fields_by_index(registration_table(TransferBackend::mooncake, Generation::flat)) == flat);

  const std::vector<std::string> mori = {
    "room", "endpoint", "dst_port", "engine_desc", "dst_kv_mem_descs", "dst_aux_mem_descs", "dst_state_mem_descs",
    "gpu_id", "decode_tp_size", "decode_tp_rank", "dst_kv_item_len", "dst_state_item_lens",
    "dst_state_dim_per_tensor"};
  CHECK(fields_by_index(registration_table(TransferBackend::mori, Generation::flat)) == mori);
  CHECK(fields_by_index(registration_table(TransferBackend::mori, Generation::components)) == mori);

  const std::vector<std::string> nixl = {
    "room", "endpoint", "dst_port", "agent_name", "agent_metadata", "dst_kv_ptrs", "dst_aux_ptrs",
    "dst_state_data_ptrs", "gpu_id", "decode_tp_size", "decode_tp_rank", "dst_kv_item_len", "dst_state_item_lens",
    "dst_state_dim_per_tensor", "staging_base_ptr", "staging_total_size", "dst_num_slots", "dst_kv_mem_kinds",
    "dst_kv_item_lens", "dst_state_layer_ids", "dst_kv_layer_ids", "dst_dcp_size", "dst_dcp_rank"};
  CHECK(fields_by_index(registration_table(TransferBackend::nixl, Generation::components)) == nixl);
  CHECK(fields_by_index(registration_table(TransferBackend::nixl, Generation::flat)) ==
        std::vector<std::string>(nixl.begin(), nixl.begin() + 16));
  CHECK(fields_by_index(registration_table(TransferBackend::nixl, Generation::pre_dims)) ==
        std::vector<std::string>(nixl.begin(), nixl.begin() + 12));
}

TEST_CASE("well-known frames: codec, absence, member", "[wire][frame_tables]")
{
  const auto row = [](TransferBackend b, Generation g, std::size_t index) {
    for (const FrameRow& r : registration_table(b, g).rows) {
      if (r.index == index) {
        return r;
      }
    }
    FAIL("no frame " << index);
    return FrameRow{};
  };
  // Mooncake per-component frame 6: pack_int_lists(state_data_ptrs, "Q"), required.
  const FrameRow ptrs = row(TransferBackend::mooncake, Generation::components, 6);
  CHECK(std::string(ptrs.field) == "dst_state_data_ptrs");
  CHECK(ptrs.codec == Codec::lists_u64);
  CHECK(codec_encoding(ptrs.codec) == "pack_int_lists 'Q'");
  CHECK(ptrs.absent == Absent::required);
  CHECK(ptrs.member == FrameMember{&R::dst_state_data_ptrs});
  // The single state_type generation sent the same pointers as a flat native 'Q' array.
  const FrameRow flat_ptrs = row(TransferBackend::mooncake, Generation::flat, 6);
  CHECK(flat_ptrs.codec == Codec::component_u64);
  CHECK(codec_encoding(flat_ptrs.codec) == "native 'Q' array");
  // Mooncake flat frame 12: enable_hisparse, `msg[12].decode("ascii") == "1" if len(msg) > 12`.
  const FrameRow hisparse = row(TransferBackend::mooncake, Generation::flat, 12);
  CHECK(std::string(hisparse.field) == "enable_hisparse");
  CHECK(hisparse.codec == Codec::hisparse_flag);
  CHECK(hisparse.absent == Absent::default_when_absent);
  CHECK(hisparse.member == FrameMember{&R::enable_hisparse});
  // Mooncake frame 18: staging slot layer ids, native 'Q' (8 bytes each).
  CHECK(row(TransferBackend::mooncake, Generation::components, 18).codec == Codec::native_u64);
  // Per-component frame 12 is the KV layer ids, native 'I'.
  CHECK(row(TransferBackend::mooncake, Generation::components, 12).codec == Codec::native_u32);
  // NIXL frame 17: memory kinds, all VRAM when absent.
  const FrameRow kinds = row(TransferBackend::nixl, Generation::components, 17);
  CHECK(kinds.codec == Codec::mem_kinds);
  CHECK(kinds.absent == Absent::default_when_absent);
  // Mori payload 8/9 carry the attention TP size and the engine rank.
  CHECK(row(TransferBackend::mori, Generation::components, 8).member == FrameMember{&R::dst_attn_tp_size});
  CHECK(row(TransferBackend::mori, Generation::components, 9).member == FrameMember{&R::dst_tp_rank});
  CHECK(row(TransferBackend::mori, Generation::components, 6).codec == Codec::state_desc_lists);
  CHECK(row(TransferBackend::mori, Generation::flat, 6).codec == Codec::state_desc_list);
}

TEST_CASE("rows follow the order SGLang's parser evaluates the frames", "[wire][frame_tables]")
{
  // Gen-3 evaluates json.loads(msg[20]) first; StagingRegisterInfo.from_zmq_fields
  // (slot ids at 18) runs after frame 19.
  const std::vector<std::size_t> gen3 =
    evaluation_order(registration_table(TransferBackend::mooncake, Generation::components_layouts));
  CHECK(gen3.front() == 20);
  CHECK(gen3.back() == 18);
  CHECK(gen3[gen3.size() - 2] == 19);
  CHECK(evaluation_order(registration_table(TransferBackend::mooncake, Generation::components)).back() == 18);
  // NIXL's older parsers read the state pointers (and dims) first.
  CHECK(evaluation_order(registration_table(TransferBackend::nixl, Generation::pre_dims)).front() == 7);
  const std::vector<std::size_t> nixl_flat =
    evaluation_order(registration_table(TransferBackend::nixl, Generation::flat));
  CHECK(std::vector<std::size_t>(nixl_flat.begin(), nixl_flat.begin() + 3) == std::vector<std::size_t>{7, 12, 13});
  // The per-component parser: KV pointers, kinds, item len, item lens, then the state lists.
  CHECK(evaluation_order(registration_table(TransferBackend::nixl, Generation::components)) ==
        std::vector<std::size_t>{5, 17, 11, 18, 7, 12, 13, 16, 19, 20, 0, 1, 2, 3, 4, 6, 8, 9, 10, 21, 22, 14, 15});

  SECTION("the order decides what SGLang raises; strict mode names the lowest frame")
  {
    const RegistrationTable& t = registration_table(TransferBackend::mooncake, Generation::components_layouts);
    Frames frames = encode_registration(populated(t), Generation::components_layouts).frames;
    frames[2] = to_bytes("port");  // int() raises ValueError
    frames[19] = Bytes{1, 2, 3};   // not a whole number of 'Q'
    frames[20] = to_bytes("{");    // json.JSONDecodeError
    const auto sglang =
      decode_registration(TransferBackend::mooncake, frames, Generation::components_layouts, DecodeMode::sglang);
    REQUIRE(sglang.problem);
    CHECK(sglang.problem->frame == 20);
    frames[20].clear();
    const auto next =
      decode_registration(TransferBackend::mooncake, frames, Generation::components_layouts, DecodeMode::sglang);
    REQUIRE(next.problem);
    CHECK(next.problem->frame == 2);
    const auto strict = decode_registration(TransferBackend::mooncake, frames, Generation::components_layouts);
    REQUIRE(strict.problem);
    CHECK(strict.problem->frame == 2);
    frames[2] = to_bytes("17000");
    frames[18] = Bytes{1};
    const auto last =
      decode_registration(TransferBackend::mooncake, frames, Generation::components_layouts, DecodeMode::sglang);
    REQUIRE(last.problem);
    CHECK(last.problem->frame == 19);
  }
}

TEST_CASE("encode then decode keeps every field a table carries", "[wire][frame_tables]")
{
  for (const Case& c : every_table()) {
    INFO(describe(c));
    const RegistrationTable& t = registration_table(c.backend, c.generation);
    const Registration x = populated(t);
    const EncodedRegistration e = encode_registration(x);
    CHECK(e.dropped.empty());
    REQUIRE(e.frames.size() == t.wire_frames());
    for (DecodeMode mode : {DecodeMode::strict, DecodeMode::sglang}) {
      const RegistrationDecode d = decode_registration(c.backend, e.frames, c.generation, mode);
      REQUIRE_FALSE(d.problem);
      CHECK(*d.registration == x);
      // The listing `pdcheck decode` prints: one entry per frame, named by the table.
      const std::size_t guard = t.guard.empty() ? 0 : 1;
      REQUIRE(d.registration->frames.size() == t.rows.size());
      for (const FrameRow& row : t.rows) {
        const FrameInfo& info = d.registration->frames[row.index];
        CHECK(info.index == guard + row.index);
        CHECK(info.field == row.field);
        CHECK(info.encoding == codec_encoding(row.codec));
        CHECK(info.bytes == e.frames[guard + row.index].size());
      }
    }
  }
}

TEST_CASE("field names printed by pdcheck decode come from the tables", "[wire][frame_tables]")
{
  CHECK(registration_field_name(TransferBackend::mooncake, &R::dst_tp_rank) == "dst_tp_rank");
  CHECK(registration_field_name(TransferBackend::mooncake, &R::dst_attn_tp_size) == "dst_attn_tp_size");
  CHECK(registration_field_name(TransferBackend::mori, &R::dst_tp_rank) == "decode_tp_rank");
  CHECK(registration_field_name(TransferBackend::nixl, &R::dst_attn_tp_size) == "decode_tp_size");
  CHECK(registration_field_name(TransferBackend::mooncake, &R::enable_hisparse) == "enable_hisparse");
  CHECK(registration_field_name(TransferBackend::mori, &R::dst_kv_mem_descs) == "dst_kv_mem_descs");
  CHECK(registration_field_name(TransferBackend::mori, &R::dst_state_mem_descs) == "dst_state_mem_descs");
  CHECK_THROWS_AS(registration_field_name(TransferBackend::mori, &R::dst_kv_ptrs), std::logic_error);
}
