// --memory cuda:N through the fake CUDA driver (tests/probe/fake_libcuda.cpp):
// the run-time loader, the errors an operator sees, and that the probe's
// verdict really rests on bytes that went through GPU memory, on both the
// GPU-direct path (fake verbs) and the staged path (TCP).

#include "io/side_file.hpp"
#include "probe/fake_transport.hpp"
#include "probe/gpu_memory.hpp"
#include "probe/probe_session.hpp"
#include "probe/state_pools.hpp"
#include "probe/tcp_transport.hpp"
#include "sglang/side_layout.hpp"
#include "../../support/test_data.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <unistd.h>
#include <thread>

using namespace pdcheck;
using namespace pdcheck::probe;

namespace {

/// Sets an environment variable the fake driver reads, for one scope.
class ScopedEnv
{
public:
  ScopedEnv(const char* name, const char* value) : m_name(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(m_name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
  const char* m_name;
};

std::string probe_error_text(const std::function<void()>& f)
{
  try {
    f();
  } catch (const ProbeError& e) {
    return e.what();
  }
  return "(no error)";
}

/// The fake driver's GPU, with an optional fault: the byte at `flip_at` of
/// the first buffer copied to the device in phase `flip_in` changes there.
class FaultyGpu : public GpuDevice
{
public:
  explicit FaultyGpu(std::optional<std::uint64_t> flip_at, Phase flip_in = Phase::fill)
    : m_gpu(open_cuda_device(PDCHECK_FAKE_CUDA, 0)), m_flip_at(flip_at), m_flip_in(flip_in)
  {
  }
  const GpuInfo& info() const override { return m_gpu->info(); }
  std::uint64_t allocate(std::uint64_t length) override { return m_gpu->allocate(length); }
  void release(std::uint64_t addr) noexcept override { m_gpu->release(addr); }
  void copy_to_device(std::uint64_t dst, const std::uint8_t* src, std::uint64_t n, Phase phase) override
  {
    m_gpu->copy_to_device(dst, src, n, phase);
    if (phase == m_flip_in && m_flip_at && *m_flip_at < n && !m_flipped) {
      m_flipped = true;
      std::uint8_t byte = 0;
      m_gpu->copy_to_host(&byte, dst + *m_flip_at, 1, phase);
      byte ^= 0x02; // still odd, so "wrong", not "never written"
      m_gpu->copy_to_device(dst + *m_flip_at, &byte, 1, phase);
    }
  }
  void copy_to_host(std::uint8_t* dst, std::uint64_t src, std::uint64_t n, Phase phase) override
  {
    m_gpu->copy_to_host(dst, src, n, phase);
  }
  void zero(std::uint64_t dst, std::uint64_t n, Phase phase) override { m_gpu->zero(dst, n, phase); }
  void synchronize(Phase phase) override { m_gpu->synchronize(phase); }
  DmabufExport export_dmabuf(std::uint64_t addr, std::uint64_t n) override { return m_gpu->export_dmabuf(addr, n); }

private:
  std::unique_ptr<GpuDevice> m_gpu;
  std::optional<std::uint64_t> m_flip_at;
  Phase m_flip_in;
  bool m_flipped = false;
};

sglang::Side side(sglang::Role role, const std::string& args)
{
  const std::string mode = role == sglang::Role::prefill ? "prefill" : "decode";
  return io::side_from_args(role, args + " --disaggregation-mode " + mode, test::probe_model(), "0.5.11", {}, "test " + mode);
}

ProbeOptions on_gpu(std::optional<std::uint64_t> flip_at = std::nullopt, Phase flip_in = Phase::fill)
{
  ProbeOptions o;
  o.requests = 2;
  o.slots = 3;
  o.timeout = 20;
  o.memory = "cuda:0";
  o.open_gpu = [flip_at, flip_in] { return std::make_unique<FaultyGpu>(flip_at, flip_in); };
  return o;
}

} // namespace

TEST_CASE("cuda driver: the fake GPU is seen as the driver describes it", "[probe][gpu]")
{
  const auto gpu = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
  CHECK(gpu->info().name == "pdcheck fake GPU 0");
  CHECK(gpu->info().pci_bus_id == "0000:19:00.0");
  CHECK(gpu->info().driver_version == 12040);
  CHECK(gpu->info().dmabuf);
}

TEST_CASE("cuda driver: copies and fills reach device memory, from any thread", "[probe][gpu]")
{
  const auto gpu = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
  std::uint64_t addr = 0;
  // Another thread than the one that opened the GPU: the primary context must
  // be made current there (the fake refuses calls without it).
  std::thread([&] { addr = gpu->allocate(10000); }).join();
  std::vector<std::uint8_t> in(10000), out(10000, 0xee);
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<std::uint8_t>(i * 7 + 1);
  }
  gpu->copy_to_device(addr, in.data(), in.size(), Phase::fill);
  gpu->zero(addr + 100, 50, Phase::verify);
  gpu->copy_to_host(out.data(), addr, out.size(), Phase::verify);
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO(i);
    REQUIRE(out[i] == (i >= 100 && i < 150 ? 0 : in[i]));
  }
  CHECK(addr % static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) == 0); // whole pages for a dma-buf
  const GpuDevice::DmabufExport exported = gpu->export_dmabuf(addr, 10000);
  CHECK(exported.fd >= 0);
  CHECK(exported.why_not.empty());
  ::close(exported.fd);
  gpu->release(addr);
  {
    ScopedEnv env("FAKE_CUDA_DMABUF", "0");
    const auto no_dmabuf = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
    const std::uint64_t other = no_dmabuf->allocate(100);
    const GpuDevice::DmabufExport refused = no_dmabuf->export_dmabuf(other, 100);
    CHECK(refused.fd == -1);
    CHECK(refused.why_not == "cuda:0 does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0; the open "
                             "kernel modules of driver 515 or newer have it)");
    no_dmabuf->release(other);
  }
}

TEST_CASE("cuda driver: every failure names the call, the driver's error and what to check", "[probe][gpu]")
{
  SECTION("no driver library")
  {
    CHECK(probe_error_text([] { open_cuda_device("/nonexistent/libcuda.so.1", 0); }) ==
          "allocate: cannot load the CUDA driver: /nonexistent/libcuda.so.1: cannot open shared object file: No such "
          "file or directory; check: that the NVIDIA driver is installed (nvidia-smi), or use --memory host");
  }
  SECTION("a library that is not a CUDA driver")
  {
    CHECK(probe_error_text([] { open_cuda_device("libm.so.6", 0); }) ==
          "allocate: libm.so.6 has no cuInit: not a usable CUDA driver; check: that the NVIDIA driver is version 450 "
          "or newer, or use --memory host");
  }
  SECTION("no GPU")
  {
    ScopedEnv env("FAKE_CUDA_NO_DEVICE", "1");
    CHECK(probe_error_text([] { open_cuda_device(PDCHECK_FAKE_CUDA, 0); }) ==
          "allocate: --memory cuda:0: the CUDA driver finds no GPU (CUDA_ERROR_NO_DEVICE: no CUDA-capable device is "
          "detected); check: nvidia-smi and CUDA_VISIBLE_DEVICES, or use --memory host");
  }
  SECTION("an ordinal past the last GPU")
  {
    CHECK(probe_error_text([] { open_cuda_device(PDCHECK_FAKE_CUDA, 3); }) ==
          "allocate: --memory cuda:3: the CUDA driver sees 1 GPU (cuda:0); check: nvidia-smi and CUDA_VISIBLE_DEVICES");
    ScopedEnv env("FAKE_CUDA_DEVICES", "2");
    CHECK(probe_error_text([] { open_cuda_device(PDCHECK_FAKE_CUDA, 2); }) ==
          "allocate: --memory cuda:2: the CUDA driver sees 2 GPUs (cuda:0 to cuda:1); check: nvidia-smi and "
          "CUDA_VISIBLE_DEVICES");
  }
  SECTION("out of GPU memory")
  {
    const auto gpu = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
    ScopedEnv env("FAKE_CUDA_FAIL", "cuMemAlloc_v2");
    // Whole pages plus one, so a page-aligned address can be handed out.
    const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t asked = (5000 + page - 1) / page * page + page;
    CHECK(probe_error_text([&] { gpu->allocate(5000); }) ==
          fmt::format("allocate: cuMemAlloc({} bytes) on cuda:0 failed (CUDA_ERROR_OUT_OF_MEMORY: out of memory); "
                      "check: free GPU memory (nvidia-smi), or use a smaller --slots",
                      asked));
  }
  SECTION("a copy that fails is reported in the phase that asked for it")
  {
    const auto gpu = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
    const std::uint64_t addr = gpu->allocate(64);
    std::uint8_t byte = 0;
    {
      ScopedEnv env("FAKE_CUDA_FAIL", "cuMemcpyDtoH_v2");
      CHECK(probe_error_text([&] { gpu->copy_to_host(&byte, addr, 1, Phase::verify); }) ==
            "verify: cuMemcpyDtoH(1 bytes) on cuda:0 failed (CUDA_ERROR_UNKNOWN: unknown error); check: the GPU's "
            "health (nvidia-smi, Xid errors in dmesg)");
    }
    gpu->release(addr);
  }
}

TEST_CASE("StatePools on a GPU: device memory starts zeroed, not with the allocator's garbage", "[probe][gpu]")
{
  const auto d = side(sglang::Role::decode, "--tp 1");
  const model::Layout layout = model::compute_layout(sglang::layout_input(d));
  const auto gpu = open_cuda_device(PDCHECK_FAKE_CUDA, 0);
  StatePools pools(layout, 2, gpu.get());
  REQUIRE_FALSE(pools.buffers().empty());
  const EntryBuffer& b = pools.buffers().front();
  REQUIRE(b.device_addr != 0);
  std::vector<std::uint8_t> bytes(b.length, 0xee);
  gpu->copy_to_host(bytes.data(), b.device_addr, b.length, Phase::verify);
  CHECK(std::count(bytes.begin(), bytes.end(), 0) == static_cast<std::ptrdiff_t>(b.length));
}

TEST_CASE("probe::loopback on a GPU: GPU-direct over the fake verbs, staged over TCP", "[probe][gpu]")
{
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const auto d = side(sglang::Role::decode, "--tp 1");
  SECTION("fake verbs with dma-buf")
  {
    auto fabric = std::make_shared<FakeFabric>();
    const ProbeReport r =
      loopback(p, d, on_gpu(), [fabric](const std::string&) { return std::make_unique<FakeVerbsTransport>(fabric); });
    INFO(probe_to_text(r));
    CHECK(r.verified);
    CHECK(r.verdict == pdcheck::Verdict::ok);
    CHECK(r.memory == "cuda:0");
    CHECK(r.memory_path == "gpu-direct-dmabuf");
    REQUIRE(r.gpu);
    CHECK(r.gpu->name == "pdcheck fake GPU 0");
    // Both ends registered every buffer as GPU memory, each with a dma-buf.
    int buffers = 0;
    for (const auto* s : {&p, &d}) {
      for (const model::RankLayout& rank : model::compute_layout(sglang::layout_input(*s)).ranks) {
        buffers += static_cast<int>(std::count_if(rank.entries.begin(), rank.entries.end(),
                                                  [](const auto& e) { return e.item_len > 0; }));
      }
    }
    CHECK(buffers > 0);
    CHECK(fabric->gpu_regions == buffers);
    CHECK(fabric->dmabuf_regions == fabric->gpu_regions);
  }
  SECTION("fake verbs without dma-buf: nvidia-peermem")
  {
    ScopedEnv env("FAKE_CUDA_DMABUF", "0");
    auto fabric = std::make_shared<FakeFabric>();
    const ProbeReport r =
      loopback(p, d, on_gpu(), [fabric](const std::string&) { return std::make_unique<FakeVerbsTransport>(fabric); });
    INFO(probe_to_text(r));
    CHECK(r.verified);
    CHECK(r.memory_path == "gpu-direct-peermem");
    CHECK(fabric->gpu_regions > 0);
    CHECK(fabric->dmabuf_regions == 0);
    CHECK(std::find(r.notes.begin(), r.notes.end(),
                    "GPU memory registered by address, which needs nvidia-peermem; no dma-buf because cuda:0 does not "
                    "support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0; the open kernel modules of driver 515 "
                    "or newer have it)") != r.notes.end());
  }
  SECTION("tcp stages through host memory")
  {
    const ProbeReport r =
      loopback(p, d, on_gpu(), [](const std::string& host) { return std::make_unique<TcpTransport>(host, 10); });
    INFO(probe_to_text(r));
    CHECK(r.verified);
    CHECK(r.verdict == pdcheck::Verdict::ok);
    CHECK(r.memory_path == "staged");
    CHECK(probe_to_text(r).find("GPU cuda:0 pdcheck fake GPU 0 at 0000:19:00.0, CUDA driver 12.4; staged through host "
                                "memory: the transport cannot reach GPU memory\n") != std::string::npos);
  }
}

TEST_CASE("probe::loopback on a GPU: a byte the GPU corrupts fails verification on both paths", "[probe][gpu]")
{
  // The prefill's first buffer holds slot 0 (never sent), then slot 1, which
  // the first request sends; flip a byte of slot 1 on the device only.
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const auto d = side(sglang::Role::decode, "--tp 1");
  const model::Layout layout = model::compute_layout(sglang::layout_input(p));
  const auto flip_at = static_cast<std::uint64_t>(layout.ranks[0].entries[0].item_len) + 5;
  auto fabric = std::make_shared<FakeFabric>();
  for (const auto& [name, factory] :
       {std::pair<std::string, TransportFactory>{"fake verbs",
                                                 [fabric](const std::string&) {
                                                   return std::make_unique<FakeVerbsTransport>(fabric);
                                                 }},
        std::pair<std::string, TransportFactory>{"tcp", [](const std::string& host) {
                                                   return std::make_unique<TcpTransport>(host, 10);
                                                 }}}) {
    INFO(name);
    const ProbeReport r = loopback(p, d, on_gpu(flip_at), factory);
    INFO(probe_to_text(r));
    CHECK_FALSE(r.verified);
    CHECK(r.verdict == pdcheck::Verdict::findings);
    CHECK(r.tally.wrong == 1);
  }
}

TEST_CASE("probe::loopback on a GPU: the staged decode really sends what landed through the GPU", "[probe][gpu]")
{
  // The decode's staged round trip (mirror -> GPU -> mirror) is the only copy
  // to the device in the verify phase: a GPU that corrupts it must fail
  // verification over TCP, and cannot touch the GPU-direct path.
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const auto d = side(sglang::Role::decode, "--tp 1");
  // Byte 3 of the first range verified: request 0's slot of the first buffer.
  ProbeOptions o = on_gpu(3, Phase::verify);
  const ProbeReport staged =
    loopback(p, d, o, [](const std::string& host) { return std::make_unique<TcpTransport>(host, 10); });
  INFO(probe_to_text(staged));
  CHECK(staged.memory_path == "staged");
  CHECK_FALSE(staged.verified);
  CHECK(staged.tally.wrong == 1);
  auto fabric = std::make_shared<FakeFabric>();
  const ProbeReport direct =
    loopback(p, d, o, [fabric](const std::string&) { return std::make_unique<FakeVerbsTransport>(fabric); });
  INFO(probe_to_text(direct));
  CHECK(direct.memory_path == "gpu-direct-dmabuf");
  CHECK(direct.verified);
}

TEST_CASE("probe::loopback on a GPU: no driver is a report naming the allocate phase", "[probe][gpu]")
{
  const auto p = side(sglang::Role::prefill, "--tp 1");
  const auto d = side(sglang::Role::decode, "--tp 1");
  ProbeOptions o = on_gpu();
  o.open_gpu = [] { return open_cuda_device("/nonexistent/libcuda.so.1", 0); };
  auto fabric = std::make_shared<FakeFabric>();
  const ProbeReport r =
    loopback(p, d, o, [fabric](const std::string&) { return std::make_unique<FakeVerbsTransport>(fabric); });
  CHECK_FALSE(r.verified);
  CHECK(r.verdict == pdcheck::Verdict::cannot_run);
  REQUIRE(r.failure);
  CHECK(r.failure->phase == "allocate");
  CHECK(r.failure->message ==
        "cannot load the CUDA driver: /nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory");
}
