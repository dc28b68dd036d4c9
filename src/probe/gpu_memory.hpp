#pragma once

// The narrow interface between the probe and GPU memory (--memory cuda:N).
// One implementation speaks the CUDA driver API, loaded at run time with
// dlopen (cuda_driver.cpp, the only file that knows CUDA's entry points), so
// pdcheck needs no CUDA at build time and runs unchanged on hosts without a
// GPU. Tests load a fake driver library through the same loader.
//
// Device addresses are plain integers: they are never dereferenced on the
// host, only handed to copies, to the NIC (as the iova of a registered
// region) or to the driver.

#include <cstdint>
#include <memory>
#include <string>

namespace pdcheck::probe {

enum class Phase;

struct GpuInfo
{
  int ordinal = 0;
  std::string name;        ///< "NVIDIA H200"
  std::string pci_bus_id;  ///< "0000:19:00.0", "" when the driver does not say
  int driver_version = 0;  ///< cuDriverGetVersion: 12040 = CUDA 12.4
  bool dmabuf = false;     ///< the driver can export device memory as a dma-buf
};

class GpuDevice
{
public:
  virtual ~GpuDevice() = default;

  virtual const GpuInfo& info() const = 0;

  /// Device memory of at least `length` bytes, its contents undefined, at an
  /// address aligned to the host page size (a dma-buf export needs whole host
  /// pages). Throws ProbeError(allocate) naming the size and the driver's error.
  virtual std::uint64_t allocate(std::uint64_t length) = 0;
  /// Never throws: teardown goes on past a failed free.
  virtual void release(std::uint64_t device_addr) noexcept = 0;

  /// Copies and fill; `phase` is the probe phase a failure is reported in. A
  /// copy from host memory may return before the bytes reach the GPU, and a
  /// fill before they are zero: synchronize() before a NIC touches them.
  virtual void copy_to_device(std::uint64_t device_addr, const std::uint8_t* host, std::uint64_t length, Phase phase) = 0;
  virtual void copy_to_host(std::uint8_t* host, std::uint64_t device_addr, std::uint64_t length, Phase phase) = 0;
  virtual void zero(std::uint64_t device_addr, std::uint64_t length, Phase phase) = 0;
  virtual void synchronize(Phase phase) = 0;

  /// A dma-buf file descriptor for [device_addr, +length) (device_addr from
  /// allocate()) that the caller closes; fd -1 and the reason when the driver
  /// cannot export one (then only nvidia-peermem lets a NIC reach the memory).
  struct DmabufExport
  {
    int fd = -1;
    std::string why_not;
  };
  virtual DmabufExport export_dmabuf(std::uint64_t device_addr, std::uint64_t length) = 0;
};

/// Opens GPU `ordinal` through the CUDA driver: the library named by the
/// environment variable PDCHECK_CUDA_LIBRARY, else libcuda.so.1. Throws
/// ProbeError(allocate) (exit 3) when there is no driver, no such GPU or the
/// driver refuses, saying which.
std::unique_ptr<GpuDevice> open_cuda_device(int ordinal);

/// The same, from an explicit library path (tests load a fake driver).
std::unique_ptr<GpuDevice> open_cuda_device(const std::string& library, int ordinal);

} // namespace pdcheck::probe
