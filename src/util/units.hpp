#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

namespace pdcheck {

/// A byte count as people read it, in binary units with one decimal:
/// "512 bytes", "24.0 KiB", "69.4 MiB", "1.2 GiB".
inline std::string bytes_text(std::uint64_t bytes)
{
  constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) {
    return fmt::format("{} bytes", bytes);
  }
  double value = static_cast<double>(bytes) / 1024.0;
  std::size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, units[unit]);
}

} // namespace pdcheck
