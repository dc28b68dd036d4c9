#include "probe/device_info.hpp"
#include "probe/pci_topology.hpp"

#include "../../support/sample_devices.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace pdcheck::probe;
namespace fs = std::filesystem;

namespace {

PciPlace at(const std::string& path, int numa = 0)
{
  return PciPlace{fs::path(path).filename().string(), path, numa};
}

/// A sysfs tree the way Linux lays one out: devices/ holds the PCI hierarchy,
/// bus/pci/devices/ and class/infiniband/NAME/device are symlinks into it.
class FakeSysfs
{
public:
  void add_pci(const std::string& hierarchy, const std::string& vendor, const std::string& pci_class, int numa)
  {
    const fs::path dir = m_dir.path / hierarchy;
    m_dir.write(hierarchy + "/vendor", vendor + "\n");
    m_dir.write(hierarchy + "/class", pci_class + "\n");
    m_dir.write(hierarchy + "/numa_node", std::to_string(numa) + "\n");
    fs::create_directories(m_dir.path / "bus/pci/devices");
    fs::create_directory_symlink(fs::path("../../..") / hierarchy, m_dir.path / "bus/pci/devices" / dir.filename());
  }
  void add_rdma(const std::string& name, const std::string& hierarchy)
  {
    fs::create_directories(m_dir.path / "class/infiniband" / name);
    fs::create_directories(m_dir.path / hierarchy);
    fs::create_directory_symlink(fs::path("../../..") / hierarchy, m_dir.path / "class/infiniband" / name / "device");
  }
  std::string root() const { return m_dir.path.string(); }

private:
  pdcheck::test::TempDir m_dir{"pdcheck-sysfs"};
};

} // namespace

TEST_CASE("nearest_gpu: ranks GPUs the way nvidia-smi topo does", "[probe]")
{
  const PciPlace nic = at("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0", 0);
  const PciPlace same_switch = at("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:06:00.0", 0);
  const PciPlace deeper = at("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:18.0/0000:07:00.0/0000:08:00.0/0000:09:00.0", 0);
  const PciPlace other_port = at("devices/pci0000:00/0000:00:02.0/0000:0a:00.0", 0);
  const PciPlace other_root = at("devices/pci0000:40/0000:40:01.0/0000:41:00.0", 0);
  const PciPlace other_node = at("devices/pci0000:80/0000:80:01.0/0000:81:00.0", 1);

  auto check = [&](const std::vector<PciPlace>& gpus, const std::string& address, PciAffinity affinity) {
    const auto n = nearest_gpu(nic, gpus);
    REQUIRE(n);
    CHECK(n->address == address);
    CHECK(affinity_name(n->affinity) == std::string(affinity_name(affinity)));
  };
  check({other_node, other_root, other_port, deeper, same_switch}, "0000:06:00.0", PciAffinity::pix);
  check({other_node, other_root, other_port, deeper}, "0000:09:00.0", PciAffinity::pxb);
  check({other_node, other_root, other_port}, "0000:0a:00.0", PciAffinity::phb);
  check({other_node, other_root}, "0000:41:00.0", PciAffinity::node);
  check({other_node}, "0000:81:00.0", PciAffinity::sys);
  // One unknown NUMA node never counts as the same node; both unknown is a
  // host without NUMA, so one node.
  check({at("devices/pci0000:40/0000:40:01.0/0000:41:00.0", -1)}, "0000:41:00.0", PciAffinity::sys);
  PciPlace nic_without_numa = nic;
  nic_without_numa.numa_node = -1;
  const auto one_node = nearest_gpu(nic_without_numa, {at("devices/pci0000:40/0000:40:01.0/0000:41:00.0", -1)});
  REQUIRE(one_node);
  CHECK(one_node->affinity == PciAffinity::node);
  CHECK_FALSE(nearest_gpu(nic, {}));
  // Ties go to the fewest hops, then the lowest address.
  const PciPlace twin = at("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:04:00.0", 0);
  check({same_switch, twin}, "0000:04:00.0", PciAffinity::pix);
}

TEST_CASE("visible_gpus and rdma_device_place read a sysfs tree", "[probe]")
{
  FakeSysfs sys;
  sys.add_pci("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0", "0x15b3", "0x020000", 0);
  sys.add_pci("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:06:00.0", "0x10de", "0x030200", 0);
  sys.add_pci("devices/pci0000:80/0000:80:01.0/0000:81:00.0", "0x10de", "0x030000", 1);
  sys.add_pci("devices/pci0000:80/0000:80:02.0/0000:82:00.0", "0x1002", "0x038000", 1);
  sys.add_pci("devices/pci0000:80/0000:80:03.0/0000:83:00.0", "0x10de", "0x068000", 1); // an NVSwitch bridge, not a GPU
  sys.add_pci("devices/pci0000:c0/0000:c0:01.0/0000:c1:00.0", "0x1002", "0x120000", 2); // AMD MI300: an accelerator
  sys.add_rdma("mlx5_0", "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0");
  // An mlx5 sub-function sits on the auxiliary bus below its PCI function.
  sys.add_rdma("mlx5_2", "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0/mlx5_core.sf.2");

  const auto gpus = visible_gpus(sys.root());
  REQUIRE(gpus.size() == 4);
  CHECK(gpus[0].address == "0000:06:00.0");
  CHECK(gpus[0].path == "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:06:00.0");
  CHECK(gpus[0].numa_node == 0);
  CHECK(gpus[1].address == "0000:81:00.0");
  CHECK(gpus[2].address == "0000:82:00.0");
  CHECK(gpus[3].address == "0000:c1:00.0");

  const auto sf = rdma_device_place(sys.root(), "mlx5_2");
  REQUIRE(sf);
  CHECK(sf->address == "0000:05:00.0");
  CHECK(sf->path == "devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0");

  const auto nic = rdma_device_place(sys.root(), "mlx5_0");
  REQUIRE(nic);
  CHECK(nic->address == "0000:05:00.0");
  const auto n = nearest_gpu(*nic, gpus);
  REQUIRE(n);
  CHECK(n->address == "0000:06:00.0");
  CHECK(n->affinity == PciAffinity::pix);

  CHECK_FALSE(rdma_device_place(sys.root(), "rxe0"));
  CHECK(visible_gpus(sys.root() + "/nonexistent").empty());
}

TEST_CASE("devices report: the nearest GPU with its affinity", "[probe]")
{
  DeviceInfo d = pdcheck::test::made_up_devices().front();
  const auto j = devices_to_json({d});
  CHECK(j["devices"][0]["pci_address"] == "0000:05:00.0");
  CHECK(j["devices"][0]["nearest_gpu"] ==
        nlohmann::ordered_json({{"pci_address", "0000:06:00.0"}, {"affinity", "PIX"}, {"meaning", "same PCIe switch"}}));
  CHECK(devices_to_text({d}).find("pci 0000:05:00.0  nearest GPU 0000:06:00.0 (PIX: same PCIe switch)\n") !=
        std::string::npos);
  d.nearest_gpu.clear();
  CHECK(devices_to_json({d})["devices"][0]["nearest_gpu"].is_null());
}

TEST_CASE("gpu_nic_note: the affinity of the probe's GPU and NIC, with a warning when it is slow", "[probe]")
{
  FakeSysfs sys;
  sys.add_pci("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:05:00.0", "0x15b3", "0x020000", 0);
  sys.add_pci("devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:10.0/0000:1a:00.0", "0x10de", "0x030200", 0);
  sys.add_pci("devices/pci0000:80/0000:80:01.0/0000:81:00.0", "0x10de", "0x030200", 1);
  // CUDA spells the bus id with an 8-digit domain and upper case.
  CHECK(sysfs_pci_address("00000000:1A:00.0") == "0000:1a:00.0");
  CHECK(gpu_nic_note(sys.root(), 0, "00000000:1A:00.0", "0000:05:00.0") ==
        "cuda:0 (0000:1a:00.0) and the RDMA NIC (0000:05:00.0) are PIX apart (same PCIe switch)");
  CHECK(gpu_nic_note(sys.root(), 1, "0000:81:00.0", "0000:05:00.0") ==
        "cuda:1 (0000:81:00.0) and the RDMA NIC (0000:05:00.0) are SYS apart (across NUMA nodes): GPUDirect RDMA will "
        "not reach line rate; pick a GPU and a NIC under one PCIe switch (pdcheck devices)");
  CHECK(gpu_nic_note(sys.root(), 0, "0000:1a:00.0", "").empty());
  CHECK(gpu_nic_note(sys.root(), 0, "0000:99:00.0", "0000:05:00.0").empty());
}
