#pragma once

// The catalog of SGLang's texts (core/sglang_messages.def): what pdcheck says
// SGLang raises or logs is rendered from these rows, and `pdcheck explain LOG`
// matches logs with the same rows, so a text lives in one place only.

#include "core/rules.hpp"

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck {

enum class MessageId : std::uint8_t {
#define PDCHECK_MESSAGE(handle, ...) handle,
#include "core/sglang_messages.def"
#undef PDCHECK_MESSAGE
};

/// How the text reaches the operator.
enum class Delivery {
  raised,         ///< an exception: "RuntimeError: text"
  assert_tuple,   ///< `assert cond, (text,)`: "AssertionError: ('text',)"
  logged_info,    ///< a log line; the server goes on
  logged_warning, ///< a log line; the server goes on
  logged_error,   ///< a log line; the server goes on
  argparse,       ///< argparse at launch: "error: text", exit status 2
  wrapper,        ///< a handler's re-raise: the one {name:text} placeholder holds the wrapped text
  failure_reason, ///< a reason recorded for a bootstrap room; logged inside KVTransferError(bootstrap_room=N)
};

/// Where a log line carrying the text is a PD failure.
enum class LogScope {
  anywhere,
  pd_context, ///< a generic Python text: only inside a wrapper or after a traceback frame in disaggregation code
};

struct SglangMessage
{
  MessageId handle;
  std::optional<RuleId> rule; ///< the rule that models it; none for texts only `explain LOG` knows
  Delivery delivery;
  std::string_view python_class; ///< "" for log lines and argparse
  std::string_view sglang_file;  ///< under python/sglang/srt/
  std::string_view sglang_function;
  LogScope log_scope;
  std::string_view causes; ///< space-separated cause names for `explain LOG`, "" when derived from the values
  std::string_view text;   ///< the f-string with typed placeholders
  std::string_view tail;   ///< the rest in the release pdcheck renders; logs are matched on `text`
};

const std::vector<SglangMessage>& sglang_messages();
const SglangMessage& sglang_message(MessageId id);

/// One piece of a message template: a literal or a typed placeholder.
struct TemplatePiece
{
  enum class Type { literal, integer, list, word, text };
  Type type = Type::literal;
  std::string_view literal; ///< for literals
  std::string_view name;    ///< for placeholders
};

/// The pieces of the row's `text` (parsed once).
const std::vector<TemplatePiece>& message_pieces(MessageId id);

/// The value of one placeholder: an integer (or its decimal digits, for values
/// wider than 64 bits), a string, or a list of integers (rendered as Python's
/// repr, "[1, 2]").
class MessageValue
{
public:
  template <std::integral T>
  MessageValue(T v) : m_kind(Kind::integer), m_text(std::to_string(v))
  {
  }
  MessageValue(std::string s) : m_kind(Kind::string), m_text(std::move(s)) {}
  MessageValue(std::string_view s) : m_kind(Kind::string), m_text(s) {}
  MessageValue(const char* s) : m_kind(Kind::string), m_text(s) {}
  MessageValue(const std::vector<std::uint64_t>& v);
  MessageValue(const std::vector<std::int64_t>& v);

  enum class Kind { integer, string, list };
  Kind kind() const { return m_kind; }
  const std::string& text() const { return m_text; } ///< as SGLang prints it

private:
  Kind m_kind;
  std::string m_text;
};

struct MessageArg
{
  std::string_view name;
  MessageValue value;
};

using MessageArgs = std::initializer_list<MessageArg>;

/// The message with every placeholder filled, and the tail: SGLang's `str(e)`.
/// Throws std::logic_error when a placeholder has no value, a value names no
/// placeholder, or a value does not fit its placeholder's type (a programming error).
std::string render_message(MessageId id, MessageArgs args);

/// `message` as the operator sees it, by the row's delivery: "RuntimeError: ...",
/// "AssertionError: ('...',)", "error: ..." or the bare log line or failure reason.
std::string as_delivered(MessageId id, std::string_view message);

/// as_delivered(id, render_message(id, args)).
std::string render_delivered(MessageId id, MessageArgs args);

} // namespace pdcheck
