#pragma once

// The narrow interface between the probe's transfer logic and the wire:
// register memory, post batched one-sided writes, poll completions. Three
// implementations speak it: libibverbs RC RDMA WRITE (verbs_transport.cpp, the
// only code that touches verbs), TCP (tcp_transport.cpp, for hosts without
// RDMA and for CI) and an in-process fake of the verbs semantics
// (fake_transport.hpp, for tests of completions, error completions and
// partial failure). All three follow RC rules: writes land in order, a write
// outside a registered region fails with "remote access error", and after the
// first error every later work request of that queue pair completes as "work
// request flushed".

#include "probe/oob.hpp"
#include "probe/probe_error.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::probe {

/// A registered memory region: what the peer needs to write into it (addr,
/// length, rkey) and what local posts need (lkey).
struct RegionKey
{
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  std::uint32_t rkey = 0;
  std::uint32_t lkey = 0;
};

/// GPU memory to register for GPU-direct RDMA: the device address (used as
/// the region's iova, so work requests name device addresses) and, when the
/// driver exported one, a dma-buf file descriptor (else -1: nvidia-peermem).
struct GpuRegion
{
  std::uint64_t device_addr = 0;
  std::uint64_t length = 0;
  int dmabuf_fd = -1;
};

/// One RDMA WRITE work request.
struct WriteWork
{
  std::uint64_t wr_id = 0;
  const std::uint8_t* local = nullptr;
  std::uint32_t lkey = 0;
  std::uint64_t remote_addr = 0;
  std::uint32_t rkey = 0;
  std::uint64_t length = 0;
  bool signalled = false;
  /// The queue pair it goes to, below Transport::lanes().
  std::uint32_t lane = 0;
};

struct Completion
{
  std::uint64_t wr_id = 0;
  bool ok = true;
  std::string status; ///< verbs status text ("transport retry counter exceeded", ...) when !ok
};

class Transport
{
public:
  virtual ~Transport() = default;

  /// "rdma", "tcp" or "fake-verbs".
  virtual std::string_view name() const = 0;

  /// Registers [addr, addr + length) for local reads and remote writes.
  /// Throws ProbeError(register_memory) with a hint (memlock limit, max_mr_size).
  virtual RegionKey register_region(void* addr, std::uint64_t length) = 0;

  /// Whether register_gpu_region works. When it does not (TCP), the probe
  /// stages GPU memory through a host mirror, as Mooncake's TCP transport does.
  virtual bool registers_gpu_memory() const { return false; }

  /// Registers device memory for local reads and remote writes. Throws
  /// ProbeError(register_memory) naming dma-buf / nvidia-peermem.
  virtual RegionKey register_gpu_region(const GpuRegion& region)
  {
    throw ProbeError(Phase::register_memory,
                     fmt::format("the {} transport cannot register GPU memory ({} bytes)", name(), region.length),
                     "--memory host, or --transport rdma");
  }

  /// What the peer needs to connect: QP number, PSN, GID, MTU (rdma) or the
  /// data port (tcp). Goes into the handshake as is.
  virtual nlohmann::json local_endpoint() const = 0;

  /// Connects to the peer's endpoint. The target (decode) end is connected
  /// first and must not block waiting for the initiator.
  virtual void connect(const nlohmann::json& peer, bool initiator, Deadline deadline) = 0;

  /// The most work requests that may be outstanding (posted, not completed)
  /// on one lane.
  virtual std::size_t max_outstanding() const = 0;

  /// Independent ordered queues (RC queue pairs) writes can be spread over:
  /// the writes of one lane land and complete in posting order, lanes make
  /// progress side by side, and an error puts only its own lane in the error
  /// state. One NIC queue pair cannot always fill a link (docs/probe.md).
  virtual std::size_t lanes() const { return 1; }

  /// Posts writes in order, every one to the lane of batch[0]. Throws
  /// ProbeError(write) when the transport refuses the post itself (queue
  /// full, QP not connected).
  virtual void post_writes(std::span<const WriteWork> batch) = 0;

  /// Waits until at least one completion is ready or `deadline` passes; fills
  /// `out` and returns how many were written (0 on timeout).
  virtual std::size_t poll(std::span<Completion> out, Deadline deadline) = 0;

  /// PCI address of the NIC the transport uses, "" when none or unknown.
  virtual std::string pci_address() const { return ""; }

  /// Port speed x width in Gb/s when known, else 0.
  virtual double line_rate_gbps() const { return 0; }

  /// Stops background work; returns teardown problems (never throws).
  virtual std::vector<std::string> shutdown() { return {}; }
};

} // namespace pdcheck::probe
