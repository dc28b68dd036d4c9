#include "probe/state_pools.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>

namespace pdcheck::probe {

HostMemory::HostMemory(std::uint64_t length) : m_length(length)
{
  if (length == 0) {
    return;
  }
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw ProbeError(Phase::allocate, fmt::format("cannot allocate {} bytes of host memory: {}", length, std::strerror(errno)),
                     "free memory, or use a smaller --slots");
  }
  m_data = static_cast<std::uint8_t*>(p);
}

HostMemory::HostMemory(HostMemory&& other) noexcept : m_data(other.m_data), m_length(other.m_length)
{
  other.m_data = nullptr;
  other.m_length = 0;
}

HostMemory::~HostMemory()
{
  if (m_data != nullptr) {
    ::munmap(m_data, m_length);
  }
}

StatePools::StatePools(const model::Layout& layout, int slots) : m_slots(slots)
{
  for (std::size_t r = 0; r < layout.ranks.size(); ++r) {
    m_first_of_rank.push_back(m_buffers.size());
    const model::RankLayout& rank = layout.ranks[r];
    for (std::size_t e = 0; e < rank.entries.size(); ++e) {
      EntryBuffer b;
      b.rank_index = static_cast<int>(r);
      b.entry = static_cast<int>(e);
      b.item_len = rank.entries[e].item_len;
      b.slots = slots;
      b.length = static_cast<std::uint64_t>(b.item_len) * static_cast<std::uint64_t>(slots);
      m_memory.emplace_back(b.length);
      b.data = m_memory.back().data();
      m_total += b.length;
      m_buffers.push_back(b);
    }
  }
}

void StatePools::register_all(Transport& transport)
{
  for (EntryBuffer& b : m_buffers) {
    if (b.length > 0) {
      b.key = transport.register_region(b.data, b.length);
    }
  }
}

const EntryBuffer& StatePools::buffer(int rank_index, int entry) const
{
  return m_buffers.at(m_first_of_rank.at(static_cast<std::size_t>(rank_index)) + static_cast<std::size_t>(entry));
}

} // namespace pdcheck::probe
