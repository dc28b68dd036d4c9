#include "wire/scalars.hpp"

#include "core/sglang_messages.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>

namespace pdcheck::wire {

namespace {

bool is_digit(unsigned char c)
{
  return c >= '0' && c <= '9';
}

// Python's str.isspace() for ASCII: \t \n \v \f \r, space, and \x1c..\x1f.
bool is_python_space(unsigned char c)
{
  return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

std::optional<std::size_t> first_non_ascii(ByteView frame)
{
  for (std::size_t i = 0; i < frame.size(); ++i) {
    if (frame[i] >= 0x80) {
      return i;
    }
  }
  return std::nullopt;
}

std::string unicode_error(ByteView frame, std::size_t at)
{
  return render_delivered(MessageId::wire_ascii_decode,
                          {{"byte", fmt::format("{:#04x}", frame[at])}, {"position", at}});
}

// Accumulates decimal digits into an int64 with the given sign; false on overflow.
bool accumulate(std::int64_t& value, unsigned char digit, bool negative)
{
  const std::int64_t d = digit - '0';
  if (negative) {
    if (value < (std::numeric_limits<std::int64_t>::min() + d) / 10) {
      return false;
    }
    value = value * 10 - d;
  } else {
    if (value > (std::numeric_limits<std::int64_t>::max() - d) / 10) {
      return false;
    }
    value = value * 10 + d;
  }
  return true;
}

// What int(text) does for ASCII text, as far as pdcheck can hold the result.
void python_int(ByteView frame, Decoded<std::int64_t>& out)
{
  const std::string text = to_string(frame);
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && is_python_space(static_cast<unsigned char>(text[begin]))) {
    ++begin;
  }
  while (end > begin && is_python_space(static_cast<unsigned char>(text[end - 1]))) {
    --end;
  }
  // Rendered only when int() raises: most frames are well-formed numbers.
  const auto invalid = [&text] {
    return render_delivered(MessageId::wire_invalid_int, {{"literal", python_str_repr(text)}});
  };
  std::size_t i = begin;
  bool negative = false;
  if (i < end && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  if (i == end) {
    out.sglang.raises = invalid();
    return;
  }
  std::int64_t value = 0;
  bool previous_digit = false;
  for (; i < end; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_digit(c)) {
      if (!accumulate(value, c, negative)) {
        out.sglang.notes.push_back("read an integer beyond 64 bits (pdcheck cannot hold it)");
        return;
      }
      previous_digit = true;
    } else if (c == '_' && previous_digit && i + 1 < end && is_digit(static_cast<unsigned char>(text[i + 1]))) {
      previous_digit = false;
    } else {
      out.sglang.raises = invalid();
      return;
    }
  }
  if (begin != 0 || end != text.size()) {
    out.sglang.notes.push_back("ignore the surrounding whitespace");
  }
  out.sglang_value = value;
}

std::string plural_bytes(std::size_t n)
{
  return fmt::format("{} {}", n, n == 1 ? "byte" : "bytes");
}

} // namespace

Bytes encode_ascii_int(std::int64_t value)
{
  return to_bytes(std::to_string(value));
}

Decoded<std::int64_t> decode_ascii_int(ByteView frame)
{
  Decoded<std::int64_t> out;
  const auto bad = first_non_ascii(frame);
  if (bad) {
    out.issue = WireIssue{*bad, fmt::format("expected an ASCII decimal integer, got the non-ASCII byte {:#04x}",
                                            frame[*bad])};
    out.sglang.raises = unicode_error(frame, *bad);
    return out;
  }
  python_int(frame, out);

  // Strict: the exact spelling of str(n).
  if (frame.empty()) {
    out.issue = WireIssue{0, "expected an ASCII decimal integer, got an empty frame"};
    return out;
  }
  std::size_t i = 0;
  const bool negative = frame[0] == '-';
  if (negative) {
    i = 1;
  }
  if (i == frame.size()) {
    out.issue = WireIssue{i, "expected a decimal digit after '-', got the end of the frame"};
    return out;
  }
  if (frame[i] == '0' && frame.size() > i + 1) {
    out.issue = WireIssue{i, fmt::format("expected a decimal integer as str() writes it, got a leading zero in {}",
                                         python_bytes_repr(frame))};
    return out;
  }
  std::int64_t value = 0;
  for (; i < frame.size(); ++i) {
    if (!is_digit(frame[i])) {
      out.issue = WireIssue{i, fmt::format("expected a decimal digit, got {} in {}",
                                           python_bytes_repr(frame.subspan(i, 1)), python_bytes_repr(frame))};
      return out;
    }
    if (!accumulate(value, frame[i], negative)) {
      out.issue = WireIssue{0, fmt::format("expected an integer that fits 64 bits, got {}", python_bytes_repr(frame))};
      return out;
    }
  }
  out.value = value;
  return out;
}

bool is_str_int(ByteView frame)
{
  std::size_t i = !frame.empty() && frame[0] == '-' ? 1 : 0;
  const bool negative = i == 1;
  if (i == frame.size() || (frame[i] == '0' && frame.size() > i + 1)) {
    return false;
  }
  std::int64_t value = 0;
  for (; i < frame.size(); ++i) {
    if (!is_digit(frame[i]) || !accumulate(value, frame[i], negative)) {
      return false;
    }
  }
  return true;
}

bool is_ascii(ByteView frame)
{
  return !first_non_ascii(frame).has_value();
}

Decoded<std::string> decode_ascii_text(ByteView frame)
{
  Decoded<std::string> out;
  const auto bad = first_non_ascii(frame);
  if (bad) {
    out.issue = WireIssue{*bad, fmt::format("expected ASCII text, got the non-ASCII byte {:#04x}", frame[*bad])};
    out.sglang.raises = unicode_error(frame, *bad);
    return out;
  }
  out.value = to_string(frame);
  out.sglang_value = out.value;
  return out;
}

Bytes encode_native_array(const std::vector<std::uint64_t>& values, IntFormat format)
{
  Bytes out;
  out.reserve(values.size() * format_width(format));
  for (std::uint64_t v : values) {
    if (format == IntFormat::u64) {
      append_le64(out, v);
    } else {
      if (v > std::numeric_limits<std::uint32_t>::max()) {
        throw std::out_of_range(
          fmt::format("native 'I' array: value {} does not fit (struct.error: argument out of range)", v));
      }
      append_le32(out, static_cast<std::uint32_t>(v));
    }
  }
  return out;
}

Decoded<std::vector<std::uint64_t>> decode_native_array(ByteView frame, IntFormat format)
{
  Decoded<std::vector<std::uint64_t>> out;
  const std::size_t width = format_width(format);
  const std::size_t whole = frame.size() / width * width;
  if (whole != frame.size()) {
    out.issue = WireIssue{whole, fmt::format("expected a native '{}' array ({} bytes per element), got {} left over",
                                             format_char(format), width, plural_bytes(frame.size() - whole))};
    out.sglang.raises = render_delivered(MessageId::wire_struct_unpack, {{"size", whole}});
    return out;
  }
  std::vector<std::uint64_t> values;
  values.reserve(frame.size() / width);
  for (std::size_t at = 0; at < frame.size(); at += width) {
    values.push_back(width == 8 ? read_le64(frame, at) : read_le32(frame, at));
  }
  out.value = values;
  out.sglang_value = std::move(values);
  return out;
}

Bytes encode_int32_array(const std::vector<std::int32_t>& values)
{
  Bytes out;
  out.reserve(values.size() * 4);
  for (std::int32_t v : values) {
    append_le32(out, static_cast<std::uint32_t>(v));
  }
  return out;
}

bool is_int32_array(ByteView frame)
{
  return frame.size() % 4 == 0;
}

Decoded<std::vector<std::int32_t>> decode_int32_array(ByteView frame)
{
  Decoded<std::vector<std::int32_t>> out;
  const std::size_t whole = frame.size() / 4 * 4;
  if (whole != frame.size()) {
    out.issue = WireIssue{whole, fmt::format("expected an int32 array (4 bytes per element), got {} left over",
                                             plural_bytes(frame.size() - whole))};
    out.sglang.raises = render_delivered(MessageId::wire_int32_buffer, {});
    return out;
  }
  std::vector<std::int32_t> values;
  values.reserve(frame.size() / 4);
  for (std::size_t at = 0; at < frame.size(); at += 4) {
    values.push_back(static_cast<std::int32_t>(read_le32(frame, at)));
  }
  out.value = values;
  out.sglang_value = std::move(values);
  return out;
}

} // namespace pdcheck::wire
