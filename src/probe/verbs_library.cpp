// libibverbs, loaded on the first verbs call instead of at start-up. pdcheck
// does not link libibverbs: this file defines each verbs function pdcheck
// calls (and those verbs.h's inline wrappers of them can reach), and each loads
// libibverbs.so.1 once and forwards to the library's own. Every other command
// than the RDMA probe and `devices` then starts without libibverbs and the
// netlink libraries it pulls in. The definitions are checked against verbs.h's
// declarations by the compiler; a function pdcheck starts calling without a
// definition here fails the link, not a run.
//
// Without the library, ibv_get_device_list answers NULL with ENOSYS ("no RDMA
// support": the probe's documented "no RDMA device" outcome) and
// verbs_library_error() says why; the others cannot be reached without a
// device from that list.

#include "probe/verbs_library.hpp"

#include <infiniband/verbs.h>

#include <dlfcn.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <string>

namespace pdcheck::probe {

namespace {

struct Library
{
  void* handle = nullptr;
  std::string error;
};

const Library& library()
{
  static Library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* name = std::getenv("PDCHECK_IBVERBS_LIBRARY");
    const std::string path = name != nullptr && *name != '\0' ? name : "libibverbs.so.1";
    lib.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle == nullptr) {
      const char* why = ::dlerror();
      lib.error = why != nullptr ? why : "cannot load " + path;
    }
  });
  return lib;
}

void* symbol(const char* name)
{
  const Library& lib = library();
  return lib.handle != nullptr ? ::dlsym(lib.handle, name) : nullptr;
}

} // namespace

std::string verbs_library_error()
{
  return library().error;
}

} // namespace pdcheck::probe

// Each function: the library's own, looked up once; without it, `failure`
// with errno ENOSYS. The name is parenthesised so that verbs.h's function-like
// macros of the same name (ibv_query_port) do not expand.
#define PDCHECK_VERBS_FORWARD(ret, name, failure, params, args)                                                        \
  extern "C" ret(name) params                                                                                          \
  {                                                                                                                    \
    using Fn = ret(*) params;                                                                                          \
    static const Fn real = reinterpret_cast<Fn>(pdcheck::probe::symbol(#name));                                        \
    if (real == nullptr) {                                                                                             \
      errno = ENOSYS;                                                                                                  \
      return failure;                                                                                                  \
    }                                                                                                                  \
    return real args;                                                                                                  \
  }

PDCHECK_VERBS_FORWARD(ibv_device**, ibv_get_device_list, nullptr, (int* num_devices), (num_devices))
PDCHECK_VERBS_FORWARD(const char*, ibv_get_device_name, "?", (ibv_device * device), (device))
PDCHECK_VERBS_FORWARD(__be64, ibv_get_device_guid, 0, (ibv_device * device), (device))
PDCHECK_VERBS_FORWARD(ibv_context*, ibv_open_device, nullptr, (ibv_device * device), (device))
PDCHECK_VERBS_FORWARD(int, ibv_close_device, ENOSYS, (ibv_context * context), (context))
PDCHECK_VERBS_FORWARD(int, ibv_query_device, ENOSYS, (ibv_context * context, ibv_device_attr* attr), (context, attr))
PDCHECK_VERBS_FORWARD(int, ibv_query_port, ENOSYS,
                      (ibv_context * context, uint8_t port, struct _compat_ibv_port_attr* attr), (context, port, attr))
PDCHECK_VERBS_FORWARD(int, _ibv_query_gid_ex, ENOSYS,
                      (ibv_context * context, uint32_t port, uint32_t index, ibv_gid_entry* entry, uint32_t flags,
                       size_t entry_size),
                      (context, port, index, entry, flags, entry_size))
PDCHECK_VERBS_FORWARD(ibv_pd*, ibv_alloc_pd, nullptr, (ibv_context * context), (context))
PDCHECK_VERBS_FORWARD(int, ibv_dealloc_pd, ENOSYS, (ibv_pd * pd), (pd))
// verbs.h's ibv_reg_mr wrapper calls ibv_reg_mr itself when the access flags
// are a constant after inlining, ibv_reg_mr_iova2 otherwise.
PDCHECK_VERBS_FORWARD(ibv_mr*, ibv_reg_mr, nullptr, (ibv_pd * pd, void* addr, size_t length, int access),
                      (pd, addr, length, access))
PDCHECK_VERBS_FORWARD(ibv_mr*, ibv_reg_mr_iova, nullptr,
                      (ibv_pd * pd, void* addr, size_t length, uint64_t iova, int access),
                      (pd, addr, length, iova, access))
PDCHECK_VERBS_FORWARD(ibv_mr*, ibv_reg_mr_iova2, nullptr,
                      (ibv_pd * pd, void* addr, size_t length, uint64_t iova, unsigned int access),
                      (pd, addr, length, iova, access))
PDCHECK_VERBS_FORWARD(ibv_mr*, ibv_reg_dmabuf_mr, nullptr,
                      (ibv_pd * pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access),
                      (pd, offset, length, iova, fd, access))
PDCHECK_VERBS_FORWARD(int, ibv_dereg_mr, ENOSYS, (ibv_mr * mr), (mr))
PDCHECK_VERBS_FORWARD(ibv_cq*, ibv_create_cq, nullptr,
                      (ibv_context * context, int cqe, void* cq_context, ibv_comp_channel* channel, int comp_vector),
                      (context, cqe, cq_context, channel, comp_vector))
PDCHECK_VERBS_FORWARD(int, ibv_destroy_cq, ENOSYS, (ibv_cq * cq), (cq))
PDCHECK_VERBS_FORWARD(ibv_qp*, ibv_create_qp, nullptr, (ibv_pd * pd, ibv_qp_init_attr* attr), (pd, attr))
PDCHECK_VERBS_FORWARD(int, ibv_modify_qp, ENOSYS, (ibv_qp * qp, ibv_qp_attr* attr, int mask), (qp, attr, mask))
PDCHECK_VERBS_FORWARD(int, ibv_destroy_qp, ENOSYS, (ibv_qp * qp), (qp))
PDCHECK_VERBS_FORWARD(const char*, ibv_wc_status_str, "unknown completion status", (ibv_wc_status status), (status))

extern "C" void ibv_free_device_list(ibv_device** list)
{
  using Fn = void (*)(ibv_device**);
  static const Fn real = reinterpret_cast<Fn>(pdcheck::probe::symbol("ibv_free_device_list"));
  if (real != nullptr) {
    real(list);
  }
}
