#pragma once

#include "wire/bytes.hpp"
#include "wire/decoded.hpp"

#include <cstddef>
#include <vector>

namespace pdcheck::wire {

/// The shape of a Mori memory-descriptor frame: a msgpack array of opaque
/// descriptors (older single-state_type Mori, and the KV / aux frames), or an
/// array of such arrays (per-component state descriptors). The descriptors
/// themselves (MemoryDesc.pack()) stay opaque.
struct DescListShape
{
  bool nested = false;              ///< array of arrays
  std::vector<std::size_t> counts;  ///< nested: descriptors per component; flat: one count

  bool operator==(const DescListShape&) const = default;
};

/// Strict: the frame holds exactly one msgpack array whose elements are all
/// arrays (`nested`) or all non-arrays (flat); b"" is an empty list. Nesting is
/// limited and every count is checked against the bytes left before it is used.
/// `sglang` says what `msgspec.msgpack.decode` makes of malformed input.
Decoded<DescListShape> decode_desc_list(ByteView frame);

/// A msgpack array header for `count` elements, in the smallest form (as msgspec writes).
void append_msgpack_array_header(Bytes& out, std::size_t count);
/// A msgpack bin value, in the smallest form.
void append_msgpack_bin(Bytes& out, ByteView payload);

} // namespace pdcheck::wire
