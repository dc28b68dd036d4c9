#include "probe/pci_topology.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <tuple>

namespace pdcheck::probe {

namespace fs = std::filesystem;

const char* affinity_name(PciAffinity a)
{
  switch (a) {
  case PciAffinity::pix: return "PIX";
  case PciAffinity::pxb: return "PXB";
  case PciAffinity::phb: return "PHB";
  case PciAffinity::node: return "NODE";
  case PciAffinity::sys: return "SYS";
  }
  return "?";
}

const char* affinity_meaning(PciAffinity a)
{
  switch (a) {
  case PciAffinity::pix: return "same PCIe switch";
  case PciAffinity::pxb: return "PCIe bridges, no host bridge";
  case PciAffinity::phb: return "through the PCIe host bridge";
  case PciAffinity::node: return "another root complex of the same NUMA node";
  case PciAffinity::sys: return "across NUMA nodes";
  }
  return "?";
}

namespace {

std::vector<std::string> components(const std::string& path)
{
  std::vector<std::string> out;
  for (const auto& part : fs::path(path)) {
    if (!part.empty() && part != "/") {
      out.push_back(part.string());
    }
  }
  return out;
}

/// The index of the root complex component ("pci0000:00"), or npos.
std::size_t root_index(const std::vector<std::string>& parts)
{
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].rfind("pci", 0) == 0) {
      return i;
    }
  }
  return std::string::npos;
}

NearestGpu relate(const PciPlace& nic, const PciPlace& gpu)
{
  NearestGpu n;
  n.address = gpu.address;
  const auto a = components(nic.path);
  const auto b = components(gpu.path);
  const std::size_t ra = root_index(a);
  const std::size_t rb = root_index(b);
  const bool same_root = ra != std::string::npos && ra == rb && std::equal(a.begin(), a.begin() + ra + 1, b.begin());
  if (!same_root) {
    // Both unknown is a host without NUMA (one node); one unknown proves nothing.
    n.affinity = nic.numa_node == gpu.numa_node ? PciAffinity::node : PciAffinity::sys;
    return n;
  }
  std::size_t common = ra + 1;
  while (common < a.size() && common < b.size() && a[common] == b[common]) {
    ++common;
  }
  // Links from each function up to the deepest shared component (or to the
  // host bridge when they share none).
  n.hops = static_cast<int>((a.size() - common) + (b.size() - common));
  if (common == ra + 1) {
    n.affinity = PciAffinity::phb;
  } else {
    // One switch is upstream port + downstream ports: two links each way.
    n.affinity = n.hops <= 4 ? PciAffinity::pix : PciAffinity::pxb;
  }
  return n;
}

int read_numa(const fs::path& device_dir)
{
  const std::string v = read_sysfs_line(device_dir / "numa_node");
  try {
    return v.empty() ? -1 : std::stoi(v);
  } catch (const std::exception&) {
    return -1;
  }
}

/// "0000:05:00.0": domain:bus:device.function in hex.
bool is_pci_address(const std::string& s)
{
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') {
    return false;
  }
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (std::isxdigit(static_cast<unsigned char>(s[i])) == 0) {
      return false;
    }
  }
  return true;
}

/// The place of a device directory, its path made relative to `root`. A
/// device below a PCI function (an mlx5 sub-function on the auxiliary bus,
/// ".../0000:05:00.0/mlx5_core.sf.2") is placed at that function.
std::optional<PciPlace> place_of(const fs::path& root, const fs::path& device_link)
{
  std::error_code link_error;
  std::error_code root_error;
  fs::path real = fs::canonical(device_link, link_error);
  const fs::path real_root = fs::canonical(root, root_error);
  if (link_error || root_error) {
    return std::nullopt;
  }
  while (!is_pci_address(real.filename().string()) && real.has_relative_path() && real != real_root) {
    real = real.parent_path();
  }
  const fs::path rel = real.lexically_relative(real_root);
  if (rel.empty() || *rel.begin() == ".." || !is_pci_address(real.filename().string())) {
    return std::nullopt;
  }
  PciPlace p;
  p.address = real.filename().string();
  p.path = rel.string();
  p.numa_node = read_numa(real);
  return p;
}

} // namespace

std::optional<NearestGpu> nearest_gpu(const PciPlace& nic, const std::vector<PciPlace>& gpus)
{
  std::optional<NearestGpu> best;
  for (const PciPlace& g : gpus) {
    const NearestGpu n = relate(nic, g);
    if (!best || std::tie(n.affinity, n.hops, n.address) < std::tie(best->affinity, best->hops, best->address)) {
      best = n;
    }
  }
  return best;
}

std::optional<PciPlace> rdma_device_place(const std::string& root, const std::string& ib_name)
{
  std::optional<PciPlace> p = place_of(root, fs::path(root) / "class" / "infiniband" / ib_name / "device");
  if (p && root_index(components(p->path)) == std::string::npos) {
    return std::nullopt; // not below a PCI root complex
  }
  return p;
}

std::vector<PciPlace> visible_gpus(const std::string& root)
{
  std::vector<PciPlace> out;
  std::error_code ec;
  fs::directory_iterator it(fs::path(root) / "bus" / "pci" / "devices", ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string vendor = read_sysfs_line(it->path() / "vendor");
    const std::string pci_class = read_sysfs_line(it->path() / "class");
    // 0x10de NVIDIA, 0x1002 AMD; class 0x03xxxx display controllers (VGA,
    // 3D, and AMD Instinct's 0x0380), and AMD's processing accelerators
    // (0x12xxxx: MI300).
    const bool display = pci_class.rfind("0x03", 0) == 0;
    if ((vendor == "0x10de" && display) || (vendor == "0x1002" && (display || pci_class.rfind("0x12", 0) == 0))) {
      if (auto p = place_of(root, it->path())) {
        out.push_back(std::move(*p));
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const PciPlace& a, const PciPlace& b) { return a.address < b.address; });
  return out;
}

std::string sysfs_pci_address(const std::string& address)
{
  std::string out;
  for (char c : address) {
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const auto colon = out.find(':');
  if (colon == 8 && out.rfind("0000", 0) == 0) {
    out.erase(0, 4);
  }
  return out;
}

std::string gpu_nic_note(const std::string& root, int gpu_ordinal, const std::string& gpu_address,
                         const std::string& nic_address)
{
  if (gpu_address.empty() || nic_address.empty()) {
    return "";
  }
  const fs::path devices = fs::path(root) / "bus" / "pci" / "devices";
  const auto gpu = place_of(root, devices / sysfs_pci_address(gpu_address));
  const auto nic = place_of(root, devices / sysfs_pci_address(nic_address));
  if (!gpu || !nic) {
    return "";
  }
  const NearestGpu n = relate(*nic, *gpu);
  std::string note = fmt::format("cuda:{} ({}) and the RDMA NIC ({}) are {} apart ({})", gpu_ordinal, gpu->address,
                                 nic->address, affinity_name(n.affinity), affinity_meaning(n.affinity));
  if (n.affinity != PciAffinity::pix && n.affinity != PciAffinity::pxb) {
    note += ": GPUDirect RDMA will not reach line rate; pick a GPU and a NIC under one PCIe switch (pdcheck devices)";
  }
  return note;
}

std::string read_sysfs_line(const std::string& path)
{
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

} // namespace pdcheck::probe
