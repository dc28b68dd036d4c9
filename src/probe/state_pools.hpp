#pragma once

// The state pools one probe end allocates: for every rank it plays, one buffer
// per registration entry holding `slots` slots of item_len bytes, as SGLang's
// MambaPool allocates one tensor per (tensor, layer) with a slot dimension in
// front. Host memory is mmap'ed (page-aligned, zero-filled: the decode's
// initial "never written" value).
//
// With --memory cuda:N every buffer lives in GPU memory and has a host mirror
// of the same size: the pattern is filled and verified in the mirror, and the
// bytes cross to and from the GPU around the transfer, so what is verified is
// what the GPU held. A transport that can register GPU memory (RDMA, through a
// dma-buf or nvidia-peermem) writes GPU to GPU; one that cannot (TCP) stages
// through the mirrors, as Mooncake's TCP transport stages through host memory.

#include "model/layout.hpp"
#include "probe/gpu_memory.hpp"
#include "probe/transport.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::probe {

/// One entry's buffer on one rank.
struct EntryBuffer
{
  int rank_index = 0; ///< index into Layout::ranks
  int entry = 0;
  std::int64_t item_len = 0;
  std::int64_t slots = 0;
  std::uint8_t* data = nullptr;     ///< host bytes: the buffer itself, or the GPU buffer's mirror
  std::uint64_t device_addr = 0;   ///< the GPU buffer, 0 in host memory
  std::uint8_t* wire = nullptr;    ///< what work requests name: data, or the GPU address when GPU-direct
  std::uint64_t length = 0;        ///< item_len * slots
  RegionKey key;
};

/// Where the transport reads and writes the state.
enum class MemoryPath {
  host,               ///< --memory host
  gpu_direct_dmabuf,  ///< GPU memory registered through a dma-buf (ibv_reg_dmabuf_mr)
  gpu_direct_peermem, ///< GPU memory registered by address (ibv_reg_mr through nvidia-peermem)
  staged,             ///< GPU memory copied through host mirrors (transports without GPU access)
};

/// "host", "gpu-direct-dmabuf", "gpu-direct-peermem", "staged".
std::string_view memory_path_name(MemoryPath path);

/// A byte range of one buffer (index into StatePools::buffers()).
struct BufferRange
{
  std::size_t buffer = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
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

/// One GPU allocation; move-only owner (freed on destruction).
class DeviceMemory
{
public:
  /// Throws ProbeError(allocate) from the driver.
  DeviceMemory(GpuDevice& gpu, std::uint64_t length);
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&&) = delete;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory();

  std::uint64_t addr() const { return m_addr; }

private:
  GpuDevice* m_gpu = nullptr;
  std::uint64_t m_addr = 0;
};

class StatePools
{
public:
  /// Allocates every entry of every rank of `layout`, in host memory or, with
  /// `gpu`, in GPU memory (zeroed) plus host mirrors. `slots` >= 2 (slot 0 is
  /// never a request's, as in SGLang where it is the padding slot). `gpu`
  /// must outlive the pools.
  StatePools(const model::Layout& layout, int slots, GpuDevice* gpu = nullptr);
  StatePools(const StatePools&) = delete;
  StatePools& operator=(const StatePools&) = delete;
  ~StatePools();

  /// Registers every non-empty buffer with the transport (phase
  /// register-memory) and so decides the memory path.
  void register_all(Transport& transport);
  MemoryPath path() const { return m_path; }
  /// Why GPU memory went by address (nvidia-peermem) rather than a dma-buf:
  /// the driver's first refusal, "" when every buffer had a dma-buf.
  const std::string& dmabuf_refusal() const { return m_dmabuf_refusal; }

  // GPU staging; each is a no-op in host memory.

  /// Prefill, after filling the mirrors: copies them to the GPU and clears
  /// them, so every byte sent later must have come from GPU memory.
  void publish_filled();
  /// Prefill on the staged path, before a request's writes: copies these
  /// source ranges from the GPU into the mirrors (merged where they touch).
  void stage_for_send(std::vector<BufferRange> ranges);
  /// Decode, before verifying a range: brings what landed into the mirror.
  /// GPU-direct: GPU -> mirror. Staged: the landed bytes make a round trip
  /// mirror -> GPU -> (mirror cleared) -> mirror.
  void bring_to_host(std::size_t buffer, std::uint64_t offset, std::uint64_t length);
  /// Decode, after verifying a range: back to the never-written zero, on the
  /// GPU and in the mirror.
  void reset(std::size_t buffer, std::uint64_t offset, std::uint64_t length);

  std::vector<EntryBuffer>& buffers() { return m_buffers; }
  const std::vector<EntryBuffer>& buffers() const { return m_buffers; }
  const EntryBuffer& buffer(int rank_index, int entry) const;
  std::size_t buffer_index(int rank_index, int entry) const;
  std::uint64_t total_bytes() const { return m_total; }
  int slots() const { return m_slots; }

private:
  std::vector<HostMemory> m_memory; // declared before m_buffers: buffers point into it
  std::vector<DeviceMemory> m_device_memory; // likewise
  GpuDevice* m_gpu = nullptr;
  MemoryPath m_path = MemoryPath::host;
  std::string m_dmabuf_refusal;
  std::vector<EntryBuffer> m_buffers;
  std::vector<std::size_t> m_first_of_rank;
  std::uint64_t m_total = 0;
  int m_slots = 0;
};

} // namespace pdcheck::probe
