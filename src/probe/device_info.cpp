#include "probe/device_info.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace pdcheck::probe {

std::string_view gid_type_name(GidType t)
{
  switch (t) {
  case GidType::ib: return "IB";
  case GidType::roce_v1: return "RoCE v1";
  case GidType::roce_v2: return "RoCE v2";
  }
  return "unknown";
}

namespace {

bool ipv4_mapped(const GidBytes& g)
{
  // ::ffff:a.b.c.d (RFC 4291 2.5.5.2), the form RoCE GIDs of IPv4 addresses take.
  for (int i = 0; i < 10; ++i) {
    if (g[static_cast<std::size_t>(i)] != 0) {
      return false;
    }
  }
  return g[10] == 0xff && g[11] == 0xff;
}

} // namespace

GidFamily gid_family(const GidEntry& g)
{
  if (g.type == GidType::ib) {
    return GidFamily::ib;
  }
  return ipv4_mapped(g.gid) ? GidFamily::ipv4 : GidFamily::ipv6;
}

bool gid_is_zero(const GidBytes& g)
{
  return std::all_of(g.begin(), g.end(), [](std::uint8_t b) { return b == 0; });
}

bool gid_is_link_local(const GidBytes& g)
{
  if (ipv4_mapped(g)) {
    return g[12] == 169 && g[13] == 254;
  }
  return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

std::string gid_to_string(const GidBytes& g)
{
  std::string out;
  for (std::size_t i = 0; i < 16; i += 2) {
    out += fmt::format("{}{:02x}{:02x}", i == 0 ? "" : ":", g[i], g[i + 1]);
  }
  return out;
}

std::optional<GidBytes> gid_from_string(const std::string& text)
{
  // Strict: exactly the form gid_to_string writes, so a truncated or padded
  // peer GID is refused instead of half-parsed.
  if (text.size() != 39) {
    return std::nullopt;
  }
  GidBytes g{};
  std::size_t at = 0;
  for (std::size_t group = 0; group < 8; ++group) {
    if (group > 0) {
      if (text[at] != ':') {
        return std::nullopt;
      }
      ++at;
    }
    for (std::size_t b = 0; b < 2; ++b) {
      unsigned value = 0;
      for (int k = 0; k < 2; ++k) {
        const char c = text[at++];
        int digit = -1;
        if (c >= '0' && c <= '9') {
          digit = c - '0';
        } else if (c >= 'a' && c <= 'f') {
          digit = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'F') {
          digit = c - 'A' + 10;
        }
        if (digit < 0) {
          return std::nullopt;
        }
        value = value * 16 + static_cast<unsigned>(digit);
      }
      g[group * 2 + b] = static_cast<std::uint8_t>(value);
    }
  }
  return g;
}

std::string gid_ipv4(const GidBytes& g)
{
  return ipv4_mapped(g) ? fmt::format("{}.{}.{}.{}", g[12], g[13], g[14], g[15]) : "";
}

int gid_score(const GidEntry& g)
{
  if (gid_is_zero(g.gid)) {
    return -1;
  }
  int score = 0;
  if (g.type == GidType::roce_v2) {
    score += 1000;
  }
  if (gid_family(g) == GidFamily::ipv4) {
    score += 100;
  }
  if (!gid_is_link_local(g.gid)) {
    score += 10;
  }
  if (!g.netdev.empty()) {
    score += 1;
  }
  return score;
}

std::optional<int> choose_gid_index(const std::vector<GidEntry>& gids)
{
  std::optional<int> best;
  int best_score = -1;
  for (const GidEntry& g : gids) {
    const int s = gid_score(g);
    if (s < 0) {
      continue;
    }
    if (!best || s > best_score || (s == best_score && g.index < *best)) {
      best = g.index;
      best_score = s;
    }
  }
  return best;
}

double speed_code_gbps(int code)
{
  switch (code) {
  case 1: return 2.5;
  case 2: return 5.0;
  case 4: return 10.0;
  case 8: return 10.3125;
  case 16: return 14.0625;
  case 32: return 25.78125;
  case 64: return 53.125;
  case 128: return 106.25;
  case 256: return 212.5;
  default: return 0;
  }
}

int width_code_lanes(int code)
{
  switch (code) {
  case 1: return 1;
  case 2: return 4;
  case 4: return 8;
  case 8: return 12;
  case 16: return 2;
  default: return 0;
  }
}

int mtu_code_bytes(int code)
{
  return code >= 1 && code <= 5 ? 128 << code : 0;
}

int mtu_bytes_code(int bytes)
{
  for (int code = 1; code <= 5; ++code) {
    if (mtu_code_bytes(code) == bytes) {
      return code;
    }
  }
  return 0;
}

PathChoice choose_path(int local_mtu, int peer_mtu, const std::string& link_layer, const GidBytes& local_gid,
                       const GidBytes& peer_gid)
{
  PathChoice c;
  if (mtu_bytes_code(local_mtu) == 0 || mtu_bytes_code(peer_mtu) == 0) {
    c.refusal = fmt::format("MTU mismatch: local active MTU {} and peer active MTU {} must both be 256..4096", local_mtu,
                            peer_mtu);
    return c;
  }
  // Mooncake does not negotiate and fails on mixed MTUs (Mooncake#3868); the
  // smaller one works on both ports.
  c.path_mtu = std::min(local_mtu, peer_mtu);
  const bool ethernet = link_layer == "Ethernet";
  c.use_grh = ethernet || !gid_is_zero(peer_gid);
  if (ethernet && (gid_is_zero(local_gid) || gid_is_zero(peer_gid))) {
    c.refusal = "empty GID on an Ethernet (RoCE) port: the chosen GID index has no address; pick another with "
                "--gid-index (see `pdcheck devices`)";
    return c;
  }
  if (c.use_grh) {
    GidEntry a{0, local_gid, GidType::roce_v2, ""};
    GidEntry b{0, peer_gid, GidType::roce_v2, ""};
    if (!gid_is_zero(local_gid) && !gid_is_zero(peer_gid) && gid_family(a) != gid_family(b)) {
      c.refusal = fmt::format("GID families differ: local {} is {} but peer {} is {}; use GIDs of one IP version",
                              gid_to_string(local_gid), gid_family(a) == GidFamily::ipv4 ? "IPv4" : "IPv6",
                              gid_to_string(peer_gid), gid_family(b) == GidFamily::ipv4 ? "IPv4" : "IPv6");
    }
  }
  return c;
}

std::vector<report::RdmaDeviceRow> device_rows(const std::vector<DeviceInfo>& devices)
{
  std::vector<report::RdmaDeviceRow> rows;
  for (const DeviceInfo& d : devices) {
    report::RdmaDeviceRow& row = rows.emplace_back();
    row.name = d.name;
    row.node_guid = d.node_guid;
    row.fw_ver = d.fw_ver;
    row.numa_node = d.numa_node;
    row.pci_address = d.pci_address;
    row.nearest_gpu = d.nearest_gpu;
    row.nearest_gpu_affinity = d.nearest_gpu_affinity;
    row.nearest_gpu_meaning = d.nearest_gpu_meaning;
    for (const PortInfo& p : d.ports) {
      report::RdmaPortRow& port = row.ports.emplace_back();
      port.port = p.port;
      port.state = p.state;
      port.phys_state = p.phys_state;
      port.link_layer = p.link_layer;
      port.active_mtu = p.active_mtu;
      port.max_mtu = p.max_mtu;
      port.lid = p.lid;
      port.speed_gbps_per_lane = p.speed_gbps_per_lane;
      port.width_lanes = p.width_lanes;
      port.line_rate_gbps = p.line_rate_gbps();
      port.chosen_gid_index = p.chosen_gid_index;
      for (const GidEntry& g : p.gids) {
        const GidFamily fam = gid_family(g);
        port.gids.push_back({g.index, gid_to_string(g.gid), std::string(gid_type_name(g.type)),
                             fam == GidFamily::ipv4 ? "IPv4" : fam == GidFamily::ipv6 ? "IPv6" : "IB",
                             gid_ipv4(g.gid), g.netdev, gid_score(g)});
      }
    }
  }
  return rows;
}

nlohmann::ordered_json devices_to_json(const std::vector<DeviceInfo>& devices)
{
  return report::devices_to_json(device_rows(devices));
}

std::string devices_to_text(const std::vector<DeviceInfo>& devices)
{
  return report::devices_to_text(device_rows(devices));
}

} // namespace pdcheck::probe
