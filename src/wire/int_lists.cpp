#include "wire/int_lists.hpp"

#include "core/sglang_messages.hpp"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <type_traits>

namespace pdcheck::wire {

namespace {

std::string plural(std::uint64_t n, std::string_view one, std::string_view many)
{
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

template <typename T>
T read_element(ByteView bytes, std::size_t at, IntFormat format)
{
  switch (format) {
  case IntFormat::u64: return static_cast<T>(read_le64(bytes, at));
  case IntFormat::u32: return static_cast<T>(read_le32(bytes, at));
  case IntFormat::i32: return static_cast<T>(static_cast<std::int32_t>(read_le32(bytes, at)));
  }
  return T{};
}

template <typename T>
std::vector<T> read_body(ByteView bytes, std::size_t at, std::size_t count, IntFormat format)
{
  std::vector<T> out;
  out.reserve(count);
  const std::size_t width = format_width(format);
  for (std::size_t i = 0; i < count; ++i) {
    out.push_back(read_element<T>(bytes, at + i * width, format));
  }
  return out;
}

template <typename T>
Bytes pack_impl(const std::vector<std::vector<T>>& lists, IntFormat format)
{
  if (lists.empty()) {
    return {};
  }
  const std::size_t width = format_width(format);
  Bytes out;
  append_le32(out, static_cast<std::uint32_t>(lists.size()));
  for (const auto& list : lists) {
    const std::uint64_t length = static_cast<std::uint64_t>(list.size()) * width;
    if (length > std::numeric_limits<std::uint32_t>::max()) {
      throw std::out_of_range(fmt::format("pack_int_lists: a list of {} elements does not fit a u32 byte length",
                                          list.size()));
    }
    append_le32(out, static_cast<std::uint32_t>(length));
  }
  for (const auto& list : lists) {
    for (T value : list) {
      if (format == IntFormat::u64) {
        append_le64(out, static_cast<std::uint64_t>(value));
      } else if (format == IntFormat::u32) {
        if constexpr (std::is_unsigned_v<T>) {
          if (value > std::numeric_limits<std::uint32_t>::max()) {
            throw std::out_of_range(fmt::format(
              "pack_int_lists: value {} does not fit format 'I' (struct.error: argument out of range)", value));
          }
        }
        append_le32(out, static_cast<std::uint32_t>(value));
      } else {
        append_le32(out, static_cast<std::uint32_t>(static_cast<std::int32_t>(value)));
      }
    }
  }
  return out;
}

template <typename T>
Decoded<std::vector<std::vector<T>>> unpack_impl(ByteView frame, IntFormat format)
{
  Decoded<std::vector<std::vector<T>>> result;
  const std::size_t size = frame.size();
  const std::size_t width = format_width(format);
  const char fmt_char = format_char(format);

  if (size == 0) {
    result.sglang_value.emplace();
    return result;
  }
  if (size < 4) {
    result.issue = WireIssue{0, fmt::format("expected a 4-byte little-endian sub-list count (pack_int_lists header), "
                                            "got {}",
                                            plural(size, "byte", "bytes"))};
    result.sglang.raises = render_delivered(MessageId::wire_struct_unpack, {{"size", 4}});
    return result;
  }
  const std::uint64_t count = read_le32(frame, 0);
  const std::uint64_t header = 4 + 4 * count;
  if (header > size) {
    // The count comes from the wire: it is checked against the frame before
    // anything is sized by it, so a count of 2^31 costs nothing.
    result.issue = WireIssue{
      0, fmt::format("expected a sub-list count of at most {} (a {}-byte frame holds no more lengths), got {}",
                     (size - 4) / 4, size, count)};
    result.sglang.raises = render_delivered(MessageId::wire_struct_unpack, {{"size", 4 * count}});
    return result;
  }

  if (count == 0) {
    // pack_int_lists writes b"" for no lists, never a bare zero count.
    result.issue = WireIssue{0, "expected b'' for no sub-lists (pack_int_lists writes no header then), got a count "
                                "of 0"};
  }

  std::vector<std::uint64_t> lengths;
  lengths.reserve(count);
  for (std::uint64_t k = 0; k < count; ++k) {
    lengths.push_back(read_le32(frame, 4 + 4 * k));
  }

  // Strict: every declared length is a whole number of elements and lies inside the frame.
  std::uint64_t offset = header;
  for (std::uint64_t k = 0; k < count && !result.issue; ++k) {
    const std::uint64_t length = lengths[k];
    if (length % width != 0) {
      result.issue =
        WireIssue{4 + 4 * k, fmt::format("sub-list {} declares {} bytes, expected a multiple of {} (format '{}')", k,
                                         length, width, fmt_char)};
    } else if (offset + length > size) {
      result.issue = WireIssue{4 + 4 * k, fmt::format("sub-list {} declares {} bytes at byte {}, but only {} remain", k,
                                                      length, offset, plural(size - offset, "byte", "bytes"))};
    }
    offset += length;
  }
  if (!result.issue && offset < size) {
    result.issue = WireIssue{
      offset, fmt::format("expected the frame to end after {}, got {} more {}", plural(count, "sub-list", "sub-lists"),
                          size - offset, size - offset == 1 ? "byte" : "bytes")};
  }

  // SGLang: slice each body at its declared offset (Python slices clamp at the
  // end), then struct.unpack(f"<{len(b)//w}{fmt}", b), which raises only when
  // the slice is not a whole number of elements.
  std::vector<std::vector<T>> sglang_lists;
  sglang_lists.reserve(count);
  offset = header;
  bool raised = false;
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t declared = lengths[k];
    const std::uint64_t start = offset < size ? offset : size;
    const std::uint64_t end = offset + declared < size ? offset + declared : size;
    const std::uint64_t got = end - start;
    if (got < declared) {
      result.sglang.notes.push_back(
        fmt::format("silently truncate sub-list {} to {} of its {} declared bytes", k, got, declared));
    }
    if (!raised && got % width != 0) {
      result.sglang.raises = render_delivered(MessageId::wire_struct_unpack, {{"size", got / width * width}});
      raised = true;
    }
    if (!raised) {
      sglang_lists.push_back(read_body<T>(frame, start, got / width, format));
    }
    offset += declared;
  }
  if (offset < size) {
    result.sglang.notes.push_back(
      fmt::format("ignore {} trailing {}", size - offset, size - offset == 1 ? "byte" : "bytes"));
  }
  if (!raised) {
    if (!result.issue) {
      result.value = sglang_lists;
    }
    result.sglang_value = std::move(sglang_lists);
  }
  return result;
}

} // namespace

char format_char(IntFormat format)
{
  switch (format) {
  case IntFormat::u64: return 'Q';
  case IntFormat::u32: return 'I';
  case IntFormat::i32: return 'i';
  }
  return '?';
}

std::size_t format_width(IntFormat format)
{
  return format == IntFormat::u64 ? 8 : 4;
}

Bytes pack_int_lists(const U64Lists& lists, IntFormat format)
{
  if (format == IntFormat::i32) {
    throw std::invalid_argument("pack_int_lists: format 'i' takes I32Lists");
  }
  return pack_impl(lists, format);
}

Bytes pack_int_lists(const I32Lists& lists)
{
  return pack_impl(lists, IntFormat::i32);
}

Decoded<U64Lists> unpack_int_lists(ByteView frame, IntFormat format)
{
  if (format == IntFormat::i32) {
    throw std::invalid_argument("unpack_int_lists: format 'i' decodes with unpack_int_lists_i32");
  }
  return unpack_impl<std::uint64_t>(frame, format);
}

Decoded<I32Lists> unpack_int_lists_i32(ByteView frame)
{
  return unpack_impl<std::int32_t>(frame, IntFormat::i32);
}

bool is_sane_int_lists(ByteView frame, std::size_t width)
{
  if (frame.empty()) {
    return true;
  }
  if (frame.size() < 4) {
    return false;
  }
  const std::uint64_t count = read_le32(frame, 0);
  if (count == 0) {
    return false;
  }
  std::uint64_t total = 4 + 4 * count;
  if (total > frame.size()) {
    return false;
  }
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t length = read_le32(frame, 4 + 4 * k);
    if (length % width != 0) {
      return false;
    }
    total += length;
  }
  return total == frame.size();
}

std::string describe_lists_shape(const U64Lists& lists)
{
  std::string entries;
  for (std::size_t i = 0; i < lists.size(); ++i) {
    entries += (i == 0 ? "" : " + ") + std::to_string(lists[i].size());
  }
  if (lists.empty()) {
    return "0 components";
  }
  std::size_t total = 0;
  for (const auto& list : lists) {
    total += list.size();
  }
  return fmt::format("{}, {} {}", plural(lists.size(), "component", "components"), entries,
                     total == 1 ? "entry" : "entries");
}

} // namespace pdcheck::wire
