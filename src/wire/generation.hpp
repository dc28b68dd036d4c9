#pragma once

#include "core/transfer_backend.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {
struct Profile;
}

namespace pdcheck::wire {

/// The backends whose own decode -> prefill frames the codecs here read and
/// write, in the order pdcheck lists them. Every function of this namespace that
/// takes a TransferBackend wants one of these and throws std::logic_error for
/// another: ascend and fake (frames not modelled) and mooncake_tcp, whose frames
/// are Mooncake's (frames_backend maps it).
inline constexpr std::array<TransferBackend, 3> k_wire_backends = {TransferBackend::mooncake, TransferBackend::mori,
                                                                   TransferBackend::nixl};

/// Whether `b` is one of k_wire_backends.
bool wire_speaking(TransferBackend b);
/// The wire-speaking backend whose frames a server of `b` sends: `b` itself,
/// mooncake for mooncake_tcp; nullopt for ascend and fake.
std::optional<TransferBackend> frames_backend(TransferBackend b);
/// The std::logic_error for a backend that is not wire-speaking (a programming error).
[[noreturn]] void throw_not_wire_speaking(TransferBackend b);
/// "mooncake", "mori" or "nixl" (`--backend` of decode, encode and capture, and
/// capture files); nullopt for any other name, mooncake_tcp included.
std::optional<TransferBackend> parse_wire_backend(std::string_view name);

/// A wire generation: which frames a registration (or TransferInfo) has and how
/// each is encoded. The same four names serve every backend; not every backend
/// has every generation (see generation_supported).
///
/// | generation          | Mooncake registration                          | Mori                 | NIXL                  |
/// |---------------------|------------------------------------------------|----------------------|-----------------------|
/// | pre-dims (gen-0)    | frames 0-9, frame 6 flat native Q              | -                    | 12 payload frames     |
/// | flat (gen-1)        | 15 frames: 10/11 flat native I, 12 hisparse    | flat msgpack, I      | 16 payload frames     |
/// | components (gen-2)  | 19 frames: pack_int_lists, layer ids, DCP      | per-component lists  | 23 payload frames     |
/// | components-layouts  | 21 frames: + 19 kv_item_lens, 20 layouts JSON  | -                    | -                     |
enum class Generation { pre_dims, flat, components, components_layouts };

/// "pre-dims", "flat", "components", "components-layouts".
std::string_view generation_name(Generation g);
/// "gen-0" .. "gen-3".
std::string_view generation_number(Generation g);
/// Accepts the names above and "gen-0" .. "gen-3".
std::optional<Generation> parse_generation(std::string_view text);
/// Names accepted by parse_generation, for error messages.
std::vector<std::string> generation_names();

/// Whether `backend` ever sent registrations of generation `g`.
bool generation_supported(TransferBackend backend, Generation g);
/// The generations of `backend`, oldest first.
std::vector<Generation> backend_generations(TransferBackend backend);

/// Registration frames on the wire (guard frame included) for a generation as
/// SGLang sends it: mooncake 10/15/19/21, mori 14/14, nixl 13/17/24 (counted
/// from the frame tables, registration_table.hpp); 0 for a generation the
/// backend never sent.
std::size_t registration_frame_count(TransferBackend backend, Generation g);

/// The registration generation a decode rank of `profile` sends on `backend`.
Generation generation_for_profile(TransferBackend backend, const Profile& profile);

/// TransferInfo has only two shapes per backend: flat (one int32 index array)
/// before the per-component refactor, components (pack_int_lists 'i') after.
/// pre-dims maps to flat and components-layouts to components.
Generation transfer_info_shape(Generation g);

} // namespace pdcheck::wire
