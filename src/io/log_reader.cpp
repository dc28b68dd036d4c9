#include "io/log_reader.hpp"

#include "io/input_file.hpp"
#include "util/byte_count.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace pdcheck::io {

namespace {

/// Closes a descriptor the reader opened (never standard input).
struct LogFd
{
  int fd = -1;
  bool owned = false;
  ~LogFd()
  {
    if (owned && fd >= 0) {
      ::close(fd);
    }
  }
};

/// Refuses what a log cannot be: a directory, and devices such as /dev/zero,
/// which never end. Pipes are logs (`explain <(kubectl logs ...)`).
void require_streamable(const std::string& path, int fd)
{
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    throw InputError(path, std::string("cannot read log: ") + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    throw InputError(path, std::string("cannot read log: ") + std::strerror(EISDIR));
  }
  if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)) {
    throw InputError(path, fmt::format("expected a log file or a pipe, got {}", file_type_name(st.st_mode)));
  }
}

/// How many leading bytes decide whether an input is text.
constexpr std::size_t k_sniff_bytes = 4096;

/// Refuses input whose first bytes are not text: a compressed log or a packet
/// capture given by mistake would otherwise be scanned as lines of garbage. Text
/// logs (UTF-8 included) never hold a NUL byte; these formats do, or start with a
/// magic number that says what they are.
void require_text(const std::string& path, std::string_view head)
{
  const auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  constexpr std::string_view k_expected = "expected a text log (plain or JSON lines), got ";
  if (starts("\x1f\x8b")) {
    throw InputError(path,
                     fmt::format("{}gzip-compressed data (decompress it: zcat FILE | pdcheck explain -)", k_expected));
  }
  if (starts("\x28\xb5\x2f\xfd")) {
    throw InputError(
      path, fmt::format("{}zstd-compressed data (decompress it: zstdcat FILE | pdcheck explain -)", k_expected));
  }
  if (starts("\xd4\xc3\xb2\xa1") || starts("\xa1\xb2\xc3\xd4") || starts("\x4d\x3c\xb2\xa1") ||
      starts("\xa1\xb2\x3c\x4d") || starts("\x0a\x0d\x0d\x0a")) {
    throw InputError(path, fmt::format("{}a packet capture (read it with `pdcheck capture`)", k_expected));
  }
  const std::size_t nul = head.find('\0');
  if (nul != std::string_view::npos) {
    throw InputError(path, fmt::format("{}binary data (a NUL byte at offset {})", k_expected, nul));
  }
}

} // namespace

LogReadSummary read_log_chunks(const std::string& path, const std::function<void(std::string_view)>& sink,
                               std::size_t chunk_bytes, std::size_t max_line_bytes)
{
  // POSIX read() on a file descriptor: no iostream overhead, and stdin and files
  // take the same path.
  LogFd in;
  in.owned = path != "-";
  in.fd = in.owned ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC) : 0;
  if (in.fd < 0) {
    throw InputError(path, std::string("cannot open log: ") + std::strerror(errno));
  }
  if (in.owned) {
    require_streamable(path, in.fd);
  }
  LogReadSummary summary;
  // Room for a whole line of the longest length plus more, so a read always has space.
  std::vector<char> buffer(std::max(chunk_bytes, max_line_bytes + 1));
  std::size_t kept = 0;       // bytes of an unfinished line carried over from the last read
  bool skipping = false;      // inside the rest of a line that was cut
  std::int64_t lines = 0;     // complete lines handed on so far
  // The first bytes are read ahead and checked to be text before any is handed
  // on (a pipe hands its bytes over in pieces, so this reads until it has them
  // all or the input ends); the loop then takes them before reading on.
  std::string head;
  while (head.size() < k_sniff_bytes) {
    char piece[k_sniff_bytes];
    const ssize_t got = ::read(in.fd, piece, k_sniff_bytes - head.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      throw InputError(path, std::string("cannot read log: ") + std::strerror(errno));
    }
    if (got == 0) {
      break;
    }
    head.append(piece, static_cast<std::size_t>(got));
  }
  require_text(path == "-" ? std::string("<stdin>") : path, head);
  std::size_t head_used = 0;
  const auto read_more = [&](char* dst, std::size_t room) -> ssize_t {
    if (head_used < head.size()) {
      const std::size_t n = std::min(room, head.size() - head_used);
      std::memcpy(dst, head.data() + head_used, n);
      head_used += n;
      return static_cast<ssize_t>(n);
    }
    return ::read(in.fd, dst, room);
  };
  // Hands on the first max_line_bytes of the line at `start`, ended by a newline
  // written over its next byte (which belongs to the part that is skipped).
  const auto hand_on_cut = [&](std::size_t start) {
    buffer[start + max_line_bytes] = '\n';
    sink(std::string_view(buffer.data() + start, max_line_bytes + 1));
    lines += 1;
    summary.cut_lines += 1;
    if (summary.first_cut_line == 0) {
      summary.first_cut_line = lines;
    }
  };
  while (true) {
    const ssize_t got = read_more(buffer.data() + kept, buffer.size() - kept);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      throw InputError(path, std::string("cannot read log: ") + std::strerror(errno));
    }
    if (got == 0) {
      break;
    }
    const std::size_t filled = kept + static_cast<std::size_t>(got);
    std::size_t pos = 0; // start of the line being looked at
    if (skipping) {
      const char* nl = static_cast<const char*>(std::memchr(buffer.data(), '\n', filled));
      if (nl == nullptr) {
        kept = 0;
        continue;
      }
      pos = static_cast<std::size_t>(nl - buffer.data()) + 1;
      skipping = false;
    }
    std::size_t ready = pos; // complete lines in [ready, pos) wait to be handed on together
    const auto flush = [&] {
      if (pos > ready) {
        sink(std::string_view(buffer.data() + ready, pos - ready));
      }
    };
    // The kept bytes hold no newline; the search starts in them all the same,
    // as a line's length counts from its start. One backward search a window
    // of max_line_bytes + 1 bytes: every line that ends in it fits, so the
    // lines are not looked at one by one.
    while (pos < filled) {
      const std::size_t window = std::min(filled - pos, max_line_bytes + 1);
      if (const auto* last = static_cast<const char*>(memrchr(buffer.data() + pos, '\n', window))) {
        const std::size_t end = static_cast<std::size_t>(last - buffer.data());
        lines += static_cast<std::int64_t>(util::count_byte({buffer.data() + pos, end + 1 - pos}, '\n'));
        pos = end + 1;
        continue;
      }
      if (window <= max_line_bytes) {
        break; // an unfinished line that still fits: kept for the next read
      }
      const std::size_t past = pos + max_line_bytes + 1;
      const auto* nl = static_cast<const char*>(std::memchr(buffer.data() + past, '\n', filled - past));
      if (nl == nullptr) {
        break; // too long already, and unfinished: cut below
      }
      flush();
      hand_on_cut(pos);
      pos = static_cast<std::size_t>(nl - buffer.data()) + 1;
      ready = pos;
    }
    flush();
    const std::size_t tail = filled - pos;
    if (tail > max_line_bytes) {
      hand_on_cut(pos);
      kept = 0;
      skipping = true;
      continue;
    }
    std::memmove(buffer.data(), buffer.data() + pos, tail);
    kept = tail;
  }
  if (kept > 0) {
    sink(std::string_view(buffer.data(), kept));
  }
  return summary;
}

} // namespace pdcheck::io
