#pragma once

// `pdcheck devices`: RDMA devices, ports and GID tables as text or as JSON
// (schemas/devices.schema.json). Plain data with every value already in the
// words it is shown in: probe/device_info.cpp (probe::device_rows) fills it
// from what libibverbs and sysfs said, so nothing here knows verbs.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::report {

struct RdmaGidRow
{
  int index = 0;
  std::string gid;    ///< 8 groups of 4 hex digits
  std::string type;   ///< "IB", "RoCE v1", "RoCE v2"
  std::string family; ///< "IPv4", "IPv6", "IB"
  std::string ipv4;   ///< "10.0.0.1" for an IPv4-mapped GID, else ""
  std::string netdev; ///< "" when none
  int score = 0;      ///< the GID ranking's score (-1: never chosen)
};

struct RdmaPortRow
{
  int port = 1;
  std::string state;
  std::string phys_state;
  std::string link_layer;
  int active_mtu = 0;
  int max_mtu = 0;
  int lid = 0;
  double speed_gbps_per_lane = 0;
  int width_lanes = 0;
  double line_rate_gbps = 0;
  std::vector<RdmaGidRow> gids;
  std::optional<int> chosen_gid_index;
};

struct RdmaDeviceRow
{
  std::string name;
  std::string node_guid;
  std::string fw_ver;
  int numa_node = -1; ///< -1 when unknown
  std::string pci_address;
  std::string nearest_gpu; ///< "" when no GPU is visible
  std::string nearest_gpu_affinity;
  std::string nearest_gpu_meaning;
  std::vector<RdmaPortRow> ports;
};

nlohmann::ordered_json devices_to_json(const std::vector<RdmaDeviceRow>& devices);
/// `devices --format json` when no device can be listed (exit 3): no devices,
/// and `error` saying why, so a script that parses stdout always gets JSON.
nlohmann::ordered_json devices_unavailable_to_json(const std::string& reason);
std::string devices_to_text(const std::vector<RdmaDeviceRow>& devices);

} // namespace pdcheck::report
