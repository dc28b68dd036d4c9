#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace pdcheck::io {

/// Reads a log file, or standard input when `path` is "-", in large chunks and
/// hands each chunk to `sink`; every chunk but the last ends at a line boundary,
/// so a line is never split across two calls. Throws InputError naming the path
/// when the file cannot be opened or read.
void read_log_chunks(const std::string& path, const std::function<void(std::string_view)>& sink,
                     std::size_t chunk_bytes = std::size_t{16} << 20);

} // namespace pdcheck::io
