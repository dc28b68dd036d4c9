#pragma once

// Deployments whose launch arguments are a mapping turned into flags by a
// tool: SGLang's LWS PD Helm chart values (one hand-written flag per key) and
// srt-slurm recipes (every key a flag). Facts and sources:
// docs/research/deployments-manifests.md §7 and §8.

#include "io/manifest.hpp"

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::io {

/// The prefill and decode servers of a Helm values file or an srt-slurm
/// recipe; empty when `doc` is neither.
std::vector<ManifestServer> config_servers(const YAML::Node& doc, const std::string& file, std::string_view text,
                                           const ManifestOptions& options);

} // namespace pdcheck::io
