#pragma once

// RAII owners for libibverbs objects. Included only by verbs_*.cpp.
// Each owner is a unique_ptr with the matching destroy call; a failed destroy
// is reported to a teardown sink instead of throwing, and release order is
// member declaration order reversed (rc_pingpong's cleanup ladder, without
// labels).

#include "probe/device_info.hpp"

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

namespace pdcheck::probe::verbs {

/// Where failed destroys are recorded ("ibv_dereg_mr: Device or resource busy").
struct TeardownSink
{
  std::vector<std::string> issues;
};

/// The sink every deleter reports to; set by the owning transport.
TeardownSink& teardown_sink();

struct DeviceListDeleter
{
  void operator()(ibv_device** list) const;
};
struct ContextDeleter
{
  void operator()(ibv_context* c) const;
};
struct PdDeleter
{
  void operator()(ibv_pd* p) const;
};
struct CqDeleter
{
  void operator()(ibv_cq* c) const;
};
struct MrDeleter
{
  void operator()(ibv_mr* m) const;
};
struct QpDeleter
{
  void operator()(ibv_qp* q) const;
};

using DeviceList = std::unique_ptr<ibv_device*, DeviceListDeleter>;
using Context = std::unique_ptr<ibv_context, ContextDeleter>;
using Pd = std::unique_ptr<ibv_pd, PdDeleter>;
using Cq = std::unique_ptr<ibv_cq, CqDeleter>;
using Mr = std::unique_ptr<ibv_mr, MrDeleter>;
using Qp = std::unique_ptr<ibv_qp, QpDeleter>;

/// ibv_get_device_list; throws ProbeError(open_device) for NULL (naming ENOSYS:
/// no kernel RDMA support, EPERM, ...). `count` gets the number of devices.
DeviceList get_device_list(int& count);
Context open_device(ibv_device* device);
Pd alloc_pd(ibv_context* context);
Cq create_cq(ibv_context* context, int entries);
Mr reg_mr(ibv_pd* pd, void* addr, std::size_t length, int access);
/// GPU memory: ibv_reg_dmabuf_mr when `dmabuf_fd` >= 0, else ibv_reg_mr on the
/// device address (works only with nvidia-peermem loaded). `iova` = the device
/// address, so work requests name device addresses.
Mr reg_gpu_mr(ibv_pd* pd, std::uint64_t iova, std::size_t length, int dmabuf_fd, int access);
Qp create_rc_qp(ibv_pd* pd, ibv_cq* cq, int max_send_wr);
ibv_port_attr query_port(ibv_context* context, int port);

} // namespace pdcheck::probe::verbs

namespace pdcheck::probe {
/// Snapshot of one port (state, MTU, speed, GID table and the chosen GID).
PortInfo port_info(ibv_context* context, int port);
} // namespace pdcheck::probe
