#include "probe/state_pools.hpp"

#include "probe/oob.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <tuple>

namespace pdcheck::probe {

std::string_view memory_path_name(MemoryPath path)
{
  switch (path) {
  case MemoryPath::host: return "host";
  case MemoryPath::gpu_direct_dmabuf: return "gpu-direct-dmabuf";
  case MemoryPath::gpu_direct_peermem: return "gpu-direct-peermem";
  case MemoryPath::staged: return "staged";
  }
  return "?";
}

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

DeviceMemory::DeviceMemory(GpuDevice& gpu, std::uint64_t length) : m_gpu(&gpu), m_addr(gpu.allocate(length)) {}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept : m_gpu(other.m_gpu), m_addr(other.m_addr)
{
  other.m_gpu = nullptr;
  other.m_addr = 0;
}

DeviceMemory::~DeviceMemory()
{
  if (m_gpu != nullptr && m_addr != 0) {
    m_gpu->release(m_addr);
  }
}

StatePools::StatePools(const model::Layout& layout, int slots, GpuDevice* gpu) : m_gpu(gpu), m_slots(slots)
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
      b.wire = b.data;
      if (m_gpu != nullptr && b.length > 0) {
        m_device_memory.emplace_back(*m_gpu, b.length);
        b.device_addr = m_device_memory.back().addr();
        m_gpu->zero(b.device_addr, b.length, Phase::allocate);
      }
      m_total += b.length;
      m_buffers.push_back(b);
    }
  }
}

StatePools::~StatePools() = default;

void StatePools::register_all(Transport& transport)
{
  const bool direct = m_gpu != nullptr && transport.registers_gpu_memory();
  m_path = m_gpu == nullptr ? MemoryPath::host : direct ? MemoryPath::gpu_direct_dmabuf : MemoryPath::staged;
  for (EntryBuffer& b : m_buffers) {
    if (b.length == 0) {
      continue;
    }
    if (!direct) {
      b.key = transport.register_region(b.data, b.length);
      continue;
    }
    GpuRegion region;
    region.device_addr = b.device_addr;
    region.length = b.length;
    const GpuDevice::DmabufExport exported = m_gpu->export_dmabuf(b.device_addr, b.length);
    // Closed when this buffer is done: the memory region holds its own reference.
    const Fd dmabuf(exported.fd);
    region.dmabuf_fd = dmabuf.get();
    if (!dmabuf) {
      // One buffer by address is enough to depend on nvidia-peermem.
      m_path = MemoryPath::gpu_direct_peermem;
      if (m_dmabuf_refusal.empty()) {
        m_dmabuf_refusal = exported.why_not;
      }
    }
    try {
      b.key = transport.register_gpu_region(region);
    } catch (const ProbeError& e) {
      if (dmabuf) {
        throw;
      }
      // Registration by address failed: say why there was no dma-buf to use.
      throw ProbeError(e.phase(), fmt::format("{} (no dma-buf: {})", e.detail(), exported.why_not), e.hint());
    }
    b.wire = reinterpret_cast<std::uint8_t*>(b.device_addr);
  }
}

void StatePools::publish_filled()
{
  if (m_gpu == nullptr) {
    return;
  }
  for (const EntryBuffer& b : m_buffers) {
    if (b.length > 0) {
      m_gpu->copy_to_device(b.device_addr, b.data, b.length, Phase::fill);
      std::memset(b.data, 0, b.length);
    }
  }
  // A copy from pageable memory may return before the bytes land; the NIC
  // reads them directly on the GPU-direct path.
  m_gpu->synchronize(Phase::fill);
}

void StatePools::stage_for_send(std::vector<BufferRange> ranges)
{
  if (m_path != MemoryPath::staged) {
    return;
  }
  std::sort(ranges.begin(), ranges.end(), [](const BufferRange& a, const BufferRange& b) {
    return std::tie(a.buffer, a.offset) < std::tie(b.buffer, b.offset);
  });
  std::size_t i = 0;
  while (i < ranges.size()) {
    const std::size_t buffer = ranges[i].buffer;
    const std::uint64_t begin = ranges[i].offset;
    std::uint64_t end = begin + ranges[i].length;
    for (++i; i < ranges.size() && ranges[i].buffer == buffer && ranges[i].offset <= end; ++i) {
      end = std::max(end, ranges[i].offset + ranges[i].length);
    }
    const EntryBuffer& b = m_buffers.at(buffer);
    m_gpu->copy_to_host(b.data + begin, b.device_addr + begin, end - begin, Phase::write);
  }
}

void StatePools::bring_to_host(std::size_t buffer, std::uint64_t offset, std::uint64_t length)
{
  const EntryBuffer& b = m_buffers.at(buffer);
  if (m_gpu == nullptr || length == 0) {
    return;
  }
  if (m_path == MemoryPath::staged) {
    m_gpu->copy_to_device(b.device_addr + offset, b.data + offset, length, Phase::verify);
    std::memset(b.data + offset, 0, length);
  }
  m_gpu->copy_to_host(b.data + offset, b.device_addr + offset, length, Phase::verify);
}

void StatePools::reset(std::size_t buffer, std::uint64_t offset, std::uint64_t length)
{
  const EntryBuffer& b = m_buffers.at(buffer);
  std::memset(b.data + offset, 0, length);
  if (m_gpu != nullptr && length > 0) {
    m_gpu->zero(b.device_addr + offset, length, Phase::verify);
  }
}

const EntryBuffer& StatePools::buffer(int rank_index, int entry) const
{
  return m_buffers.at(buffer_index(rank_index, entry));
}

std::size_t StatePools::buffer_index(int rank_index, int entry) const
{
  return m_first_of_rank.at(static_cast<std::size_t>(rank_index)) + static_cast<std::size_t>(entry);
}

} // namespace pdcheck::probe
