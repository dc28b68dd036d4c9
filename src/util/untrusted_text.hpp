#pragma once

// Text that another program chose (a probe peer's refusal reason, a server's
// answer) reaches terminals and reports only through printable_untrusted():
// a peer must not be able to fill a screen, move the cursor or change colours
// with escape sequences, or grow a report without bound.

#include <cstddef>
#include <string>
#include <string_view>

namespace pdcheck {

/// The most of one untrusted text that is shown: a refusal reason or an
/// error sentence is a line or two; anything longer is not meant for a reader.
inline constexpr std::size_t k_max_untrusted_text_bytes = 512;

/// `text` made safe to print: control characters (C0, DEL and the C1 range
/// U+0080..U+009F) are escaped as \n, \r, \t or \xNN / \u00NN, bytes that are
/// not UTF-8 as \xNN; past `max_bytes` of `text` (cut at a character
/// boundary) the rest is replaced by "… (N bytes more)".
std::string printable_untrusted(std::string_view text, std::size_t max_bytes = k_max_untrusted_text_bytes);

} // namespace pdcheck
