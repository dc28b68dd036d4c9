#pragma once

// The arithmetic SGLang's disaggregation/utils.py performs on the prefill side
// when it pairs registration entries and slices Mamba state across unequal
// attention TP (sglang-pd-wire-and-checks.md §4.4, §5.3-§5.5), including the
// behaviour of older generations. Pure functions; SGLang's exceptions come back
// as `SglangError` values carrying the exact message SGLang raises.

#include "core/sglang_messages.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace pdcheck::plan {

/// An exception SGLang would raise: a row of the message catalog with its values.
struct SglangError
{
  MessageId id;
  std::string python_class; ///< "RuntimeError", "ValueError", "AssertionError", "IndexError"
  std::string message;      ///< str(e)
  std::string function;     ///< SGLang function that raises it, on the path pdcheck followed
  RuleId rule;              ///< the pdcheck rule it is reported under
  /// What the operator's log shows when a handler re-raises it (e.g. Mooncake's
  /// transfer thread: "RuntimeError: Transfer thread failed because of ...");
  /// empty when the error surfaces as itself.
  std::string surfaced_as;

  std::string rendered() const { return as_delivered(id, message); }
};

/// The catalog row `id` rendered with `args`, raised in `function`, under the
/// row's rule, or under `rule` where one generic Python text ("list index out
/// of range") belongs to the rule of the place that raises it.
SglangError sglang_error(MessageId id, MessageArgs args, std::string function);
SglangError sglang_error(MessageId id, MessageArgs args, std::string function, RuleId rule);

template <typename T>
using Outcome = std::variant<T, SglangError>;

/// (src_entry, dst_entry) pairs.
using EntryPairs = std::vector<std::pair<int, int>>;

/// build_transfer_entry_pairs: pairs by global layer id (ids repeat across tensor
/// groups and are consumed in order), or by position when allowed.
Outcome<EntryPairs> build_transfer_entry_pairs(const std::vector<std::uint64_t>& src_ids,
                                               const std::vector<std::uint64_t>& dst_ids, int n_src, int n_dst,
                                               bool allow_positional_fallback);

/// Pairing in generations without layer ids: entry i with entry i; a decode with
/// fewer entries raises IndexError inside the send loop.
Outcome<EntryPairs> positional_entry_pairs(int n_src, int n_dst, const std::string& function);

/// Pre-dims and flat-era Mooncake `_send_mamba_state`: the loop walks the
/// decode's pointers and indexes the prefill's lists, so a decode with more
/// entries raises IndexError and one with fewer gets a partial copy (silently).
Outcome<EntryPairs> decode_driven_entry_pairs(int n_src, int n_dst, const std::string& function);

/// A logical block in dim units: (src_dim_start, dst_dim_start, num_dims).
struct DimBlock
{
  std::int64_t src_start;
  std::int64_t dst_start;
  std::int64_t count;
  bool operator==(const DimBlock&) const = default;
};

/// compute_mamba_state_slice_blocks. `writer_index_fix` false reproduces the
/// pre-#20655 aggregation offset (local_rank * src_dim).
std::vector<DimBlock> mamba_slice_blocks(std::int64_t src_dim, std::int64_t dst_dim, int src_tp, int dst_tp,
                                         int local_rank, int dst_rank, const std::vector<std::int64_t>& conv_shard_groups,
                                         bool writer_index_fix);

/// A byte block within one slot: (src offset, dst offset, length).
struct ByteBlock
{
  std::int64_t src_offset;
  std::int64_t dst_offset;
  std::int64_t length;
  bool operator==(const ByteBlock&) const = default;
};

/// should_send_replicated_state (S1-S3).
Outcome<bool> should_send_replicated_state(int src_tp, int dst_tp, int local_rank);

/// compute_mamba_state_slice_byte_blocks (R1, R2 and the replicated case).
Outcome<std::vector<ByteBlock>> mamba_slice_byte_blocks(std::int64_t src_item_len, std::int64_t dst_item_len,
                                                        std::int64_t src_dim, std::int64_t dst_dim, int src_tp,
                                                        int dst_tp, int local_rank, int dst_rank,
                                                        std::int64_t outer_count,
                                                        const std::vector<std::int64_t>& conv_shard_groups,
                                                        bool writer_index_fix);

/// The older single-block byte formula (Mooncake before conv sub-groups, Mori):
/// no outer count, no sub-groups, length in source bytes per dim.
std::vector<ByteBlock> single_block_byte_blocks(std::int64_t src_item_len, std::int64_t dst_item_len,
                                                std::int64_t src_dim, std::int64_t dst_dim, int src_tp, int dst_tp,
                                                int local_rank, int dst_rank, bool writer_index_fix);

/// Python's repr of a list of ints: "[1, 2, 3]".
std::string python_list(const std::vector<std::uint64_t>& v);

} // namespace pdcheck::plan
