// GpuDevice over the CUDA driver API, loaded with dlopen: no CUDA header and no
// CUDA library at build time. The few types and constants used are spelled
// out below with the values of cuda.h (stable ABI since CUDA 11; the _v2 entry
// points are the ones cuda.h maps the plain names to).

#include "probe/gpu_memory.hpp"
#include "probe/probe_error.hpp"

#include <fmt/format.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

namespace pdcheck::probe {

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUdeviceptr = unsigned long long;

constexpr CUresult k_cuda_success = 0;
constexpr CUresult k_cuda_error_no_device = 100;
constexpr int k_attribute_dma_buf_supported = 124;      // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
constexpr int k_range_handle_type_dma_buf_fd = 1;       // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD
constexpr int k_pointer_attribute_sync_memops = 6;      // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS

/// The entry points pdcheck calls; the optional ones may be missing in old drivers.
struct DriverTable
{
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  // Optional.
  CUresult (*cuDeviceGetPCIBusId)(char*, int, CUdevice) = nullptr;
  CUresult (*cuPointerSetAttribute)(const void*, int, CUdeviceptr) = nullptr;
  CUresult (*cuMemGetHandleForAddressRange)(void*, CUdeviceptr, std::size_t, int, unsigned long long) = nullptr;
};

const std::string k_load_hint = "that the NVIDIA driver is installed (nvidia-smi), or use --memory host";

template <typename F>
void bind(void* library, const std::string& path, const char* symbol, F& out, bool required)
{
  out = reinterpret_cast<F>(::dlsym(library, symbol));
  if (out == nullptr && required) {
    throw ProbeError(Phase::allocate, fmt::format("{} has no {}: not a usable CUDA driver", path, symbol),
                     "that the NVIDIA driver is version 450 or newer, or use --memory host");
  }
}

void bind_all(void* library, const std::string& path, DriverTable& t)
{
  bind(library, path, "cuInit", t.cuInit, true);
  bind(library, path, "cuDriverGetVersion", t.cuDriverGetVersion, true);
  bind(library, path, "cuDeviceGetCount", t.cuDeviceGetCount, true);
  bind(library, path, "cuDeviceGet", t.cuDeviceGet, true);
  bind(library, path, "cuDeviceGetName", t.cuDeviceGetName, true);
  bind(library, path, "cuDeviceGetAttribute", t.cuDeviceGetAttribute, true);
  bind(library, path, "cuDevicePrimaryCtxRetain", t.cuDevicePrimaryCtxRetain, true);
  bind(library, path, "cuDevicePrimaryCtxRelease_v2", t.cuDevicePrimaryCtxRelease, true);
  bind(library, path, "cuCtxSetCurrent", t.cuCtxSetCurrent, true);
  bind(library, path, "cuCtxSynchronize", t.cuCtxSynchronize, true);
  bind(library, path, "cuMemAlloc_v2", t.cuMemAlloc, true);
  bind(library, path, "cuMemFree_v2", t.cuMemFree, true);
  bind(library, path, "cuMemcpyHtoD_v2", t.cuMemcpyHtoD, true);
  bind(library, path, "cuMemcpyDtoH_v2", t.cuMemcpyDtoH, true);
  bind(library, path, "cuMemsetD8_v2", t.cuMemsetD8, true);
  bind(library, path, "cuGetErrorName", t.cuGetErrorName, true);
  bind(library, path, "cuGetErrorString", t.cuGetErrorString, true);
  bind(library, path, "cuDeviceGetPCIBusId", t.cuDeviceGetPCIBusId, false);
  bind(library, path, "cuPointerSetAttribute", t.cuPointerSetAttribute, false);
  bind(library, path, "cuMemGetHandleForAddressRange", t.cuMemGetHandleForAddressRange, false);
}

/// The library's handle and table, loaded once per path; the library stays
/// loaded for the life of the process (the driver does not support unloading).
const DriverTable& load_driver(const std::string& path)
{
  static std::mutex mutex;
  static std::map<std::string, DriverTable> loaded;
  std::lock_guard lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end()) {
    return it->second;
  }
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = ::dlerror();
    throw ProbeError(Phase::allocate, fmt::format("cannot load the CUDA driver: {}", why != nullptr ? why : path),
                     k_load_hint);
  }
  DriverTable t;
  try {
    bind_all(library, path, t);
  } catch (...) {
    ::dlclose(library);
    throw;
  }
  return loaded.emplace(path, t).first->second;
}


class CudaDevice : public GpuDevice
{
public:
  CudaDevice(const DriverTable& driver, int ordinal) : m_driver(driver)
  {
    m_info.ordinal = ordinal;
    const CUresult init = m_driver.cuInit(0);
    if (init == k_cuda_error_no_device) {
      throw ProbeError(Phase::allocate, fmt::format("--memory cuda:{}: the CUDA driver finds no GPU ({})", ordinal,
                                                    describe(init)),
                       "nvidia-smi and CUDA_VISIBLE_DEVICES, or use --memory host");
    }
    check(init, "cuInit", Phase::allocate, "that nvidia-smi works and the driver matches its kernel module");
    check(m_driver.cuDriverGetVersion(&m_info.driver_version), "cuDriverGetVersion", Phase::allocate, "nvidia-smi");
    int count = 0;
    check(m_driver.cuDeviceGetCount(&count), "cuDeviceGetCount", Phase::allocate, "nvidia-smi");
    if (ordinal >= count) {
      const std::string seen = count == 0   ? "no GPU"
                               : count == 1 ? "1 GPU (cuda:0)"
                                            : fmt::format("{} GPUs (cuda:0 to cuda:{})", count, count - 1);
      throw ProbeError(Phase::allocate, fmt::format("--memory cuda:{}: the CUDA driver sees {}", ordinal, seen),
                       "nvidia-smi and CUDA_VISIBLE_DEVICES");
    }
    check(m_driver.cuDeviceGet(&m_device, ordinal), "cuDeviceGet", Phase::allocate, "nvidia-smi");
    char name[256] = {};
    check(m_driver.cuDeviceGetName(name, sizeof name - 1, m_device), "cuDeviceGetName", Phase::allocate, "nvidia-smi");
    m_info.name = name;
    if (m_driver.cuDeviceGetPCIBusId != nullptr) {
      char bus[64] = {};
      if (m_driver.cuDeviceGetPCIBusId(bus, sizeof bus - 1, m_device) == k_cuda_success) {
        m_info.pci_bus_id = bus;
      }
    }
    int dmabuf = 0;
    if (m_driver.cuMemGetHandleForAddressRange != nullptr &&
        m_driver.cuDeviceGetAttribute(&dmabuf, k_attribute_dma_buf_supported, m_device) == k_cuda_success) {
      m_info.dmabuf = dmabuf != 0;
    }
    check(m_driver.cuDevicePrimaryCtxRetain(&m_context, m_device), "cuDevicePrimaryCtxRetain", Phase::allocate,
          "that no other process holds the GPU in exclusive compute mode (nvidia-smi -q | grep 'Compute Mode')");
  }

  ~CudaDevice() override { m_driver.cuDevicePrimaryCtxRelease(m_device); }

  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const GpuInfo& info() const override { return m_info; }

  std::uint64_t allocate(std::uint64_t length) override
  {
    make_current(Phase::allocate);
    // cuMemAlloc only promises 256-byte alignment (small allocations are
    // carved out of larger ones), but a dma-buf export takes whole host pages:
    // allocate a page more and hand out the first page-aligned address.
    const std::uint64_t rounded = round_to_page(length) + m_page;
    CUdeviceptr base = 0;
    check(m_driver.cuMemAlloc(&base, rounded), fmt::format("cuMemAlloc({} bytes)", rounded), Phase::allocate,
          "free GPU memory (nvidia-smi), or use a smaller --slots");
    const std::uint64_t aligned = round_to_page(base);
    if (m_driver.cuPointerSetAttribute != nullptr) {
      // GPUDirect RDMA: make every later copy to this memory synchronise
      // with NIC accesses, as NVIDIA's GPUDirect guide asks. Best effort: the
      // probe also synchronises before any NIC touches the memory.
      const unsigned int on = 1;
      (void)m_driver.cuPointerSetAttribute(&on, k_pointer_attribute_sync_memops, base);
    }
    std::lock_guard lock(m_mutex);
    m_bases[aligned] = base;
    return aligned;
  }

  void release(std::uint64_t device_addr) noexcept override
  {
    CUdeviceptr base = device_addr;
    {
      std::lock_guard lock(m_mutex);
      if (auto it = m_bases.find(device_addr); it != m_bases.end()) {
        base = it->second;
        m_bases.erase(it);
      }
    }
    if (m_driver.cuCtxSetCurrent(m_context) == k_cuda_success) {
      m_driver.cuMemFree(base);
    }
  }

  void copy_to_device(std::uint64_t device_addr, const std::uint8_t* host, std::uint64_t length, Phase phase) override
  {
    make_current(phase);
    check(m_driver.cuMemcpyHtoD(device_addr, host, length), fmt::format("cuMemcpyHtoD({} bytes)", length), phase,
          k_copy_hint);
  }

  void copy_to_host(std::uint8_t* host, std::uint64_t device_addr, std::uint64_t length, Phase phase) override
  {
    make_current(phase);
    check(m_driver.cuMemcpyDtoH(host, device_addr, length), fmt::format("cuMemcpyDtoH({} bytes)", length), phase,
          k_copy_hint);
  }

  void zero(std::uint64_t device_addr, std::uint64_t length, Phase phase) override
  {
    make_current(phase);
    check(m_driver.cuMemsetD8(device_addr, 0, length), fmt::format("cuMemsetD8({} bytes)", length), phase, k_copy_hint);
    // cuMemsetD8 on device memory may return before the bytes are zero; the
    // NIC's writes that follow must not race it.
    check(m_driver.cuCtxSynchronize(), "cuCtxSynchronize", phase, k_copy_hint);
  }

  void synchronize(Phase phase) override
  {
    make_current(phase);
    check(m_driver.cuCtxSynchronize(), "cuCtxSynchronize", phase, k_copy_hint);
  }

  DmabufExport export_dmabuf(std::uint64_t device_addr, std::uint64_t length) override
  {
    if (m_driver.cuMemGetHandleForAddressRange == nullptr) {
      return {-1, "the CUDA driver has no cuMemGetHandleForAddressRange (it needs CUDA 11.7 or newer)"};
    }
    if (!m_info.dmabuf) {
      return {-1, fmt::format("cuda:{} does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0; the "
                              "open kernel modules of driver 515 or newer have it)",
                              m_info.ordinal)};
    }
    make_current(Phase::register_memory);
    int fd = -1;
    const CUresult rc = m_driver.cuMemGetHandleForAddressRange(&fd, device_addr, round_to_page(length),
                                                               k_range_handle_type_dma_buf_fd, 0);
    if (rc != k_cuda_success) {
      return {-1, fmt::format("cuMemGetHandleForAddressRange on cuda:{} failed ({})", m_info.ordinal, describe(rc))};
    }
    return {fd, ""};
  }

private:
  static constexpr const char* k_copy_hint = "the GPU's health (nvidia-smi, Xid errors in dmesg)";

  /// Every thread that touches the GPU (the loopback's decode end runs on its
  /// own) makes the primary context current first.
  void make_current(Phase phase)
  {
    check(m_driver.cuCtxSetCurrent(m_context), "cuCtxSetCurrent", phase, "nvidia-smi");
  }

  std::string describe(CUresult rc) const
  {
    const char* name = nullptr;
    const char* text = nullptr;
    if (m_driver.cuGetErrorName(rc, &name) != k_cuda_success || name == nullptr) {
      return fmt::format("CUDA error {}", rc);
    }
    if (m_driver.cuGetErrorString(rc, &text) != k_cuda_success || text == nullptr) {
      return name;
    }
    return fmt::format("{}: {}", name, text);
  }

  void check(CUresult rc, const std::string& call, Phase phase, const std::string& hint) const
  {
    if (rc != k_cuda_success) {
      throw ProbeError(phase, fmt::format("{} on cuda:{} failed ({})", call, m_info.ordinal, describe(rc)), hint);
    }
  }

  std::uint64_t round_to_page(std::uint64_t n) const { return (n + m_page - 1) / m_page * m_page; }

  const DriverTable& m_driver;
  const std::uint64_t m_page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  std::mutex m_mutex;
  std::map<std::uint64_t, CUdeviceptr> m_bases; ///< aligned address handed out -> cuMemAlloc's
  GpuInfo m_info;
  CUdevice m_device = 0;
  CUcontext m_context = nullptr;
};

} // namespace

std::unique_ptr<GpuDevice> open_cuda_device(const std::string& library, int ordinal)
{
  return std::make_unique<CudaDevice>(load_driver(library), ordinal);
}

std::unique_ptr<GpuDevice> open_cuda_device(int ordinal)
{
  const char* library = std::getenv("PDCHECK_CUDA_LIBRARY");
  return open_cuda_device(library != nullptr && *library != '\0' ? library : "libcuda.so.1", ordinal);
}

} // namespace pdcheck::probe
