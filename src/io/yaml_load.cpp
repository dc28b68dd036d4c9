#include "io/yaml_load.hpp"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <sstream>

namespace pdcheck::io {

namespace {

/// Counts events and remembers where the last one was; throws at the limit.
class EventCounter : public YAML::EventHandler
{
public:
  explicit EventCounter(const std::string& text)
    : m_text(text), m_bytes(text.size()), m_limit(text.size() * k_yaml_events_per_byte + 1024)
  {
  }

  void OnDocumentStart(const YAML::Mark& m) override { count(m); }
  void OnDocumentEnd() override { count(m_last); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override
  {
    count(m);
    check_quote_closed(m);
  }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
  {
    count(m);
  }
  void OnSequenceEnd() override { count(m_last); }
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override
  {
    count(m);
  }
  void OnMapEnd() override { count(m_last); }

private:
  /// yaml-cpp 0.7 ends a quoted scalar that is never closed at the end of the
  /// input and returns the rest of the file as its value ("0.5.20\nmodel: ...").
  /// YAML requires the closing quote, and so does pdcheck.
  void check_quote_closed(const YAML::Mark& m) const
  {
    if (m.pos < 0 || static_cast<std::size_t>(m.pos) >= m_text.size()) {
      return;
    }
    const char quote = m_text[static_cast<std::size_t>(m.pos)];
    if (quote != '"' && quote != '\'') {
      return; // plain, block, or behind a tag or anchor
    }
    for (std::size_t i = static_cast<std::size_t>(m.pos) + 1; i < m_text.size(); ++i) {
      if (quote == '"' && m_text[i] == '\\') {
        ++i; // an escape: the next character is the escaped one
      } else if (m_text[i] == quote) {
        if (quote == '\'' && i + 1 < m_text.size() && m_text[i + 1] == '\'') {
          ++i; // '' is a quote inside a single-quoted scalar
          continue;
        }
        return;
      }
    }
    throw YAML::ParserException(m, fmt::format("this {}-quoted string has no closing {} before the end of the input",
                                               quote == '"' ? "double" : "single", quote));
  }

  void count(const YAML::Mark& m)
  {
    m_last = m;
    if (++m_events > m_limit) {
      throw YAML::ParserException(m, fmt::format("the YAML parser does not reach the end of the input (more than {} "
                                                 "events from {} bytes): the YAML is malformed near here",
                                                 m_limit, m_bytes));
    }
  }

  const std::string& m_text;
  std::size_t m_bytes;
  std::size_t m_limit;
  std::size_t m_events = 0;
  YAML::Mark m_last = YAML::Mark::null_mark();
};

/// Runs the counting pass over `documents` documents (0: all).
void count_events(const std::string& text, std::size_t documents)
{
  std::istringstream in(text);
  YAML::Parser parser(in);
  EventCounter counter(text);
  for (std::size_t n = 0; documents == 0 || n < documents; ++n) {
    if (!parser.HandleNextDocument(counter)) {
      break;
    }
  }
}

} // namespace

YAML::Node load_yaml(const std::string& text)
{
  count_events(text, 1);
  return YAML::Load(text);
}

std::vector<YAML::Node> load_yaml_all(const std::string& text)
{
  count_events(text, 0);
  return YAML::LoadAll(text);
}

} // namespace pdcheck::io
