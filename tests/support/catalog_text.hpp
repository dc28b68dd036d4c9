#pragma once

// SGLang's texts as tests expect them, rendered from the one catalog
// (core/sglang_messages.def) with the test's hand-computed values.

#include "core/sglang_messages.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::test {

/// The row's `text` with its values, without the tail later releases append:
/// what `pdcheck explain LOG` matches and reports as the runtime error.
inline std::string message_head(MessageId id, MessageArgs args)
{
  const std::string full = render_message(id, args);
  return full.substr(0, full.size() - sglang_message(id).tail.size());
}

/// `n` copies of `value` followed by `m` copies of `then`: a per-entry list such
/// as item_lens (conv entries of every layer, then temporal entries).
inline std::vector<std::uint64_t> repeated(std::uint64_t value, int n, std::uint64_t then = 0, int m = 0)
{
  std::vector<std::uint64_t> out(static_cast<std::size_t>(n), value);
  out.insert(out.end(), static_cast<std::size_t>(m), then);
  return out;
}

} // namespace pdcheck::test
