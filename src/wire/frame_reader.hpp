#pragma once

// Internal to src/wire: the shared machinery of every message decoder.

#include "core/sglang_messages.hpp"
#include "wire/absent.hpp"
#include "wire/decoded.hpp"
#include "wire/frame_problem.hpp"
#include "wire/registration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::wire::detail {

using wire::Absent;

/// A field's decoder with its strict verdict alone (`valid`), for readers that
/// only classify: a capture classifies a million messages and lists a thousand.
template <typename Decode, typename Valid>
struct FieldCodec
{
  Decode decode;
  Valid valid;
  auto operator()(ByteView b) const { return decode(b); }
};
template <typename Decode, typename Valid>
FieldCodec(Decode, Valid) -> FieldCodec<Decode, Valid>;

/// Reads the frames of one message field by field, in the order SGLang's parser
/// evaluates them, and keeps the one problem that matters: in strict mode the
/// malformed frame with the lowest index, in sglang mode the first exception.
class FrameReader
{
public:
  /// `base` is 1 when frame 0 is a guard frame (the parser sees msg[1:]).
  /// `kind` names the message for "missing" errors ("a mooncake flat registration").
  /// `consequence` says what SGLang does after raising (sglang mode).
  /// `expected_frames` is how many frames that message has when SGLang sends it.
  /// `kind` and `consequence` are viewed, not copied: they must outlive the
  /// reader (a capture builds one reader per message).
  FrameReader(const Frames& frames, std::size_t base, DecodeMode mode, std::string_view kind,
              std::size_t expected_frames, std::string_view consequence)
    : m_frames(frames),
      m_base(base),
      m_mode(mode),
      m_kind(kind),
      m_expected_frames(expected_frames),
      m_consequence(consequence)
  {
    m_info.reserve(expected_frames);
  }

  /// A strict reader that keeps only the verdict: read() decodes no value and
  /// records no frame info, and a problem says where, not why (whoever needs
  /// the why decodes again with a full reader). A field whose codec has a
  /// `valid` test is judged by it, any other by its decoder.
  struct VerdictOnly
  {
  };
  FrameReader(const Frames& frames, std::size_t base, std::size_t expected_frames, VerdictOnly)
    : m_frames(frames),
      m_base(base),
      m_mode(DecodeMode::strict),
      m_expected_frames(expected_frames),
      m_verdict_only(true)
  {
  }

  DecodeMode mode() const { return m_mode; }
  std::size_t payload_size() const { return m_frames.size() > m_base ? m_frames.size() - m_base : 0; }
  bool present(std::size_t index) const { return m_base + index < m_frames.size(); }
  ByteView frame(std::size_t index) const { return m_frames[m_base + index]; }
  std::size_t wire(std::size_t index) const { return m_base + index; }
  /// In sglang mode, true once SGLang would have raised: nothing after counts.
  /// A verdict-only reader stops at the first problem too: the verdict is made.
  bool stopped() const { return (m_mode == DecodeMode::sglang || m_verdict_only) && m_problem.has_value(); }

  /// Decodes payload frame `index` with `decode` (ByteView -> Decoded<T>).
  /// `field` and `encoding` are string literals (FrameInfo keeps the pointers:
  /// a capture decodes millions of frames, and copying names cost a third of it).
  /// Returns nullopt when the frame is absent or empty and a default applies,
  /// and when a problem was recorded; the caller then keeps its default.
  template <typename T, typename F>
  std::optional<T> read(std::size_t index, const char* field, const char* encoding, Absent absent, F decode)
  {
    if (stopped()) {
      return std::nullopt;
    }
    if (!present(index)) {
      if (absent == Absent::required) {
        missing(index, field);
      }
      return std::nullopt;
    }
    const ByteView bytes = frame(index);
    if (m_verdict_only) {
      if (!(absent == Absent::default_when_absent_or_empty && bytes.empty()) && !valid(decode, bytes)) {
        fail(index, field, std::nullopt, "malformed", "");
      }
      return std::nullopt;
    }
    m_info.push_back(FrameInfo{wire(index), field, encoding, bytes.size()});
    if (absent == Absent::default_when_absent_or_empty && bytes.empty()) {
      return std::nullopt;
    }
    Decoded<T> d = decode(bytes);
    if (m_mode == DecodeMode::strict) {
      if (d.issue) {
        fail(index, field, d.issue->offset, d.issue->what, d.sglang.describe());
        return std::nullopt;
      }
      return std::move(d.value);
    }
    if (d.sglang.raises) {
      fail(index, field, std::nullopt, *d.sglang.raises, std::string(m_consequence));
      return std::nullopt;
    }
    if (d.sglang.rejects) {
      fail(index, field, std::nullopt, "SGLang would " + *d.sglang.rejects, "nothing is registered");
      return std::nullopt;
    }
    for (const std::string& n : d.sglang.notes) {
      note(fmt::format("frame {} ({}): SGLang would {}", wire(index), field, n));
    }
    return d.sglang_value;
  }

  /// read<T>, storing the value in `out` when there is one (else `out` keeps
  /// its default): one line per field in the decoders.
  template <typename T, typename Field, typename F>
  void read_into(Field& out, std::size_t index, const char* field, const char* encoding, Absent absent, F decode)
  {
    if (auto v = read<T>(index, field, encoding, absent, std::move(decode))) {
      out = std::move(*v);
    }
  }

  /// Records "frame `index` is missing".
  void missing(std::size_t index, std::string_view field)
  {
    if (m_verdict_only) {
      fail(index, field, std::nullopt, "missing", "");
      return;
    }
    const std::string what = fmt::format("missing: expected {} frames for {}, got {}",
                                         std::max(m_expected_frames, wire(index) + 1), m_kind, m_frames.size());
    if (m_mode == DecodeMode::strict) {
      fail(index, field, std::nullopt, what, "SGLang would raise " + render_delivered(MessageId::list_index, {}));
    } else {
      fail(index, field, std::nullopt, render_delivered(MessageId::list_index, {}) + " (" + what.substr(9) + ")",
           std::string(m_consequence));
    }
  }

  /// Records a problem with payload frame `index` (wire index computed here).
  void fail(std::size_t index, std::string_view field, std::optional<std::size_t> offset, std::string what,
            std::string sglang)
  {
    fail_wire(wire(index), field, offset, std::move(what), std::move(sglang));
  }

  /// Records a problem with wire frame `wire_index` (guard frames).
  void fail_wire(std::size_t wire_index, std::string_view field, std::optional<std::size_t> offset, std::string what,
                 std::string sglang)
  {
    if (stopped()) {
      return;
    }
    FrameProblem p{wire_index, std::string(field), offset, std::move(what), std::move(sglang)};
    if (!m_problem || (m_mode == DecodeMode::strict && p.frame < m_problem->frame)) {
      m_problem = std::move(p);
    }
  }

  void note(std::string text)
  {
    if (!m_verdict_only) {
      m_notes.push_back(std::move(text));
    }
  }

  const std::optional<FrameProblem>& problem() const { return m_problem; }
  std::vector<FrameInfo> take_info() { return std::move(m_info); }
  std::vector<std::string> take_notes() { return std::move(m_notes); }
  std::string_view consequence() const { return m_consequence; }

private:
  template <typename F>
  static bool valid(const F& decode, ByteView bytes)
  {
    if constexpr (requires { decode.valid(bytes); }) {
      return decode.valid(bytes);
    } else {
      return !decode(bytes).issue;
    }
  }

  const Frames& m_frames;
  std::size_t m_base;
  DecodeMode m_mode;
  std::string_view m_kind;
  std::size_t m_expected_frames;
  std::string_view m_consequence;
  std::optional<FrameProblem> m_problem;
  std::vector<FrameInfo> m_info;
  std::vector<std::string> m_notes;
  bool m_verdict_only = false;
};

} // namespace pdcheck::wire::detail
