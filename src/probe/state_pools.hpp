#pragma once

// The state pools one probe end allocates: for every rank it plays, one buffer
// per registration entry holding `slots` slots of item_len bytes, as SGLang's
// MambaPool allocates one tensor per (tensor, layer) with a slot dimension in
// front. Host memory is mmap'ed (page-aligned, zero-filled: the decode's
// initial "never written" value).

#include "model/layout.hpp"
#include "probe/transport.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pdcheck::probe {

/// One entry's buffer on one rank.
struct EntryBuffer
{
  int rank_index = 0; ///< index into Layout::ranks
  int entry = 0;
  std::int64_t item_len = 0;
  std::int64_t slots = 0;
  std::uint8_t* data = nullptr;
  std::uint64_t length = 0; ///< item_len * slots
  RegionKey key;
};

/// Page-aligned anonymous memory; move-only owner (munmap on destruction).
class HostMemory
{
public:
  /// Throws ProbeError(allocate) naming the size when mmap fails.
  explicit HostMemory(std::uint64_t length);
  HostMemory(HostMemory&& other) noexcept;
  HostMemory& operator=(HostMemory&&) = delete;
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;
  ~HostMemory();

  std::uint8_t* data() const { return m_data; }
  std::uint64_t length() const { return m_length; }

private:
  std::uint8_t* m_data = nullptr;
  std::uint64_t m_length = 0;
};

class StatePools
{
public:
  /// Allocates every entry of every rank of `layout`. `slots` >= 2 (slot 0
  /// is never a request's, as in SGLang where it is the padding slot).
  StatePools(const model::Layout& layout, int slots);

  /// Registers every non-empty buffer with the transport (phase register-memory).
  void register_all(Transport& transport);

  std::vector<EntryBuffer>& buffers() { return m_buffers; }
  const std::vector<EntryBuffer>& buffers() const { return m_buffers; }
  const EntryBuffer& buffer(int rank_index, int entry) const;
  std::uint64_t total_bytes() const { return m_total; }
  int slots() const { return m_slots; }

private:
  std::vector<HostMemory> m_memory; // declared before m_buffers: buffers point into it
  std::vector<EntryBuffer> m_buffers;
  std::vector<std::size_t> m_first_of_rank;
  std::uint64_t m_total = 0;
  int m_slots = 0;
};

} // namespace pdcheck::probe
