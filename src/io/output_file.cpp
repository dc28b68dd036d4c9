#include "io/output_file.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace pdcheck::io {

namespace {

// The temporary files the SIGINT handler must remove. A signal handler may
// only touch lock-free atomics and plain memory the main program no longer
// changes, so a slot's path is written while the slot is not yet live.
constexpr int k_slots = 8; // one file is written at a time; a few spare

struct Slot
{
  std::atomic<int> state{0}; ///< 0 free, 1 claimed (path being copied), 2 live
  char path[PATH_MAX] = {};
};

static_assert(std::atomic<int>::is_always_lock_free, "the SIGINT handler reads slot states");

Slot g_slots[k_slots];
// Exit status per signal number, set before its handler is installed.
constexpr int k_max_signal = 32;
volatile std::sig_atomic_t g_exit_status[k_max_signal] = {};

void remove_temporaries_and_exit(int signo)
{
  for (Slot& s : g_slots) {
    if (s.state.load() == 2) {
      ::unlink(s.path);
    }
  }
  ::_exit(g_exit_status[signo]);
}

int claim_slot(const std::string& path)
{
  if (path.size() >= PATH_MAX) {
    return -1; // open() would fail with ENAMETOOLONG anyway
  }
  for (int i = 0; i < k_slots; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      return i;
    }
  }
  throw std::logic_error("more output files open at once than the interrupt registry holds");
}

void release_slot(int slot) noexcept
{
  if (slot >= 0) {
    g_slots[slot].state.store(0);
  }
}

/// SIGINT held back in this thread for a scope: between creating a temporary
/// file and registering it there is then no moment a handler could miss it.
class SigintHeld
{
public:
  SigintHeld()
  {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, &m_old);
  }
  ~SigintHeld() { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
  SigintHeld(const SigintHeld&) = delete;
  SigintHeld& operator=(const SigintHeld&) = delete;

private:
  sigset_t m_old;
};

std::string errno_text(int err)
{
  return std::string("cannot write: ") + std::strerror(err);
}

int open_in_place(const std::string& path, const std::string& where)
{
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    throw InputError(where, errno_text(errno));
  }
  return fd;
}

} // namespace

OutputFile::OutputFile(std::string path, std::string where) : m_path(std::move(path)), m_where(std::move(where))
{
  struct stat st{};
  bool exists = false;
  if (::stat(m_path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      m_fd = open_in_place(m_path, m_where); // a FIFO, a device, a directory (EISDIR)
      return;
    }
    exists = true;
    // Through a symlink the link stays and the file it names is replaced.
    if (char* real = ::realpath(m_path.c_str(), nullptr)) {
      m_path = real;
      std::free(real);
    }
  } else if (errno != ENOENT) {
    throw InputError(m_where, errno_text(errno));
  } else if (struct stat lst{}; ::lstat(m_path.c_str(), &lst) == 0) {
    m_fd = open_in_place(m_path, m_where); // a dangling symlink: creates what it names, as before
    return;
  }

  const auto slash = m_path.rfind('/');
  const std::string dir = slash == std::string::npos ? std::string() : m_path.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? m_path : m_path.substr(slash + 1);
  // Hidden, and not ending in .json: `check --decode-capture DIR` never reads one.
  for (int n = 0;; ++n) {
    const std::string temp = fmt::format("{}.{}.{}.{}.tmp", dir, base, ::getpid(), n);
    int err = 0;
    {
      const SigintHeld held;
      m_slot = claim_slot(temp);
      m_fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      err = errno;
      if (m_fd >= 0 && m_slot >= 0) {
        g_slots[m_slot].state.store(2);
      } else if (m_fd < 0) {
        release_slot(m_slot);
        m_slot = -1;
      }
    }
    if (m_fd >= 0) {
      m_temp = temp;
      break;
    }
    if (err == EEXIST && n < 100) {
      continue; // a leftover of a killed run with our pid
    }
    if (exists) {
      // No temporary can be made next to it (a read-only directory holding a
      // writable file): write it in place, as pdcheck always did.
      m_fd = open_in_place(m_path, m_where);
      return;
    }
    throw InputError(m_where, errno_text(err));
  }
  if (exists) {
    ::fchmod(m_fd, st.st_mode & 07777); // best effort: the replaced file's mode
  }
}

OutputFile::~OutputFile()
{
  discard();
}

void OutputFile::discard() noexcept
{
  if (m_fd >= 0) {
    ::close(m_fd);
    m_fd = -1;
  }
  if (!m_temp.empty()) {
    ::unlink(m_temp.c_str());
    m_temp.clear();
  }
  release_slot(m_slot);
  m_slot = -1;
}

void OutputFile::write(std::string_view bytes)
{
  if (m_fd < 0) {
    throw std::logic_error("OutputFile::write after commit");
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(m_fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int err = errno;
      discard();
      throw InputError(m_where, errno_text(err));
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void OutputFile::commit()
{
  if (m_fd < 0) {
    throw std::logic_error("OutputFile::commit twice");
  }
  // close() reports the deferred write errors of some file systems (NFS).
  const int closed = ::close(m_fd);
  m_fd = -1;
  if (closed != 0) {
    const int err = errno;
    discard();
    throw InputError(m_where, errno_text(err));
  }
  if (m_temp.empty()) {
    return; // written in place
  }
  if (::rename(m_temp.c_str(), m_path.c_str()) != 0) {
    const int err = errno;
    discard();
    throw InputError(m_where, errno_text(err));
  }
  // A SIGINT from here on unlinks a name that no longer exists: harmless.
  m_temp.clear();
  release_slot(m_slot);
  m_slot = -1;
}

void write_output_file(const std::string& path, std::string_view bytes, const std::string& where)
{
  OutputFile file(path, where);
  file.write(bytes);
  file.commit();
}

void exit_on_signal(int signo, int exit_status)
{
  if (signo <= 0 || signo >= k_max_signal) {
    throw std::logic_error("exit_on_signal: signal number out of range");
  }
  struct sigaction old{};
  if (::sigaction(signo, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) {
    return;
  }
  g_exit_status[signo] = exit_status;
  struct sigaction sa{};
  sa.sa_handler = remove_temporaries_and_exit;
  sigemptyset(&sa.sa_mask);
  // Both handled signals are blocked while one runs: the first one decides the status.
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  ::sigaction(signo, &sa, nullptr);
}

} // namespace pdcheck::io
