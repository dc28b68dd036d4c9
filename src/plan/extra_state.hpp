#pragma once

// State components other than Mamba (sliding-window, DSA, MiniMax sparse-index
// state ...) that a hybrid server may register after its Mamba component. pdcheck
// does not lay them out; it reproduces the limits each backend's state path
// enforces on them before any byte moves: unequal attention TP for non-MLA
// models, PP for MiniMax state, and state types a backend does not know
// (sglang-pd-wire-and-checks.md §4.1 M14/M18, §4.2, §4.3 N-4..N-6).

#include "core/profile.hpp"
#include "plan/sglang_utils.hpp"
#include "sglang/server_args.hpp"
#include "sglang/state_type.hpp"

#include <optional>

namespace pdcheck::plan {

/// What the prefill's state path sees for one non-Mamba component of one pair.
struct ExtraStateInput
{
  TransferBackend backend = TransferBackend::mooncake;
  sglang::ExtraStateType type = sglang::ExtraStateType::swa;
  int prefill_attn_tp_size = 1;
  int decode_attn_tp_size = 1;
  int prefill_pp_size = 1;
  /// The prefill's pool is hybrid with MLA full attention (is_hybrid_mla_backend).
  /// SGLang's is_mla_backend is false for every hybrid pool (HybridLinearKVPool
  /// is not an MLATokenToKVPool), so it is not an input here.
  bool hybrid_mla = false;
  // What the prefill's release says and knows (core/profile.hpp; the defaults
  // are the newest modelled code).
  bool dsa_named_nsa = false;           ///< before #25821 the DSA component is "nsa"
  bool mori_minimax_index_k = true;     ///< Mori's allow-list has minimax_index_k (#29756)
  bool minimax_state_wording = true;    ///< Mooncake says "MiniMax state", not "sparse index"
  bool mooncake_hybrid_mla_exempt = true; ///< Mooncake lets a hybrid-MLA pool past the unequal-TP refusal
};

/// Sets what `in` takes from the prefill's release row.
void set_release_flags(ExtraStateInput& in, const Profile& prefill_profile);

/// The exception the prefill backend raises for this component before sending it,
/// or nullopt when the component passes these limits.
std::optional<SglangError> extra_state_error(const ExtraStateInput& in);

} // namespace pdcheck::plan
