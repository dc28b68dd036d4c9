#include "plan/sglang_utils.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace pdcheck::plan {

namespace {

} // namespace

SglangError sglang_error(MessageId id, MessageArgs args, std::string function, RuleId rule)
{
  const SglangMessage& m = sglang_message(id);
  return SglangError{id, std::string(m.python_class), render_message(id, args), std::move(function), rule, {}};
}

SglangError sglang_error(MessageId id, MessageArgs args, std::string function)
{
  const SglangMessage& m = sglang_message(id);
  if (!m.rule) {
    throw std::logic_error("message " + std::string(m.text) + " has no rule to report it under");
  }
  return sglang_error(id, args, std::move(function), *m.rule);
}

std::string python_list(const std::vector<std::uint64_t>& v)
{
  return fmt::format("[{}]", fmt::join(v, ", "));
}

Outcome<EntryPairs> build_transfer_entry_pairs(const std::vector<std::uint64_t>& src_ids,
                                               const std::vector<std::uint64_t>& dst_ids, int n_src, int n_dst,
                                               bool allow_positional_fallback)
{
  const char* fn = "build_transfer_entry_pairs";
  if (n_src == 0) {
    return EntryPairs{};
  }
  const bool src_has = !src_ids.empty();
  const bool dst_has = !dst_ids.empty();
  bool use_ids = src_has && dst_has;
  if (src_has != dst_has) {
    if (!allow_positional_fallback) {
      return sglang_error(MessageId::layer_ids_one_side, {}, fn);
    }
    use_ids = false; // with the positional fallback both sides' ids are dropped
  }
  EntryPairs pairs;
  if (use_ids) {
    if (static_cast<int>(src_ids.size()) != n_src || static_cast<int>(dst_ids.size()) != n_dst) {
      return sglang_error(MessageId::layer_metadata_length,
                          {{"src_metadata", src_ids.size()},
                           {"src_entries", n_src},
                           {"dst_metadata", dst_ids.size()},
                           {"dst_entries", n_dst}},
                          fn);
    }
    // Each layer id appears once per tensor group; consume decode entries in
    // order. The decode's (id, entry) pairs sorted once, each id's run read
    // from its start: one allocation, where a map of lists made one per id
    // for every pair of a 16k-rank fleet.
    std::vector<std::pair<std::uint64_t, int>> dst_by_id;
    dst_by_id.reserve(dst_ids.size());
    for (int j = 0; j < n_dst; ++j) {
      dst_by_id.emplace_back(dst_ids[static_cast<std::size_t>(j)], j);
    }
    std::sort(dst_by_id.begin(), dst_by_id.end());
    std::vector<int> taken(dst_by_id.size(), 0); // per run start: entries of that id used so far
    pairs.reserve(static_cast<std::size_t>(n_src));
    for (int i = 0; i < n_src; ++i) {
      const std::uint64_t id = src_ids[static_cast<std::size_t>(i)];
      const auto run = std::lower_bound(dst_by_id.begin(), dst_by_id.end(), std::pair<std::uint64_t, int>{id, -1});
      const auto start = static_cast<std::size_t>(run - dst_by_id.begin());
      const std::size_t next = start + static_cast<std::size_t>(start < taken.size() ? taken[start] : 0);
      if (next >= dst_by_id.size() || dst_by_id[next].first != id) {
        return sglang_error(MessageId::missing_layer, {{"layer_id", id}}, fn);
      }
      pairs.emplace_back(i, dst_by_id[next].second);
      taken[start] += 1;
    }
    return pairs;
  }
  if (n_dst < n_src || (n_src != n_dst && !allow_positional_fallback)) {
    return sglang_error(MessageId::pp_heterogeneous, {{"src_entries", n_src}, {"dst_entries", n_dst}}, fn);
  }
  for (int i = 0; i < n_src; ++i) {
    pairs.emplace_back(i, i);
  }
  return pairs;
}

Outcome<EntryPairs> positional_entry_pairs(int n_src, int n_dst, const std::string& function)
{
  if (n_dst < n_src) {
    return sglang_error(MessageId::list_index, {}, function, RuleId::layer_pairing);
  }
  EntryPairs pairs;
  for (int i = 0; i < n_src; ++i) {
    pairs.emplace_back(i, i);
  }
  return pairs;
}

Outcome<EntryPairs> decode_driven_entry_pairs(int n_src, int n_dst, const std::string& function)
{
  if (n_dst > n_src) {
    return sglang_error(MessageId::list_index, {}, function, RuleId::layer_pairing);
  }
  EntryPairs pairs;
  for (int i = 0; i < n_dst; ++i) {
    pairs.emplace_back(i, i);
  }
  return pairs;
}

std::vector<DimBlock> mamba_slice_blocks(std::int64_t src_dim, std::int64_t dst_dim, int src_tp, int dst_tp,
                                         int local_rank, int dst_rank, const std::vector<std::int64_t>& conv_shard_groups,
                                         bool writer_index_fix)
{
  const std::int64_t group_sum = std::accumulate(conv_shard_groups.begin(), conv_shard_groups.end(), std::int64_t{0});
  // Groups that do not add up to the full channel count are silently ignored.
  const bool use_subdims = !conv_shard_groups.empty() && group_sum == src_dim * src_tp;
  std::vector<DimBlock> blocks;
  if (src_tp > dst_tp) {
    const std::int64_t writer = writer_index_fix ? local_rank % (src_tp / dst_tp) : local_rank;
    if (!use_subdims) {
      return {{0, writer * src_dim, src_dim}};
    }
    std::int64_t src_off = 0;
    std::int64_t dst_off = 0;
    for (std::int64_t g : conv_shard_groups) {
      const std::int64_t s = g / src_tp;
      const std::int64_t d = g / dst_tp;
      blocks.push_back({src_off, dst_off + writer * s, s});
      src_off += s;
      dst_off += d;
    }
    return blocks;
  }
  if (!use_subdims) {
    return {{src_dim == 0 ? 0 : (dst_rank * dst_dim) % src_dim, 0, dst_dim}};
  }
  std::int64_t src_off = 0;
  std::int64_t dst_off = 0;
  for (std::int64_t g : conv_shard_groups) {
    const std::int64_t s = g / src_tp;
    const std::int64_t d = g / dst_tp;
    blocks.push_back({src_off + (s == 0 ? 0 : (dst_rank * d) % s), dst_off, d});
    src_off += s;
    dst_off += d;
  }
  return blocks;
}

Outcome<bool> should_send_replicated_state(int src_tp, int dst_tp, int local_rank)
{
  const char* fn = "should_send_replicated_state";
  if (src_tp <= 0 || dst_tp <= 0) {
    return sglang_error(MessageId::replicated_tp_positive, {}, fn);
  }
  if (src_tp % dst_tp != 0 && dst_tp % src_tp != 0) {
    return sglang_error(MessageId::replicated_tp_divide, {{"src_attn_tp_size", src_tp}, {"dst_attn_tp_size", dst_tp}},
                        fn);
  }
  if (local_rank < 0 || local_rank >= src_tp) {
    return sglang_error(MessageId::replicated_rank_range, {{"rank", local_rank}, {"size", src_tp}}, fn);
  }
  return src_tp <= dst_tp || local_rank % (src_tp / dst_tp) == 0;
}

Outcome<std::vector<ByteBlock>> mamba_slice_byte_blocks(std::int64_t src_item_len, std::int64_t dst_item_len,
                                                        std::int64_t src_dim, std::int64_t dst_dim, int src_tp,
                                                        int dst_tp, int local_rank, int dst_rank,
                                                        std::int64_t outer_count,
                                                        const std::vector<std::int64_t>& conv_shard_groups,
                                                        bool writer_index_fix)
{
  const char* fn = "compute_mamba_state_slice_byte_blocks";
  if ((src_dim == 0) != (dst_dim == 0)) {
    return sglang_error(MessageId::replication_metadata, {}, fn);
  }
  if (src_dim == 0) {
    if (src_item_len != dst_item_len) {
      return sglang_error(MessageId::replicated_item_lens,
                          {{"src_item_len", src_item_len}, {"dst_item_len", dst_item_len}}, fn);
    }
    auto send = should_send_replicated_state(src_tp, dst_tp, local_rank);
    if (auto* e = std::get_if<SglangError>(&send)) {
      return *e;
    }
    if (!std::get<bool>(send)) {
      return std::vector<ByteBlock>{};
    }
    return std::vector<ByteBlock>{{0, 0, src_item_len}};
  }
  const std::int64_t outer = outer_count > 0 ? outer_count : 1;
  const std::int64_t src_bpd = src_item_len / (src_dim * outer);
  const std::int64_t dst_bpd = dst_item_len / (dst_dim * outer);
  const auto blocks =
    mamba_slice_blocks(src_dim, dst_dim, src_tp, dst_tp, local_rank, dst_rank, conv_shard_groups, writer_index_fix);
  std::vector<ByteBlock> out;
  out.reserve(blocks.size() * static_cast<std::size_t>(outer));
  for (std::int64_t o = 0; o < outer; ++o) {
    const std::int64_t src_row = o * src_dim * src_bpd;
    const std::int64_t dst_row = o * dst_dim * dst_bpd;
    for (const DimBlock& b : blocks) {
      out.push_back({src_row + b.src_start * src_bpd, dst_row + b.dst_start * dst_bpd, b.count * src_bpd});
    }
  }
  return out;
}

std::vector<ByteBlock> single_block_byte_blocks(std::int64_t src_item_len, std::int64_t dst_item_len,
                                                std::int64_t src_dim, std::int64_t dst_dim, int src_tp, int dst_tp,
                                                int local_rank, int dst_rank, bool writer_index_fix)
{
  const std::int64_t src_bpd = src_dim == 0 ? 0 : src_item_len / src_dim;
  const std::int64_t dst_bpd = dst_dim == 0 ? 0 : dst_item_len / dst_dim;
  const auto blocks = mamba_slice_blocks(src_dim, dst_dim, src_tp, dst_tp, local_rank, dst_rank, {}, writer_index_fix);
  std::vector<ByteBlock> out;
  for (const DimBlock& b : blocks) {
    out.push_back({b.src_start * src_bpd, b.dst_start * dst_bpd, b.count * src_bpd});
  }
  return out;
}

} // namespace pdcheck::plan
