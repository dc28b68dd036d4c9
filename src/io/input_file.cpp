#include "io/input_file.hpp"

#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace pdcheck::io {

namespace {

/// Closes the descriptor on every path out of read_input_file().
struct FdCloser
{
  int fd = -1;
  ~FdCloser()
  {
    if (fd >= 0) {
      ::close(fd);
    }
  }
};

InputError unreadable(const std::string& path, const InputKind& kind, int err)
{
  return InputError(path, fmt::format("cannot read {}: {}", kind.name, std::strerror(err)));
}

InputError too_large(const std::string& path, const InputKind& kind, std::uintmax_t bytes)
{
  return InputError(path, fmt::format("expected a {} of at most {}, got {} bytes", kind.name,
                                      size_text(kind.max_bytes), bytes));
}

} // namespace

std::string_view file_type_name(unsigned mode)
{
  switch (mode & S_IFMT) {
  case S_IFREG: return "a regular file";
  case S_IFDIR: return "a directory";
  case S_IFCHR: return "a character device";
  case S_IFBLK: return "a block device";
  case S_IFIFO: return "a pipe";
  case S_IFSOCK: return "a socket";
  default: return "not a regular file";
  }
}

std::string size_text(std::uintmax_t bytes)
{
  if (bytes % k_mib == 0) {
    return fmt::format("{} MiB", bytes / k_mib);
  }
  return fmt::format("{} bytes", bytes);
}

std::string read_standard_input(const InputKind& kind)
{
  const std::string name = "<stdin>";
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw unreadable(name, kind, errno);
    }
    if (got == 0) {
      return text;
    }
    if (text.size() + static_cast<std::size_t>(got) > kind.max_bytes) {
      throw InputError(name, fmt::format("expected a {} of at most {}", kind.name, size_text(kind.max_bytes)));
    }
    text.append(buffer, static_cast<std::size_t>(got));
  }
}

std::string read_input_file(const std::string& path, const InputKind& kind)
{
  // O_NONBLOCK: opening a FIFO must not wait for a writer before it is refused
  // (it has no effect on the regular files that are read).
  FdCloser file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (file.fd < 0) {
    throw unreadable(path, kind, errno);
  }
  // fstat of the open descriptor: the file checked is the file read, whatever
  // a symlink pointed to or the path names by now.
  struct stat st{};
  if (::fstat(file.fd, &st) != 0) {
    throw unreadable(path, kind, errno);
  }
  if (S_ISDIR(st.st_mode)) {
    throw unreadable(path, kind, EISDIR);
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(path, fmt::format("expected a {}, got {}", kind.name, file_type_name(st.st_mode)));
  }
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > kind.max_bytes) {
    throw too_large(path, kind, size);
  }
  std::string text;
  try {
    // One byte more than fstat said: a read that fills it means the file grew
    // (or, in /proc, reported no size), so reading goes on up to the limit.
    text.resize(static_cast<std::size_t>(size) + 1);
    std::size_t filled = 0;
    for (;;) {
      if (filled == text.size()) {
        if (filled > kind.max_bytes) {
          throw InputError(path, fmt::format("expected a {} of at most {}; it grew past that while it was read",
                                             kind.name, size_text(kind.max_bytes)));
        }
        text.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(kind.max_bytes + 1, text.size() * 2 + 4096)));
      }
      const ssize_t got = ::read(file.fd, text.data() + filled, text.size() - filled);
      if (got < 0) {
        if (errno == EINTR) {
          continue;
        }
        throw unreadable(path, kind, errno);
      }
      if (got == 0) {
        break;
      }
      filled += static_cast<std::size_t>(got);
    }
    text.resize(filled);
  } catch (const std::bad_alloc&) {
    throw CannotRun(fmt::format("{}: out of memory reading the {} ({} bytes)", path, kind.name, size));
  }
  return text;
}

} // namespace pdcheck::io
