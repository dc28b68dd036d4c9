#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::wire {

/// Why a strict decoder rejected a frame: the byte offset inside the frame where
/// the problem sits and what was expected there. Rendered "byte <offset>: <what>".
struct WireIssue
{
  std::size_t offset = 0;
  std::string what;

  std::string message() const { return "byte " + std::to_string(offset) + ": " + what; }
};

/// What SGLang's own Python parser does with the same bytes. SGLang validates
/// almost nothing, so the same frame can be rejected here and silently misread there.
struct SglangReading
{
  /// The exception SGLang raises, e.g. "struct.error: unpack requires a buffer of 4 bytes".
  std::optional<std::string> raises;
  /// When SGLang does not raise but still does not take the message as this
  /// field says, what it does instead: "handle the message as a per-request
  /// TransferInfo, since frame 0 is not 'None'". Stops an sglang-mode decode as
  /// an exception would.
  std::optional<std::string> rejects;
  /// Silent effects when it does not raise, e.g. "ignores 3 trailing bytes".
  std::vector<std::string> notes;

  /// One clause for messages: "SGLang would raise struct.error: ...",
  /// "SGLang would ignore 3 trailing bytes", or "SGLang reads the same values".
  std::string describe() const
  {
    if (raises) {
      return "SGLang would raise " + *raises;
    }
    if (rejects) {
      return "SGLang would " + *rejects;
    }
    if (notes.empty()) {
      return "SGLang reads the same values";
    }
    std::string out = "SGLang would ";
    for (std::size_t i = 0; i < notes.size(); ++i) {
      out += (i == 0 ? "" : " and ") + notes[i];
    }
    return out;
  }
};

/// The outcome of decoding one field both ways: strictly (exactly what SGLang's
/// encoder writes, nothing else) and as SGLang's parser reads it.
template <typename T>
struct Decoded
{
  std::optional<WireIssue> issue; ///< strict verdict; empty when the bytes are well-formed
  T value{};                      ///< the strict value, meaningful when `issue` is empty
  SglangReading sglang;
  std::optional<T> sglang_value;  ///< what SGLang ends up holding, when it does not raise

  bool ok() const { return !issue.has_value(); }
};

} // namespace pdcheck::wire
