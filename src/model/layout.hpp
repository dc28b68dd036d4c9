#pragma once

#include "core/dtype.hpp"
#include "core/finding.hpp"
#include "core/sglang_messages.hpp"
#include "model/model_spec.hpp"
#include "core/profile.hpp"
#include "util/shared_vector.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::model {

/// Everything that decides one side's state layout: the model, the profile and
/// the parallel/dtype settings already resolved from launch args and env.
struct LayoutInput
{
  ModelSpec model;
  Profile profile;
  int tp_size = 1;
  int dp_size = 1;
  bool enable_dp_attention = false;
  int attn_cp_size = 1;
  int pp_size = 1;
  /// SGLANG_PP_LAYER_PARTITION as set (even an empty value counts: SGLang reads
  /// it whenever it is set); nullopt = not set, the profile's even split.
  std::optional<std::string> pp_layer_partition;
  Dtype conv_dtype = Dtype::bfloat16;
  Dtype ssm_dtype = Dtype::float32;
  bool enable_unified_memory = false;
  int speculative_num_draft_tokens = 0; ///< 0 when speculative decoding is off
};

/// One state tensor of a rank (a conv tensor or the temporal tensor), covering
/// all of the rank's state layers.
struct StateTensor
{
  std::string name; ///< "conv", "conv0".."conv2" (early KDA), "prev_hs" (ZAYA1), "temporal"
  std::vector<std::int64_t> per_slot_shape;
  Dtype dtype = Dtype::bfloat16;
  std::int64_t item_len = 0;    ///< bytes of one slot of one layer
  int slice_axis = 0;           ///< axis sharded by attention TP
  std::int64_t slice_dim = 0;   ///< per_slot_shape[slice_axis]
  std::int64_t outer_count = 1; ///< prod(per_slot_shape[:slice_axis])
  std::int64_t registered_dim = 0; ///< the state_dim_per_tensor value this profile sends
  std::vector<std::int64_t> conv_shard_groups; ///< full unsharded sub-blocks (GDN/KDA conv), else empty
  bool registered = true;       ///< false when the profile drops it (zero-size in v0.5.20)
  /// Every rank holds the whole tensor (ZAYA1's previous hidden state); its
  /// registered dim is still its full width, as if it were sharded.
  bool replicated = false;
};

/// One registration entry: one layer of one tensor (or the whole unified envelope).
struct StateEntry
{
  int tensor = 0;      ///< index into RankLayout::tensors (-1 for the unified envelope)
  int layer_id = -1;   ///< global layer id (-1 for the unified envelope)
  std::int64_t item_len = 0;
  std::int64_t dim = 0; ///< registered dim (0 when the profile sends none)
};

/// What one attention-TP rank of one PP stage allocates and registers.
struct RankLayout
{
  int attn_tp_rank = 0;
  int pp_rank = 0;
  // The lists below are shared by the ranks of a PP stage (they register the
  // same ones) until one is changed.
  util::SharedVector<int> layer_ids; ///< this stage's state layers (global ids)
  util::SharedVector<StateTensor> tensors;
  util::SharedVector<StateEntry> entries; ///< in SGLang's registration order
  bool unified = false;
  std::int64_t bytes_per_request = 0; ///< sum of item_len over entries

  // The registration fields under SGLang's names: one inner list per state
  // component (pdcheck models the MAMBA component only).
  std::vector<std::string> state_types;
  util::SharedVector<std::vector<std::uint64_t>> state_item_lens;
  util::SharedVector<std::vector<std::uint64_t>> state_dim_per_tensor;
  util::SharedVector<std::vector<std::uint64_t>> state_layer_ids;
};

/// The layout of a whole side: every (attention-TP rank, PP stage).
struct Layout
{
  int tp_size = 1;
  int attn_tp_size = 1;
  int attn_dp_size = 1;
  int pp_size = 1;
  std::vector<RankLayout> ranks; ///< ordered by pp_rank, then attn_tp_rank
  /// Startup incompatibilities (divisibility and the like); when any has
  /// severity error the model cannot be served this way and `ranks` may be empty.
  std::vector<Finding> findings;

  bool servable() const;
};

/// attn_tp = tp / (dp if DP attention) / attention CP, as SGLang computes it.
int attention_tp_size(int tp_size, int dp_size, bool enable_dp_attention, int attn_cp_size);

/// The layer count of every PP stage, as SGLang's get_pp_indices
/// (python/sglang/srt/distributed/utils.py) computes it for this profile, or the
/// ValueError it raises for a bad SGLANG_PP_LAYER_PARTITION (exact text, without
/// the class name).
struct PpStageSizes
{
  std::vector<long long> sizes; ///< as Python holds them: a partition may give any integers that sum right
  std::optional<std::string> value_error;
  MessageId value_error_id = MessageId::pp_partition_invalid; ///< the catalog row of value_error

  void raise(MessageId id, MessageArgs args)
  {
    value_error_id = id;
    value_error = render_message(id, args);
  }
};
PpStageSizes pp_stage_sizes(int num_layers, int pp_size, PpSplit split,
                            const std::optional<std::string>& partition);

/// Global layer range [start, end) of stage `pp_rank` given every stage's size
/// ({0, 0} for a rank out of range).
std::pair<long long, long long> pp_layer_range(const std::vector<long long>& stage_sizes, int pp_rank);

/// Derives the layout. Pure; never throws for domain problems (they become findings).
Layout compute_layout(const LayoutInput& input);


} // namespace pdcheck::model
