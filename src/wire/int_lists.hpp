#pragma once

#include "wire/bytes.hpp"
#include "wire/decoded.hpp"

#include <string_view>

namespace pdcheck::wire {

/// The struct format characters SGLang packs integer lists with.
enum class IntFormat {
  u64, ///< 'Q': pointers
  u32, ///< 'I': item lengths, dims, layer ids
  i32, ///< 'i': per-request state indices
};

/// 'Q', 'I' or 'i'.
char format_char(IntFormat format);
/// Bytes per element: 8 for 'Q', 4 otherwise.
std::size_t format_width(IntFormat format);

/// SGLang's `pack_int_lists(lists, fmt)` (common/utils.py): b"" for no lists,
/// otherwise a little-endian u32 count, one u32 *byte* length per list, then the
/// bodies, each little-endian at standard size. `format` is u64 or u32. Throws
/// std::out_of_range when a value does not fit the format (where Python's
/// struct.pack raises "argument out of range") or a list exceeds 4 GiB.
Bytes pack_int_lists(const U64Lists& lists, IntFormat format);

/// The same for format 'i' (per-request state indices).
Bytes pack_int_lists(const I32Lists& lists);

/// Strict inverse of pack_int_lists for u64 / u32. `issue` names the first byte
/// that pack_int_lists would not have written: a header too short for the count,
/// a count the frame cannot hold (checked before anything is allocated), a body
/// length that is not a multiple of the element width, a body that runs past the
/// frame, trailing bytes. `sglang` states what `unpack_int_lists` does with the
/// same bytes: it raises struct.error on a short header or on a body whose length
/// is not a multiple of the width, silently truncates bodies that run past the
/// end, and ignores trailing bytes; `sglang_value` is what it then holds.
Decoded<U64Lists> unpack_int_lists(ByteView frame, IntFormat format);

/// The same for format 'i'.
Decoded<I32Lists> unpack_int_lists_i32(ByteView frame);

/// True when `frame` is exactly a pack_int_lists encoding for elements of
/// `width` bytes (4 + 4n + sum(lens) == size, every length a multiple of the
/// width, at least one list: pack_int_lists never writes a bare zero count).
/// b"" counts as sane (no lists). Used to tell generations apart.
bool is_sane_int_lists(ByteView frame, std::size_t width);

/// "1 component, 72 entries" / "2 components, 72 + 1 entries" for evidence lines.
std::string describe_lists_shape(const U64Lists& lists);

} // namespace pdcheck::wire
