#include "report/devices_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

nlohmann::ordered_json devices_unavailable_to_json(const std::string& reason)
{
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["schema_version"] = 1;
  out["devices"] = nlohmann::ordered_json::array();
  out["error"] = reason;
  return out;
}

nlohmann::ordered_json devices_to_json(const std::vector<RdmaDeviceRow>& devices)
{
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  out["schema_version"] = 1;
  out["devices"] = nlohmann::ordered_json::array();
  for (const RdmaDeviceRow& d : devices) {
    nlohmann::ordered_json dj;
    dj["name"] = d.name;
    dj["node_guid"] = d.node_guid;
    dj["fw_ver"] = d.fw_ver;
    dj["numa_node"] = d.numa_node;
    dj["pci_address"] = d.pci_address;
    if (d.nearest_gpu.empty()) {
      dj["nearest_gpu"] = nullptr;
    } else {
      nlohmann::ordered_json g;
      g["pci_address"] = d.nearest_gpu;
      g["affinity"] = d.nearest_gpu_affinity;
      g["meaning"] = d.nearest_gpu_meaning;
      dj["nearest_gpu"] = std::move(g);
    }
    dj["ports"] = nlohmann::ordered_json::array();
    for (const RdmaPortRow& p : d.ports) {
      nlohmann::ordered_json pj;
      pj["port"] = p.port;
      pj["state"] = p.state;
      pj["phys_state"] = p.phys_state;
      pj["link_layer"] = p.link_layer;
      pj["active_mtu"] = p.active_mtu;
      pj["max_mtu"] = p.max_mtu;
      pj["lid"] = p.lid;
      pj["speed_gbps_per_lane"] = p.speed_gbps_per_lane;
      pj["width"] = p.width_lanes;
      pj["line_rate_gbps"] = p.line_rate_gbps;
      pj["gids"] = nlohmann::ordered_json::array();
      for (const RdmaGidRow& g : p.gids) {
        pj["gids"].push_back({{"index", g.index},
                              {"gid", g.gid},
                              {"type", g.type},
                              {"family", g.family},
                              {"ipv4", g.ipv4},
                              {"netdev", g.netdev},
                              {"score", g.score}});
      }
      pj["chosen_gid_index"] = p.chosen_gid_index ? nlohmann::ordered_json(*p.chosen_gid_index) : nlohmann::ordered_json();
      dj["ports"].push_back(std::move(pj));
    }
    out["devices"].push_back(std::move(dj));
  }
  return out;
}

std::string devices_to_text(const std::vector<RdmaDeviceRow>& devices)
{
  std::string out;
  for (const RdmaDeviceRow& d : devices) {
    out += fmt::format("{}  fw {}  node_guid {}  numa {}{}{}\n", d.name, d.fw_ver.empty() ? "?" : d.fw_ver,
                       d.node_guid.empty() ? "?" : d.node_guid,
                       d.numa_node < 0 ? std::string("unknown") : std::to_string(d.numa_node),
                       d.pci_address.empty() ? "" : "  pci " + d.pci_address,
                       d.nearest_gpu.empty() ? "" : fmt::format("  nearest GPU {} ({}: {})", d.nearest_gpu,
                                                                d.nearest_gpu_affinity, d.nearest_gpu_meaning));
    for (const RdmaPortRow& p : d.ports) {
      out += fmt::format("  port {}: {} ({}), {}, active MTU {} (max {}), {:g} Gb/s x {} = {:g} Gb/s, lid {}\n", p.port,
                         p.state, p.phys_state, p.link_layer, p.active_mtu, p.max_mtu, p.speed_gbps_per_lane,
                         p.width_lanes, p.line_rate_gbps, p.lid);
      for (const RdmaGidRow& g : p.gids) {
        out += fmt::format("    GID[{:>3}] {}  {}{}{}{}\n", g.index, g.gid, g.type, g.ipv4.empty() ? "" : "  " + g.ipv4,
                           g.netdev.empty() ? "" : "  " + g.netdev,
                           p.chosen_gid_index && *p.chosen_gid_index == g.index ? "  <- chosen" : "");
      }
      if (!p.chosen_gid_index) {
        out += "    no usable GID (all empty): RoCE traffic cannot be addressed on this port\n";
      }
    }
  }
  return out;
}

} // namespace pdcheck::report
