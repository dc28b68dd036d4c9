// A stand-in for libcuda.so.1 that pdcheck loads through PDCHECK_CUDA_LIBRARY
// in tests, so the --memory cuda:N path (loader, context handling, staging,
// error reporting) runs on machines without a GPU. "Device memory" is host
// memory, but the fake keeps the driver's rules that matter to pdcheck:
//  - cuMemAlloc returns memory full of garbage (0xA5), never zeros;
//  - every call needs the primary context current on the calling thread
//    (CUDA_ERROR_INVALID_CONTEXT otherwise), as a thread that forgot
//    cuCtxSetCurrent would see;
//  - copies and fills must stay inside one live allocation
//    (CUDA_ERROR_INVALID_VALUE otherwise);
//  - allocations and context references left at exit are reported on stderr
//    ("fake libcuda: ..."), which the tests look for.
// Knobs (environment): FAKE_CUDA_DEVICES (default 1), FAKE_CUDA_NO_DEVICE=1
// (cuInit fails with CUDA_ERROR_NO_DEVICE), FAKE_CUDA_FAIL=<entry point>
// (that entry point fails: cuMemAlloc_v2 with CUDA_ERROR_OUT_OF_MEMORY, any
// other with CUDA_ERROR_UNKNOWN), FAKE_CUDA_DMABUF=0 (no dma-buf export).

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

constexpr int k_success = 0;
constexpr int k_invalid_value = 1;
constexpr int k_out_of_memory = 2;
constexpr int k_not_initialized = 3;
constexpr int k_no_device = 100;
constexpr int k_invalid_device = 101;
constexpr int k_invalid_context = 201;
constexpr int k_not_supported = 801;
constexpr int k_unknown = 999;

int g_fake_context_tag = 0; // the primary context's address is its handle

struct State
{
  std::mutex mutex;
  // Read without the mutex by every entry point, and set by cuInit, which both
  // probe ends may call at once (the real driver allows that too).
  std::atomic<bool> initialised{false};
  int context_refs = 0;
  std::map<unsigned long long, unsigned long long> allocations; // base -> size

  ~State()
  {
    if (!allocations.empty()) {
      std::fprintf(stderr, "fake libcuda: %zu device allocation(s) never freed\n", allocations.size());
    }
    if (context_refs != 0) {
      std::fprintf(stderr, "fake libcuda: primary context retained %d more time(s) than released\n", context_refs);
    }
  }
};

State& state()
{
  static State s;
  return s;
}

thread_local void* t_current = nullptr;

int device_count()
{
  const char* v = std::getenv("FAKE_CUDA_DEVICES");
  return v != nullptr ? std::atoi(v) : 1;
}

/// The error an entry point is told to return, or success.
int injected(const char* entry)
{
  const char* v = std::getenv("FAKE_CUDA_FAIL");
  if (v == nullptr || std::strcmp(v, entry) != 0) {
    return k_success;
  }
  return std::strcmp(entry, "cuMemAlloc_v2") == 0 ? k_out_of_memory : k_unknown;
}

/// Common preconditions of calls that work in a context.
int in_context(const char* entry)
{
  if (!state().initialised) {
    return k_not_initialized;
  }
  if (t_current != &g_fake_context_tag) {
    return k_invalid_context;
  }
  return injected(entry);
}

/// Whether [p, p + n) lies inside one live allocation (caller holds the mutex).
bool inside(unsigned long long p, unsigned long long n)
{
  auto& a = state().allocations;
  auto it = a.upper_bound(p);
  if (it == a.begin()) {
    return false;
  }
  --it;
  return p >= it->first && n <= it->second && p - it->first <= it->second - n;
}

struct ErrorText
{
  int code;
  const char* name;
  const char* text;
};

/// The driver's names and descriptions of the codes the fake returns.
const ErrorText* error_text(int code)
{
  static constexpr ErrorText k_texts[] = {
    {k_success, "CUDA_SUCCESS", "no error"},
    {k_invalid_value, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {k_out_of_memory, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {k_not_initialized, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {k_no_device, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {k_invalid_device, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {k_invalid_context, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {k_not_supported, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {k_unknown, "CUDA_ERROR_UNKNOWN", "unknown error"},
  };
  for (const ErrorText& e : k_texts) {
    if (e.code == code) {
      return &e;
    }
  }
  return nullptr;
}

/// Preconditions of a copy or fill of [p, p + n) of device memory.
int device_range(const char* entry, unsigned long long p, unsigned long long n)
{
  if (int rc = in_context(entry)) {
    return rc;
  }
  std::lock_guard lock(state().mutex);
  return inside(p, n) ? k_success : k_invalid_value;
}

} // namespace

extern "C" {

int cuInit(unsigned int)
{
  if (const char* v = std::getenv("FAKE_CUDA_NO_DEVICE"); v != nullptr && std::strcmp(v, "1") == 0) {
    return k_no_device;
  }
  if (int rc = injected("cuInit")) {
    return rc;
  }
  state().initialised = true;
  return k_success;
}

int cuDriverGetVersion(int* version)
{
  *version = 12040;
  return k_success;
}

int cuDeviceGetCount(int* count)
{
  if (!state().initialised) {
    return k_not_initialized;
  }
  *count = device_count();
  return k_success;
}

int cuDeviceGet(int* device, int ordinal)
{
  if (!state().initialised) {
    return k_not_initialized;
  }
  if (ordinal < 0 || ordinal >= device_count()) {
    return k_invalid_device;
  }
  *device = ordinal;
  return k_success;
}

int cuDeviceGetName(char* name, int length, int device)
{
  std::snprintf(name, static_cast<std::size_t>(length), "pdcheck fake GPU %d", device);
  return k_success;
}

int cuDeviceGetPCIBusId(char* bus, int length, int device)
{
  std::snprintf(bus, static_cast<std::size_t>(length), "0000:%02x:00.0", 0x19 + device);
  return k_success;
}

int cuDeviceGetAttribute(int* value, int attribute, int)
{
  if (attribute == 124) { // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
    const char* v = std::getenv("FAKE_CUDA_DMABUF");
    *value = v == nullptr || std::strcmp(v, "0") != 0 ? 1 : 0;
    return k_success;
  }
  *value = 0;
  return k_success;
}

int cuDevicePrimaryCtxRetain(void** context, int)
{
  if (int rc = injected("cuDevicePrimaryCtxRetain")) {
    return rc;
  }
  std::lock_guard lock(state().mutex);
  ++state().context_refs;
  *context = &g_fake_context_tag;
  return k_success;
}

int cuDevicePrimaryCtxRelease_v2(int)
{
  std::lock_guard lock(state().mutex);
  --state().context_refs;
  return k_success;
}

int cuCtxSetCurrent(void* context)
{
  t_current = context;
  return k_success;
}

int cuCtxSynchronize()
{
  return in_context("cuCtxSynchronize");
}

int cuMemAlloc_v2(unsigned long long* p, std::size_t size)
{
  if (int rc = in_context("cuMemAlloc_v2")) {
    return rc;
  }
  void* m = std::malloc(size);
  if (m == nullptr) {
    return k_out_of_memory;
  }
  std::memset(m, 0xA5, size);
  std::lock_guard lock(state().mutex);
  *p = reinterpret_cast<unsigned long long>(m);
  state().allocations[*p] = size;
  return k_success;
}

int cuMemFree_v2(unsigned long long p)
{
  if (int rc = in_context("cuMemFree_v2")) {
    return rc;
  }
  std::lock_guard lock(state().mutex);
  if (state().allocations.erase(p) == 0) {
    return k_invalid_value;
  }
  std::free(reinterpret_cast<void*>(p));
  return k_success;
}

int cuMemcpyHtoD_v2(unsigned long long dst, const void* src, std::size_t n)
{
  if (int rc = device_range("cuMemcpyHtoD_v2", dst, n)) {
    return rc;
  }
  std::memcpy(reinterpret_cast<void*>(dst), src, n);
  return k_success;
}

int cuMemcpyDtoH_v2(void* dst, unsigned long long src, std::size_t n)
{
  if (int rc = device_range("cuMemcpyDtoH_v2", src, n)) {
    return rc;
  }
  std::memcpy(dst, reinterpret_cast<const void*>(src), n);
  return k_success;
}

int cuMemsetD8_v2(unsigned long long dst, unsigned char value, std::size_t n)
{
  if (int rc = device_range("cuMemsetD8_v2", dst, n)) {
    return rc;
  }
  std::memset(reinterpret_cast<void*>(dst), value, n);
  return k_success;
}

int cuPointerSetAttribute(const void*, int, unsigned long long p)
{
  std::lock_guard lock(state().mutex);
  return inside(p, 1) ? k_success : k_invalid_value;
}

int cuMemGetHandleForAddressRange(void* handle, unsigned long long p, std::size_t n, int type, unsigned long long)
{
  if (int rc = in_context("cuMemGetHandleForAddressRange")) {
    return rc;
  }
  // As the driver says: dptr and size aligned to the host page size.
  const auto page = static_cast<unsigned long long>(::sysconf(_SC_PAGESIZE));
  if (type != 1 || p % page != 0 || n % page != 0) {
    return k_invalid_value;
  }
  {
    std::lock_guard lock(state().mutex);
    if (!inside(p, n)) {
      return k_invalid_value;
    }
  }
  // Any open descriptor the caller must close stands in for the dma-buf.
  const int fd = ::memfd_create("fake-dmabuf", MFD_CLOEXEC);
  if (fd < 0) {
    return k_not_supported;
  }
  *static_cast<int*>(handle) = fd;
  return k_success;
}

int cuGetErrorName(int error, const char** name)
{
  const ErrorText* e = error_text(error);
  *name = e != nullptr ? e->name : nullptr;
  return e != nullptr ? k_success : k_invalid_value;
}

int cuGetErrorString(int error, const char** text)
{
  const ErrorText* e = error_text(error);
  *text = e != nullptr ? e->text : nullptr;
  return e != nullptr ? k_success : k_invalid_value;
}

} // extern "C"
