#pragma once

#include "wire/bytes.hpp"
#include "wire/decoded.hpp"
#include "wire/int_lists.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace pdcheck::wire {

/// `str(n).encode("ascii")`.
Bytes encode_ascii_int(std::int64_t value);

/// Strict: exactly what str(n) writes (an optional '-', decimal digits, no
/// leading zeros, no spaces), fitting 64 bits. `sglang` follows
/// `int(frame.decode("ascii"))`: UnicodeDecodeError on a non-ASCII byte,
/// ValueError "invalid literal for int() with base 10: ..." on anything int()
/// refuses, while surrounding whitespace, a '+' sign, leading zeros and
/// underscores between digits are accepted.
Decoded<std::int64_t> decode_ascii_int(ByteView frame);

/// decode_ascii_int's strict verdict alone, without its errors or SGLang's
/// reading: a capture classifies a million messages by it.
bool is_str_int(ByteView frame);

/// decode_ascii_text's strict verdict alone.
bool is_ascii(ByteView frame);

/// Strict: ASCII only. `sglang` follows `frame.decode("ascii")`.
Decoded<std::string> decode_ascii_text(ByteView frame);

/// A native-order array (`b"".join(struct.pack("Q", x) ...)`); x86-64 and
/// aarch64 are little-endian, as pdcheck assumes. `format` is u64 or u32;
/// values above the format's range throw std::out_of_range.
Bytes encode_native_array(const std::vector<std::uint64_t>& values, IntFormat format);

/// Strict: a whole number of elements. `sglang` follows
/// `struct.unpack(f"{len(b)//w}{fmt}", b)`: struct.error when the size is not a
/// multiple of the width.
Decoded<std::vector<std::uint64_t>> decode_native_array(ByteView frame, IntFormat format);

/// `numpy.ndarray(int32).tobytes()`.
Bytes encode_int32_array(const std::vector<std::int32_t>& values);

/// Strict: a whole number of int32s. `sglang` follows `np.frombuffer(b, np.int32)`:
/// ValueError "buffer size must be a multiple of element size" otherwise.
Decoded<std::vector<std::int32_t>> decode_int32_array(ByteView frame);

/// decode_int32_array's strict verdict alone.
bool is_int32_array(ByteView frame);

} // namespace pdcheck::wire
