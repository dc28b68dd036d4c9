#pragma once

#include <string>
#include <string_view>

namespace pdcheck {

/// 64-bit FNV-1a of `text` as 16 hex digits: the same on every run and
/// platform, for fingerprints that CI systems and baselines compare.
std::string stable_hash(std::string_view text);

/// `text` with every run of digits folded to one '#': numbers change with the
/// sizes involved (ranks, offsets, byte counts), not with the problem, so
/// fingerprints and grouping compare texts without them.
std::string fold_digits(std::string_view text);

} // namespace pdcheck
