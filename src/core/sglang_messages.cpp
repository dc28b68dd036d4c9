#include "core/sglang_messages.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace pdcheck {

namespace {

#define RULE(handle) std::optional<RuleId>(RuleId::handle)
#define NO_RULE std::optional<RuleId>()

const std::vector<SglangMessage> k_messages = {
#define PDCHECK_MESSAGE(handle, rule, delivery, python_class, file, function, log_scope, causes, text, tail)            \
  SglangMessage{MessageId::handle, rule, Delivery::delivery, python_class, file, function, LogScope::log_scope,        \
                causes, text, tail},
#include "core/sglang_messages.def"
#undef PDCHECK_MESSAGE
};

#undef RULE
#undef NO_RULE

std::vector<TemplatePiece> parse_template(std::string_view text)
{
  std::vector<TemplatePiece> pieces;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    if (open != i) {
      const std::size_t end = open == std::string_view::npos ? text.size() : open;
      pieces.push_back(TemplatePiece{TemplatePiece::Type::literal, text.substr(i, end - i), {}});
      i = end;
      continue;
    }
    const std::size_t close = text.find('}', open);
    const std::string_view inner = text.substr(open + 1, close - open - 1);
    const std::size_t colon = inner.find(':');
    const std::string_view type = inner.substr(colon + 1);
    TemplatePiece p;
    p.name = inner.substr(0, colon);
    p.type = type == "int"    ? TemplatePiece::Type::integer
             : type == "list" ? TemplatePiece::Type::list
             : type == "word" ? TemplatePiece::Type::word
                              : TemplatePiece::Type::text;
    pieces.push_back(p);
    i = close + 1;
  }
  return pieces;
}

template <typename Int>
std::string python_list_text(const std::vector<Int>& v)
{
  return fmt::format("[{}]", fmt::join(v, ", "));
}

bool decimal(std::string_view s)
{
  if (!s.empty() && s.front() == '-') {
    s.remove_prefix(1);
  }
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool fits(TemplatePiece::Type type, const MessageValue& v)
{
  switch (type) {
  case TemplatePiece::Type::integer:
    return v.kind() == MessageValue::Kind::integer || (v.kind() == MessageValue::Kind::string && decimal(v.text()));
  case TemplatePiece::Type::list: return v.kind() == MessageValue::Kind::list;
  case TemplatePiece::Type::word:
    return v.kind() != MessageValue::Kind::list && !v.text().empty() && v.text().find(' ') == std::string::npos;
  case TemplatePiece::Type::text: return v.kind() != MessageValue::Kind::list;
  case TemplatePiece::Type::literal: return false;
  }
  return false;
}

} // namespace

MessageValue::MessageValue(const std::vector<std::uint64_t>& v) : m_kind(Kind::list), m_text(python_list_text(v)) {}

MessageValue::MessageValue(const std::vector<std::int64_t>& v) : m_kind(Kind::list), m_text(python_list_text(v)) {}

const std::vector<SglangMessage>& sglang_messages()
{
  return k_messages;
}

const SglangMessage& sglang_message(MessageId id)
{
  // The rows are in handle order: both come from the same file.
  return k_messages[static_cast<std::size_t>(id)];
}

const std::vector<TemplatePiece>& message_pieces(MessageId id)
{
  static const std::vector<std::vector<TemplatePiece>> k_pieces = [] {
    std::vector<std::vector<TemplatePiece>> all;
    for (const SglangMessage& m : k_messages) {
      all.push_back(parse_template(m.text));
    }
    return all;
  }();
  return k_pieces[static_cast<std::size_t>(id)];
}

std::string render_message(MessageId id, MessageArgs args)
{
  const SglangMessage& m = sglang_message(id);
  std::string out;
  std::size_t used = 0;
  for (const TemplatePiece& p : message_pieces(id)) {
    if (p.type == TemplatePiece::Type::literal) {
      out += p.literal;
      continue;
    }
    const auto it = std::find_if(args.begin(), args.end(), [&](const MessageArg& a) { return a.name == p.name; });
    if (it == args.end()) {
      throw std::logic_error(fmt::format("message {}: no value for {{{}}}", m.text.substr(0, 40), p.name));
    }
    if (!fits(p.type, it->value)) {
      throw std::logic_error(fmt::format("message {}: '{}' does not fit {{{}}}", m.text.substr(0, 40),
                                         it->value.text(), p.name));
    }
    out += it->value.text();
    ++used;
  }
  if (used != args.size()) {
    throw std::logic_error(fmt::format("message {}: {} value(s) name no placeholder", m.text.substr(0, 40),
                                       args.size() - used));
  }
  out += m.tail;
  return out;
}

std::string as_delivered(MessageId id, std::string_view message)
{
  const SglangMessage& m = sglang_message(id);
  switch (m.delivery) {
  case Delivery::raised:
  case Delivery::wrapper:
    return m.python_class.empty() ? std::string(message) : fmt::format("{}: {}", m.python_class, message);
  case Delivery::assert_tuple: return fmt::format("{}: ('{}',)", m.python_class, message);
  case Delivery::argparse: return fmt::format("error: {}", message);
  case Delivery::logged_info:
  case Delivery::logged_warning:
  case Delivery::logged_error:
  case Delivery::failure_reason: return std::string(message);
  }
  return std::string(message);
}

std::string render_delivered(MessageId id, MessageArgs args)
{
  return as_delivered(id, render_message(id, args));
}

} // namespace pdcheck
