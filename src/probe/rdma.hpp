#pragma once

// The verbs-backed entry points, declared without <infiniband/verbs.h>: the
// implementations live in verbs_*.cpp, the only files that include it.

#include "probe/device_info.hpp"
#include "probe/transport.hpp"

#include <memory>
#include <string>
#include <vector>

namespace pdcheck::probe {

/// Every RDMA device and port, with GID tables and the GID pdcheck would pick.
/// Throws ProbeError(open_device) (exit 3) when there is none, saying whether
/// the kernel has no RDMA support (ENOSYS) or simply no device.
std::vector<DeviceInfo> list_rdma_devices();

/// The most RC QPs one probe connection opens (--qps).
inline constexpr std::size_t k_max_queue_pairs = 16;

struct VerbsOptions
{
  std::string device;  ///< "" = first device with an active port
  int ib_port = 1;
  int gid_index = -1;  ///< -1 = choose_gid_index
  std::size_t max_outstanding = 128; ///< per queue pair
  std::size_t queue_pairs = 1;       ///< RC QPs to the peer, sharing one CQ (--qps)
};

/// Opens the device, allocates PD, CQ and the RC QPs (moved to INIT). Throws
/// VerbsError with phase and hint (port not active, empty GID, ...).
std::unique_ptr<Transport> open_verbs_transport(const VerbsOptions& options);

} // namespace pdcheck::probe
