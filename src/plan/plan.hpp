#pragma once

// The copy Plan: for one (prefill rank, decode rank) pair and one request, the
// list of byte copies SGLang's prefill backend would issue for the Mamba state
// component, in that backend's and profile's semantics (old bugs included),
// after the validations that backend runs first. The checker simulates it; the
// probe executes it.

#include "model/layout.hpp"
#include "plan/sglang_utils.hpp"
#include "core/profile.hpp"
#include "sglang/server_args.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::plan {

/// One side's state metadata for the Mamba component, as the prefill sees it:
/// either its own kv_args, or the decode's registration as the prefill parsed it.
/// Empty lists mean "not sent / not known".
struct StateMetadata
{
  std::vector<std::uint64_t> item_lens;
  std::vector<std::uint64_t> dims;
  std::vector<std::uint64_t> layer_ids;
  std::vector<std::int64_t> outer_counts;                  ///< prefill-local, v0.5.20
  std::vector<std::vector<std::int64_t>> conv_shard_groups; ///< prefill-local, per entry (empty = none)
  int num_components = 1; ///< state components registered (0 when the decode registered none)
  int num_entries = 0;    ///< state pointers registered for the Mamba component
  bool unified = false;   ///< one unified envelope (no dims, no ids)
  bool unified_layout_sent = false; ///< Mooncake frame 20 carries a unified state layout
};

/// The prefill's own view of its rank (what it knows locally, per its profile).
StateMetadata own_metadata(const model::RankLayout& rank, const Profile& profile);

/// The decode rank's registration as sent in the decode's profile (before the
/// prefill parses it; see wire/ for cross-generation parsing).
StateMetadata registered_metadata(const model::RankLayout& rank, const Profile& profile);

/// Everything the prefill backend's state path reads for one pair.
struct PairInput
{
  TransferBackend backend = TransferBackend::mooncake;
  Profile prefill_profile;
  int prefill_pp_size = 1;
  int prefill_attn_tp_size = 1;
  int prefill_rank = 0; ///< attention-TP rank within the group
  StateMetadata src;
  int decode_attn_tp_size = 1;
  int decode_rank = 0;
  StateMetadata dst;
  std::int64_t src_slot = 3;
  std::int64_t dst_slot = 5;
  /// The prefill's pool is hybrid with MLA full attention (SGLang's
  /// is_hybrid_mla_backend: Kimi-Linear, GLM-5-Next). SGLang's is_mla_backend
  /// is false for every pool that carries state (a HybridLinearKVPool).
  bool hybrid_mla = false;
  int prefill_bootstrap_port = 8998; ///< named in the transfer thread's death message
  int src_index_count = 1; ///< prefill's own state index list length
  int dst_index_count = 1; ///< dst_state_indices length for the Mamba component
};

/// One RDMA write: offsets are from the base of the registered entry buffer.
struct Copy
{
  int src_entry = 0;
  int dst_entry = 0;
  std::int64_t src_offset = 0;
  std::int64_t dst_offset = 0;
  std::int64_t length = 0;
};

enum class PlanPath {
  none,            ///< nothing is sent (error, or component skipped)
  whole_item,      ///< equal TP: copy each item whole
  whole_fallback,  ///< unequal TP but dims missing: whole-item copy anyway
  slice,           ///< unequal TP with dims: byte blocks
};

std::string_view plan_path_name(PlanPath p);

struct PairPlan
{
  PlanPath path = PlanPath::none;
  std::vector<Copy> copies;
  std::optional<SglangError> error;   ///< what SGLang raises instead of (or while) sending
  std::optional<std::string> logged;  ///< a warning SGLang logs on this path
  std::string function;               ///< SGLang function that builds the copies
  bool skipped = false;               ///< the component is silently skipped (e.g. Mori, empty indices)
};

/// Runs the backend's validations for the Mamba component in SGLang's order and,
/// when they pass, builds the copies.
PairPlan build_pair_plan(const PairInput& in);

} // namespace pdcheck::plan
