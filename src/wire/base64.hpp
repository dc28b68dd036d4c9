#pragma once

#include "wire/bytes.hpp"
#include "wire/decoded.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::wire {

/// Standard base64 (RFC 4648 alphabet, '=' padding), as Python's base64.b64encode writes it.
std::string base64_encode(ByteView bytes);

/// Strict inverse of base64_encode: only the standard alphabet, length a
/// multiple of 4, padding only at the end, unused bits zero (so every accepted
/// text is the one base64_encode would write). On failure `issue` holds the
/// offset of the offending character in the text.
std::optional<Bytes> base64_decode(std::string_view text, WireIssue* issue);

/// Lower-case hex, two digits per byte.
std::string hex_encode(ByteView bytes);

/// Strict hex: an even number of [0-9a-fA-F] characters, nothing else.
std::optional<Bytes> hex_decode(std::string_view text, WireIssue* issue);

} // namespace pdcheck::wire
