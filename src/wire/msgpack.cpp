#include "wire/msgpack.hpp"

#include "core/sglang_messages.hpp"

#include <fmt/format.h>

#include <optional>

namespace pdcheck::wire {

namespace {

// Deep enough for any descriptor; shallow enough that hostile input cannot
// exhaust the stack.
constexpr int k_max_depth = 32;

struct Cursor
{
  ByteView bytes;
  std::size_t at = 0;
  std::optional<WireIssue> issue;

  std::size_t left() const { return bytes.size() - at; }

  bool fail(std::size_t offset, std::string what)
  {
    if (!issue) {
      issue = WireIssue{offset, std::move(what)};
    }
    return false;
  }

  bool need(std::size_t n, std::size_t start, std::string_view what)
  {
    if (left() < n) {
      return fail(start, fmt::format("expected {} ({} bytes), but only {} remain", what, n, left()));
    }
    return true;
  }

  std::uint64_t big_endian(std::size_t n)
  {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) {
      v = (v << 8) | bytes[at + i];
    }
    at += n;
    return v;
  }
};

bool skip_value(Cursor& c, int depth);

bool skip_items(Cursor& c, std::uint64_t items, std::size_t start, int depth)
{
  // Every item takes at least one byte: a count larger than the bytes left is
  // rejected before the loop, so a hostile count cannot make us spin.
  if (items > c.left()) {
    return c.fail(start, fmt::format("expected at most {} elements in the bytes left, got a count of {}", c.left(), items));
  }
  for (std::uint64_t i = 0; i < items; ++i) {
    if (!skip_value(c, depth + 1)) {
      return false;
    }
  }
  return true;
}

bool skip_bytes(Cursor& c, std::uint64_t n, std::size_t start)
{
  if (n > c.left()) {
    return c.fail(start, fmt::format("expected {} payload bytes, but only {} remain", n, c.left()));
  }
  c.at += static_cast<std::size_t>(n);
  return true;
}

bool skip_value(Cursor& c, int depth)
{
  const std::size_t start = c.at;
  if (depth > k_max_depth) {
    return c.fail(start, fmt::format("expected msgpack nested at most {} deep", k_max_depth));
  }
  if (!c.need(1, start, "a msgpack value")) {
    return false;
  }
  const std::uint8_t t = c.bytes[c.at++];
  if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
    return true;
  }
  if (t >= 0x80 && t <= 0x8f) {
    return skip_items(c, 2u * (t & 0x0f), start, depth);
  }
  if (t >= 0x90 && t <= 0x9f) {
    return skip_items(c, t & 0x0f, start, depth);
  }
  if (t >= 0xa0 && t <= 0xbf) {
    return skip_bytes(c, t & 0x1f, start);
  }
  auto sized = [&](std::size_t width) -> std::optional<std::uint64_t> {
    if (!c.need(width, start, "a msgpack length")) {
      return std::nullopt;
    }
    return c.big_endian(width);
  };
  switch (t) {
  case 0xc4: case 0xd9: { auto n = sized(1); return n && skip_bytes(c, *n, start); }
  case 0xc5: case 0xda: { auto n = sized(2); return n && skip_bytes(c, *n, start); }
  case 0xc6: case 0xdb: { auto n = sized(4); return n && skip_bytes(c, *n, start); }
  case 0xc7: { auto n = sized(1); return n && skip_bytes(c, *n + 1, start); }
  case 0xc8: { auto n = sized(2); return n && skip_bytes(c, *n + 1, start); }
  case 0xc9: { auto n = sized(4); return n && skip_bytes(c, *n + 1, start); }
  case 0xca: case 0xce: case 0xd2: return skip_bytes(c, 4, start);
  case 0xcb: case 0xcf: case 0xd3: return skip_bytes(c, 8, start);
  case 0xcc: case 0xd0: return skip_bytes(c, 1, start);
  case 0xcd: case 0xd1: return skip_bytes(c, 2, start);
  case 0xd4: return skip_bytes(c, 2, start);
  case 0xd5: return skip_bytes(c, 3, start);
  case 0xd6: return skip_bytes(c, 5, start);
  case 0xd7: return skip_bytes(c, 9, start);
  case 0xd8: return skip_bytes(c, 17, start);
  case 0xdc: { auto n = sized(2); return n && skip_items(c, *n, start, depth); }
  case 0xdd: { auto n = sized(4); return n && skip_items(c, *n, start, depth); }
  case 0xde: { auto n = sized(2); return n && skip_items(c, 2 * *n, start, depth); }
  case 0xdf: { auto n = sized(4); return n && skip_items(c, 2 * *n, start, depth); }
  default: break;
  }
  return c.fail(start, fmt::format("expected a msgpack type byte, got {:#04x} (never used by msgpack)", t));
}

// Reads an array header at the cursor; nullopt (and no issue) when the value is not an array.
std::optional<std::uint64_t> array_header(Cursor& c)
{
  const std::size_t start = c.at;
  if (c.left() == 0) {
    return std::nullopt;
  }
  const std::uint8_t t = c.bytes[c.at];
  if (t >= 0x90 && t <= 0x9f) {
    ++c.at;
    return t & 0x0f;
  }
  if (t == 0xdc || t == 0xdd) {
    ++c.at;
    const std::size_t width = t == 0xdc ? 2 : 4;
    if (!c.need(width, start, "a msgpack array length")) {
      return std::nullopt;
    }
    return c.big_endian(width);
  }
  return std::nullopt;
}

} // namespace

Decoded<DescListShape> decode_desc_list(ByteView frame)
{
  Decoded<DescListShape> out;
  if (frame.empty()) {
    out.sglang_value.emplace();
    return out;
  }
  Cursor c;
  c.bytes = frame;
  const auto outer = array_header(c);
  if (!outer) {
    out.issue = c.issue ? *c.issue : WireIssue{0, fmt::format("expected a msgpack array of memory descriptors, got "
                                                             "type byte {:#04x}",
                                                             frame[0])};
    out.sglang.raises = "an exception while unpacking the descriptors (msgspec.DecodeError or from MemoryDesc.unpack)";
    return out;
  }
  if (*outer > c.left()) {
    out.issue = WireIssue{0, fmt::format("expected at most {} descriptors in the bytes left, got a count of {}",
                                         c.left(), *outer)};
    out.sglang.raises = render_delivered(MessageId::mori_descriptors_truncated, {});
    return out;
  }
  DescListShape shape;
  for (std::uint64_t i = 0; i < *outer && !c.issue; ++i) {
    const std::size_t element_start = c.at;
    Cursor probe = c;
    const auto inner = array_header(probe);
    if (probe.issue) {
      c.issue = probe.issue;
      break;
    }
    const bool is_array = inner.has_value();
    if (i == 0) {
      shape.nested = is_array;
    } else if (is_array != shape.nested) {
      c.fail(element_start, fmt::format("expected element {} to be {} like element 0", i,
                                        shape.nested ? "an array of descriptors" : "one descriptor"));
      break;
    }
    if (is_array) {
      c = probe;
      const std::size_t header_end = c.at;
      if (!skip_items(c, *inner, header_end, 1)) {
        break;
      }
      shape.counts.push_back(static_cast<std::size_t>(*inner));
    } else {
      if (!skip_value(c, 1)) {
        break;
      }
    }
  }
  if (!c.issue && c.at != frame.size()) {
    c.fail(c.at, fmt::format("expected the frame to end after the msgpack array, got {} more bytes", c.left()));
  }
  if (c.issue) {
    out.issue = c.issue;
    out.sglang.raises = "msgspec.DecodeError (malformed or truncated MessagePack)";
    return out;
  }
  if (!shape.nested) {
    shape.counts.push_back(static_cast<std::size_t>(*outer));
  }
  out.value = shape;
  out.sglang_value = std::move(shape);
  return out;
}

void append_msgpack_array_header(Bytes& out, std::size_t count)
{
  if (count <= 15) {
    out.push_back(static_cast<std::uint8_t>(0x90 | count));
  } else if (count <= 0xffff) {
    out.push_back(0xdc);
    out.push_back(static_cast<std::uint8_t>(count >> 8));
    out.push_back(static_cast<std::uint8_t>(count));
  } else {
    out.push_back(0xdd);
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.push_back(static_cast<std::uint8_t>(count >> shift));
    }
  }
}

void append_msgpack_bin(Bytes& out, ByteView payload)
{
  const std::size_t n = payload.size();
  if (n <= 0xff) {
    out.push_back(0xc4);
    out.push_back(static_cast<std::uint8_t>(n));
  } else if (n <= 0xffff) {
    out.push_back(0xc5);
    out.push_back(static_cast<std::uint8_t>(n >> 8));
    out.push_back(static_cast<std::uint8_t>(n));
  } else {
    out.push_back(0xc6);
    for (int shift = 24; shift >= 0; shift -= 8) {
      out.push_back(static_cast<std::uint8_t>(n >> shift));
    }
  }
  out.insert(out.end(), payload.begin(), payload.end());
}

} // namespace pdcheck::wire
