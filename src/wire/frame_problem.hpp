#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace pdcheck::wire {

/// How a message is decoded.
enum class DecodeMode {
  /// Only what SGLang's encoder writes is accepted; the first malformed frame is
  /// the problem, with what SGLang itself would have done with it.
  strict,
  /// Exactly as SGLang's parser of the chosen generation reads the frames:
  /// garbage included, truncation and trailing bytes noted; the problem, if any,
  /// is the exception SGLang raises first.
  sglang,
};

/// The one thing wrong with a message, located to the frame and byte.
struct FrameProblem
{
  std::size_t frame = 0;              ///< wire index, guard frame included
  std::string field;                  ///< SGLang's name for the frame
  std::optional<std::size_t> offset;  ///< byte inside the frame; empty when the frame is missing
  std::string what;                   ///< strict: what was expected; sglang: the exception
  std::string sglang;                 ///< strict: what SGLang would do; sglang: what follows in SGLang

  /// "byte 12: <what>; <sglang>" (or "<what>; <sglang>" for a missing frame):
  /// the `what` of an InputError.
  std::string message() const
  {
    std::string out = offset ? "byte " + std::to_string(*offset) + ": " + what : what;
    if (!sglang.empty()) {
      out += "; " + sglang;
    }
    return out;
  }

  /// "<origin>: frame 6 (dst_state_data_ptrs)": the `where` of an InputError.
  std::string where(const std::string& origin) const
  {
    std::string out = "frame " + std::to_string(frame);
    if (!field.empty()) {
      out += " (" + field + ")";
    }
    return origin.empty() ? out : origin + ": " + out;
  }
};

} // namespace pdcheck::wire
