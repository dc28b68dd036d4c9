#pragma once

// SGLang `--config` files that a deployment mounts from a ConfigMap: the
// ConfigMaps of the input, the files each container sees through its
// configMap volumes and volumeMounts, and a reader for parse_launch_args.

#include "sglang/server_args.hpp"

#include <yaml-cpp/yaml.h>

#include <map>
#include <string>
#include <string_view>

namespace pdcheck::io {

/// One key of a ConfigMap's data, with where its text starts in the manifest.
struct ConfigMapFile
{
  std::string text;
  std::string file;   ///< the manifest
  int first_line = 0; ///< lines of the manifest before the text
  int indent = 0;     ///< columns before each line of the text
};

/// ConfigMap name -> data key -> file.
using ConfigMaps = std::map<std::string, std::map<std::string, ConfigMapFile>>;

/// Adds the ConfigMaps of one YAML document (also inside a List) to `out`.
void collect_config_maps(const YAML::Node& doc, const std::string& file, std::string_view text, ConfigMaps& out);

/// A --config reader for one container: paths it mounts from ConfigMaps of
/// `maps` are read from there (positions inside the manifest); any other path
/// is an InputError naming it, `who` ("Deployment/x container sglang") and what
/// pdcheck needs.
sglang::ConfigFileReader config_map_reader(const YAML::Node& pod_spec, const YAML::Node& container,
                                           const ConfigMaps& maps, const std::string& who);

} // namespace pdcheck::io
