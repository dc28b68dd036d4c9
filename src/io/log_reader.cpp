#include "io/log_reader.hpp"

#include "util/error.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace pdcheck::io {

void read_log_chunks(const std::string& path, const std::function<void(std::string_view)>& sink,
                     std::size_t chunk_bytes)
{
  // POSIX read() on a file descriptor: no iostream overhead, and stdin and files
  // take the same path.
  const bool stdin_input = path == "-";
  const int fd = stdin_input ? 0 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw InputError(path, std::string("cannot open log: ") + std::strerror(errno));
  }
  std::vector<char> buffer(chunk_bytes);
  std::size_t kept = 0; // bytes of an unfinished line carried over from the last read
  while (true) {
    if (kept == buffer.size()) {
      buffer.resize(buffer.size() * 2); // one line longer than a chunk
    }
    const ssize_t got = ::read(fd, buffer.data() + kept, buffer.size() - kept);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int err = errno;
      if (!stdin_input) {
        ::close(fd);
      }
      throw InputError(path, std::string("cannot read log: ") + std::strerror(err));
    }
    if (got == 0) {
      break;
    }
    const std::size_t filled = kept + static_cast<std::size_t>(got);
    const char* last_nl = static_cast<const char*>(memrchr(buffer.data(), '\n', filled));
    if (last_nl == nullptr) {
      kept = filled;
      continue;
    }
    const std::size_t complete = static_cast<std::size_t>(last_nl - buffer.data()) + 1;
    sink(std::string_view(buffer.data(), complete));
    kept = filled - complete;
    std::memmove(buffer.data(), buffer.data() + complete, kept);
  }
  if (!stdin_input) {
    ::close(fd);
  }
  if (kept > 0) {
    sink(std::string_view(buffer.data(), kept));
  }
}

} // namespace pdcheck::io
