#pragma once

// Internal to src/wire: decoders of the few frame encodings that are not plain
// integers or integer lists. Each follows one SGLang parser expression.

#include "wire/bytes.hpp"
#include "wire/decoded.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::wire::detail {

/// Frame 0 of a registration (payload[0] for Mori and NIXL): the ASCII literal
/// "None"; anything else makes SGLang take the message for a TransferInfo.
Decoded<std::string> decode_none_literal(ByteView frame);

/// Staging base pointer: `struct.unpack("Q", f)[0] if len(f) == 8 else 0`.
/// Strict: b"" or exactly 8 bytes.
Decoded<std::uint64_t> decode_staging_base(ByteView frame);

/// Mooncake flat frame 12: `f.decode("ascii") == "1"`. Strict: "0" or "1".
Decoded<bool> decode_hisparse_flag(ByteView frame);

/// Mooncake frame 20: `json.loads(f)` then `["kv"]` / `["state"]` when truthy.
/// Strict: a JSON object holding objects "kv" and "state". The value is the text
/// itself (nullopt when SGLang ends up with no layouts).
Decoded<std::optional<std::string>> decode_layouts_json(ByteView frame);

/// NIXL frame 17: comma-joined "VRAM"/"DRAM", one per KV pointer; b"" means all VRAM.
Decoded<std::vector<std::string>> decode_mem_kinds(ByteView frame, std::size_t kv_ptrs);

/// NIXL TransferInfo frame 9: `bool(int(f.decode("ascii")))`. Strict: "0" or "1".
Decoded<bool> decode_dummy_flag(ByteView frame);

/// Raw bytes, always fine (opaque blobs).
Decoded<Bytes> decode_opaque(ByteView frame);

} // namespace pdcheck::wire::detail
