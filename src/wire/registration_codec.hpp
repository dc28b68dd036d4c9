#pragma once

#include "wire/bytes.hpp"
#include "wire/frame_problem.hpp"
#include "wire/generation.hpp"
#include "wire/registration.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::wire {

/// Which generation a registration's frames look like, and why.
struct GenerationDetection
{
  Generation generation = Generation::components;
  std::vector<std::string> evidence;
};

/// Guesses the generation from the frame count (each generation sends a fixed
/// number of frames), the guard frame, and whether the state frames parse as
/// pack_int_lists (4 + 4n + sum(lens) == len) or as flat native arrays / msgpack
/// lists. Never fails: garbage gets the closest guess and says so.
GenerationDetection detect_registration_generation(TransferBackend backend, const Frames& frames);

/// The outcome of decoding a registration.
struct RegistrationDecode
{
  /// strict: set iff the frames are well-formed; sglang: set iff SGLang's parser
  /// would not raise (and then it holds what SGLang holds, garbage included).
  std::optional<Registration> registration;
  std::optional<FrameProblem> problem;
  /// Silent effects (sglang mode), frames nobody reads, detection remarks.
  std::vector<std::string> notes;
};

/// Decodes the frames of a decode -> prefill registration as sent on `backend`
/// (frame 0 is the guard frame for Mori and NIXL). `generation` forces a parser
/// instead of detection: with DecodeMode::sglang this answers "what does a
/// prefill of generation X make of these frames", e.g. a components prefill
/// reading a flat decode's registration.
RegistrationDecode decode_registration(TransferBackend backend, const Frames& frames,
                                       std::optional<Generation> generation = std::nullopt,
                                       DecodeMode mode = DecodeMode::strict);

/// Strict decode; a malformed message throws InputError with where =
/// "<origin>: frame N (field)" and what = "byte K: expected ...; SGLang would ...".
Registration decode_registration_or_throw(TransferBackend backend, const Frames& frames,
                                          std::optional<Generation> generation, const std::string& origin);

/// Frames SGLang would send for `r`, in `generation` (default: r.generation).
struct EncodedRegistration
{
  Frames frames;
  /// Fields of `r` the generation cannot carry, so they were left out.
  std::vector<std::string> dropped;
};

/// Encodes `r` exactly as the decode rank's `_register_kv_args` of that backend
/// and generation would. Throws std::invalid_argument when the generation does
/// not exist for the backend, and std::out_of_range when a value does not fit
/// its format (SGLang's struct.pack would raise too).
EncodedRegistration encode_registration(const Registration& r, std::optional<Generation> generation = std::nullopt);

} // namespace pdcheck::wire
