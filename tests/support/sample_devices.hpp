#pragma once

// Two made-up RDMA devices, for tests of the devices report on machines
// without RDMA: a RoCE NIC with a full GID table next to a GPU (PIX), and an
// InfiniBand HCA with its port down and no GPU nearby.

#include "probe/device_info.hpp"

#include <vector>

namespace pdcheck::test {

inline std::vector<probe::DeviceInfo> made_up_devices()
{
  using namespace probe;
  DeviceInfo roce;
  roce.name = "mlx5_0";
  roce.node_guid = "0c42a10300abcdef";
  roce.fw_ver = "28.39.1002";
  roce.numa_node = 0;
  roce.pci_address = "0000:05:00.0";
  roce.nearest_gpu = "0000:06:00.0";
  roce.nearest_gpu_affinity = "PIX";
  roce.nearest_gpu_meaning = "same PCIe switch";
  PortInfo p;
  p.state = "ACTIVE";
  p.active = true;
  p.phys_state = "LINK_UP";
  p.link_layer = "Ethernet";
  p.active_mtu = 4096;
  p.max_mtu = 4096;
  p.speed_gbps_per_lane = speed_code_gbps(64);
  p.width_lanes = width_code_lanes(2);
  GidBytes link_local{};
  link_local[0] = 0xfe;
  link_local[1] = 0x80;
  link_local[15] = 0x42;
  GidBytes v4{};
  v4[10] = 0xff;
  v4[11] = 0xff;
  v4[12] = 10;
  v4[15] = 7;
  p.gids = {{0, link_local, GidType::roce_v1, "eth0"}, {1, link_local, GidType::roce_v2, "eth0"},
            {2, v4, GidType::roce_v1, "eth0"}, {3, v4, GidType::roce_v2, "eth0"}};
  p.chosen_gid_index = choose_gid_index(p.gids);
  roce.ports.push_back(p);

  DeviceInfo ib;
  ib.name = "mlx5_1";
  ib.node_guid = "0c42a10300fedcba";
  PortInfo down;
  down.state = "DOWN";
  down.phys_state = "POLLING";
  down.link_layer = "InfiniBand";
  ib.ports.push_back(down);

  return {roce, ib};
}

} // namespace pdcheck::test
