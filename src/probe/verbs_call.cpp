// One wrapper per libibverbs call, each normalising that call's return
// convention (NULL + errno for creation, an errno value for modify/query,
// -1 for ibv_query_gid), plus the device inventory behind `pdcheck devices`.

#include "probe/pci_topology.hpp"
#include "probe/probe_error.hpp"
#include "probe/rdma.hpp"
#include "probe/verbs_handles.hpp"
#include "probe/verbs_library.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace pdcheck::probe::verbs {

TeardownSink& teardown_sink()
{
  static thread_local TeardownSink sink;
  return sink;
}

namespace {

void note(const char* call, int rc)
{
  // ibv_destroy_* and ibv_dealloc_pd return an errno value, not -1.
  if (rc != 0) {
    teardown_sink().issues.push_back(fmt::format("{}: {}", call, std::strerror(rc)));
  }
}

} // namespace

void DeviceListDeleter::operator()(ibv_device** list) const
{
  ibv_free_device_list(list);
}
void ContextDeleter::operator()(ibv_context* c) const
{
  note("ibv_close_device", ibv_close_device(c));
}
void PdDeleter::operator()(ibv_pd* p) const
{
  // EBUSY here means a child (MR, QP) was leaked.
  note("ibv_dealloc_pd", ibv_dealloc_pd(p));
}
void CqDeleter::operator()(ibv_cq* c) const
{
  note("ibv_destroy_cq", ibv_destroy_cq(c));
}
void MrDeleter::operator()(ibv_mr* m) const
{
  note("ibv_dereg_mr", ibv_dereg_mr(m));
}
void QpDeleter::operator()(ibv_qp* q) const
{
  note("ibv_destroy_qp", ibv_destroy_qp(q));
}

DeviceList get_device_list(int& count)
{
  count = 0;
  if (const std::string why = verbs_library_error(); !why.empty()) {
    throw ProbeError(Phase::open_device, fmt::format("no RDMA device: libibverbs cannot be loaded ({})", why),
                     "that rdma-core's libibverbs1 is installed, or use --transport tcp");
  }
  errno = 0;
  ibv_device** list = ibv_get_device_list(&count);
  if (list == nullptr) {
    const int err = errno;
    if (err == ENOSYS) {
      throw ProbeError(Phase::open_device,
                       "no RDMA device: this kernel has no RDMA support (ibv_get_device_list: ENOSYS)",
                       "that the RDMA kernel modules are loaded (ib_core, ib_uverbs and the NIC driver), or use "
                       "--transport tcp");
    }
    throw VerbsError(Phase::open_device, "ibv_get_device_list", err,
                     "permissions on /dev/infiniband (EPERM) and that rdma-core providers are installed");
  }
  return DeviceList(list);
}

Context open_device(ibv_device* device)
{
  errno = 0;
  ibv_context* c = ibv_open_device(device);
  if (c == nullptr) {
    throw VerbsError(Phase::open_device, fmt::format("ibv_open_device({})", ibv_get_device_name(device)),
                     errno != 0 ? errno : ENODEV, "permissions on /dev/infiniband/uverbs*");
  }
  return Context(c);
}

Pd alloc_pd(ibv_context* context)
{
  errno = 0;
  ibv_pd* p = ibv_alloc_pd(context);
  if (p == nullptr) {
    throw VerbsError(Phase::open_device, "ibv_alloc_pd", errno != 0 ? errno : ENOMEM, "device resources");
  }
  return Pd(p);
}

Cq create_cq(ibv_context* context, int entries)
{
  errno = 0;
  ibv_cq* c = ibv_create_cq(context, entries, nullptr, nullptr, 0);
  if (c == nullptr) {
    throw VerbsError(Phase::open_device, "ibv_create_cq", errno != 0 ? errno : ENOMEM,
                     "max_cqe of the device (ibv_devinfo -v)");
  }
  return Cq(c);
}

Mr reg_mr(ibv_pd* pd, void* addr, std::size_t length, int access)
{
  errno = 0;
  ibv_mr* m = ibv_reg_mr(pd, addr, length, access);
  if (m == nullptr) {
    throw VerbsError(Phase::register_memory, fmt::format("ibv_reg_mr({} bytes)", length), errno != 0 ? errno : ENOMEM,
                     "the memlock limit (ulimit -l; unlimited in containers needs --ulimit memlock=-1) and "
                     "max_mr_size (ibv_devinfo -v)");
  }
  return Mr(m);
}

Mr reg_gpu_mr(ibv_pd* pd, std::uint64_t iova, std::size_t length, int dmabuf_fd, int access)
{
  errno = 0;
  const bool dmabuf = dmabuf_fd >= 0;
  ibv_mr* m = dmabuf ? ibv_reg_dmabuf_mr(pd, 0, length, iova, dmabuf_fd, access)
                     : ibv_reg_mr(pd, reinterpret_cast<void*>(iova), length, access);
  if (m == nullptr) {
    throw VerbsError(Phase::register_memory,
                     fmt::format("{}({} bytes of GPU memory)", dmabuf ? "ibv_reg_dmabuf_mr" : "ibv_reg_mr", length),
                     errno != 0 ? errno : ENOMEM,
                     dmabuf ? "dma-buf support of the NIC driver and kernel (Linux 5.12 or newer, rdma-core 34 or "
                              "newer); or use --transport tcp, which stages GPU memory through host memory"
                            : "GPU memory without a dma-buf reaches the NIC only through the nvidia-peermem module "
                              "(lsmod | grep nvidia_peermem); or use --transport tcp, which stages GPU memory "
                              "through host memory");
  }
  return Mr(m);
}

Qp create_rc_qp(ibv_pd* pd, ibv_cq* cq, int max_send_wr)
{
  ibv_qp_init_attr attr{};
  attr.send_cq = cq;
  attr.recv_cq = cq;
  attr.qp_type = IBV_QPT_RC;
  attr.cap.max_send_wr = static_cast<std::uint32_t>(max_send_wr);
  attr.cap.max_recv_wr = 1;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  // Completions only for the work requests we flag (one per batch).
  attr.sq_sig_all = 0;
  errno = 0;
  ibv_qp* q = ibv_create_qp(pd, &attr);
  if (q == nullptr) {
    throw VerbsError(Phase::open_device, "ibv_create_qp", errno != 0 ? errno : ENOMEM,
                     "max_qp_wr of the device and leaked QPs (rdma resource show)");
  }
  return Qp(q);
}

ibv_port_attr query_port(ibv_context* context, int port)
{
  ibv_port_attr attr{};
  const int rc = ibv_query_port(context, static_cast<std::uint8_t>(port), &attr);
  if (rc != 0) {
    throw VerbsError(Phase::open_device, fmt::format("ibv_query_port(port {})", port), rc,
                     "the port number (--ib-port; ports start at 1)");
  }
  return attr;
}

} // namespace pdcheck::probe::verbs

namespace pdcheck::probe {

namespace {

std::string port_state_str(ibv_port_state s)
{
  switch (s) {
  case IBV_PORT_NOP: return "NOP";
  case IBV_PORT_DOWN: return "DOWN";
  case IBV_PORT_INIT: return "INIT";
  case IBV_PORT_ARMED: return "ARMED";
  case IBV_PORT_ACTIVE: return "ACTIVE";
  case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
  }
  return "UNKNOWN";
}

std::string phys_state_str(int s)
{
  switch (s) {
  case 1: return "SLEEP";
  case 2: return "POLLING";
  case 3: return "DISABLED";
  case 4: return "PORT_CONFIGURATION_TRAINING";
  case 5: return "LINK_UP";
  case 6: return "LINK_ERROR_RECOVERY";
  case 7: return "PHY_TEST";
  default: return "UNKNOWN";
  }
}

std::string link_layer_str(int l)
{
  switch (l) {
  case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
  case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
  default: return "InfiniBand"; // unspecified means IB (ibv_query_port(3))
  }
}

std::vector<GidEntry> gid_table(ibv_context* ctx, int port, int table_len)
{
  std::vector<GidEntry> out;
  for (int i = 0; i < table_len; ++i) {
    ibv_gid_entry e{};
    const int rc = ibv_query_gid_ex(ctx, static_cast<std::uint32_t>(port), static_cast<std::uint32_t>(i), &e, 0);
    if (rc != 0) {
      // ENODATA: an empty slot; anything else: stop reading this table.
      if (rc == ENODATA) {
        continue;
      }
      break;
    }
    GidEntry g;
    g.index = i;
    std::memcpy(g.gid.data(), e.gid.raw, 16);
    g.type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? GidType::roce_v2
             : e.gid_type == IBV_GID_TYPE_ROCE_V1 ? GidType::roce_v1
                                                   : GidType::ib;
    if (e.ndev_ifindex != 0) {
      g.netdev = read_sysfs_line(fmt::format("/sys/class/infiniband/{}/ports/{}/gid_attrs/ndevs/{}",
                                        ibv_get_device_name(ctx->device), port, i));
    }
    if (!gid_is_zero(g.gid)) {
      out.push_back(g);
    }
  }
  return out;
}

} // namespace

PortInfo port_info(ibv_context* ctx, int port)
{
  const ibv_port_attr a = verbs::query_port(ctx, port);
  PortInfo p;
  p.port = port;
  p.state = port_state_str(a.state);
  p.active = a.state == IBV_PORT_ACTIVE;
  p.phys_state = phys_state_str(a.phys_state);
  p.link_layer = link_layer_str(a.link_layer);
  p.active_mtu = mtu_code_bytes(a.active_mtu);
  p.max_mtu = mtu_code_bytes(a.max_mtu);
  p.lid = a.lid;
  p.speed_gbps_per_lane = speed_code_gbps(a.active_speed);
  p.width_lanes = width_code_lanes(a.active_width);
  p.gids = gid_table(ctx, port, a.gid_tbl_len);
  p.chosen_gid_index = choose_gid_index(p.gids);
  return p;
}

std::vector<DeviceInfo> list_rdma_devices()
{
  int count = 0;
  verbs::DeviceList list = verbs::get_device_list(count);
  if (count == 0) {
    throw ProbeError(Phase::open_device,
                     "no RDMA device: the kernel supports RDMA but no device is present (ibv_get_device_list returned "
                     "an empty list)",
                     "that the NIC driver is loaded, IBV_SHOW_WARNINGS=1 for devices without a userspace provider, or "
                     "use --transport tcp");
  }
  std::vector<DeviceInfo> out;
  const std::vector<PciPlace> gpus = visible_gpus("/sys");
  for (int i = 0; i < count; ++i) {
    ibv_device* dev = list.get()[i];
    DeviceInfo d;
    d.name = ibv_get_device_name(dev);
    d.node_guid = fmt::format("{:016x}", be64toh(ibv_get_device_guid(dev)));
    if (const auto place = rdma_device_place("/sys", d.name)) {
      d.pci_address = place->address;
      d.numa_node = place->numa_node;
      if (const auto gpu = nearest_gpu(*place, gpus)) {
        d.nearest_gpu = gpu->address;
        d.nearest_gpu_affinity = affinity_name(gpu->affinity);
        d.nearest_gpu_meaning = affinity_meaning(gpu->affinity);
      }
    }
    verbs::Context ctx = verbs::open_device(dev);
    ibv_device_attr attr{};
    if (ibv_query_device(ctx.get(), &attr) == 0) {
      d.fw_ver = attr.fw_ver;
      for (int port = 1; port <= attr.phys_port_cnt; ++port) {
        d.ports.push_back(port_info(ctx.get(), port));
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

} // namespace pdcheck::probe
