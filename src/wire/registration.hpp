#pragma once

#include "wire/bytes.hpp"
#include "wire/generation.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::model {
struct RankLayout;
}

namespace pdcheck::wire {

/// One frame of a decoded message, for display: where it sits, which SGLang
/// field it carries, how it is encoded and how long it was.
struct FrameInfo
{
  std::size_t index = 0;  ///< wire index, guard frame included
  std::string_view field;    ///< SGLang's name, e.g. "dst_state_item_lens" (a string literal of the frame table)
  std::string_view encoding; ///< e.g. "pack_int_lists 'I'", "ascii int", "native 'Q' array" (likewise)
  std::size_t bytes = 0;
};

/// Exactly what one decode rank tells one prefill rank in its registration
/// message, under the names SGLang's parser (`KVArgsRegisterInfo.from_zmq`) gives
/// them. The same type whether derived from a layout (registration_from_layout)
/// or decoded from captured frames, so every rule works on either.
///
/// State fields are lists of lists, one inner list per state component (SGLang's
/// `state_types` order, which is never sent); flat generations decode into one
/// component. Fields a backend or generation does not carry keep their defaults,
/// which are SGLang's parser defaults.
struct Registration
{
  // --- How it was obtained (not compared by operator==).
  TransferBackend backend = TransferBackend::mooncake;
  Generation generation = Generation::components;
  /// Why this generation: e.g. "19 frames: mooncake components sends frames 0-18",
  /// "frame 6 parses as pack_int_lists: 1 component, 72 entries".
  std::vector<std::string> generation_evidence;
  bool generation_forced = false; ///< the caller named the generation instead of detecting it
  std::vector<FrameInfo> frames;  ///< decoded messages only
  std::vector<std::string> notes; ///< what SGLang's parser would do differently, ignored frames, ...

  /// Pointers are made up (registration_from_layout): 0x7f00_0000_0000 + component
  /// * 0x100_0000_0000 + entry * 0x1_0000_0000 for state, 0x7e00... for KV,
  /// 0x7d00... for aux. Never RDMA-write to them.
  bool synthetic_pointers = false;

  // --- Fields of every backend.
  std::string room = "None";          ///< frame 0 of a registration is the literal None
  std::string endpoint;               ///< decode's local_ip
  std::int64_t dst_port = 0;          ///< decode's rank_port (its ZMQ PULL port)
  std::int64_t dst_tp_rank = 0;       ///< decode engine_rank (Mori/NIXL: decode_tp_rank)
  std::int64_t dst_attn_tp_size = 1;  ///< decode attention TP size (Mori/NIXL: decode_tp_size)
  std::int64_t dst_kv_item_len = 0;   ///< kv_item_lens[0], 0 when decode has no KV entries
  U64Lists dst_state_item_lens;       ///< bytes of one slot of each entry
  U64Lists dst_state_dim_per_tensor;  ///< the sliceable dimension of each entry

  // --- Mooncake and NIXL.
  std::vector<std::uint64_t> dst_kv_ptrs;
  std::vector<std::uint64_t> dst_aux_ptrs;
  U64Lists dst_state_data_ptrs;
  std::vector<std::uint64_t> dst_kv_layer_ids; ///< native 'I' (components)
  U64Lists dst_state_layer_ids;                ///< global layer id per entry (components, #32270)
  std::uint64_t staging_base_ptr = 0;          ///< 0 unless an 8-byte frame was sent
  std::int64_t staging_total_size = 0;
  std::int64_t dst_dcp_size = 1;
  std::int64_t dst_dcp_rank = 0;
  std::vector<std::uint64_t> dst_kv_item_lens; ///< every KV entry's item len (Mooncake gen-3, NIXL)

  // --- Mooncake only.
  std::string mooncake_session_id;                    ///< the transfer engine's "ip:port"
  bool enable_hisparse = false;                       ///< flat generation, frame 12
  std::vector<std::uint64_t> staging_slot_layer_ids;  ///< components, frame 18 (native 'Q')
  /// Frame 20 as sent: json.dumps({"kv": ..., "state": ...}); nullopt for b"".
  std::optional<std::string> unified_layouts_json;

  // --- Mori and NIXL.
  std::int64_t gpu_id = 0;

  // --- Mori only: descriptors are opaque (mori.io pack() blobs); kept byte for byte.
  Bytes engine_desc;                    ///< EngineDesc.pack()
  Bytes dst_kv_mem_descs;               ///< msgpack list of MemoryDesc.pack(), or b""
  Bytes dst_aux_mem_descs;
  Bytes dst_state_mem_descs;            ///< components: msgpack list of lists; flat: one list
  std::size_t kv_mem_desc_count = 0;    ///< descriptors found in dst_kv_mem_descs
  std::size_t aux_mem_desc_count = 0;
  std::vector<std::size_t> state_mem_desc_counts; ///< per component

  // --- NIXL only.
  std::string agent_name;
  Bytes agent_metadata;                       ///< opaque
  std::optional<std::int64_t> dst_num_slots;  ///< frame 16; None when absent or b""
  std::vector<std::string> dst_kv_mem_kinds;  ///< "VRAM" / "DRAM" per KV pointer

  /// Equal when every wire field is equal; how it was obtained (generation and
  /// its evidence, frames, notes, synthetic_pointers) does not count.
  friend bool operator==(const Registration& a, const Registration& b);
};

/// Entries per state component, whichever field carries them: pointers, item
/// lengths, dims or (Mori) descriptors. The checker pairs components by index.
std::vector<std::size_t> state_entry_counts(const Registration& r);

/// How registration_from_layout fills what a layout does not know.
struct RegistrationParams
{
  TransferBackend backend = TransferBackend::mooncake;
  Generation generation = Generation::components;
  std::int64_t dst_tp_rank = 0;      ///< the decode rank's engine_rank
  std::int64_t dst_attn_tp_size = 1;
  std::string endpoint = "192.0.2.10"; ///< TEST-NET-1: recognisably not a real host
  std::int64_t dst_port = 17000;
  std::vector<std::uint64_t> kv_item_lens; ///< decode's KV entries; empty: KV not modelled
  std::size_t aux_entries = 0;
  std::int64_t dcp_size = 1;
  std::int64_t dcp_rank = 0;
  std::int64_t gpu_id = 0;
};

/// The registration a decode rank with `layout` would send, with synthetic
/// pointers (synthetic_pointers set). Only the fields `params.generation` carries
/// are filled: pre-dims has no item lens or dims, flat keeps component 0, layer
/// ids come with components. Frame 20 (unified layouts) is never synthesized.
Registration registration_from_layout(const model::RankLayout& layout, const RegistrationParams& params);

/// Synthetic pointer values (see Registration::synthetic_pointers).
std::uint64_t synthetic_state_ptr(std::size_t component, std::size_t entry);
std::uint64_t synthetic_kv_ptr(std::size_t entry);
std::uint64_t synthetic_aux_ptr(std::size_t entry);
/// True for values made by the three functions above.
bool is_synthetic_pointer(std::uint64_t value);

/// One run of entries of a component that most likely belong to one state
/// tensor: SGLang registers all layers of conv, then all layers of temporal.
struct TensorGroup
{
  std::size_t first_entry = 0;
  std::size_t entries = 0;
  std::optional<std::uint64_t> item_len;      ///< when every entry of the run has the same
  std::optional<std::uint64_t> dim;           ///< likewise
  std::vector<std::uint64_t> layer_ids;       ///< when the registration carries them
  std::string likely_tensor;                  ///< "conv", "temporal", "conv[1]", "unified envelope", "state"
  std::string why;                            ///< how the run was found
};

/// Per-component summary for `pdcheck decode`.
struct ComponentSummary
{
  std::size_t index = 0;
  std::size_t entries = 0;
  std::optional<std::uint64_t> bytes_per_slot; ///< sum of item lens, when sent
  std::vector<TensorGroup> groups;
};

/// Splits each component into tensor groups: by repeated layer ids when the
/// registration has them (a layer id seen again starts the next tensor), else
/// by runs of equal (item_len, dim).
std::vector<ComponentSummary> summarize_components(const Registration& r);

} // namespace pdcheck::wire
