#pragma once

// Which GPU sits nearest an RDMA NIC on the PCIe tree, in the terms
// `nvidia-smi topo -m` and NCCL use (PIX, PXB, PHB, NODE, SYS): GPUDirect RDMA
// runs at line rate only when the NIC and the GPU share a PCIe switch, so an
// operator choosing --device for --memory cuda:N needs this. The ranking is
// pure; reading sysfs is the adapter below it (a root directory, so tests
// build a fake tree).

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::probe {

/// A PCI function as sysfs places it.
struct PciPlace
{
  std::string address;  ///< "0000:19:00.0"
  /// The canonical device path below the sysfs root, one component per hop:
  /// "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:19:00.0".
  std::string path;
  int numa_node = -1;   ///< -1 when sysfs does not say
};

enum class PciAffinity {
  pix,  ///< through at most one PCIe switch
  pxb,  ///< through several PCIe bridges, not the host bridge
  phb,  ///< through the PCIe host bridge (same root complex)
  node, ///< across root complexes of one NUMA node
  sys,  ///< across NUMA nodes (or the NUMA node is unknown)
};

/// "PIX", "PXB", "PHB", "NODE", "SYS".
const char* affinity_name(PciAffinity a);
/// "same PCIe switch", ... for text reports.
const char* affinity_meaning(PciAffinity a);

struct NearestGpu
{
  std::string address;
  PciAffinity affinity = PciAffinity::sys;
  int hops = 0; ///< PCI links between the two functions (0 when they do not share a root complex)
};

/// The GPU nearest `nic`: best affinity, then fewest hops, then lowest address.
std::optional<NearestGpu> nearest_gpu(const PciPlace& nic, const std::vector<PciPlace>& gpus);

// Adapters over sysfs (`root` is "/sys" outside tests).

/// The first line of a sysfs attribute, "" when it cannot be read.
std::string read_sysfs_line(const std::string& path);

/// Where RDMA device `ib_name` sits (realpath of class/infiniband/NAME/device);
/// nullopt when sysfs does not show it (a soft device such as rxe).
std::optional<PciPlace> rdma_device_place(const std::string& root, const std::string& ib_name);

/// Every NVIDIA or AMD display/3D controller on the PCI bus.
std::vector<PciPlace> visible_gpus(const std::string& root);

/// sysfs's spelling of a PCI address: lower case, 4-digit domain (CUDA and
/// nvidia-smi may print "00000000:1A:00.0").
std::string sysfs_pci_address(const std::string& address);

/// What the probe says about GPUDirect RDMA between the GPU at `gpu_address`
/// and the NIC at `nic_address` ("" when either is unknown or sysfs does not
/// show them): their affinity, and a warning unless it is PIX or PXB.
std::string gpu_nic_note(const std::string& root, int gpu_ordinal, const std::string& gpu_address,
                         const std::string& nic_address);

} // namespace pdcheck::probe
