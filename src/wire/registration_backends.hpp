#pragma once

// Internal to src/wire: one decoder and one encoder per backend, dispatched by
// registration_codec.cpp.

#include "wire/frame_reader.hpp"
#include "wire/int_lists.hpp"
#include "wire/registration.hpp"
#include "wire/registration_codec.hpp"
#include "wire/scalars.hpp"

namespace pdcheck::wire::detail {

/// Fills `r` from the frames, in the order SGLang's parser of `g` evaluates them.
void decode_mooncake_registration(FrameReader& reader, Generation g, Registration& r);
void decode_mori_registration(FrameReader& reader, Generation g, Registration& r);
void decode_nixl_registration(FrameReader& reader, Generation g, Registration& r);

/// The payload frames a parser of `g` reads (guard frame not counted).
std::size_t payload_frames_read(Backend backend, Generation g);

EncodedRegistration encode_mooncake_registration(const Registration& r, Generation g);
EncodedRegistration encode_mori_registration(const Registration& r, Generation g);
EncodedRegistration encode_nixl_registration(const Registration& r, Generation g);

/// What SGLang does after its registration parser raises, per backend.
std::string registration_raise_consequence(Backend backend);

/// Helpers shared by the encoders.
std::vector<std::uint64_t> first_component(const U64Lists& lists);
void drop_if(std::vector<std::string>& dropped, bool condition, std::string what);
Bytes staging_base_frame(const Registration& r);
Bytes staging_total_frame(const Registration& r);

/// The usual field decoders, as callables for FrameReader::read.
inline auto ascii_int()
{
  return [](ByteView b) { return decode_ascii_int(b); };
}
inline auto ascii_text()
{
  return [](ByteView b) { return decode_ascii_text(b); };
}
inline auto int_lists(IntFormat f)
{
  return [f](ByteView b) { return unpack_int_lists(b, f); };
}
inline auto native_array(IntFormat f)
{
  return [f](ByteView b) { return decode_native_array(b, f); };
}
/// A flat native array read as one component (b"" -> no component), for flat generations.
inline auto native_as_component(IntFormat f)
{
  return [f](ByteView b) {
    Decoded<std::vector<std::uint64_t>> d = decode_native_array(b, f);
    Decoded<U64Lists> out;
    out.issue = d.issue;
    out.sglang = d.sglang;
    if (!d.value.empty()) {
      out.value.push_back(d.value);
    }
    if (d.sglang_value && !d.sglang_value->empty()) {
      out.sglang_value = U64Lists{*d.sglang_value};
    } else if (d.sglang_value) {
      out.sglang_value = U64Lists{};
    }
    return out;
  };
}

} // namespace pdcheck::wire::detail
