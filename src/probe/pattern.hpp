#pragma once

// The byte pattern of the probe: the prefill fills every byte of a state slot
// from its logical coordinates (layer, tensor space, outer row, global channel,
// byte, element size) and the request's source slot; the decode recomputes the
// value each of its bytes must hold from its own rank's meaning. After TP
// re-slicing a byte only matches when it came from the same logical element, so
// a match proves placement, not just delivery.
//
// Values are always odd and the decode pools start zeroed (kPoison), so a byte
// that was never written is told apart from a byte written from the wrong place.

#include "plan/meaning.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::probe {

inline constexpr std::uint8_t k_poison = 0;

/// Writes the pattern of `slot` into one slot (item_len bytes at `out`) of `entry`.
/// Works run by run (RankMeaning::locate), not byte by byte.
void fill_slot(const plan::RankMeaning& meaning, int entry, std::int64_t slot, std::uint8_t* out);

/// One contiguous range of wrong bytes, in logical terms.
struct MismatchRange
{
  int rank = 0;            ///< index of the rank in its side's layout
  int entry = 0;
  std::string tensor;      ///< "conv", "temporal", ...
  int layer = -1;
  std::int64_t offset = 0; ///< within the slot
  std::int64_t bytes = 0;
  bool never_arrived = false; ///< every byte still holds the initial zero
  plan::LogicalByte first;
  plan::LogicalByte last;
};

struct VerifyTally
{
  std::int64_t bytes = 0;
  std::int64_t wrong = 0;      ///< written, but not by the right logical byte
  std::int64_t unwritten = 0;  ///< still the initial zero
  std::int64_t stray = 0;      ///< non-zero bytes in slots no request targeted
  std::vector<MismatchRange> ranges; ///< at most k_max_ranges kept; counts above cover all
  std::int64_t ranges_dropped = 0;

  bool clean() const { return wrong == 0 && unwritten == 0 && stray == 0; }
  void merge(const VerifyTally& other);
};

inline constexpr std::size_t k_max_ranges = 64;

/// Checks one slot of `entry` against the pattern of `src_slot`, adding to `tally`.
void verify_slot(const plan::RankMeaning& meaning, int rank_index, int entry, std::int64_t src_slot,
                 const std::uint8_t* data, VerifyTally& tally);

/// Counts non-zero bytes of a slot nobody should have written (stray writes).
void verify_untouched(int rank_index, int entry, const std::string& tensor, const std::uint8_t* data,
                      std::int64_t length, std::int64_t slot_offset, VerifyTally& tally);

/// "temporal layer 4 heads 16..31" style description of a range.
std::string describe_range(const MismatchRange& r);

} // namespace pdcheck::probe
