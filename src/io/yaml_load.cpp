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
  explicit EventCounter(std::size_t bytes) : m_bytes(bytes), m_limit(bytes * k_yaml_events_per_byte + 1024) {}

  void OnDocumentStart(const YAML::Mark& m) override { count(m); }
  void OnDocumentEnd() override { count(m_last); }
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { count(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { count(m); }
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
  void count(const YAML::Mark& m)
  {
    m_last = m;
    if (++m_events > m_limit) {
      throw YAML::ParserException(m, fmt::format("the YAML parser does not reach the end of the input (more than {} "
                                                 "events from {} bytes): the YAML is malformed near here",
                                                 m_limit, m_bytes));
    }
  }

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
  EventCounter counter(text.size());
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
