#include "check/simulate.hpp"

#include <algorithm>

namespace pdcheck::check {

namespace {

/// Bytes [begin, end) of entry `entry`'s slot, written by some copy. All of
/// them sit in one list (one allocation per decode rank, not one per entry);
/// the overlap accounting happens once all writers are in.
struct Written
{
  int entry;
  std::int64_t begin;
  std::int64_t end;
};

void walk_copy(const plan::RankMeaning& dst, std::int64_t dst_slot, const Writer& w, const plan::Copy& c,
               std::vector<Written>& written, SimulationResult& r)
{
  const std::int64_t src_item = w.source->item_len(c.src_entry);
  const std::int64_t dst_item = dst.item_len(c.dst_entry);
  std::int64_t src_pos = c.src_offset;
  std::int64_t dst_pos = c.dst_offset;
  std::int64_t left = c.length;
  while (left > 0) {
    const std::int64_t src_slot = src_item ? src_pos / src_item : 0;
    const std::int64_t src_in = src_item ? src_pos % src_item : 0;
    const std::int64_t d_slot = dst_item ? dst_pos / dst_item : -1;
    const std::int64_t d_in = dst_item ? dst_pos % dst_item : 0;
    std::int64_t step = left;
    if (src_item) { step = std::min(step, src_item - src_in); }
    if (dst_item) { step = std::min(step, dst_item - d_in); }

    if (d_slot != dst_slot || dst_pos < 0) {
      // Lands in another request's slot (or before the buffer).
      r.outside_slot += step;
      if (!r.first_outside) {
        r.first_outside = ByteExample{c.dst_entry, dst_pos - dst_slot * dst_item, w.prefill_rank, {}, {}};
      }
    } else {
      const plan::Located s = w.source->locate(c.src_entry, src_in);
      const plan::Located d = dst.locate(c.dst_entry, d_in);
      step = std::min({step, s.run > 0 ? s.run : step, d.run > 0 ? d.run : step});
      if (!written.empty() && written.back().entry == c.dst_entry && written.back().end == d_in) {
        written.back().end = d_in + step; // continues the last run: one interval, same sums
      } else {
        written.push_back({c.dst_entry, d_in, d_in + step});
      }
      if (src_slot != w.src_slot) {
        r.wrong_source_slot += step;
      }
      if (s.at == d.at && src_slot == w.src_slot) {
        r.correct += step;
      } else {
        r.wrong += step;
        if (!r.first_wrong) {
          r.first_wrong = ByteExample{c.dst_entry, d_in, w.prefill_rank, d.at, s.at};
        }
      }
    }
    src_pos += step;
    dst_pos += step;
    left -= step;
  }
}

} // namespace

SimulationResult simulate_decode_rank(const plan::RankMeaning& destination, std::int64_t dst_slot,
                                      const std::vector<Writer>& writers)
{
  SimulationResult r;
  const int entries = destination.entry_count();
  // Kept between calls: a check simulates every decode rank, and a list
  // allocated afresh each time was most of a 16k-rank check's time.
  thread_local std::vector<Written> written;
  written.clear();
  for (int e = 0; e < entries; ++e) {
    r.slot_bytes += destination.item_len(e);
  }
  for (const Writer& w : writers) {
    for (const plan::Copy& c : w.plan->copies) {
      if (c.dst_entry < 0 || c.dst_entry >= entries) {
        r.outside_slot += c.length;
        continue;
      }
      walk_copy(destination, dst_slot, w, c, written, r);
    }
  }
  // Coverage: union of the written intervals per entry; what overlaps was
  // written twice, what is missing was never written.
  std::sort(written.begin(), written.end(), [](const Written& a, const Written& b) {
    return a.entry != b.entry ? a.entry < b.entry : a.begin < b.begin;
  });
  std::int64_t written_total = 0;
  std::int64_t union_total = 0;
  std::size_t next = 0;
  for (int e = 0; e < entries; ++e) {
    std::int64_t covered_to = 0;
    for (; next < written.size() && written[next].entry == e; ++next) {
      const Written& i = written[next];
      written_total += i.end - i.begin;
      if (i.begin > covered_to && !r.first_unwritten) {
        r.first_unwritten = ByteExample{e, covered_to, -1, {}, {}};
      }
      if (i.end > covered_to) {
        union_total += i.end - std::max(i.begin, covered_to);
        covered_to = i.end;
      }
    }
    const std::int64_t item = destination.item_len(e);
    if (covered_to < item && !r.first_unwritten) {
      r.first_unwritten = ByteExample{e, covered_to, -1, {}, {}};
    }
  }
  r.written_twice = written_total - union_total;
  r.unwritten = r.slot_bytes - union_total;
  if (r.first_unwritten) {
    const plan::Located d = destination.locate(r.first_unwritten->dst_entry, r.first_unwritten->offset);
    r.first_unwritten->expected = d.at;
  }
  return r;
}

} // namespace pdcheck::check
