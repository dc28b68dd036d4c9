#pragma once

// A registration's frames as data: one table per (backend, generation), one row
// per frame, listed in the order SGLang's parser (`KVArgsRegisterInfo.from_zmq`
// of mooncake/conn.py, mori/conn.py, nixl/conn.py) evaluates them, which
// decides the exception it raises first. One decoder and one encoder
// (registration_frames.cpp) walk the tables of every backend; the frame counts,
// the frame listing and the field names `pdcheck decode` prints come from them.
// The tables themselves: registration_mooncake.cpp, registration_mori.cpp,
// registration_nixl.cpp.

#include "wire/absent.hpp"
#include "wire/bytes.hpp"
#include "wire/generation.hpp"
#include "wire/registration.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace pdcheck::wire {

/// How a frame is encoded. Each codec decodes a frame (strictly, and as
/// SGLang's parser does) and encodes it (as SGLang's `_register_kv_args` does).
enum class Codec {
  none_literal,       ///< b"None": frame 0 of every registration
  ascii_text,         ///< str.encode("ascii") / f.decode("ascii")
  ascii_int,          ///< str(n).encode("ascii") / int(f.decode("ascii"))
  optional_ascii_int, ///< ascii_int, b"" for None (NIXL dst_num_slots)
  native_u64,         ///< struct.pack(f"{len(v)}Q", *v)
  native_u32,         ///< struct.pack(f"{len(v)}I", *v)
  lists_u64,          ///< pack_int_lists(v, "Q") (common/utils.py)
  lists_u32,          ///< pack_int_lists(v, "I")
  component_u64,      ///< a native 'Q' array holding one state component (single state_type generations)
  component_u32,      ///< likewise 'I'
  hisparse_flag,      ///< b"1" / b"0", read as f.decode("ascii") == "1" (Mooncake flat frame 12)
  staging_base,       ///< 8-byte native 'Q'; b"" when the registration has no staging
  staging_total,      ///< ascii int; b"" when the registration has no staging
  layouts_json,       ///< json.dumps({"kv": ..., "state": ...}) or b"" (Mooncake frame 20)
  opaque,             ///< bytes kept as sent (NIXL agent metadata)
  engine_desc,        ///< opaque too: Mori's EngineDesc.pack()
  desc_list,          ///< Mori: a msgpack list of MemoryDesc.pack() (or b""), counted
  state_desc_list,    ///< Mori single state_type: one flat msgpack list of descriptors
  state_desc_lists,   ///< Mori per-component: a msgpack list of per-component lists
  mem_kinds,          ///< NIXL: "VRAM"/"DRAM" comma-joined, one per dst_kv_ptrs; absent: all VRAM
  kv_item_lens,       ///< NIXL: native 'Q', one per dst_kv_ptrs; absent or b"": dst_kv_item_len each
};

/// The text the frame listing shows for a codec: "pack_int_lists 'I'", "ascii int", ...
std::string_view codec_encoding(Codec codec);

/// A Mori descriptor frame: the bytes as sent and how many descriptors they hold.
struct DescListMember
{
  Bytes Registration::*bytes = nullptr;
  std::size_t Registration::*count = nullptr;
  friend constexpr bool operator==(const DescListMember&, const DescListMember&) = default;
};

/// Mori's state descriptor frame: the bytes and the descriptors per component.
struct StateDescMember
{
  Bytes Registration::*bytes = nullptr;
  std::vector<std::size_t> Registration::*counts = nullptr;
  friend constexpr bool operator==(const StateDescMember&, const StateDescMember&) = default;
};

/// The Registration member a frame fills (decoding) and is made from (encoding).
using FrameMember =
  std::variant<std::string Registration::*, std::int64_t Registration::*, std::optional<std::int64_t> Registration::*,
               std::uint64_t Registration::*, bool Registration::*, std::vector<std::uint64_t> Registration::*,
               U64Lists Registration::*, std::optional<std::string> Registration::*, Bytes Registration::*,
               std::vector<std::string> Registration::*, DescListMember, StateDescMember>;

/// Whether `codec` reads into and writes from a member of that type.
constexpr bool codec_fits(Codec codec, const FrameMember& m)
{
  using R = Registration;
  switch (codec) {
  case Codec::none_literal:
  case Codec::ascii_text: return std::holds_alternative<std::string R::*>(m);
  case Codec::ascii_int:
  case Codec::staging_total: return std::holds_alternative<std::int64_t R::*>(m);
  case Codec::optional_ascii_int: return std::holds_alternative<std::optional<std::int64_t> R::*>(m);
  case Codec::native_u64:
  case Codec::native_u32:
  case Codec::kv_item_lens: return std::holds_alternative<std::vector<std::uint64_t> R::*>(m);
  case Codec::lists_u64:
  case Codec::lists_u32:
  case Codec::component_u64:
  case Codec::component_u32: return std::holds_alternative<U64Lists R::*>(m);
  case Codec::hisparse_flag: return std::holds_alternative<bool R::*>(m);
  case Codec::staging_base: return std::holds_alternative<std::uint64_t R::*>(m);
  case Codec::layouts_json: return std::holds_alternative<std::optional<std::string> R::*>(m);
  case Codec::opaque:
  case Codec::engine_desc: return std::holds_alternative<Bytes R::*>(m);
  case Codec::desc_list: return std::holds_alternative<DescListMember>(m);
  case Codec::state_desc_list:
  case Codec::state_desc_lists: return std::holds_alternative<StateDescMember>(m);
  case Codec::mem_kinds: return std::holds_alternative<std::vector<std::string> R::*>(m);
  }
  return false;
}

/// One frame of a registration.
struct FrameRow
{
  std::size_t index = 0;     ///< payload index: the guard frame (Mori, NIXL) is not counted
  const char* field = "";    ///< SGLang's name for it (a string literal: FrameInfo keeps the pointer)
  Codec codec = Codec::ascii_int;
  Absent absent = Absent::required;
  FrameMember member;
};

/// A row whose codec fits its member; a mismatch does not compile.
consteval FrameRow frame(std::size_t index, const char* field, Codec codec, Absent absent, FrameMember member)
{
  if (!codec_fits(codec, member)) {
    throw "the codec of this frame does not fit the type of its Registration member";
  }
  return FrameRow{index, field, codec, absent, member};
}

/// The frames of one (backend, generation).
struct RegistrationTable
{
  TransferBackend backend = TransferBackend::mooncake;
  Generation generation = Generation::components;
  std::string_view guard;         ///< the guard frame 0 (b"MoriMsgGuard"), empty for Mooncake
  std::span<const FrameRow> rows; ///< in SGLang's evaluation order; indices dense from 0
  /// A note an sglang-mode decode adds when SGLang's parser gets through, or nullptr.
  const char* sglang_note = nullptr;
  /// The fields of a registration this generation cannot carry ("layer ids"),
  /// in the order `pdcheck encode` reports them.
  std::vector<std::string> (*dropped)(const Registration& r, Generation g) = nullptr;

  /// Frames SGLang reads after the guard frame.
  std::size_t payload_frames() const { return rows.size(); }
  /// Frames on the wire, guard frame included.
  std::size_t wire_frames() const { return rows.size() + (guard.empty() ? 0 : 1); }
};

/// The table of `backend` in generation `g`; nullptr when `backend` never sent `g`.
const RegistrationTable* find_registration_table(TransferBackend backend, Generation g);
/// Likewise, throwing std::invalid_argument for a generation the backend never sent.
const RegistrationTable& registration_table(TransferBackend backend, Generation g);

/// SGLang's name for `member` on `backend`: the field of the first row that
/// carries it, newest generation first ("dst_tp_rank" on Mooncake,
/// "decode_tp_rank" on Mori and NIXL). A Mori descriptor frame is found by its
/// bytes member too (&Registration::dst_kv_mem_descs). Throws std::logic_error
/// when no table of the backend carries it.
std::string_view registration_field_name(TransferBackend backend, const FrameMember& member);

namespace detail {
// Defined next to each backend's tables.
const RegistrationTable* mooncake_registration_table(Generation g);
const RegistrationTable* mori_registration_table(Generation g);
const RegistrationTable* nixl_registration_table(Generation g);
} // namespace detail

} // namespace pdcheck::wire
