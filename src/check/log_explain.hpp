#pragma once

// `pdcheck explain LOG...`: finds every SGLang PD failure text pdcheck knows in
// server logs (plain text or JSON lines, with timestamps, prefixes and Python
// tracebacks), extracts the numbers SGLang printed and explains the likely cause
// from them, with the texts of the message catalog (core/sglang_messages.def).
// Pure: the caller reads the files and feeds the bytes (io/log_reader);
// report/log_render.hpp prints the result.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::check {

/// The same request seen in the other server's log: a decode-side symptom and the
/// prefill-side failure with the same bootstrap room (or the other way round).
struct LogLink
{
  std::int64_t room = 0; ///< the bootstrap room both entries name
  std::string role;      ///< the role of the linked entry's log: "prefill" or "decode"
  std::string file;
  std::int64_t line = 0;
  std::string rule; ///< the linked match's rule id; "" for no rule or an unrecognised line
  std::string text; ///< the linked match's runtime_error, or the unrecognised line
};

/// One known failure text, collapsed over its repetitions in one file.
struct LogMatch
{
  std::string file;
  std::int64_t line = 0;           ///< first occurrence, 1-based
  std::vector<std::int64_t> lines; ///< first occurrences (at most k_max_lines)
  std::int64_t count = 0;          ///< occurrences in the file
  std::string rule;                ///< pdcheck rule id, "" when the text has no rule
  std::string severity;            ///< "error", "warning" or "info"
  std::string runtime_error;       ///< the SGLang text as matched (wrappers peeled)
  nlohmann::ordered_json values = nlohmann::ordered_json::object();   ///< numbers and lists SGLang printed
  nlohmann::ordered_json analysis = nlohmann::ordered_json::object(); ///< what pdcheck derived from them
  std::vector<std::string> causes; ///< from log_cause_names() (check/log_causes.hpp)
  std::string explanation;
  std::string fix;
  std::string confirm; ///< the `pdcheck check` command that reproduces it
  std::vector<std::int64_t> rooms; ///< bootstrap rooms named on its lines (at most k_max_rooms), first seen first
  std::vector<LogLink> links;      ///< entries of the other role's logs with one of these rooms
};

/// A PD-looking error line no known text matches: listed, never dropped.
struct LogUnrecognised
{
  std::string file;
  std::int64_t line = 0;
  std::int64_t count = 0;
  std::string text;
  std::vector<std::int64_t> rooms;
  std::vector<LogLink> links;
};

/// One log file and the server role it was read as.
struct LogFile
{
  std::string file;
  std::string role;      ///< "prefill", "decode" or "unknown"
  std::string role_from; ///< "server_args" (SGLang's disaggregation_mode), "name" (the file name) or ""
};

struct LogExplanation
{
  std::vector<LogFile> logs;
  std::vector<LogMatch> matches;
  std::vector<LogUnrecognised> unrecognised;

  /// True when a match of severity error or warning, or an unrecognised error, was found.
  bool failures_found() const;
};

/// The words that make a line worth matching (an error word, a PD word or a
/// piece of a known SGLang text): every other line is skipped unread.
std::span<const std::string_view> explain_trigger_words();

/// Streams one log file. Feed it the file's bytes in order, each chunk ending at
/// a line boundary (the last one may not); then call finish().
class LogScanner
{
public:
  explicit LogScanner(std::string file);

  void feed(std::string_view chunk);
  /// Appends this file's matches and unrecognised lines to `out`, in order of first line.
  void finish(LogExplanation& out);

  static constexpr std::size_t k_max_lines = 20;
  static constexpr std::size_t k_max_rooms = 100;

private:
  void scan_line(std::string_view line, std::int64_t line_number);
  void scan_text(std::string_view text, std::int64_t line_number);
  void note_role(std::string_view line);

  std::string m_file;
  std::string m_role;              ///< from SGLang's server_args line, "" until one is seen
  std::int64_t m_lines_before = 0; ///< newlines in the chunks already fed
  std::int64_t m_last_frame_line = -1000000;
  std::string m_last_frame; ///< "file:function" of the last traceback frame in disaggregation code
  std::vector<LogMatch> m_matches;
  std::map<std::string, std::size_t> m_match_index;
  std::vector<LogUnrecognised> m_unrecognised;
  std::map<std::string, std::size_t> m_unrecognised_index;
};

/// Links every entry of a decode log to the entries of prefill logs that name one of
/// its bootstrap rooms, and back (LogMatch::links, LogUnrecognised::links). Call it
/// once, after every file is scanned.
void link_rooms(LogExplanation& e);

/// Convenience for tests and small inputs: scans one whole text.
LogExplanation explain_log_text(std::string_view text, const std::string& file);

} // namespace pdcheck::check
