#pragma once

// Deployments whose launch arguments are a mapping turned into flags by a
// tool: SGLang's LWS PD Helm chart values (one hand-written flag per key) and
// srt-slurm recipes (every key a flag). Facts and sources:
// docs/research/deployments-manifests.md §7 and §8.

#include "io/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace pdcheck::io {

/// n[key], or an undefined node when n is not a mapping or has no such key
/// (yaml-cpp throws on any question to the invalid node a missing key gives).
YAML::Node yaml_at(const YAML::Node& n, const std::string& key);

/// n when it is a sequence, else an empty one: what a loop over a list field
/// iterates. (Iterating a mapping as a list yields nodes yaml-cpp throws on.)
YAML::Node yaml_list(const YAML::Node& n);

/// "file:line:col" (1-based) of a YAML mark; the file alone when it has none.
std::string yaml_place(const std::string& file, const YAML::Mark& m);

/// The prefill and decode servers of a Helm values file or an srt-slurm
/// recipe; empty when `doc` is neither.
std::vector<ManifestServer> config_servers(const YAML::Node& doc, const std::string& file,
                                           const ManifestOptions& options);

} // namespace pdcheck::io
