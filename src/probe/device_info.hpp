#pragma once

// Plain snapshots of RDMA devices, ports and GID tables, copied out of
// libibverbs by verbs_inventory.cpp, and the pure decisions taken on them (GID
// choice, line rate, path MTU, QP attributes). Nothing here includes
// <infiniband/verbs.h>, so every decision is unit-tested with fake snapshots.

#include "report/devices_render.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::probe {

enum class GidType { ib, roce_v1, roce_v2 };
std::string_view gid_type_name(GidType t); ///< "IB", "RoCE v1", "RoCE v2"

using GidBytes = std::array<std::uint8_t, 16>;

/// One populated GID table slot.
struct GidEntry
{
  int index = 0;
  GidBytes gid{};
  GidType type = GidType::ib;
  std::string netdev; ///< the bound network interface ("" when none or unknown)
};

/// Address family and scope of a GID, as the ranking sees it.
enum class GidFamily { ipv4, ipv6, ib };
GidFamily gid_family(const GidEntry& g);
bool gid_is_zero(const GidBytes& g);
bool gid_is_link_local(const GidBytes& g); ///< fe80::/10, or IPv4 169.254/16 mapped
std::string gid_to_string(const GidBytes& g); ///< "fe80:0000:...": 8 groups of 4 hex digits
std::optional<GidBytes> gid_from_string(const std::string& text);
/// "10.0.0.1" for an IPv4-mapped GID, "" otherwise.
std::string gid_ipv4(const GidBytes& g);

/// Score of one GID for RDMA traffic between hosts (higher is better):
///   +1000 RoCE v2 (routable over L3; what SGLang's Mooncake and NCCL pick),
///   +100  IPv4-mapped (the family operators configure for RoCE),
///   +10   global scope (not link-local), +1 bound to a network interface.
/// RoCE v1 and IB GIDs rank below every RoCE v2 one; an all-zero GID is never chosen.
int gid_score(const GidEntry& g);

/// Index of the best GID (ties: lowest index), or nullopt when none is usable.
std::optional<int> choose_gid_index(const std::vector<GidEntry>& gids);

struct PortInfo
{
  int port = 1;
  std::string state;      ///< "ACTIVE", "DOWN", ...
  bool active = false;
  std::string phys_state; ///< "LINK_UP", "POLLING", ...
  std::string link_layer; ///< "InfiniBand", "Ethernet"
  int active_mtu = 0;     ///< bytes
  int max_mtu = 0;        ///< bytes
  int lid = 0;
  double speed_gbps_per_lane = 0; ///< from active_speed
  int width_lanes = 0;            ///< from active_width
  std::vector<GidEntry> gids;
  std::optional<int> chosen_gid_index;

  /// speed x width in Gb/s (0 when unknown).
  double line_rate_gbps() const { return speed_gbps_per_lane * width_lanes; }
};

struct DeviceInfo
{
  std::string name;
  std::string node_guid;
  std::string fw_ver;
  int numa_node = -1;       ///< -1 when sysfs does not say
  std::string pci_address;  ///< from sysfs, "" when unknown
  std::string nearest_gpu;  ///< PCI address of the nearest GPU (pci_topology.hpp), "" when none is visible
  std::string nearest_gpu_affinity; ///< "PIX", "PXB", "PHB", "NODE" or "SYS"
  std::string nearest_gpu_meaning;  ///< "same PCIe switch", ...
  std::vector<PortInfo> ports;
};

/// Gb/s per lane of an `ibv_port_attr.active_speed` code (IB spec encoding:
/// 1 SDR 2.5, 2 DDR 5, 4 QDR 10, 8 FDR10 10.3125, 16 FDR 14.0625, 32 EDR 25.78125,
/// 64 HDR 53.125, 128 NDR 106.25, 256 XDR 212.5); 0 for unknown codes.
double speed_code_gbps(int code);
/// Lanes of an `active_width` code (1 -> 1x, 2 -> 4x, 4 -> 8x, 8 -> 12x, 16 -> 2x).
int width_code_lanes(int code);
/// Bytes of an `ibv_mtu` value (1 -> 256 ... 5 -> 4096), 0 when unknown.
int mtu_code_bytes(int code);
/// Inverse of mtu_code_bytes; 0 when `bytes` is not a verbs MTU.
int mtu_bytes_code(int bytes);

/// What the two ends of an RC connection agree on before RTR: the path MTU is
/// the smaller active MTU (perftest's check_mtu); a GRH is needed on Ethernet
/// and whenever the peer GID is set; both GIDs must be of one family
/// (perftest's GID compatibility check). Returns the reason when they cannot talk.
struct PathChoice
{
  int path_mtu = 0;
  bool use_grh = false;
  std::optional<std::string> refusal;
};
PathChoice choose_path(int local_mtu, int peer_mtu, const std::string& link_layer, const GidBytes& local_gid,
                       const GidBytes& peer_gid);

/// The devices in the words `pdcheck devices` shows them (report/devices_render.hpp).
std::vector<report::RdmaDeviceRow> device_rows(const std::vector<DeviceInfo>& devices);

/// report::devices_to_json / devices_to_text of device_rows.
nlohmann::ordered_json devices_to_json(const std::vector<DeviceInfo>& devices);
std::string devices_to_text(const std::vector<DeviceInfo>& devices);

} // namespace pdcheck::probe
