#pragma once

#include "core/transfer_backend.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

/// How the decode registration carries the state metadata.
enum class RegistrationFormat {
  no_state_lens, ///< pre-dims: no state_item_lens / state_dim_per_tensor frames
  flat,          ///< one state_type, flat native arrays
  components,    ///< per-component lists packed with pack_int_lists
};

/// What `state_dim_per_tensor` holds for an entry.
enum class DimRule {
  first_axis, ///< per_slot_shape[0] (v0.5.x .. early 2026); KDA conv gives K-1
  slice_axis, ///< per_slot_shape[slice_axis] (v0.5.20)
};

/// How get_pp_indices (python/sglang/srt/distributed/utils.py) splits layers
/// over pipeline stages when SGLANG_PP_LAYER_PARTITION is not set.
enum class PpSplit {
  last_takes_remainder, ///< up to v0.5.5.post3: the last stage takes the whole remainder (56/3 -> 18,18,20)
  last_stages_one_extra, ///< PR #13977, v0.5.6 on: the last `remainder` stages take one extra (56/3 -> 18,19,19)
};

/// A point in SGLang's history that fixes PD behaviour. Profiles are data: every
/// difference between SGLang generations that pdcheck models is a field here.
struct Profile
{
  std::string name;     ///< "pre-dims", "flat", "components", "v0.5.20", or a release "0.5.15"
  std::string base;     ///< the named profile this row belongs to
  std::string released; ///< release date, "" for named profiles
  std::string confidence;
  std::string evidence;

  bool state_transfer = true;  ///< Mooncake transfers Mamba state at all (#10912)
  RegistrationFormat mooncake_format = RegistrationFormat::components;
  DimRule dim_rule = DimRule::first_axis;
  bool drop_zero_size_entries = false;        ///< v0.5.20: zero-element tensors not registered
  bool kda_single_conv = false;               ///< Kimi-Linear conv as one (K-1, channels) tensor
  bool dims_include_spec_intermediates = false; ///< early-2026 dims list bug with spec decoding
  bool conv_subgroup_slicing = false;         ///< #30997: GDN/KDA conv sliced per shard group
  bool aggregation_writer_fix = true;         ///< #20655: aggregation dst offset uses writer index
  bool state_layer_ids = false;               ///< #32270: registration carries global layer ids
  bool unified_memory = false;                ///< --enable-unified-memory exists
  bool unified_memory_pd = false;             ///< unified memory accepted with PD (#33362/#37506)
  bool unified_unequal_tp = false;            ///< unified state at unequal TP via frame-20 layouts
  bool nixl_state = false;                    ///< NIXL transfers Mamba state (#16229)
  bool nixl_dims = false;                     ///< NIXL sends item_lens + dims (#22240)
  bool mori_state = false;                    ///< Mori transfers state (#22665)
  bool mori_broken_pack = false;              ///< v0.5.12.x: Mori decode packs lists flat -> struct.error
  bool mooncake_slot_size_check = true;       ///< M11 "slot size mismatch" exists
  bool mooncake_layout_check = true;          ///< M9 "layouts differ ... no per-tensor dim metadata" exists
  bool pd_decode_dcp = false;                 ///< #32837 (opened 2026-07-30): decode DCP checks at bootstrap, prefill DCP relayout
  bool dsa_named_nsa = false;                 ///< before #25821 (opened 2026-05-19) the DSA state is "nsa"
  bool mori_minimax_index_k = true;           ///< #29756 (merged 2026-07-02): Mori's allow-list has minimax_index_k
  bool minimax_state_wording = false;         ///< Mooncake's MiniMax texts say "state" (6d8ea7e3), not "sparse index"
  /// Mooncake's maybe_send_extra lets a hybrid-MLA pool (is_hybrid_mla_backend)
  /// past its unequal-TP refusal of page-indexed state (0005973a, v0.5.20's code).
  bool mooncake_hybrid_mla_extra_state = false;
  PpSplit pp_split = PpSplit::last_stages_one_extra;
  /// PR #18532: SSM dtype from flag > SGLANG_MAMBA_SSM_DTYPE > config > float32 and
  /// SGLANG_MAMBA_CONV_DTYPE honoured. Before it, ServerArgs overwrote the
  /// environment from --mamba-ssm-dtype (default float32) and conv was bfloat16.
  bool mamba_dtype_env = true;
};

/// Whether `backend` sends the Mamba state component in this profile (Mooncake
/// #10912, NIXL #16229, Mori #22665); before that it moves the KV cache only.
/// Backends pdcheck does not model (mooncake_tcp, ascend, fake) count as sending.
bool moves_mamba_state(const Profile& p, TransferBackend backend);

/// All named profiles and release rows, oldest first.
const std::vector<Profile>& profiles();

/// The release rows of profiles() (a released date), oldest first.
std::vector<const Profile*> release_profiles();

/// Finds a profile by name ("components", "v0.5.20") or by release ("0.5.15",
/// "v0.5.15"), case-insensitively; a name as written wins over a release that
/// normalises to it ("0.5.20" is the release row, "v0.5.20" the named profile).
/// Returns nullptr when nothing matches: resolve_profile maps releases pdcheck
/// has no row for.
const Profile* find_profile(std::string_view name_or_version);

/// A side's `sglang:` value resolved to a profile. When the value is a release
/// pdcheck has no row for (0.5.24, 0.5.19rc1, 0.5.22.dev20261009, an image tag
/// such as lmsysorg/sglang:v0.5.21-cu129), the nearest known release is used and
/// `assumption` says which and why.
struct ProfileMatch
{
  const Profile* profile = nullptr;
  std::string assumption; ///< empty when the value names a profile or release exactly
  std::string read_as;    ///< the release read from an image tag or suffixed version ("" when as written)
};

/// find_profile, then the nearest known release for version-like text.
/// profile is nullptr when the text is neither a profile nor a version.
ProfileMatch resolve_profile(std::string_view name_or_version);

/// The confidence of the profile mapping a side uses: the row's own, or "low"
/// when the release was assumed from a neighbour.
std::string_view mapping_confidence(const ProfileMatch& m);

/// The names accepted by find_profile, for error messages and --version.
std::vector<std::string> profile_names();

/// Why `word` names no profile, for every place that takes one (side files'
/// sglang:, --prefill-sglang, ...): "unknown profile or version 'W'", a
/// did-you-mean for misspelt profile names, and what is accepted in one line
/// (the range of known releases, an image tag, the named profiles), not the
/// whole release list, which `pdcheck profiles` prints.
std::string unknown_profile_text(std::string_view word);

/// The default profile when a side does not say (the newest).
const Profile& default_profile();

} // namespace pdcheck
