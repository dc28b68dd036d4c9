#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace pdcheck::io {

/// The longest log line handed on whole. SGLang's longest lines (a traceback
/// frame, a server-args dump) are a few KiB; a longer "line" is binary data or
/// a file without newlines, and holding it whole would cost memory without end.
inline constexpr std::size_t k_max_log_line_bytes = std::size_t{1} << 20;

/// What read_log_chunks() had to leave out.
struct LogReadSummary
{
  std::int64_t cut_lines = 0;       ///< lines longer than the limit, of which only the start was handed on
  std::int64_t first_cut_line = 0;  ///< 1-based number of the first of them; 0 when none
};

/// Reads a log file, or standard input when `path` is "-", in large chunks and
/// hands each chunk to `sink`; every chunk but the last ends at a line boundary,
/// so a line is never split across two calls. A line longer than
/// `max_line_bytes` is handed on as its first `max_line_bytes` bytes and a
/// newline, and the rest of it is skipped (counted in the summary), so an
/// operator still gets every other line of a damaged log. Regular files and
/// pipes are read; throws InputError naming the path when the file cannot be
/// opened or read, or is a directory or a device.
LogReadSummary read_log_chunks(const std::string& path, const std::function<void(std::string_view)>& sink,
                               std::size_t chunk_bytes = std::size_t{16} << 20,
                               std::size_t max_line_bytes = k_max_log_line_bytes);

} // namespace pdcheck::io
