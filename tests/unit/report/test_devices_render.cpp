// `pdcheck devices` from plain rows: the chosen GID marked, a port without a
// usable GID said so, unknowns shown as such, every row in the JSON.
#include "report/devices_render.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

report::RdmaDeviceRow roce_nic()
{
  report::RdmaDeviceRow d;
  d.name = "mlx5_0";
  d.fw_ver = "28.39.1002";
  d.node_guid = "0c42a10300abcdef";
  d.numa_node = 1;
  d.pci_address = "0000:05:00.0";
  d.nearest_gpu = "0000:06:00.0";
  d.nearest_gpu_affinity = "PIX";
  d.nearest_gpu_meaning = "same PCIe switch";
  report::RdmaPortRow p;
  p.state = "ACTIVE";
  p.phys_state = "LINK_UP";
  p.link_layer = "Ethernet";
  p.active_mtu = 4096;
  p.max_mtu = 4096;
  p.speed_gbps_per_lane = 53.125;
  p.width_lanes = 4;
  p.line_rate_gbps = 212.5;
  p.gids = {{0, "fe80:0000:0000:0000:0e42:a1ff:feab:cdef", "RoCE v2", "IPv6", "", "eth0", 1001},
            {3, "0000:0000:0000:0000:0000:ffff:0a00:0005", "RoCE v2", "IPv4", "10.0.0.5", "eth0", 1111}};
  p.chosen_gid_index = 3;
  d.ports = {p};
  return d;
}

} // namespace

TEST_CASE("devices_to_text: one line per device, port and GID, the chosen one marked", "[report]")
{
  report::RdmaDeviceRow ib;
  ib.name = "mlx5_1";
  report::RdmaPortRow down;
  down.state = "DOWN";
  down.phys_state = "POLLING";
  down.link_layer = "InfiniBand";
  ib.ports = {down};
  const std::string text = report::devices_to_text({roce_nic(), ib});
  CHECK(text ==
        "mlx5_0  fw 28.39.1002  node_guid 0c42a10300abcdef  numa 1  pci 0000:05:00.0  nearest GPU 0000:06:00.0 "
        "(PIX: same PCIe switch)\n"
        "  port 1: ACTIVE (LINK_UP), Ethernet, active MTU 4096 (max 4096), 53.125 Gb/s x 4 = 212.5 Gb/s, lid 0\n"
        "    GID[  0] fe80:0000:0000:0000:0e42:a1ff:feab:cdef  RoCE v2  eth0\n"
        "    GID[  3] 0000:0000:0000:0000:0000:ffff:0a00:0005  RoCE v2  10.0.0.5  eth0  <- chosen\n"
        "mlx5_1  fw ?  node_guid ?  numa unknown\n"
        "  port 1: DOWN (POLLING), InfiniBand, active MTU 0 (max 0), 0 Gb/s x 0 = 0 Gb/s, lid 0\n"
        "    no usable GID (all empty): RoCE traffic cannot be addressed on this port\n");
}

TEST_CASE("devices_to_json: every field of the rows, null where nothing is known", "[report]")
{
  report::RdmaDeviceRow lone = roce_nic();
  lone.nearest_gpu.clear();
  lone.ports[0].chosen_gid_index.reset();
  const auto j = report::devices_to_json({roce_nic(), lone});
  CHECK(j["schema_version"] == 1);
  const auto& port = j["devices"][0]["ports"][0];
  CHECK(port["line_rate_gbps"] == 212.5);
  CHECK(port["width"] == 4);
  CHECK(port["chosen_gid_index"] == 3);
  CHECK(port["gids"][1] == nlohmann::ordered_json({{"index", 3},
                                                   {"gid", "0000:0000:0000:0000:0000:ffff:0a00:0005"},
                                                   {"type", "RoCE v2"},
                                                   {"family", "IPv4"},
                                                   {"ipv4", "10.0.0.5"},
                                                   {"netdev", "eth0"},
                                                   {"score", 1111}}));
  CHECK(j["devices"][0]["nearest_gpu"]["affinity"] == "PIX");
  CHECK(j["devices"][1]["nearest_gpu"].is_null());
  CHECK(j["devices"][1]["ports"][0]["chosen_gid_index"].is_null());
}
