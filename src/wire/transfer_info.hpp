#pragma once

#include "wire/bytes.hpp"
#include "wire/frame_problem.hpp"
#include "wire/generation.hpp"
#include "wire/registration.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::wire {

/// The per-request message a decode rank sends to every prefill rank it reads
/// from (`send_metadata`), under the names of SGLang's `TransferInfo.from_zmq`.
/// Two shapes per backend: flat (one int32 array of state indices) and
/// components (`pack_int_lists(state_indices, "i")`, one list per state component).
struct TransferInfo
{
  // --- How it was obtained (not compared by operator==).
  TransferBackend backend = TransferBackend::mooncake;
  Generation generation = Generation::components; ///< flat or components
  std::vector<std::string> generation_evidence;
  std::vector<FrameInfo> frames;
  std::vector<std::string> notes;

  std::int64_t room = 0;                 ///< bootstrap_room
  std::string endpoint;                  ///< decode ip
  std::int64_t dst_port = 0;             ///< decode rank_port
  std::string mooncake_session_id;       ///< Mooncake
  std::string engine_key;                ///< Mori
  std::string agent_name;                ///< NIXL
  std::vector<std::int32_t> dst_kv_indices;
  /// Mooncake: None for a dummy; Mori: -1 when b"" was sent; NIXL: always sent.
  std::optional<std::int64_t> dst_aux_index;
  /// Parallel to the decode's state_types; for MAMBA a one-element list holding
  /// the decode's slot. Flat generations decode into one component.
  I32Lists dst_state_indices;
  std::int64_t required_dst_info_num = 1;
  std::optional<std::int64_t> decode_prefix_len;
  std::optional<std::vector<std::int32_t>> dst_device_kv_indices; ///< Mooncake frame 9 (HiSparse)
  std::optional<bool> is_dummy_rank;     ///< NIXL frame 9
  std::string transfer_generation;       ///< NIXL frame 10, opaque to pdcheck

  /// The backend's own dummy rule, evaluated on the fields above (see is_dummy_reason).
  bool is_dummy = false;

  friend bool operator==(const TransferInfo& a, const TransferInfo& b);
};

/// Applies the backend's dummy rule and says which clause decided:
/// Mooncake: frames 4 and 5 both b""; Mori: no KV indices, aux < 0 and no
/// decode_prefix_len (flat: no prefix clause); NIXL: is_dummy_rank when sent,
/// else no KV indices and no decode_prefix_len.
std::pair<bool, std::string> dummy_rule(const TransferInfo& t);

/// Outcome of decoding a TransferInfo, as for registrations.
struct TransferInfoDecode
{
  std::optional<TransferInfo> transfer_info;
  std::optional<FrameProblem> problem;
  std::vector<std::string> notes;
};

/// Flat or components, from the frame count (Mooncake 8 / 10, Mori 9 / 10, NIXL
/// 9 / 12 with the guard) and the shape of the state frame.
std::pair<Generation, std::vector<std::string>> detect_transfer_info_generation(TransferBackend backend,
                                                                                const Frames& frames);

/// Decodes a per-request message; `generation` forces the parser (pre-dims
/// reads as flat, components-layouts as components).
TransferInfoDecode decode_transfer_info(TransferBackend backend, const Frames& frames,
                                        std::optional<Generation> generation = std::nullopt,
                                        DecodeMode mode = DecodeMode::strict);

/// decode_transfer_info's strict verdict with the generation it detects, and
/// nothing else: no values, frame info, notes or texts. nullopt exactly when
/// the strict decode has a problem (tests/unit/wire/test_transfer_info_verdict.cpp).
std::optional<Generation> transfer_info_verdict(TransferBackend backend, const Frames& frames);

/// Strict decode; throws InputError("<origin>: frame N (field)", "byte K: ...").
TransferInfo decode_transfer_info_or_throw(TransferBackend backend, const Frames& frames,
                                           std::optional<Generation> generation, const std::string& origin);

/// The frames `send_metadata` writes for `t` (a dummy gets SGLang's empty
/// frames). Throws std::invalid_argument when a flat message would need more
/// than one state component.
Frames encode_transfer_info(const TransferInfo& t, std::optional<Generation> generation = std::nullopt);

} // namespace pdcheck::wire
