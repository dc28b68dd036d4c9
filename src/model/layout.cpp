#include "model/layout.hpp"

#include "core/rules.hpp"
#include "core/sglang_messages.hpp"
#include "util/python_int.hpp"

#include <fmt/format.h>

#include <limits>
#include <numeric>
#include <string_view>

namespace pdcheck::model {

namespace {

std::int64_t product(const std::vector<std::int64_t>& v, std::size_t begin, std::size_t end)
{
  std::int64_t p = 1;
  for (std::size_t i = begin; i < end && i < v.size(); ++i) {
    p *= v[i];
  }
  return p;
}

/// SGLang's divide(): exact or a startup failure. Records the finding and
/// returns 0 so the caller can go on collecting every problem at once.
std::int64_t divide(std::int64_t numerator, std::int64_t denominator, std::string_view what,
                    std::vector<Finding>& findings, std::string_view width = "attention TP size")
{
  if (denominator <= 0 || numerator % denominator != 0) {
    Finding f = make_finding(RuleId::startup_divisibility,
                             fmt::format("{} {} is not divisible by {} {}", what, numerator, width, denominator));
    f.runtime_error =
      render_delivered(MessageId::not_divisible, {{"numerator", numerator}, {"denominator", denominator}});
    f.where = "SGLang startup: divide (python/sglang/srt/distributed/utils.py) while the state pool is sized";
    f.evidence["value"] = numerator;
    f.evidence["attn_tp_size"] = denominator;
    f.evidence["quantity"] = std::string(what);
    findings.push_back(std::move(f));
    return 0;
  }
  return numerator / denominator;
}

StateTensor make_tensor(std::string name, std::vector<std::int64_t> shape, Dtype dtype, int slice_axis)
{
  StateTensor t;
  t.name = std::move(name);
  t.per_slot_shape = std::move(shape);
  t.dtype = dtype;
  t.item_len = product(t.per_slot_shape, 0, t.per_slot_shape.size()) * dtype_size(dtype);
  t.slice_axis = slice_axis;
  t.slice_dim = t.per_slot_shape.at(static_cast<std::size_t>(slice_axis));
  t.outer_count = product(t.per_slot_shape, 0, static_cast<std::size_t>(slice_axis));
  return t;
}

/// The TP width the state is sharded by, as SGLang names it in messages.
std::string_view width_name(const ModelSpec& m)
{
  return m.state_sharded_by_full_tp ? "TP size" : "attention TP size";
}

/// Mamba2StateShape.create: Mamba2, GDN, ShortConv and lightning families.
std::vector<StateTensor> mamba2_tensors(const LayoutInput& in, int tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  const std::int64_t heads = m.family == StateFamily::short_conv ? tp : m.num_heads;
  // Groups that TP does not divide are replicated so every rank holds one.
  const std::int64_t groups_eff = m.n_groups % tp == 0 ? m.n_groups : m.n_groups + (tp - m.n_groups);
  const std::int64_t conv_dim = m.intermediate_size + 2 * groups_eff * m.state_size;
  const std::int64_t conv_per_rank = divide(conv_dim, tp, "conv_dim", findings, width_name(m));
  const std::int64_t heads_per_rank = divide(heads, tp, "state heads", findings, width_name(m));

  if (m.family == StateFamily::mamba2 && m.n_groups % tp != 0 && m.n_groups != 1) {
    Finding f = make_finding(RuleId::startup_mamba_groups,
                             fmt::format("n_groups {} is not divisible by {} {} and is not 1", m.n_groups,
                                         width_name(m), tp));
    f.where = "SGLang startup: MambaMixer2";
    f.evidence["n_groups"] = m.n_groups;
    f.evidence["attn_tp_size"] = tp;
    findings.push_back(std::move(f));
  }

  StateTensor conv = make_tensor("conv", {conv_per_rank, m.conv_kernel - 1}, in.conv_dtype, 0);
  if (m.family == StateFamily::gdn && m.gdn_conv_shard_groups && in.profile.conv_subgroup_slicing) {
    // GDN conv channels are [query | key | value], each sharded on its own.
    const std::int64_t key_dim = m.n_groups * m.state_size;
    conv.conv_shard_groups = {key_dim, key_dim, m.intermediate_size};
  }
  StateTensor temporal = make_tensor("temporal", {heads_per_rank, m.head_dim, m.state_size}, in.ssm_dtype, 0);
  return {conv, temporal};
}

/// KimiLinearStateShape.create (KDA).
std::vector<StateTensor> kda_tensors(const LayoutInput& in, int tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  const std::int64_t window = m.conv_kernel - 1;
  const std::int64_t proj = m.kda_num_heads * m.kda_head_dim;
  const std::int64_t proj_k = m.kda_num_k_heads * m.kda_head_k_dim;
  const std::int64_t proj_rank = divide(proj, tp, "KDA value projection", findings);
  const std::int64_t proj_k_rank = divide(proj_k, tp, "KDA key projection", findings);
  const std::int64_t heads_rank = divide(m.kda_num_heads, tp, "KDA heads", findings);

  std::vector<StateTensor> out;
  if (in.profile.kda_single_conv) {
    // One (window, channels) tensor: the TP-sharded axis is the second one.
    StateTensor conv = make_tensor("conv", {window, proj_rank + 2 * proj_k_rank}, in.conv_dtype, 1);
    if (in.profile.conv_subgroup_slicing) {
      conv.conv_shard_groups = {proj, proj_k, proj_k};
    }
    out.push_back(conv);
  } else {
    out.push_back(make_tensor("conv0", {window, proj_rank}, in.conv_dtype, 1));
    out.push_back(make_tensor("conv1", {window, proj_k_rank}, in.conv_dtype, 1));
    out.push_back(make_tensor("conv2", {window, proj_k_rank}, in.conv_dtype, 1));
  }
  out.push_back(make_tensor("temporal", {heads_rank, m.kda_head_dim, m.kda_head_dim}, in.ssm_dtype, 0));
  return out;
}

/// SimpleGLAStateShape.create: a temporal state per layer, no conv.
std::vector<StateTensor> simple_gla_tensors(const LayoutInput& in, int tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  const std::int64_t heads_rank = divide(m.num_heads, tp, "lightning heads", findings);
  return {make_tensor("temporal", {heads_rank, m.head_dim, m.state_size}, in.ssm_dtype, 0)};
}

/// ZAYA1's CCA state (configs/zaya.py): a sharded conv and a replicated one.
/// Nothing marks the second as replicated, so it registers its full width as
/// the sliced dim, like a sharded tensor.
std::vector<StateTensor> cca_tensors(const LayoutInput& in, int tp, int attn_tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  // models/zaya.py asserts these at load; the config only divides conv[0].
  if (attn_tp != tp) {
    Finding f = make_finding(RuleId::startup_parallel_sizes,
                             fmt::format("{} needs attention TP size {} to equal TP size {}: attention DP is not "
                                         "supported for ZAYA1",
                                         m.architecture, attn_tp, tp));
    f.where = "SGLang startup: ZayaAttention (models/zaya.py)";
    f.evidence["tp_size"] = tp;
    f.evidence["attn_tp_size"] = attn_tp;
    findings.push_back(std::move(f));
  }
  divide(m.num_key_value_heads, tp, "CCA key/value heads", findings, width_name(m));
  const std::int64_t conv_rank = divide(m.intermediate_size, tp, "CCA conv channels", findings, width_name(m));
  StateTensor shared = make_tensor("conv", {conv_rank, m.conv_kernel - 1}, in.conv_dtype, 0);
  StateTensor prev = make_tensor("prev_hs", {m.replicated_conv_channels, 1}, in.conv_dtype, 0);
  prev.replicated = true;
  return {shared, prev, make_tensor("temporal", {1, 1, 0}, in.ssm_dtype, 0)};
}

/// Rwkv7StateShape.create (configs/mamba_utils.py@02e208de): the time-mix and
/// channel-mix token shifts, each the previous token's full hidden vector on
/// every rank, and the WKV state sharded by head. Nothing marks the shifts as
/// replicated, so each registers its full width as the sliced dim.
std::vector<StateTensor> rwkv7_tensors(const LayoutInput& in, int tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  const std::int64_t heads_rank = divide(m.num_heads, tp, "RWKV-7 heads", findings);
  // shift_tm: the time-mix (attention) shift; shift_cm: the channel-mix (FFN) one.
  StateTensor attn_shift = make_tensor("shift_tm", {m.replicated_conv_channels, 1}, in.conv_dtype, 0);
  StateTensor ffn_shift = make_tensor("shift_cm", {m.replicated_conv_channels, 1}, in.conv_dtype, 0);
  attn_shift.replicated = ffn_shift.replicated = true;
  return {attn_shift, ffn_shift, make_tensor("temporal", {heads_rank, m.head_dim, m.head_dim}, in.ssm_dtype, 0)};
}

void check_attention_heads(const LayoutInput& in, int tp, std::vector<Finding>& findings)
{
  const ModelSpec& m = in.model;
  if (m.num_attention_layers == 0 || m.num_attention_heads == 0) {
    return;
  }
  const int kv = m.num_key_value_heads > 0 ? m.num_key_value_heads : m.num_attention_heads;
  const bool heads_ok = m.num_attention_heads % tp == 0;
  // MLA (Kimi-Linear) has no separate KV heads to shard.
  const bool kv_ok = m.hybrid_mla || (tp >= kv ? tp % kv == 0 : kv % tp == 0);
  if (heads_ok && kv_ok) {
    return;
  }
  Finding f = make_finding(
    RuleId::startup_attention_heads,
    heads_ok ? fmt::format("{} KV heads can be neither sharded nor replicated over attention TP size {}", kv, tp)
             : fmt::format("{} attention heads are not divisible by attention TP size {}", m.num_attention_heads, tp));
  f.where = "SGLang startup: attention layers";
  f.evidence["num_attention_heads"] = m.num_attention_heads;
  f.evidence["num_key_value_heads"] = kv;
  f.evidence["attn_tp_size"] = tp;
  findings.push_back(std::move(f));
}

std::vector<StateTensor> state_tensors(const LayoutInput& in, int tp, int attn_tp, std::vector<Finding>& findings)
{
  std::vector<StateTensor> tensors;
  switch (in.model.family) {
  case StateFamily::kda: tensors = kda_tensors(in, tp, findings); break;
  case StateFamily::simple_gla: tensors = simple_gla_tensors(in, tp, findings); break;
  case StateFamily::cca: tensors = cca_tensors(in, tp, attn_tp, findings); break;
  case StateFamily::rwkv7: tensors = rwkv7_tensors(in, tp, findings); break;
  case StateFamily::mamba2:
  case StateFamily::gdn:
  case StateFamily::short_conv:
  case StateFamily::lightning: tensors = mamba2_tensors(in, tp, findings); break;
  }
  for (StateTensor& t : tensors) {
    t.registered = !(in.profile.drop_zero_size_entries && t.item_len == 0);
    t.registered_dim = in.profile.dim_rule == DimRule::slice_axis ? t.slice_dim : t.per_slot_shape.at(0);
  }
  return tensors;
}

RankLayout build_rank(const LayoutInput& in, const std::vector<StateTensor>& tensors, const std::vector<long long>& stage_sizes,
                      int attn_tp_rank, int pp_rank)
{
  RankLayout r;
  r.attn_tp_rank = attn_tp_rank;
  r.pp_rank = pp_rank;
  r.tensors = tensors;
  r.unified = in.enable_unified_memory;

  const auto [start, end] = pp_layer_range(stage_sizes, pp_rank);
  std::vector<int>& stage_layers = r.layer_ids.edit();
  for (int id : in.model.state_layer_ids) {
    if (id >= start && id < end) {
      stage_layers.push_back(id);
    }
  }
  const auto layers = static_cast<std::int64_t>(r.layer_ids.size());

  r.state_types = {"mamba"};
  if (r.unified) {
    // One envelope per slot holding every layer of every tensor; no dims, no
    // layer ids: heterogeneous-TP slicing is impossible by construction.
    std::int64_t envelope = 0;
    for (const StateTensor& t : r.tensors) {
      envelope += layers * t.item_len;
    }
    r.entries.push_back(StateEntry{-1, -1, envelope, 0});
    r.bytes_per_request = envelope;
    r.state_item_lens = {{static_cast<std::uint64_t>(envelope)}};
    r.state_dim_per_tensor = {{}};
    r.state_layer_ids = {{}};
    return r;
  }

  // Sized once: a 16k-rank side builds a million of these lists, and growing
  // them by doubling was most of `check`'s time at that scale.
  const std::size_t entries = r.tensors.size() * r.layer_ids.size();
  std::vector<std::uint64_t> item_lens;
  std::vector<std::uint64_t> dims;
  std::vector<std::uint64_t> layer_ids;
  std::vector<StateEntry>& rank_entries = r.entries.edit();
  rank_entries.reserve(entries);
  item_lens.reserve(entries);
  const bool spec_dims = in.profile.dims_include_spec_intermediates && in.speculative_num_draft_tokens > 0;
  dims.reserve(spec_dims ? 2 * entries : entries); // the speculative buffers' dims follow
  layer_ids.reserve(entries);
  for (std::size_t ti = 0; ti < r.tensors.size(); ++ti) {
    const StateTensor& t = r.tensors[ti];
    if (!t.registered) {
      continue;
    }
    for (int id : r.layer_ids) {
      rank_entries.push_back(StateEntry{static_cast<int>(ti), id, t.item_len, t.registered_dim});
      r.bytes_per_request += t.item_len;
      item_lens.push_back(static_cast<std::uint64_t>(t.item_len));
      dims.push_back(static_cast<std::uint64_t>(t.registered_dim));
      layer_ids.push_back(static_cast<std::uint64_t>(id));
    }
  }
  if (spec_dims) {
    // Early-2026 pools also walked the speculative intermediate buffers
    // ([L, slots, draft_tokens, ...]), appending their shape[2] per layer.
    dims.insert(dims.end(), entries, static_cast<std::uint64_t>(in.speculative_num_draft_tokens));
  }

  if (in.profile.mooncake_format == RegistrationFormat::no_state_lens) {
    return r; // the registration carries pointers only
  }
  r.state_item_lens.push_back(std::move(item_lens));
  r.state_dim_per_tensor.push_back(std::move(dims));
  if (in.profile.state_layer_ids) {
    r.state_layer_ids.push_back(std::move(layer_ids));
  }
  return r;
}

} // namespace

bool Layout::servable() const
{
  for (const Finding& f : findings) {
    if (f.severity == Severity::error) {
      return false;
    }
  }
  return true;
}

int attention_tp_size(int tp_size, int dp_size, bool enable_dp_attention, int attn_cp_size)
{
  const int attn_dp = enable_dp_attention ? dp_size : 1;
  if (attn_dp <= 0 || attn_cp_size <= 0) {
    return 0;
  }
  return tp_size / attn_dp / attn_cp_size;
}


namespace {

// Python's integers do not overflow; 128 bits hold any sum of the 64-bit values
// pdcheck reads. __extension__: GCC's type, not ISO C++ (-Wpedantic).
__extension__ typedef __int128 WideInt;
__extension__ typedef unsigned __int128 WideUint;

std::string int128_text(WideInt v)
{
  const bool negative = v < 0;
  WideUint u = negative ? static_cast<WideUint>(-(v + 1)) + 1 : static_cast<WideUint>(v);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  } while (u != 0);
  return negative ? "-" + digits : digits;
}

} // namespace

PpStageSizes pp_stage_sizes(int num_layers, int pp_size, PpSplit split,
                            const std::optional<std::string>& partition)
{
  PpStageSizes out;
  if (pp_size <= 0) {
    return out;
  }
  if (partition) {
    // SGLang: [int(layer) for layer in text.split(",")], then two checks.
    std::vector<long long> values;
    std::size_t pos = 0;
    while (true) {
      const std::size_t comma = partition->find(',', pos);
      const std::string_view item = std::string_view(*partition).substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
      const std::optional<long long> v = python_int(item);
      if (!v) {
        out.raise(MessageId::pp_partition_invalid, {{"partition", *partition}});
        return out;
      }
      values.push_back(*v);
      if (comma == std::string::npos) {
        break;
      }
      pos = comma + 1;
    }
    if (static_cast<long long>(values.size()) != pp_size) {
      out.raise(MessageId::pp_partition_count, {{"count", values.size()}, {"pp_size", pp_size}});
      return out;
    }
    WideInt sum = 0;
    for (long long v : values) {
      sum += v;
    }
    if (sum != num_layers) {
      out.raise(MessageId::pp_partition_sum, {{"sum", int128_text(sum)}, {"num_hidden_layers", num_layers}});
      return out;
    }
    out.sizes = values; // Python keeps them as given: a negative or huge stage size is SGLang's too
    return out;
  }
  const int base = num_layers / pp_size;
  const int remainder = num_layers % pp_size;
  out.sizes.assign(static_cast<std::size_t>(pp_size), base);
  if (split == PpSplit::last_takes_remainder) {
    out.sizes.back() += remainder;
  } else {
    for (int i = pp_size - remainder; i < pp_size; ++i) {
      out.sizes[static_cast<std::size_t>(i)] += 1;
    }
  }
  return out;
}

std::pair<long long, long long> pp_layer_range(const std::vector<long long>& stage_sizes, int pp_rank)
{
  if (pp_rank < 0 || static_cast<std::size_t>(pp_rank) >= stage_sizes.size()) {
    return {0, 0};
  }
  // Python's unbounded ints, clamped: only layer ids in [0, layers) are ever compared.
  auto clamp = [](WideInt v) {
    const WideInt lo = std::numeric_limits<long long>::min();
    const WideInt hi = std::numeric_limits<long long>::max();
    return static_cast<long long>(v < lo ? lo : v > hi ? hi : v);
  };
  WideInt start = 0;
  for (int r = 0; r < pp_rank; ++r) {
    start += stage_sizes[static_cast<std::size_t>(r)];
  }
  return {clamp(start), clamp(start + stage_sizes[static_cast<std::size_t>(pp_rank)])};
}

Layout compute_layout(const LayoutInput& input)
{
  Layout layout;
  layout.tp_size = input.tp_size;
  layout.attn_dp_size = input.enable_dp_attention ? input.dp_size : 1;
  layout.pp_size = input.pp_size;

  const int attn_dp = layout.attn_dp_size;
  if (input.tp_size <= 0 || attn_dp <= 0 || input.attn_cp_size <= 0 || input.pp_size <= 0 ||
      input.tp_size % attn_dp != 0 || (input.tp_size / attn_dp) % input.attn_cp_size != 0) {
    Finding f = make_finding(
      RuleId::startup_parallel_sizes,
      fmt::format("tp size {} is not divisible by attention DP size {} times attention CP size {}", input.tp_size,
                  attn_dp, input.attn_cp_size));
    f.where = "SGLang startup: handle_data_parallelism (arg_groups/parallel_hook.py) and the attention world sizes";
    f.evidence["tp_size"] = input.tp_size;
    f.evidence["attn_dp_size"] = attn_dp;
    f.evidence["attn_cp_size"] = input.attn_cp_size;
    layout.findings.push_back(std::move(f));
    return layout;
  }
  layout.attn_tp_size = attention_tp_size(input.tp_size, input.dp_size, input.enable_dp_attention, input.attn_cp_size);

  const int layers = input.model.num_hidden_layers;
  const PpStageSizes stages = pp_stage_sizes(layers, input.pp_size, input.profile.pp_split, input.pp_layer_partition);
  // make_layers asserts num_hidden_layers >= pp_size before get_pp_indices reads
  // the partition, with or without one.
  if (input.pp_size > layers || stages.value_error) {
    const bool too_many_stages = input.pp_size > layers;
    Finding f = make_finding(RuleId::startup_pp_layers,
                             too_many_stages
                               ? fmt::format("pp size {} exceeds the model's {} layers", input.pp_size, layers)
                               : fmt::format("SGLANG_PP_LAYER_PARTITION='{}' does not split {} layers into {} stages",
                                             *input.pp_layer_partition, layers, input.pp_size));
    if (!too_many_stages) {
      f.runtime_error = as_delivered(stages.value_error_id, *stages.value_error);
    }
    f.where = "SGLang startup (every rank): get_pp_indices, python/sglang/srt/distributed/utils.py";
    f.evidence["pp_size"] = input.pp_size;
    f.evidence["num_hidden_layers"] = layers;
    if (input.pp_layer_partition) {
      f.evidence["SGLANG_PP_LAYER_PARTITION"] = *input.pp_layer_partition;
    }
    layout.findings.push_back(std::move(f));
    return layout;
  }

  // Pure Mamba2 builds its state with the whole TP width (models/mamba2.py).
  const int state_tp = input.model.state_sharded_by_full_tp ? input.tp_size : layout.attn_tp_size;
  const std::vector<StateTensor> tensors = state_tensors(input, state_tp, layout.attn_tp_size, layout.findings);
  check_attention_heads(input, layout.attn_tp_size, layout.findings);
  if (!layout.servable()) {
    return layout;
  }
  layout.ranks.reserve(static_cast<std::size_t>(input.pp_size) * static_cast<std::size_t>(layout.attn_tp_size));
  // The ranks of a stage differ in their rank number only: the first is built,
  // the others share its lists.
  for (int pp = 0; pp < input.pp_size; ++pp) {
    const RankLayout first = build_rank(input, tensors, stages.sizes, 0, pp);
    for (int rank = 0; rank < layout.attn_tp_size; ++rank) {
      layout.ranks.push_back(first);
      layout.ranks.back().attn_tp_rank = rank;
    }
  }
  return layout;
}

} // namespace pdcheck::model
