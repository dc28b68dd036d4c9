#include "plan/meaning.hpp"

#include <fmt/format.h>

namespace pdcheck::plan {

namespace {

using model::StateFamily;

/// Groups (GDN key heads, Mamba2 B/C groups) a rank holds: sharded when TP
/// divides them, otherwise one replicated group per rank.
ChannelSegment group_segment(std::int64_t local_start, std::int64_t groups, std::int64_t group_width, int tp,
                             int rank, std::int64_t global_base)
{
  if (groups % tp == 0) {
    const std::int64_t per_rank = groups / tp;
    return {local_start, per_rank * group_width, global_base + rank * per_rank * group_width};
  }
  const std::int64_t group = static_cast<std::int64_t>(rank) * groups / tp;
  return {local_start, group_width, global_base + group * group_width};
}

ChannelSegment sharded(std::int64_t local_start, std::int64_t per_rank, int rank, std::int64_t global_base)
{
  return {local_start, per_rank, global_base + rank * per_rank};
}

std::vector<ChannelSegment> conv_segments(const model::ModelSpec& m, const model::StateTensor& t, int tp, int rank)
{
  const std::int64_t channels = t.slice_dim;
  switch (m.family) {
  case StateFamily::mamba2: {
    // [x | B | C]: x sharded by heads, B and C by group.
    const std::int64_t x = m.intermediate_size / tp;
    const auto b = group_segment(x, m.n_groups, m.state_size, tp, rank, m.intermediate_size);
    const auto c = group_segment(x + b.count, m.n_groups, m.state_size, tp, rank,
                                 m.intermediate_size + m.n_groups * m.state_size);
    return {sharded(0, x, rank, 0), b, c};
  }
  case StateFamily::gdn: {
    // [query | key | value]: query and key by key head, value by value head.
    const std::int64_t key_dim = m.n_groups * m.state_size;
    const auto q = group_segment(0, m.n_groups, m.state_size, tp, rank, 0);
    const auto k = group_segment(q.count, m.n_groups, m.state_size, tp, rank, key_dim);
    return {q, k, sharded(q.count + k.count, m.intermediate_size / tp, rank, 2 * key_dim)};
  }
  case StateFamily::kda: {
    const std::int64_t proj = m.kda_num_heads * m.kda_head_dim;
    const std::int64_t proj_k = m.kda_num_k_heads * m.kda_head_k_dim;
    if (t.name == "conv0") { return {sharded(0, channels, rank, 0)}; }
    if (t.name == "conv1") { return {sharded(0, channels, rank, proj)}; }
    if (t.name == "conv2") { return {sharded(0, channels, rank, proj + proj_k)}; }
    return {sharded(0, proj / tp, rank, 0), sharded(proj / tp, proj_k / tp, rank, proj),
            sharded(proj / tp + proj_k / tp, proj_k / tp, rank, proj + proj_k)};
  }
  case StateFamily::short_conv: return {sharded(0, channels, rank, 0)};
  case StateFamily::lightning:
  case StateFamily::simple_gla: return {}; // no conv channels
  case StateFamily::cca:
    // conv's channels first, then the previous hidden state, which every rank
    // holds whole: its local channel is the global one on every rank.
    if (t.replicated) {
      return {{0, channels, m.intermediate_size}};
    }
    return {sharded(0, channels, rank, 0)};
  case StateFamily::rwkv7:
    // Each token shift is the whole hidden vector on every rank; the two
    // occupy consecutive ranges of the conv channel space.
    return {{0, channels, t.name == "shift_cm" ? channels : 0}};
  }
  return {};
}

} // namespace

std::vector<RankMeaning> rank_meanings(const model::ModelSpec& model, const model::Layout& layout)
{
  std::vector<RankMeaning> meanings;
  meanings.reserve(layout.ranks.size());
  for (const model::RankLayout& rank : layout.ranks) {
    meanings.emplace_back(model, rank, layout.attn_tp_size);
  }
  return meanings;
}

RankMeaning::RankMeaning(const model::ModelSpec& model, const model::RankLayout& rank, int attn_tp_size)
  : m_rank(&rank)
{
  for (const model::StateTensor& t : rank.tensors) {
    TensorGeometry g;
    g.space = t.name == "temporal" ? 1 : 0;
    g.outer_count = t.outer_count;
    g.channels = t.slice_dim;
    g.itemsize = dtype_size(t.dtype);
    std::int64_t inner = g.itemsize;
    for (std::size_t a = static_cast<std::size_t>(t.slice_axis) + 1; a < t.per_slot_shape.size(); ++a) {
      inner *= t.per_slot_shape[a];
    }
    g.inner_bytes = inner;
    if (g.space == 1) {
      g.segments = {sharded(0, t.slice_dim, rank.attn_tp_rank, 0)};
    } else {
      g.segments = conv_segments(model, t, attn_tp_size, rank.attn_tp_rank);
    }
    m_tensors.push_back(std::move(g));
  }
}

std::int64_t RankMeaning::item_len(int entry) const
{
  return m_rank->entries.at(static_cast<std::size_t>(entry)).item_len;
}

Located RankMeaning::locate_in_tensor(int tensor, int layer, std::int64_t offset) const
{
  const TensorGeometry& g = m_tensors.at(static_cast<std::size_t>(tensor));
  const std::int64_t row_bytes = g.channels * g.inner_bytes;
  Located l;
  l.at.space = g.space;
  l.at.layer = layer;
  l.at.itemsize = g.itemsize;
  if (row_bytes == 0) {
    return l;
  }
  l.at.outer = offset / row_bytes;
  const std::int64_t in_row = offset % row_bytes;
  const std::int64_t local = in_row / g.inner_bytes;
  l.at.byte = in_row % g.inner_bytes;
  for (const ChannelSegment& s : g.segments) {
    if (local >= s.local_start && local < s.local_start + s.count) {
      l.at.channel = s.global_start + (local - s.local_start);
      l.run = (s.local_start + s.count - local) * g.inner_bytes - l.at.byte;
      return l;
    }
  }
  // Channels beyond the known segments: keep them distinct and contiguous.
  l.at.channel = -1 - local;
  l.run = g.inner_bytes - l.at.byte;
  return l;
}

Located RankMeaning::locate(int entry, std::int64_t offset) const
{
  const model::StateEntry& e = m_rank->entries.at(static_cast<std::size_t>(entry));
  if (e.tensor >= 0) {
    return locate_in_tensor(e.tensor, e.layer_id, offset);
  }
  // Unified envelope: [tensor 0 x L layers][tensor 1 x L] ... [temporal x L].
  std::int64_t base = 0;
  for (std::size_t t = 0; t < m_rank->tensors.size(); ++t) {
    const std::int64_t item = m_rank->tensors[t].item_len;
    const std::int64_t span = item * static_cast<std::int64_t>(m_rank->layer_ids.size());
    if (offset < base + span && item > 0) {
      const std::int64_t k = (offset - base) / item;
      const std::int64_t within = (offset - base) % item;
      Located l = locate_in_tensor(static_cast<int>(t), m_rank->layer_ids[static_cast<std::size_t>(k)], within);
      l.run = std::min(l.run, item - within);
      return l;
    }
    base += span;
  }
  return Located{};
}

std::string describe(const LogicalByte& b)
{
  if (b.space == 0) {
    return fmt::format("conv layer {} row {} channel {} byte {} ({}-byte elements)", b.layer, b.outer, b.channel,
                       b.byte, b.itemsize);
  }
  return fmt::format("temporal layer {} head {} byte {} ({}-byte elements)", b.layer, b.channel, b.byte, b.itemsize);
}

} // namespace pdcheck::plan
