#pragma once

// Internal to src/wire: the one table-driven registration decoder and encoder
// (registration_frames.cpp), dispatched by registration_codec.cpp.

#include "wire/frame_reader.hpp"
#include "wire/int_lists.hpp"
#include "wire/registration.hpp"
#include "wire/registration_codec.hpp"
#include "wire/registration_table.hpp"
#include "wire/scalars.hpp"

namespace pdcheck::wire::detail {

/// Fills `r` from the frames, row by row in the order SGLang's parser evaluates them.
void decode_registration_frames(FrameReader& reader, const RegistrationTable& table, Registration& r);

/// The frames SGLang's `_register_kv_args` sends for `r`, by frame index, and
/// what the table's generation cannot carry.
EncodedRegistration encode_registration_frames(const Registration& r, const RegistrationTable& table);

/// What SGLang does after its registration parser raises, per backend.
std::string_view registration_raise_consequence(TransferBackend backend);

/// Helpers shared by the tables' "dropped" lists and the encoder.
std::vector<std::uint64_t> first_component(const U64Lists& lists);
void drop_if(std::vector<std::string>& dropped, bool condition, std::string what);

} // namespace pdcheck::wire::detail
