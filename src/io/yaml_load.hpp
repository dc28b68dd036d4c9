#pragma once

// YAML::Load and YAML::LoadAll with a bound on the work. yaml-cpp 0.7 (Debian
// 12) never finishes some malformed inputs: its parser keeps emitting events
// and building nodes until memory runs out (found by tests/fuzz's
// fuzz_manifest on a mangled srt-slurm recipe). A first pass counts the events
// without building nodes and stops at a limit no real file comes near.

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace pdcheck::io {

/// At most this many parser events per input byte (plus a constant): a scalar,
/// a collection start or end, an alias each take at least a character or two.
inline constexpr std::size_t k_yaml_events_per_byte = 8;

/// The first document, as YAML::Load. Throws YAML::Exception, also (a
/// YAML::ParserException at the last event read) when the parser runs past
/// the limit.
YAML::Node load_yaml(const std::string& text);

/// Every document, as YAML::LoadAll; the limit counts them all.
std::vector<YAML::Node> load_yaml_all(const std::string& text);

} // namespace pdcheck::io
