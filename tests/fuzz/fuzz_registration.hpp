#pragma once

// One harness for the three registration decoders: every generation, both
// modes, and decode(encode(r)) == r for whatever strict decoding accepts.

#include "fuzz_common.hpp"
#include "wire/registration_codec.hpp"

namespace pdcheck::fuzz {

inline int fuzz_registration(TransferBackend backend, const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck::wire;
  const Frames frames = split_frames(data, size);
  std::vector<std::optional<Generation>> parsers = {std::nullopt};
  for (Generation g : backend_generations(backend)) {
    parsers.push_back(g);
  }
  for (const auto& g : parsers) {
    for (DecodeMode mode : {DecodeMode::strict, DecodeMode::sglang}) {
      const RegistrationDecode d = decode_registration(backend, frames, g, mode);
      if (d.registration.has_value() == d.problem.has_value()) {
        invariant_broken("a decode must give a registration or a problem, not both or neither");
      }
      if (mode != DecodeMode::strict || !d.registration) {
        continue;
      }
      const Registration& r = *d.registration;
      const EncodedRegistration again = encode_registration(r, r.generation);
      const RegistrationDecode back = decode_registration(backend, again.frames, r.generation);
      if (!back.registration || !(*back.registration == r)) {
        invariant_broken("decode(encode(r)) != r for a strictly decoded registration");
      }
    }
  }
  return 0;
}

} // namespace pdcheck::fuzz
