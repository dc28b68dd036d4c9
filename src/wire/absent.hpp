#pragma once

namespace pdcheck::wire {

/// What SGLang's parser does when a frame is absent or empty.
enum class Absent {
  required,                     ///< msg[i]: IndexError when absent
  default_when_absent,          ///< `... if len(msg) > i else default`
  default_when_absent_or_empty, ///< `... if len(msg) > i and msg[i] != b"" else default`
};

} // namespace pdcheck::wire
