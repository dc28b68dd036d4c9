#include "probe/pattern.hpp"

#include "probe/pattern_kernels.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace pdcheck::probe {

namespace {

std::uint32_t mix(std::uint64_t h)
{
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<std::uint32_t>(h);
}

std::uint32_t seed_of(const plan::LogicalByte& at, std::int64_t slot)
{
  std::uint64_t h = static_cast<std::uint64_t>(at.space) * 0x100000001b3ULL;
  h = (h ^ static_cast<std::uint64_t>(at.layer + 7)) * 0x100000001b3ULL;
  h = (h ^ static_cast<std::uint64_t>(at.outer)) * 0x100000001b3ULL;
  h = (h ^ static_cast<std::uint64_t>(at.itemsize)) * 0x100000001b3ULL;
  h = (h ^ static_cast<std::uint64_t>(slot + 1)) * 0x100000001b3ULL;
  return mix(h);
}

/// Bytes per channel row of the tensor that `offset` of `entry` falls in, so a
/// run can be indexed linearly as channel * inner_bytes + byte.
std::int64_t inner_bytes_at(const plan::RankMeaning& m, int entry, std::int64_t offset)
{
  const model::RankLayout& rank = m.rank();
  const model::StateEntry& e = rank.entries.at(static_cast<std::size_t>(entry));
  if (e.tensor >= 0) {
    return m.tensors().at(static_cast<std::size_t>(e.tensor)).inner_bytes;
  }
  std::int64_t base = 0;
  for (std::size_t t = 0; t < rank.tensors.size(); ++t) {
    const std::int64_t span = rank.tensors[t].item_len * static_cast<std::int64_t>(rank.layer_ids.size());
    if (offset < base + span) {
      return m.tensors()[t].inner_bytes;
    }
    base += span;
  }
  return 1;
}

std::string tensor_name_at(const plan::RankMeaning& m, int entry, std::int64_t offset)
{
  const model::RankLayout& rank = m.rank();
  const model::StateEntry& e = rank.entries.at(static_cast<std::size_t>(entry));
  if (e.tensor >= 0) {
    return rank.tensors.at(static_cast<std::size_t>(e.tensor)).name;
  }
  std::int64_t base = 0;
  for (const model::StateTensor& t : rank.tensors) {
    const std::int64_t span = t.item_len * static_cast<std::int64_t>(rank.layer_ids.size());
    if (offset < base + span) {
      return t.name;
    }
    base += span;
  }
  return "unified";
}

/// The start of a run: its pattern state and length.
struct RunStart
{
  plan::Located where;
  std::uint32_t x0 = 0;
  std::int64_t length = 0;
};

RunStart run_at(const plan::RankMeaning& m, int entry, std::int64_t offset, std::int64_t item_len, std::int64_t slot)
{
  RunStart r;
  r.where = m.locate(entry, offset);
  const std::int64_t inner = std::max<std::int64_t>(1, inner_bytes_at(m, entry, offset));
  const std::int64_t linear = r.where.at.channel * inner + r.where.at.byte;
  r.x0 = seed_of(r.where.at, slot) + static_cast<std::uint32_t>(linear) * k_pattern_step;
  // A run of 0 means "no known geometry" (zero-size tensor): take one byte so
  // the walk always advances.
  r.length = std::clamp<std::int64_t>(r.where.run, 1, item_len - offset);
  return r;
}

void add_range(VerifyTally& t, MismatchRange r)
{
  if (!t.ranges.empty()) {
    MismatchRange& last = t.ranges.back();
    if (last.rank == r.rank && last.entry == r.entry && last.offset + last.bytes == r.offset &&
        last.never_arrived == r.never_arrived && last.layer == r.layer && last.tensor == r.tensor) {
      last.bytes += r.bytes;
      last.last = r.last;
      return;
    }
  }
  if (t.ranges.size() >= k_max_ranges) {
    ++t.ranges_dropped;
    return;
  }
  t.ranges.push_back(std::move(r));
}

} // namespace

void fill_slot(const plan::RankMeaning& meaning, int entry, std::int64_t slot, std::uint8_t* out)
{
  const std::int64_t item_len = meaning.item_len(entry);
  std::int64_t offset = 0;
  while (offset < item_len) {
    const RunStart r = run_at(meaning, entry, offset, item_len, slot);
    fill_pattern_run(out + offset, r.length, r.x0);
    offset += r.length;
  }
}

void verify_slot(const plan::RankMeaning& meaning, int rank_index, int entry, std::int64_t src_slot,
                 const std::uint8_t* data, VerifyTally& tally)
{
  const std::int64_t item_len = meaning.item_len(entry);
  tally.bytes += item_len;
  std::int64_t offset = 0;
  while (offset < item_len) {
    const RunStart r = run_at(meaning, entry, offset, item_len, src_slot);
    const std::uint8_t* p = data + offset;
    const std::uint32_t x0 = r.x0;
    // Fast path: one OR-reduction over the run, sixteen bytes at a time.
    if (!pattern_run_matches(p, r.length, x0)) {
      // Slow path only for runs that hold a mismatch: split into ranges of
      // wrong bytes, each marked "never arrived" when it is all initial zeros.
      const std::string tensor = tensor_name_at(meaning, entry, offset);
      std::int64_t i = 0;
      while (i < r.length) {
        if (p[i] == pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step)) {
          ++i;
          continue;
        }
        const std::int64_t start = i;
        bool zeros = true;
        std::int64_t bad = 0;
        std::int64_t last_bad = i;
        // One range spans short stretches of coincidental matches (a wrong
        // byte equals the expected one about 1 time in 128), so a misplaced block
        // reads as one range rather than hundreds of fragments.
        constexpr std::int64_t k_bridge = 16;
        for (; i < r.length && i - last_bad <= k_bridge; ++i) {
          if (p[i] != pattern_byte(x0 + static_cast<std::uint32_t>(i) * k_pattern_step)) {
            zeros = zeros && p[i] == k_poison;
            ++bad;
            last_bad = i;
          }
        }
        i = last_bad + 1;
        (zeros ? tally.unwritten : tally.wrong) += bad;
        MismatchRange m;
        m.rank = rank_index;
        m.entry = entry;
        m.tensor = tensor;
        m.layer = r.where.at.layer;
        m.offset = offset + start;
        m.bytes = i - start;
        m.never_arrived = zeros;
        m.first = meaning.locate(entry, offset + start).at;
        m.last = meaning.locate(entry, offset + i - 1).at;
        add_range(tally, std::move(m));
      }
    }
    offset += r.length;
  }
}

void verify_untouched(int rank_index, int entry, const std::string& tensor, const std::uint8_t* data,
                      std::int64_t length, std::int64_t slot_offset, VerifyTally& tally)
{
  if (all_zero(data, length)) {
    return;
  }
  std::int64_t i = 0;
  while (i < length) {
    if (data[i] == k_poison) {
      ++i;
      continue;
    }
    const std::int64_t start = i;
    while (i < length && data[i] != k_poison) {
      ++i;
    }
    tally.stray += i - start;
    MismatchRange m;
    m.rank = rank_index;
    m.entry = entry;
    m.tensor = tensor;
    m.offset = slot_offset + start;
    m.bytes = i - start;
    add_range(tally, std::move(m));
  }
}

void VerifyTally::merge(const VerifyTally& other)
{
  bytes += other.bytes;
  wrong += other.wrong;
  unwritten += other.unwritten;
  stray += other.stray;
  ranges_dropped += other.ranges_dropped;
  for (const MismatchRange& r : other.ranges) {
    add_range(*this, r);
  }
}

std::string describe_range(const MismatchRange& r)
{
  if (r.layer < 0 && r.first.itemsize == 0) {
    return fmt::format("rank {} entry {} ({}): {} bytes written outside any request's slot at byte {} of the buffer",
                       r.rank, r.entry, r.tensor, r.bytes, r.offset);
  }
  const char* unit = r.first.space == 0 ? "channels" : "heads";
  return fmt::format("rank {} entry {} {} layer {}: {} bytes at slot offset {} ({} {}..{}{}): {}", r.rank, r.entry,
                     r.tensor, r.layer, r.bytes, r.offset, unit, r.first.channel, r.last.channel,
                     r.first.space == 0 ? fmt::format(", rows {}..{}", r.first.outer, r.last.outer) : "",
                     r.never_arrived ? "never arrived" : "wrong data (not from this logical element)");
}

} // namespace pdcheck::probe
