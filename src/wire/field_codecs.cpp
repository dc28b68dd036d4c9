#include "wire/field_codecs.hpp"

#include "core/sglang_messages.hpp"
#include "wire/scalars.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace pdcheck::wire::detail {

Decoded<std::string> decode_none_literal(ByteView frame)
{
  Decoded<std::string> out = decode_ascii_text(frame);
  if (out.sglang.raises) {
    return out;
  }
  if (to_string(frame) != "None") {
    out.issue = WireIssue{0, fmt::format("expected b'None' (the registration marker), got {}", python_bytes_repr(frame))};
    out.sglang.rejects = "handle the message as a per-request TransferInfo, since frame 0 is not 'None'";
    out.sglang_value.reset();
  }
  return out;
}

Decoded<std::uint64_t> decode_staging_base(ByteView frame)
{
  Decoded<std::uint64_t> out;
  if (frame.size() == 8) {
    out.value = read_le64(frame, 0);
  } else if (!frame.empty()) {
    out.issue = WireIssue{0, fmt::format("expected b'' or an 8-byte native 'Q' staging base pointer, got {} bytes",
                                         frame.size())};
    out.sglang.notes.push_back(fmt::format("ignore the {}-byte staging base (not 8 bytes) and use 0", frame.size()));
  }
  out.sglang_value = out.value;
  return out;
}

Decoded<bool> decode_hisparse_flag(ByteView frame)
{
  Decoded<bool> out;
  const Decoded<std::string> text = decode_ascii_text(frame);
  if (text.sglang.raises) {
    out.issue = text.issue;
    out.sglang = text.sglang;
    return out;
  }
  out.value = text.value == "1";
  out.sglang_value = out.value;
  if (text.value != "0" && text.value != "1") {
    out.issue = WireIssue{0, fmt::format("expected b'0' or b'1' (enable_hisparse), got {}", python_bytes_repr(frame))};
    out.sglang.notes.push_back(fmt::format("read {} as enable_hisparse=False", python_bytes_repr(frame)));
  }
  return out;
}

Decoded<std::optional<std::string>> decode_layouts_json(ByteView frame)
{
  Decoded<std::optional<std::string>> out;
  const std::string text = to_string(frame);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    out.issue = WireIssue{e.byte > 0 ? e.byte - 1 : 0, "expected the unified layouts as JSON text"};
    out.sglang.raises = "json.JSONDecodeError (frame 20 is not JSON)";
    return out;
  } catch (const nlohmann::json::out_of_range&) {
    // e.g. 1e999: Python reads it (as inf); no layout SGLang writes holds one.
    out.issue = WireIssue{0, "expected the unified layouts as JSON text with numbers in range"};
    return out;
  }
  // Python's truthiness decides whether SGLang looks inside at all.
  const bool truthy = !(doc.is_null() || (doc.is_boolean() && !doc.get<bool>()) ||
                        (doc.is_number() && doc.get<double>() == 0.0) || (doc.is_string() && doc.get<std::string>().empty()) ||
                        ((doc.is_array() || doc.is_object()) && doc.empty()));
  if (!doc.is_object() || !doc.contains("kv") || !doc.contains("state") || !doc["kv"].is_object() ||
      !doc["state"].is_object()) {
    out.issue = WireIssue{0, "expected a JSON object {\"kv\": {...}, \"state\": {...}} (TransferLayout dicts)"};
    if (!truthy) {
      out.sglang.notes.push_back(fmt::format("treat the falsy JSON {} as no unified layouts", doc.dump()));
      out.sglang_value = std::optional<std::string>{};
    } else if (!doc.is_object()) {
      out.sglang.raises =
        render_delivered(MessageId::wire_layouts_not_dict, {{"container", doc.is_array() ? "list" : "string"}});
    } else if (!doc.contains("kv")) {
      out.sglang.raises = render_delivered(MessageId::wire_layouts_no_kv, {});
    } else if (!doc.contains("state")) {
      out.sglang.raises = render_delivered(MessageId::wire_layouts_no_state, {});
    } else {
      out.sglang.raises = "an error from TransferLayout.from_dict (kv or state is not a layout dict)";
    }
    return out;
  }
  out.value = text;
  out.sglang_value = out.value;
  return out;
}

Decoded<std::vector<std::string>> decode_mem_kinds(ByteView frame, std::size_t kv_ptrs)
{
  Decoded<std::vector<std::string>> out;
  const Decoded<std::string> text = decode_ascii_text(frame);
  if (text.sglang.raises) {
    out.issue = text.issue;
    out.sglang = text.sglang;
    return out;
  }
  std::vector<std::string> kinds;
  if (frame.empty()) {
    kinds.assign(kv_ptrs, "VRAM");
  } else {
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.value.find(',', start);
      kinds.push_back(text.value.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) {
        break;
      }
      start = comma + 1;
    }
  }
  if (kinds.size() != kv_ptrs) {
    out.issue = WireIssue{0, fmt::format("expected {} memory kinds (one per KV pointer), got {}", kv_ptrs, kinds.size())};
    out.sglang.raises =
      render_delivered(MessageId::nixl_mem_kinds_count, {{"got", kinds.size()}, {"expected", kv_ptrs}});
    return out;
  }
  std::vector<std::string> invalid;
  std::size_t offset = 0;
  std::optional<std::size_t> first_bad;
  for (const std::string& k : kinds) {
    if (k != "VRAM" && k != "DRAM") {
      invalid.push_back(k);
      if (!first_bad) {
        first_bad = offset;
      }
    }
    offset += k.size() + 1;
  }
  if (!invalid.empty()) {
    std::sort(invalid.begin(), invalid.end());
    invalid.erase(std::unique(invalid.begin(), invalid.end()), invalid.end());
    std::string listed;
    for (std::size_t i = 0; i < invalid.size(); ++i) {
      listed += (i == 0 ? "" : ", ") + python_str_repr(invalid[i]);
    }
    out.issue = WireIssue{*first_bad, fmt::format("expected VRAM or DRAM, got {}", python_str_repr(invalid[0]))};
    out.sglang.raises = render_delivered(MessageId::nixl_mem_kind_unsupported, {{"kinds", "[" + listed + "]"}});
    return out;
  }
  out.value = kinds;
  out.sglang_value = std::move(kinds);
  return out;
}

Decoded<bool> decode_dummy_flag(ByteView frame)
{
  Decoded<bool> out;
  const Decoded<std::int64_t> n = decode_ascii_int(frame);
  out.sglang = n.sglang;
  if (n.sglang_value) {
    out.sglang_value = *n.sglang_value != 0;
  }
  if (n.issue) {
    out.issue = n.issue;
    return out;
  }
  if (n.value != 0 && n.value != 1) {
    out.issue = WireIssue{0, fmt::format("expected b'0' or b'1' (is_dummy), got {}", python_bytes_repr(frame))};
    return out;
  }
  out.value = n.value != 0;
  return out;
}

Decoded<Bytes> decode_opaque(ByteView frame)
{
  Decoded<Bytes> out;
  out.value.assign(frame.begin(), frame.end());
  out.sglang_value = out.value;
  return out;
}

} // namespace pdcheck::wire::detail
