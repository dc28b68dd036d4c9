// pdcheck-mpi.so: the MPI calls of `probe fleet --mpi`, behind the C entry
// points of probe/mpi_module_abi.h. Built only when CMake finds MPI; loaded
// with dlopen by probe/mpi_launcher.cpp. MPI's calls wait without a deadline;
// every call here starts a non-blocking one and tests it until its deadline,
// and the two that cannot be made non-blocking (MPI_Init, MPI_Finalize) run on
// a thread of their own that is left behind when the deadline passes.

#include "probe/mpi_module_abi.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// The module's state: MPI is usable only while `healthy` (initialised, and no
/// call given up on since: an abandoned request still pending would make the
/// next collective, or MPI_Finalize, wait for ranks that are not there).
struct State
{
  bool initialised = false;
  bool healthy = false;
  int rank = 0;
  int size = 1;
};

State& state()
{
  static State s;
  return s;
}

int fail(char* error, int error_size, const std::string& what)
{
  if (error != nullptr && error_size > 0) {
    std::snprintf(error, static_cast<std::size_t>(error_size), "%s", what.c_str());
  }
  return -1;
}

std::string mpi_error_text(int code)
{
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return "MPI error " + std::to_string(code);
  }
  return std::string(text, static_cast<std::size_t>(length));
}

std::string seconds_text(double seconds)
{
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

/// Runs `work` on a thread of its own and waits for it up to `seconds`; false
/// when it is still running then (the thread is detached and finishes, or
/// not, on its own: its captures are shared, so it never touches a freed frame).
bool run_with_deadline(std::function<void()> work, double seconds)
{
  struct Shared
  {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, work = std::move(work)] {
    work();
    std::lock_guard lock(shared->mutex);
    shared->done = true;
    shared->done_cv.notify_all();
  }).detach();
  std::unique_lock lock(shared->mutex);
  return shared->done_cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return shared->done; });
}

/// Tests `requests` until all complete or `seconds` pass; returns the MPI error
/// code, or -1 at the deadline (the requests stay pending: MPI is then unhealthy).
int wait_all(MPI_Request* requests, int count, double seconds)
{
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    int done = 0;
    const int rc = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) {
      return rc;
    }
    if (done != 0) {
      return MPI_SUCCESS;
    }
    if (Clock::now() >= deadline) {
      return -1;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000)); // progress without spinning a core
  }
}

int init(double seconds, int* rank, int* size, int* local_rank, char* error, int error_size)
{
  State& s = state();
  if (s.initialised) {
    return fail(error, error_size, "MPI is already initialised");
  }
  struct Result
  {
    int rc = MPI_SUCCESS;
    int provided = 0;
    int rank = 0, size = 1, local_rank = 0;
    std::string failure;
  };
  auto result = std::make_shared<Result>();
  const bool finished = run_with_deadline(
    [result] {
      Result& r = *result;
      r.rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &r.provided);
      if (r.rc != MPI_SUCCESS) {
        return;
      }
      // Errors come back as codes, not an abort of the job: each one is a
      // one-line reason in pdcheck's report.
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
      MPI_Comm_size(MPI_COMM_WORLD, &r.size);
      MPI_Comm host = MPI_COMM_NULL;
      if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host) == MPI_SUCCESS) {
        MPI_Comm_rank(host, &r.local_rank);
        MPI_Comm_free(&host);
      }
    },
    seconds);
  if (!finished) {
    return fail(error, error_size,
                "MPI_Init did not finish within " + seconds_text(seconds) +
                  " s (it waits for every rank of the job to start)");
  }
  if (result->rc != MPI_SUCCESS) {
    return fail(error, error_size, "MPI_Init_thread failed: " + mpi_error_text(result->rc));
  }
  s.initialised = true;
  if (result->provided < MPI_THREAD_SERIALIZED) {
    return fail(error, error_size, "this MPI library cannot be called from more than one thread (MPI_THREAD_SERIALIZED)");
  }
  s.healthy = true;
  s.rank = *rank = result->rank;
  s.size = *size = result->size;
  *local_rank = result->local_rank;
  return 0;
}

bool usable(char* error, int error_size)
{
  if (!state().healthy) {
    fail(error, error_size, state().initialised ? "an earlier MPI call was given up on" : "MPI is not initialised");
    return false;
  }
  return true;
}

/// Ends a call that started non-blocking requests: 0, or -1 with the reason
/// (and MPI marked unusable when they were given up on).
int finish(int rc, const char* call, double seconds, char* error, int error_size)
{
  if (rc == MPI_SUCCESS) {
    return 0;
  }
  state().healthy = false;
  if (rc == -1) {
    return fail(error, error_size, std::string(call) + " did not complete within " + seconds_text(seconds) + " s");
  }
  return fail(error, error_size, std::string(call) + " failed: " + mpi_error_text(rc));
}

/// A buffer a non-blocking call works on. The caller's memory is never handed
/// to MPI: when a call is given up on, MPI may still write or read its buffer
/// later, so that buffer is then left allocated (release() forgets it).
class OwnedBuffer
{
public:
  explicit OwnedBuffer(std::size_t size) : m_data(new char[size]()) {}
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;
  ~OwnedBuffer() { delete[] m_data; }
  char* data() { return m_data; }
  void release() { m_data = nullptr; } // leaked on purpose: MPI may still use it

private:
  char* m_data;
};

int broadcast(char* text, int capacity, double seconds, char* error, int error_size)
{
  if (!usable(error, error_size)) {
    return -1;
  }
  OwnedBuffer buffer(static_cast<std::size_t>(capacity));
  if (state().rank == 0) {
    std::snprintf(buffer.data(), static_cast<std::size_t>(capacity), "%s", text);
  }
  MPI_Request request = MPI_REQUEST_NULL;
  int rc = MPI_Ibcast(buffer.data(), capacity, MPI_CHAR, 0, MPI_COMM_WORLD, &request);
  if (rc == MPI_SUCCESS) {
    rc = wait_all(&request, 1, seconds);
  }
  if (rc != MPI_SUCCESS && request != MPI_REQUEST_NULL) {
    buffer.release();
  }
  if (rc == MPI_SUCCESS) {
    buffer.data()[capacity - 1] = '\0'; // whatever rank 0 sent, a C string here
    std::memcpy(text, buffer.data(), static_cast<std::size_t>(capacity));
  }
  return finish(rc, "MPI_Ibcast", seconds, error, error_size);
}

int gather(const char* mine, char* texts, int capacity, double seconds, char* error, int error_size)
{
  if (!usable(error, error_size)) {
    return -1;
  }
  const State& s = state();
  constexpr int tag = 0x7064; // "pd"
  if (s.rank != 0) {
    const std::size_t length = std::min<std::size_t>(std::strlen(mine), static_cast<std::size_t>(capacity - 1));
    OwnedBuffer message(length + 1);
    std::memcpy(message.data(), mine, length);
    MPI_Request request = MPI_REQUEST_NULL;
    int rc = MPI_Isend(message.data(), static_cast<int>(length), MPI_CHAR, 0, tag, MPI_COMM_WORLD, &request);
    if (rc == MPI_SUCCESS) {
      rc = wait_all(&request, 1, seconds);
    }
    if (rc != MPI_SUCCESS && request != MPI_REQUEST_NULL) {
      message.release();
    }
    return finish(rc, "MPI_Isend to rank 0", seconds, error, error_size);
  }
  // Point-to-point rather than MPI_Igather: a rank that is late is then left
  // out by itself (its slot stays "") instead of holding back everyone's.
  const std::size_t slot = static_cast<std::size_t>(capacity);
  const std::size_t ranks = static_cast<std::size_t>(s.size);
  OwnedBuffer inbox(slot * ranks); // zeroed: each slot ends NUL-terminated (capacity - 1 received at most)
  std::vector<MPI_Request> requests(ranks, MPI_REQUEST_NULL);
  for (std::size_t r = 1; r < ranks; ++r) {
    const int rc = MPI_Irecv(inbox.data() + slot * r, capacity - 1, MPI_CHAR, static_cast<int>(r), tag,
                             MPI_COMM_WORLD, &requests[r]);
    if (rc != MPI_SUCCESS) {
      inbox.release(); // the receives posted so far still write into it
      return finish(rc, "MPI_Irecv", seconds, error, error_size);
    }
  }
  const int rc = wait_all(requests.data(), s.size, seconds);
  if (rc != MPI_SUCCESS && rc != -1) {
    inbox.release();
    return finish(rc, "MPI_Irecv", seconds, error, error_size);
  }
  if (rc == -1) {
    // Who is late is what rank 0 reports; their receives are cancelled so
    // that MPI_Finalize does not wait for them (one that matched meanwhile
    // completes instead, and counts).
    bool all_ended = true;
    for (std::size_t r = 1; r < ranks; ++r) {
      if (requests[r] == MPI_REQUEST_NULL) {
        continue;
      }
      MPI_Cancel(&requests[r]);
      MPI_Status status;
      int cancelled = 0;
      if (MPI_Wait(&requests[r], &status) != MPI_SUCCESS) {
        all_ended = false;
        continue;
      }
      if (MPI_Test_cancelled(&status, &cancelled) == MPI_SUCCESS && cancelled != 0) {
        inbox.data()[slot * r] = '\0';
      }
    }
    if (!all_ended) {
      inbox.release();
      state().healthy = false;
      return fail(error, error_size, "MPI_Irecv: a late rank's receive could not be cancelled");
    }
  }
  std::memcpy(texts, inbox.data(), slot * ranks);
  std::snprintf(texts, slot, "%s", mine);
  return 0;
}

int finalize(double seconds, char* error, int error_size)
{
  State& s = state();
  if (!s.healthy) {
    return 0; // see the header: finalizing would wait for ranks given up on
  }
  s.healthy = false;
  auto rc = std::make_shared<int>(MPI_SUCCESS);
  if (!run_with_deadline([rc] { *rc = MPI_Finalize(); }, seconds)) {
    return fail(error, error_size, "MPI_Finalize did not complete within " + seconds_text(seconds) + " s");
  }
  return *rc == MPI_SUCCESS ? 0 : fail(error, error_size, "MPI_Finalize failed: " + mpi_error_text(*rc));
}

std::string implementation_name()
{
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length); // callable before MPI_Init
  std::string name(text, static_cast<std::size_t>(std::max(length, 0)));
  name = name.substr(0, name.find_first_of("\r\n"));
  return name.substr(0, name.find(','));
}

/// No C++ exception crosses the C interface: one (out of memory, a thread
/// that cannot start) is a failure with its text, and MPI is no longer used.
template <auto Call, typename... Args>
int guarded(char* error, int error_size, Args... args) noexcept
{
  try {
    return Call(args..., error, error_size);
  } catch (const std::exception& e) {
    state().healthy = false;
    return fail(error, error_size, std::string("the MPI module failed: ") + e.what());
  } catch (...) {
    state().healthy = false;
    return fail(error, error_size, "the MPI module failed");
  }
}

int init_entry(double seconds, int* rank, int* size, int* local_rank, char* error, int error_size) noexcept
{
  return guarded<init>(error, error_size, seconds, rank, size, local_rank);
}

int broadcast_entry(char* text, int capacity, double seconds, char* error, int error_size) noexcept
{
  return guarded<broadcast>(error, error_size, text, capacity, seconds);
}

int gather_entry(const char* mine, char* texts, int capacity, double seconds, char* error, int error_size) noexcept
{
  return guarded<gather>(error, error_size, mine, texts, capacity, seconds);
}

int finalize_entry(double seconds, char* error, int error_size) noexcept
{
  return guarded<finalize>(error, error_size, seconds);
}

} // namespace

extern "C" __attribute__((visibility("default"))) const pdcheck_mpi_module* pdcheck_mpi_entry(void)
{
  static const std::string implementation = implementation_name();
  static const pdcheck_mpi_module entry_points = {PDCHECK_MPI_ABI_VERSION, implementation.c_str(), init_entry,
                                                  broadcast_entry, gather_entry, finalize_entry};
  return &entry_points;
}
