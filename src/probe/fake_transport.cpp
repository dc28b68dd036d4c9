#include "probe/fake_transport.hpp"

#include <algorithm>
#include <cstring>
#include <fcntl.h>

namespace pdcheck::probe {

std::uint32_t FakeFabric::add(std::uint8_t* addr, std::uint64_t length)
{
  std::lock_guard lock(m_mutex);
  const std::uint32_t key = m_next++;
  m_regions[key] = Region{addr, length};
  return key;
}

std::uint8_t* FakeFabric::resolve(std::uint32_t rkey, std::uint64_t remote_addr, std::uint64_t length)
{
  std::lock_guard lock(m_mutex);
  auto it = m_regions.find(rkey);
  if (it == m_regions.end()) {
    return nullptr;
  }
  const auto base = reinterpret_cast<std::uint64_t>(it->second.addr);
  if (remote_addr < base || remote_addr - base > it->second.length || length > it->second.length - (remote_addr - base)) {
    return nullptr;
  }
  return it->second.addr + (remote_addr - base);
}

FakeVerbsTransport::FakeVerbsTransport(std::shared_ptr<FakeFabric> fabric, std::size_t max_outstanding,
                                       std::optional<FakeFault> fault, std::size_t lanes)
  : m_fabric(std::move(fabric)),
    m_max_outstanding(max_outstanding),
    m_fault(std::move(fault)),
    m_lanes(std::max<std::size_t>(1, lanes))
{
}

std::size_t FakeVerbsTransport::lanes_used() const
{
  return static_cast<std::size_t>(
    std::count_if(m_lanes.begin(), m_lanes.end(), [](const Lane& l) { return l.posted > 0; }));
}

RegionKey FakeVerbsTransport::register_region(void* addr, std::uint64_t length)
{
  RegionKey k;
  k.addr = reinterpret_cast<std::uint64_t>(addr);
  k.length = length;
  k.rkey = m_fabric->add(static_cast<std::uint8_t*>(addr), length);
  k.lkey = k.rkey;
  return k;
}

RegionKey FakeVerbsTransport::register_gpu_region(const GpuRegion& region)
{
  ++m_fabric->gpu_regions;
  // As ibv_reg_dmabuf_mr does, refuse a descriptor that is not open.
  if (region.dmabuf_fd >= 0) {
    if (::fcntl(region.dmabuf_fd, F_GETFD) < 0) {
      throw ProbeError(Phase::register_memory, "dma-buf descriptor is not open", "the fake CUDA driver");
    }
    ++m_fabric->dmabuf_regions;
  }
  return register_region(reinterpret_cast<void*>(region.device_addr), region.length);
}

nlohmann::json FakeVerbsTransport::local_endpoint() const
{
  return {{"fabric", "in-process"}};
}

void FakeVerbsTransport::connect(const nlohmann::json& peer, bool, Deadline)
{
  if (peer.value("fabric", "") != "in-process") {
    throw ProbeError(Phase::connect, "the peer is not on the in-process fake fabric", "both ends must use the fake");
  }
  m_connected = true;
}

void FakeVerbsTransport::post_writes(std::span<const WriteWork> batch)
{
  if (!m_connected) {
    throw ProbeError(Phase::write, "ibv_post_send failed: QP not connected (EINVAL)", "connect before posting");
  }
  if (batch.empty()) {
    return;
  }
  if (batch.front().lane >= m_lanes.size()) {
    throw ProbeError(Phase::write, "ibv_post_send failed: no such queue pair (EINVAL)", "post to lanes() QPs only");
  }
  Lane& lane = m_lanes[batch.front().lane];
  if (lane.queue.size() + batch.size() > m_max_outstanding) {
    // ibv_post_send fails with ENOMEM when the send queue is full.
    throw ProbeError(Phase::write, "ibv_post_send failed: send queue full (ENOMEM)",
                     "the bound on outstanding work requests");
  }
  for (const WriteWork& w : batch) {
    lane.queue.push_back(w);
  }
  lane.posted += batch.size();
  m_peak = std::max(m_peak, lane.queue.size());
}

std::size_t FakeVerbsTransport::poll(std::span<Completion> out, Deadline)
{
  // Work happens at poll time, each queue pair in its posting order, the
  // queue pairs taking turns a request at a time like a NIC serving several.
  std::size_t n = 0;
  std::size_t idle = 0; // lanes found empty in a row
  std::size_t executed = 0;
  // The limit holds once there is a completion to return: a poll that only ran
  // unsignalled writes would look like a timeout.
  while (n < out.size() && idle < m_lanes.size() && (n == 0 || executed < m_poll_limit)) {
    Lane& lane = m_lanes[m_next_lane];
    m_next_lane = (m_next_lane + 1) % m_lanes.size();
    if (lane.queue.empty() || lane.paused_polls > 0) {
      ++idle;
      continue;
    }
    idle = 0;
    ++executed;
    const WriteWork w = lane.queue.front();
    lane.queue.pop_front();
    const std::uint64_t index = m_executed++;
    if (lane.error_state) {
      out[n++] = Completion{w.wr_id, false, "work request flushed error"};
      continue;
    }
    if (m_fault && m_fault->fail_at == index) {
      lane.error_state = true;
      out[n++] = Completion{w.wr_id, false, m_fault->status};
      continue;
    }
    std::uint8_t* dst = m_fabric->resolve(w.rkey, w.remote_addr, w.length);
    if (dst == nullptr) {
      lane.error_state = true;
      out[n++] = Completion{w.wr_id, false, "remote access error"};
      continue;
    }
    std::memcpy(dst, w.local, w.length);
    if (w.signalled) {
      out[n++] = Completion{w.wr_id, true, ""};
    }
  }
  for (Lane& lane : m_lanes) {
    lane.paused_polls -= lane.paused_polls > 0 ? 1 : 0;
  }
  return n;
}

} // namespace pdcheck::probe
