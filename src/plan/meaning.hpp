#pragma once

// The logical meaning of every byte of a rank's state slot: which tensor space
// (conv or temporal), layer, outer row, global channel (or head) and byte within
// it. Both the checker's Simulation and the probe's fill/verify use it, so that
// "this byte arrived where it belongs" means the same thing everywhere.

#include "model/layout.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::plan {

/// Where one byte of a slot belongs in the model's unsharded state.
struct LogicalByte
{
  int space = 0;           ///< 0 conv, 1 temporal
  int layer = -1;          ///< global layer id
  std::int64_t outer = 0;  ///< row before the slice axis (KDA conv window row)
  std::int64_t channel = 0; ///< global channel or head on the sharded axis
  std::int64_t byte = 0;   ///< byte within that channel's row
  int itemsize = 0;

  bool operator==(const LogicalByte&) const = default;
};

/// A located byte plus how many following bytes stay logically contiguous
/// (same space, layer, outer row and channel segment).
struct Located
{
  LogicalByte at;
  std::int64_t run = 0;
};

/// A contiguous range of local channels and where it sits globally.
struct ChannelSegment
{
  std::int64_t local_start = 0;
  std::int64_t count = 0;
  std::int64_t global_start = 0;
};

/// One state tensor of a rank, as logical geometry.
struct TensorGeometry
{
  int space = 0;
  std::int64_t outer_count = 1;
  std::int64_t channels = 0;     ///< per-rank size of the slice axis
  std::int64_t inner_bytes = 0;  ///< bytes per channel per outer row
  int itemsize = 0;
  std::vector<ChannelSegment> segments;
};

/// The geometry of every tensor of one rank and the meaning of its entries.
class RankMeaning
{
public:
  RankMeaning(const model::ModelSpec& model, const model::RankLayout& rank, int attn_tp_size);

  const model::RankLayout& rank() const { return *m_rank; }
  std::int64_t item_len(int entry) const;
  int entry_count() const { return static_cast<int>(m_rank->entries.size()); }

  /// Meaning of byte `offset` (0 <= offset < item_len(entry)) of one slot of `entry`.
  Located locate(int entry, std::int64_t offset) const;

  const std::vector<TensorGeometry>& tensors() const { return m_tensors; }

private:
  Located locate_in_tensor(int tensor, int layer, std::int64_t offset) const;

  const model::RankLayout* m_rank;
  std::vector<TensorGeometry> m_tensors;
};

/// One RankMeaning per rank of `layout`, in its order; they point into `layout`,
/// which must outlive them.
std::vector<RankMeaning> rank_meanings(const model::ModelSpec& model, const model::Layout& layout);

/// Human form, e.g. "temporal layer 4 head 17 byte 1024 (4-byte elements)".
std::string describe(const LogicalByte& b);

} // namespace pdcheck::plan
