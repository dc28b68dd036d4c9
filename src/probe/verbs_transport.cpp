// The RDMA transport: one or more RC QPs per probe connection (--qps), RDMA
// WRITE work requests, completions of every QP polled from one CQ. Never
// exercised on hardware in pdcheck's own CI (no RDMA device there): see
// docs/probe.md.

#include "probe/qp_plan.hpp"
#include "probe/pci_topology.hpp"
#include "probe/peer_fields.hpp"
#include "probe/rdma.hpp"
#include "probe/verbs_handles.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <thread>

namespace pdcheck::probe {

namespace {

int mask_of(const std::vector<QpField>& fields)
{
  int mask = 0;
  for (QpField f : fields) {
    switch (f) {
    case QpField::state: mask |= IBV_QP_STATE; break;
    case QpField::pkey_index: mask |= IBV_QP_PKEY_INDEX; break;
    case QpField::port: mask |= IBV_QP_PORT; break;
    case QpField::access_flags: mask |= IBV_QP_ACCESS_FLAGS; break;
    case QpField::path_mtu: mask |= IBV_QP_PATH_MTU; break;
    case QpField::dest_qpn: mask |= IBV_QP_DEST_QPN; break;
    case QpField::rq_psn: mask |= IBV_QP_RQ_PSN; break;
    case QpField::max_dest_rd_atomic: mask |= IBV_QP_MAX_DEST_RD_ATOMIC; break;
    case QpField::min_rnr_timer: mask |= IBV_QP_MIN_RNR_TIMER; break;
    case QpField::av: mask |= IBV_QP_AV; break;
    case QpField::timeout: mask |= IBV_QP_TIMEOUT; break;
    case QpField::retry_cnt: mask |= IBV_QP_RETRY_CNT; break;
    case QpField::rnr_retry: mask |= IBV_QP_RNR_RETRY; break;
    case QpField::sq_psn: mask |= IBV_QP_SQ_PSN; break;
    case QpField::max_qp_rd_atomic: mask |= IBV_QP_MAX_QP_RD_ATOMIC; break;
    }
  }
  return mask;
}

void apply(ibv_qp* qp, const QpTransition& t)
{
  ibv_qp_attr a{};
  if (t.target == "INIT") {
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<std::uint8_t>(t.port);
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | (t.remote_write ? IBV_ACCESS_REMOTE_WRITE : 0);
  } else if (t.target == "RTR") {
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = static_cast<ibv_mtu>(mtu_bytes_code(t.path_mtu));
    a.dest_qp_num = t.dest_qpn;
    a.rq_psn = t.rq_psn;
    a.max_dest_rd_atomic = static_cast<std::uint8_t>(t.max_rd_atomic);
    a.min_rnr_timer = static_cast<std::uint8_t>(t.min_rnr_timer);
    a.ah_attr.is_global = t.use_grh ? 1 : 0;
    a.ah_attr.dlid = static_cast<std::uint16_t>(t.dlid);
    a.ah_attr.sl = 0;
    a.ah_attr.src_path_bits = 0;
    a.ah_attr.port_num = static_cast<std::uint8_t>(t.port);
    if (t.use_grh) {
      std::memcpy(a.ah_attr.grh.dgid.raw, t.dgid.data(), 16);
      a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(t.sgid_index);
      a.ah_attr.grh.hop_limit = static_cast<std::uint8_t>(t.hop_limit);
    }
  } else {
    a.qp_state = IBV_QPS_RTS;
    a.timeout = static_cast<std::uint8_t>(t.timeout);
    a.retry_cnt = static_cast<std::uint8_t>(t.retry_cnt);
    a.rnr_retry = static_cast<std::uint8_t>(t.rnr_retry);
    a.sq_psn = t.sq_psn;
    a.max_rd_atomic = static_cast<std::uint8_t>(t.max_rd_atomic);
  }
  // ibv_modify_qp returns an errno value (ibv_modify_qp(3)), not -1.
  const int rc = ibv_modify_qp(qp, &a, mask_of(t.mask));
  if (rc != 0) {
    throw VerbsError(Phase::connect, "ibv_modify_qp(" + t.target + ")", rc, t.hint);
  }
}

class VerbsTransport : public Transport
{
public:
  explicit VerbsTransport(const VerbsOptions& o) : m_options(o)
  {
    int count = 0;
    m_list = verbs::get_device_list(count);
    if (count == 0) {
      throw ProbeError(Phase::open_device, "no RDMA device: the kernel supports RDMA but no device is present",
                       "the NIC driver, or use --transport tcp");
    }
    ibv_device* chosen = nullptr;
    for (int i = 0; i < count; ++i) {
      ibv_device* d = m_list.get()[i];
      if (o.device.empty() || o.device == ibv_get_device_name(d)) {
        chosen = d;
        break;
      }
    }
    if (chosen == nullptr) {
      throw ProbeError(Phase::open_device, fmt::format("RDMA device '{}' not found", o.device),
                       "`pdcheck devices` for the names on this host");
    }
    m_context = verbs::open_device(chosen);
    if (const auto place = rdma_device_place("/sys", ibv_get_device_name(chosen))) {
      m_pci_address = place->address;
    }
    m_port = port_info(m_context.get(), o.ib_port);
    if (!m_port.active) {
      throw ProbeError(Phase::open_device,
                       fmt::format("port {} of {} is not active (state {}, physical state {})", o.ib_port,
                                   ibv_get_device_name(chosen), m_port.state, m_port.phys_state),
                       "the cable and switch port, `ibv_devinfo`, or another --ib-port");
    }
    if (o.gid_index >= 0) {
      m_gid_index = o.gid_index;
      bool found = false;
      for (const GidEntry& g : m_port.gids) {
        if (g.index == o.gid_index) {
          m_gid = g.gid;
          found = true;
        }
      }
      if (!found && m_port.link_layer == "Ethernet") {
        throw ProbeError(Phase::open_device, fmt::format("GID index {} is empty on this port", o.gid_index),
                         "`pdcheck devices` for populated GID indices (RoCE needs an address at the index)");
      }
    } else if (m_port.chosen_gid_index) {
      m_gid_index = *m_port.chosen_gid_index;
      for (const GidEntry& g : m_port.gids) {
        if (g.index == m_gid_index) {
          m_gid = g.gid;
        }
      }
    } else if (m_port.link_layer == "Ethernet") {
      throw ProbeError(Phase::open_device, "no populated GID on this RoCE port",
                       "that the network interface of the port has an IP address");
    }
    m_pd = verbs::alloc_pd(m_context.get());
    const std::size_t qps = std::max<std::size_t>(1, o.queue_pairs);
    // One CQ for every QP: room for each one's bound of outstanding requests.
    m_cq = verbs::create_cq(m_context.get(), static_cast<int>(qps * o.max_outstanding) + 1);
    for (std::size_t i = 0; i < qps; ++i) {
      m_qps.push_back(verbs::create_rc_qp(m_pd.get(), m_cq.get(), static_cast<int>(o.max_outstanding)));
      apply(m_qps.back().get(), qp_to_init(o.ib_port));
    }
    m_psn = std::random_device{}() & 0xffffff;
  }

  ~VerbsTransport() override { shutdown(); }

  std::string_view name() const override { return "rdma"; }

  RegionKey register_region(void* addr, std::uint64_t length) override
  {
    m_mrs.push_back(verbs::reg_mr(m_pd.get(), addr, length,
                                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
    return key_of(*m_mrs.back(), reinterpret_cast<std::uint64_t>(addr));
  }

  bool registers_gpu_memory() const override { return true; }

  RegionKey register_gpu_region(const GpuRegion& region) override
  {
    m_mrs.push_back(verbs::reg_gpu_mr(m_pd.get(), region.device_addr, region.length, region.dmabuf_fd,
                                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
    return key_of(*m_mrs.back(), region.device_addr);
  }

  /// `addr` is what work requests name: the host address, or the iova (the
  /// device address) of GPU memory.
  static RegionKey key_of(const ibv_mr& mr, std::uint64_t addr)
  {
    RegionKey k;
    k.addr = addr;
    k.length = mr.length;
    k.rkey = mr.rkey;
    k.lkey = mr.lkey;
    return k;
  }

  nlohmann::json local_endpoint() const override
  {
    // "qpn" names the first QP (what a one-QP peer reads), "qpns" all of them.
    nlohmann::json qpns = nlohmann::json::array();
    for (const verbs::Qp& qp : m_qps) {
      qpns.push_back(qp->qp_num);
    }
    return {{"qpn", m_qps.front()->qp_num},
            {"qpns", std::move(qpns)},
            {"psn", m_psn},
            {"lid", m_port.lid},
            {"gid", gid_to_string(m_gid)},
            {"gid_index", m_gid_index},
            {"mtu", m_port.active_mtu},
            {"link_layer", m_port.link_layer}};
  }

  void connect(const nlohmann::json& peer, bool, Deadline) override
  {
    const PeerObject endpoint(peer, "the peer's endpoint", Phase::connect);
    PeerQp p;
    // QP and packet sequence numbers are 24-bit, a LID 16-bit (IB spec).
    p.qpn = endpoint.integer_in<std::uint32_t>("qpn", 0, 0, 0xFFFFFF);
    p.psn = endpoint.integer_in<std::uint32_t>("psn", 0, 0, 0xFFFFFF);
    p.lid = endpoint.integer_or<std::uint16_t>("lid", 0);
    p.mtu = endpoint.integer_in<int>("mtu", 0, 0, 1 << 16);
    const auto gid = gid_from_string(peer.value("gid", ""));
    if (!gid) {
      throw ProbeError(Phase::connect, "the peer sent a malformed GID", "the peer's pdcheck version");
    }
    p.gid = *gid;
    if (const std::string link_layer = endpoint.text_or("link_layer", ""); link_layer != m_port.link_layer) {
      throw ProbeError(Phase::connect,
                       fmt::format("link layers differ: this port is {}, the peer's is {}", m_port.link_layer,
                                   link_layer.empty() ? "?" : link_layer),
                       "that both hosts use the same fabric (IB or RoCE)");
    }
    const PathChoice path = choose_path(m_port.active_mtu, p.mtu, m_port.link_layer, m_gid, p.gid);
    if (path.refusal) {
      throw ProbeError(Phase::connect, *path.refusal, "`pdcheck devices` on both hosts");
    }
    m_path_mtu = path.path_mtu;
    // QP i of one end pairs with QP i of the other; both run with the same --qps.
    std::vector<std::uint32_t> peer_qpns{p.qpn};
    if (const auto it = peer.find("qpns"); it != peer.end()) {
      peer_qpns = qp_numbers_of(*it);
    }
    if (std::set<std::uint32_t>(peer_qpns.begin(), peer_qpns.end()).size() != peer_qpns.size() ||
        peer_qpns.front() != p.qpn) {
      throw ProbeError(Phase::connect, "the peer's endpoint field qpns: expected distinct QP numbers, the first one qpn",
                       "the peer's pdcheck version");
    }
    if (peer_qpns.size() != m_qps.size()) {
      throw ProbeError(Phase::connect,
                       fmt::format("this end opened {} queue pair(s), the peer {}", m_qps.size(), peer_qpns.size()),
                       "the same --qps on both ends");
    }
    for (std::size_t i = 0; i < m_qps.size(); ++i) {
      p.qpn = peer_qpns[i];
      apply(m_qps[i].get(), qp_to_rtr(m_options.ib_port, p, path, m_gid_index));
      apply(m_qps[i].get(), qp_to_rts(m_psn));
    }
  }

  /// The peer's "qpns": 24-bit QP numbers (IB spec).
  static std::vector<std::uint32_t> qp_numbers_of(const nlohmann::json& list)
  {
    std::vector<std::uint32_t> out;
    if (!list.is_array() || list.empty() || list.size() > k_max_queue_pairs) {
      throw ProbeError(Phase::connect,
                       fmt::format("the peer's endpoint field qpns: expected a list of 1 to {} QP numbers",
                                   k_max_queue_pairs),
                       "the peer's pdcheck version");
    }
    for (const nlohmann::json& v : list) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() > 0xFFFFFF) {
        throw ProbeError(Phase::connect, "the peer's endpoint field qpns: expected QP numbers from 0 to 16777215",
                         "the peer's pdcheck version");
      }
      out.push_back(v.get<std::uint32_t>());
    }
    return out;
  }

  std::size_t max_outstanding() const override { return m_options.max_outstanding; }
  std::size_t lanes() const override { return m_qps.size(); }

  void post_writes(std::span<const WriteWork> batch) override
  {
    if (batch.empty()) {
      return;
    }
    if (batch.front().lane >= m_qps.size()) {
      throw ProbeError(Phase::write, fmt::format("no queue pair {} (this end opened {})", batch.front().lane, m_qps.size()),
                       "a pdcheck bug: the write engine deals batches over lanes() QPs only");
    }
    std::vector<ibv_sge> sges(batch.size());
    std::vector<ibv_send_wr> wrs(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) {
      const WriteWork& w = batch[i];
      sges[i].addr = reinterpret_cast<std::uint64_t>(w.local);
      sges[i].length = static_cast<std::uint32_t>(w.length);
      sges[i].lkey = w.lkey;
      ibv_send_wr& wr = wrs[i];
      wr.wr_id = w.wr_id;
      wr.sg_list = &sges[i];
      wr.num_sge = 1;
      wr.opcode = IBV_WR_RDMA_WRITE;
      wr.send_flags = w.signalled ? IBV_SEND_SIGNALED : 0;
      wr.wr.rdma.remote_addr = w.remote_addr;
      wr.wr.rdma.rkey = w.rkey;
      wr.next = i + 1 < batch.size() ? &wrs[i + 1] : nullptr;
    }
    ibv_send_wr* bad = nullptr;
    const int rc = ibv_post_send(m_qps[batch.front().lane].get(), wrs.data(), &bad);
    if (rc != 0) {
      throw VerbsError(Phase::write, "ibv_post_send", rc, "the bound on outstanding work requests (max_send_wr)");
    }
  }

  std::size_t poll(std::span<Completion> out, Deadline deadline) override
  {
    std::vector<ibv_wc> wcs(out.size());
    for (;;) {
      const int n = ibv_poll_cq(m_cq.get(), static_cast<int>(wcs.size()), wcs.data());
      if (n < 0) {
        throw VerbsError(Phase::completion, "ibv_poll_cq", EIO, "the device state (dmesg)");
      }
      if (n > 0) {
        for (int i = 0; i < n; ++i) {
          out[static_cast<std::size_t>(i)] =
            Completion{wcs[static_cast<std::size_t>(i)].wr_id, wcs[static_cast<std::size_t>(i)].status == IBV_WC_SUCCESS,
                       wcs[static_cast<std::size_t>(i)].status == IBV_WC_SUCCESS
                         ? std::string()
                         : std::string(ibv_wc_status_str(wcs[static_cast<std::size_t>(i)].status))};
        }
        return static_cast<std::size_t>(n);
      }
      if (deadline.expired()) {
        return 0;
      }
      // Busy polling like perftest, yielding so a loopback decode thread runs.
      std::this_thread::yield();
    }
  }

  double line_rate_gbps() const override { return m_port.line_rate_gbps(); }
  std::string pci_address() const override { return m_pci_address; }

  std::vector<std::string> shutdown() override
  {
    // Reverse creation order: MRs and QP before CQ, PD and context. Each
    // deleter records a failed destroy and the teardown continues.
    verbs::teardown_sink().issues.clear();
    m_mrs.clear();
    m_qps.clear();
    m_cq.reset();
    m_pd.reset();
    m_context.reset();
    m_list.reset();
    return std::move(verbs::teardown_sink().issues);
  }

private:
  VerbsOptions m_options;
  // Creation order; the destructor (via shutdown) releases in reverse.
  verbs::DeviceList m_list;
  verbs::Context m_context;
  PortInfo m_port;
  std::string m_pci_address;
  int m_gid_index = 0;
  GidBytes m_gid{};
  verbs::Pd m_pd;
  verbs::Cq m_cq;
  std::vector<verbs::Qp> m_qps;
  std::vector<verbs::Mr> m_mrs;
  std::uint32_t m_psn = 0;
  int m_path_mtu = 0;
};

} // namespace

std::unique_ptr<Transport> open_verbs_transport(const VerbsOptions& options)
{
  return std::make_unique<VerbsTransport>(options);
}

} // namespace pdcheck::probe
