#pragma once

// An in-process fake of the verbs transport for tests: regions registered on a
// shared FakeFabric get rkeys; writes are applied with the checks a NIC makes
// (rkey known, range inside the region) and complete with RC semantics. Faults
// can be injected to see how the transfer logic handles error completions and
// partial failure. No verbs headers, no device.

#include "probe/transport.hpp"

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace pdcheck::probe {

/// The "network" the fake transports share: every registered region by rkey.
class FakeFabric
{
public:
  std::uint32_t add(std::uint8_t* addr, std::uint64_t length);
  /// The region `rkey` names, when [remote_addr, +length) lies inside it.
  std::uint8_t* resolve(std::uint32_t rkey, std::uint64_t remote_addr, std::uint64_t length);

  /// GPU regions registered by every transport on the fabric, and how many came
  /// with an open dma-buf descriptor (the transports themselves die with the probe).
  std::atomic<int> gpu_regions{0};
  std::atomic<int> dmabuf_regions{0};

private:
  struct Region
  {
    std::uint8_t* addr;
    std::uint64_t length;
  };
  std::mutex m_mutex;
  std::map<std::uint32_t, Region> m_regions;
  std::uint32_t m_next = 0x1000;
};

/// A fault to inject: the `fail_at`-th work request the fake NIC executes
/// (0-based, across lanes) completes with `status` and its queue pair goes to
/// the error state.
struct FakeFault
{
  std::uint64_t fail_at = 0;
  std::string status = "transport retry counter exceeded";
};

class FakeVerbsTransport : public Transport
{
public:
  /// `lanes` queue pairs, each with its own send queue of `max_outstanding`.
  FakeVerbsTransport(std::shared_ptr<FakeFabric> fabric, std::size_t max_outstanding = 64,
                     std::optional<FakeFault> fault = std::nullopt, std::size_t lanes = 1);

  std::string_view name() const override { return "fake-verbs"; }
  RegionKey register_region(void* addr, std::uint64_t length) override;
  /// A fake NIC with GPUDirect: device addresses are taken as host addresses,
  /// which holds only for the fake CUDA driver of the tests.
  bool registers_gpu_memory() const override { return true; }
  RegionKey register_gpu_region(const GpuRegion& region) override;
  nlohmann::json local_endpoint() const override;
  void connect(const nlohmann::json& peer, bool initiator, Deadline deadline) override;
  std::size_t max_outstanding() const override { return m_max_outstanding; }
  std::size_t lanes() const override { return m_lanes.size(); }
  void post_writes(std::span<const WriteWork> batch) override;
  std::size_t poll(std::span<Completion> out, Deadline deadline) override;

  /// The most outstanding on any one lane, and the lanes that carried writes.
  std::size_t peak_outstanding() const { return m_peak; }
  std::size_t lanes_used() const;
  /// Executes at most `n` requests per poll once one has completed (default:
  /// as many as fit), so that completions of one lane arrive across polls,
  /// after another lane's error.
  void set_poll_limit(std::size_t n) { m_poll_limit = n; }
  /// Lane `lane` runs nothing during the next `polls` polls: a slow queue pair.
  void pause_lane(std::size_t lane, std::size_t polls) { m_lanes.at(lane).paused_polls = polls; }
  /// Work requests posted on `lane` so far.
  std::uint64_t posted_on(std::size_t lane) const { return m_lanes.at(lane).posted; }

private:
  std::shared_ptr<FakeFabric> m_fabric;
  std::size_t m_max_outstanding;
  std::optional<FakeFault> m_fault;
  bool m_connected = false;
  struct Lane
  {
    std::deque<WriteWork> queue;
    bool error_state = false;
    std::uint64_t posted = 0;
    std::size_t paused_polls = 0;
  };
  std::vector<Lane> m_lanes;
  std::size_t m_next_lane = 0; ///< where the fake NIC takes its next request
  std::size_t m_poll_limit = static_cast<std::size_t>(-1);
  std::uint64_t m_executed = 0; ///< requests the fake NIC ran, across lanes (FakeFault::fail_at counts these)
  std::size_t m_peak = 0;
};

} // namespace pdcheck::probe
