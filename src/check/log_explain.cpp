#include "check/log_explain.hpp"

#include "check/log_analysis.hpp"
#include "check/log_causes.hpp"
#include "check/log_match.hpp"
#include "check/word_search.hpp"
#include "core/rules.hpp"
#include "core/sglang_messages.hpp"
#include "util/byte_count.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>

namespace pdcheck::check {

namespace {

using json = nlohmann::ordered_json;

// --- the catalog rows, split into what is matched and what wraps ------------------

struct Rows
{
  std::vector<MessageId> known;    ///< matched in catalog order: the first match wins
  std::vector<MessageId> wrappers; ///< peeled from the outside in
};

const Rows& rows()
{
  static const Rows r = [] {
    Rows out;
    for (const SglangMessage& m : sglang_messages()) {
      (m.delivery == Delivery::wrapper ? out.wrappers : out.known).push_back(m.handle);
    }
    return out;
  }();
  return r;
}

/// The name of a wrapper's one text placeholder: the text it wraps.
std::string wrapped_value_name(MessageId id)
{
  for (const TemplatePiece& p : message_pieces(id)) {
    if (p.type == TemplatePiece::Type::text) {
      return std::string(p.name);
    }
  }
  throw std::logic_error("wrapper without a {name:text} placeholder");
}

Severity log_severity(const SglangMessage& m)
{
  if (m.rule) {
    return rule(*m.rule).severity;
  }
  switch (m.delivery) {
  case Delivery::logged_info: return Severity::info;
  case Delivery::logged_warning: return Severity::warning;
  default: return Severity::error;
  }
}

// --- the fast pre-filter -----------------------------------------------------------
//
// Almost every line of a server log is an ordinary INFO line. A line is looked at
// closely only if it contains one of these words; they are searched for all at
// once over the whole chunk (check/word_search.hpp), 16 or 32 positions a step.

constexpr std::array<std::string_view, 34> k_triggers = {
  "Error",          "ERROR",         "error",           "Exception",     "failed",        "Failed",
  "FAILED",         "Mamba",         "mamba",           "mismatch",      "Traceback",     "disaggregation",
  "Disaggregation", "not divisible", "should be equal", "should have",   "Performance is", "out of range",
  "unified",        "Unified",       "must",            "requires",      "does not",      "does NOT",
  "differ",         "struct.error",  "KVTransfer",      "Layer metadata", "Decode peer",   "modulo by zero",
  "not alive",      "Could not",     "NIXL_ERR",        "DCP on a PD",
};

} // namespace

std::span<const std::string_view> explain_trigger_words()
{
  return k_triggers;
}

namespace {

const WordSearch& trigger_search()
{
  static const WordSearch search(std::vector<std::string_view>(k_triggers.begin(), k_triggers.end()));
  return search;
}

// --- helpers for one line --------------------------------------------------------

bool contains_ci(std::string_view text, std::string_view lower_needle)
{
  auto it = std::search(text.begin(), text.end(), lower_needle.begin(), lower_needle.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

bool pd_looking(std::string_view line)
{
  // An exception line ("RuntimeError: ...", "KVTransferError(...)") or a failure
  // message; not a header such as "Exception in transfer worker", which only
  // introduces the traceback whose last line carries the error.
  static constexpr std::string_view k_errors[] = {"Error:", "Error(", "Exception:", "Exception(",
                                                  "failed", "Failed",  "FAILED"};
  static constexpr std::string_view k_pd[] = {"disagg", "kvtransfer", "bootstrap", "mooncake", "nixl",
                                              "mori",   "prefill",    "decode",    "mamba",    "state_ind",
                                              "kv_args", "transfer",  "conn.py"};
  if (line.find("Traceback (most recent call last)") != std::string_view::npos) {
    return false;
  }
  const bool error = std::any_of(std::begin(k_errors), std::end(k_errors),
                                 [&](std::string_view e) { return line.find(e) != std::string_view::npos; });
  return error && std::any_of(std::begin(k_pd), std::end(k_pd), [&](std::string_view k) { return contains_ci(line, k); });
}

std::string_view trim(std::string_view s)
{
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// --- bootstrap rooms and the server role ------------------------------------------

/// The digits of `s` from `pos` on, as a room; nothing when there are none.
std::optional<std::int64_t> digits_at(std::string_view s, std::size_t pos)
{
  std::int64_t v = 0;
  std::size_t n = 0;
  while (pos + n < s.size() && s[pos + n] >= '0' && s[pos + n] <= '9' && n < 18) {
    v = v * 10 + (s[pos + n] - '0');
    ++n;
  }
  if (n == 0 || (pos + n < s.size() && s[pos + n] >= '0' && s[pos + n] <= '9')) {
    return std::nullopt; // none, or wider than a room
  }
  return v;
}

void add_room(std::vector<std::int64_t>& rooms, std::int64_t room)
{
  if (rooms.size() < LogScanner::k_max_rooms && std::find(rooms.begin(), rooms.end(), room) == rooms.end()) {
    rooms.push_back(room);
  }
}

/// The bootstrap rooms a line names: the values a template read under bootstrap_room
/// or room (KVTransferError's, or the failure reason's own), then every
/// "bootstrap_room=N" of the raw line (the scheduler's "...req.bootstrap_room=N ...").
std::vector<std::int64_t> rooms_of(const json& values, std::string_view line)
{
  std::vector<std::int64_t> rooms;
  for (const char* name : {"bootstrap_room", "room"}) {
    const auto it = values.find(name);
    if (it == values.end()) {
      continue;
    }
    if (it->is_number_integer()) {
      add_room(rooms, it->get<std::int64_t>());
    } else if (it->is_string()) {
      const std::string& text = it->get_ref<const std::string&>();
      if (auto room = digits_at(text, 0); room && std::to_string(*room) == text) {
        add_room(rooms, *room);
      }
    }
  }
  constexpr std::string_view k_key = "bootstrap_room=";
  for (std::size_t at = line.find(k_key); at != std::string_view::npos; at = line.find(k_key, at + 1)) {
    if (auto room = digits_at(line, at + k_key.size())) {
      add_room(rooms, *room);
    }
  }
  return rooms;
}

/// The role of a log whose name says it ("x.prefill.log", "decode-0.txt"): "" when the
/// name names neither or both.
std::string role_from_name(std::string_view file)
{
  const std::size_t slash = file.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
  const bool prefill = contains_ci(base, "prefill");
  const bool decode = contains_ci(base, "decode");
  return prefill == decode ? std::string() : std::string(prefill ? "prefill" : "decode");
}

std::string confirm_command(std::string_view rule)
{
  return fmt::format("pdcheck check PREFILL.yaml DECODE.yaml   # or --prefill-args/--decode-args with the two "
                     "launch lines; reports {} while the cause is present",
                     rule.empty() ? std::string("the finding") : std::string(rule));
}

} // namespace

bool LogExplanation::failures_found() const
{
  return !unrecognised.empty() || std::any_of(matches.begin(), matches.end(), [](const LogMatch& m) {
           return m.severity != "info";
         });
}

LogScanner::LogScanner(std::string file) : m_file(std::move(file)) {}

void LogScanner::feed(std::string_view chunk)
{
  const WordSearch& triggers = trigger_search();
  const char* data = chunk.data();
  const std::size_t n = chunk.size();
  std::size_t counted = 0;          // newlines counted up to here
  std::int64_t line_no = m_lines_before;
  std::size_t i = 0;
  while ((i = triggers.find(chunk, i)) < n) {
    const char* nl_before = i == 0 ? nullptr : static_cast<const char*>(memrchr(data, '\n', i));
    const std::size_t begin = nl_before == nullptr ? 0 : static_cast<std::size_t>(nl_before - data) + 1;
    const char* nl_after = static_cast<const char*>(std::memchr(data + i, '\n', n - i));
    const std::size_t end = nl_after == nullptr ? n : static_cast<std::size_t>(nl_after - data);
    line_no += static_cast<std::int64_t>(util::count_byte({data + counted, begin - counted}, '\n'));
    counted = begin;
    scan_line(chunk.substr(begin, end - begin), line_no + 1);
    i = end + 1;
  }
  m_lines_before = line_no + static_cast<std::int64_t>(util::count_byte({data + counted, n - counted}, '\n'));
}

void LogScanner::scan_line(std::string_view line, std::int64_t line_number)
{
  const std::string_view t = trim(line);
  if (!t.empty() && t.front() == '{') {
    // JSON lines: the message (and any traceback field) is matched decoded.
    const auto j = nlohmann::json::parse(t, nullptr, false);
    if (j.is_object()) {
      std::string text;
      for (const char* key : {"message", "msg", "log", "text", "textPayload", "MESSAGE", "exc_info", "exception",
                              "traceback", "stack_trace"}) {
        auto it = j.find(key);
        if (it != j.end() && it->is_string()) {
          text += it->get<std::string>();
          text += '\n';
        }
      }
      std::string_view rest = text;
      while (!rest.empty()) {
        const std::size_t nl = rest.find('\n');
        scan_text(rest.substr(0, nl), line_number);
        if (nl == std::string_view::npos) {
          break;
        }
        rest.remove_prefix(nl + 1);
      }
      return;
    }
  }
  scan_text(line, line_number);
}

void LogScanner::note_role(std::string_view line)
{
  // SGLang prints its ServerArgs at startup: "... disaggregation_mode='prefill' ..."
  // (or, in JSON logs, "disaggregation_mode": "prefill").
  constexpr std::string_view k_key = "disaggregation_mode";
  const std::size_t at = line.find(k_key);
  if (!m_role.empty() || at == std::string_view::npos) {
    return;
  }
  std::size_t p = at + k_key.size();
  while (p < line.size() && (line[p] == '=' || line[p] == ':' || line[p] == ' ' || line[p] == '\'' || line[p] == '"')) {
    ++p;
  }
  for (const char* role : {"prefill", "decode"}) {
    const std::string_view r(role);
    if (line.substr(p, r.size()) == r &&
        (p + r.size() == line.size() || line[p + r.size()] == '\'' || line[p + r.size()] == '"')) {
      m_role = role;
    }
  }
}

void LogScanner::scan_text(std::string_view line, std::int64_t line_number)
{
  const Rows& r = rows();
  note_role(line);
  // A traceback frame in SGLang's disaggregation code makes the next generic
  // Python error ("list index out of range") a PD failure.
  const std::size_t frame = line.find("File \"");
  if (frame != std::string_view::npos && line.find("disaggregation") != std::string_view::npos) {
    m_last_frame_line = line_number;
    m_last_frame = std::string(trim(line.substr(frame)));
    return;
  }

  json wrapper_values = json::object();
  std::string_view inner = line;
  std::string inner_storage;
  bool wrapped = false;
  bool thread_died = false; // peeled "Transfer thread failed because of ..."
  // Peel wrappers from the outside in: the outermost is the one that starts first.
  while (true) {
    std::optional<TemplateMatch> outer;
    MessageId outer_id = MessageId::transfer_thread_failed;
    for (MessageId w : r.wrappers) {
      auto m = find_template(message_pieces(w), inner);
      if (m && (!outer || m->begin < outer->begin)) {
        outer = std::move(m);
        outer_id = w;
      }
    }
    if (!outer) {
      break;
    }
    wrapped = true;
    thread_died = thread_died || outer_id == MessageId::transfer_thread_failed;
    const std::string inner_name = wrapped_value_name(outer_id);
    for (auto& [k, v] : outer->values.items()) {
      if (k != inner_name) {
        wrapper_values[k] = v;
      }
    }
    inner_storage = outer->values[inner_name].get<std::string>();
    inner = inner_storage;
  }
  const bool in_context = wrapped || line.find("AssertionError") != std::string_view::npos ||
                          line_number - m_last_frame_line <= 40;

  for (MessageId id : r.known) {
    const SglangMessage& known = sglang_message(id);
    const bool needs_context = known.log_scope == LogScope::pd_context;
    if (needs_context && !in_context) {
      continue;
    }
    auto m = find_template(message_pieces(id), inner);
    if (!m) {
      continue;
    }
    const std::string rule_text = known.rule ? std::string(rule_id(*known.rule)) : std::string();
    const std::string text(inner.substr(m->begin, m->end - m->begin));
    const std::string key = rule_text + "\n" + text;
    json all_values = m->values;
    for (auto& [name, v] : wrapper_values.items()) {
      all_values[name] = v;
    }
    const std::vector<std::int64_t> rooms = rooms_of(all_values, line);
    auto it = m_match_index.find(key);
    if (it != m_match_index.end()) {
      LogMatch& lm = m_matches[it->second];
      lm.count += 1;
      if (lm.lines.size() < k_max_lines) {
        lm.lines.push_back(line_number);
      }
      for (auto& [name, v] : wrapper_values.items()) {
        if (!lm.values.contains(name)) {
          lm.values[name] = v;
        }
      }
      for (std::int64_t room : rooms) {
        add_room(lm.rooms, room);
      }
      return;
    }
    LogMatch lm;
    lm.file = m_file;
    lm.line = line_number;
    lm.lines = {line_number};
    lm.count = 1;
    lm.rule = rule_text;
    lm.severity = std::string(severity_name(log_severity(known)));
    lm.runtime_error = text;
    lm.values = std::move(all_values);
    lm.rooms = rooms;
    Analysis a = analyse_message(id, m->values);
    lm.analysis = std::move(a.derived);
    if (needs_context && !m_last_frame.empty() && line_number - m_last_frame_line <= 40) {
      lm.analysis["traceback_frame"] = m_last_frame;
    }
    lm.causes = std::move(a.causes);
    std::vector<std::string> fixes;
    for (const std::string& cause : lm.causes) {
      fixes.emplace_back(cause_fix(cause));
    }
    if (thread_died) {
      // The wrapper's own consequence, whatever the wrapped cause.
      lm.analysis["transfer_thread_died"] = true;
      a.explanation += fmt::format(
        " The error ended a transfer worker thread of the prefill (bootstrap port {}): the requests queued to that "
        "worker are not sent again until the prefill restarts, and the decode fails them.",
        lm.values.value("bootstrap_port", json()).dump());
      fixes.emplace_back("Then restart the prefill: its dead transfer worker does not come back.");
    }
    lm.explanation = std::move(a.explanation);
    lm.fix = fmt::format("{}", fmt::join(fixes, " "));
    lm.confirm = confirm_command(rule_text);
    m_match_index[key] = m_matches.size();
    m_matches.push_back(std::move(lm));
    return;
  }

  if (wrapped || pd_looking(line)) {
    std::string text(trim(wrapped ? line.substr(0) : line));
    const std::string key = text;
    auto it = m_unrecognised_index.find(key);
    if (it != m_unrecognised_index.end()) {
      m_unrecognised[it->second].count += 1;
      return;
    }
    m_unrecognised_index[key] = m_unrecognised.size();
    std::vector<std::int64_t> rooms = rooms_of(wrapper_values, line);
    m_unrecognised.push_back(LogUnrecognised{m_file, line_number, 1, std::move(text), std::move(rooms), {}});
  }
}

void LogScanner::finish(LogExplanation& out)
{
  LogFile log{m_file, m_role, "server_args"};
  if (log.role.empty()) {
    log.role = role_from_name(m_file);
    log.role_from = log.role.empty() ? "" : "name";
  }
  if (log.role.empty()) {
    log.role = "unknown";
  }
  out.logs.push_back(std::move(log));
  for (LogMatch& m : m_matches) {
    out.matches.push_back(std::move(m));
  }
  for (LogUnrecognised& u : m_unrecognised) {
    out.unrecognised.push_back(std::move(u));
  }
  m_matches.clear();
  m_unrecognised.clear();
  m_match_index.clear();
  m_unrecognised_index.clear();
}

LogExplanation explain_log_text(std::string_view text, const std::string& file)
{
  LogScanner scanner(file);
  scanner.feed(text);
  LogExplanation out;
  scanner.finish(out);
  return out;
}

} // namespace pdcheck::check
