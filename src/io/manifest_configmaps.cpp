#include "io/manifest_configmaps.hpp"

#include "io/manifest_config.hpp"
#include "io/sglang_config.hpp"
#include "util/error.hpp"

#include <filesystem>

namespace pdcheck::io {

namespace {

std::string scalar(const YAML::Node& n)
{
  return n && n.IsScalar() ? n.Scalar() : "";
}

/// Where a data value's text starts: a block scalar's (`|`) text begins on the
/// line after its indicator, indented; a flow value at its own mark.
ConfigMapFile file_of(const YAML::Node& value, const std::string& file, std::string_view text)
{
  ConfigMapFile f{value.Scalar(), file, value.Mark().line, value.Mark().column};
  const int pos = value.Mark().pos;
  if (pos >= 0 && static_cast<std::size_t>(pos) < text.size() && (text[pos] == '|' || text[pos] == '>')) {
    std::size_t line = text.find('\n', static_cast<std::size_t>(pos));
    if (line != std::string_view::npos) {
      ++line;
      std::size_t indent = 0;
      while (line + indent < text.size() && text[line + indent] == ' ') {
        ++indent;
      }
      f.first_line = value.Mark().line + 1;
      f.indent = static_cast<int>(indent);
    }
  }
  return f;
}

} // namespace

void collect_config_maps(const YAML::Node& doc, const std::string& file, std::string_view text, ConfigMaps& out)
{
  if (!doc.IsMap()) {
    return;
  }
  const std::string kind = scalar(yaml_at(doc, "kind"));
  if (kind == "List") {
    for (const YAML::Node& item : yaml_list(yaml_at(doc, "items"))) {
      collect_config_maps(item, file, text, out);
    }
    return;
  }
  if (kind != "ConfigMap") {
    return;
  }
  const YAML::Node data = yaml_at(doc, "data");
  if (!data.IsMap()) {
    return;
  }
  auto& keys = out[scalar(yaml_at(yaml_at(doc, "metadata"), "name"))];
  for (auto it = data.begin(); it != data.end(); ++it) {
    if (it->first.IsScalar() && it->second.IsScalar()) {
      keys[it->first.Scalar()] = file_of(it->second, file, text);
    }
  }
}

sglang::ConfigFileReader config_map_reader(const YAML::Node& pod_spec, const YAML::Node& container,
                                           const ConfigMaps& maps, const std::string& who)
{
  // Volume name -> (the path of each key inside the volume -> the file).
  std::map<std::string, std::map<std::string, ConfigMapFile>> volumes;
  for (const YAML::Node& v : yaml_list(yaml_at(pod_spec, "volumes"))) {
    const YAML::Node cm = yaml_at(v, "configMap");
    const auto found = maps.find(scalar(yaml_at(cm, "name")));
    if (!cm || found == maps.end()) {
      continue;
    }
    auto& files = volumes[scalar(yaml_at(v, "name"))];
    if (yaml_at(cm, "items").IsSequence()) {
      for (const YAML::Node& item : yaml_at(cm, "items")) {
        if (auto k = found->second.find(scalar(yaml_at(item, "key"))); k != found->second.end()) {
          files[scalar(yaml_at(item, "path"))] = k->second;
        }
      }
    } else {
      files = found->second;
    }
  }
  std::map<std::string, ConfigMapFile> mounted; // absolute path in the container -> file
  for (const YAML::Node& m : yaml_list(yaml_at(container, "volumeMounts"))) {
    const auto v = volumes.find(scalar(yaml_at(m, "name")));
    if (v == volumes.end()) {
      continue;
    }
    const std::string mount = scalar(yaml_at(m, "mountPath"));
    const std::string sub = scalar(yaml_at(m, "subPath"));
    for (const auto& [path, f] : v->second) {
      if (sub.empty()) {
        mounted[(std::filesystem::path(mount) / path).lexically_normal().string()] = f;
      } else if (path == sub) {
        mounted[std::filesystem::path(mount).lexically_normal().string()] = f;
      }
    }
  }
  return [mounted, who](const std::string& path, const std::string&) {
    require_yaml_extension(path);
    const auto f = mounted.find(std::filesystem::path(path).lexically_normal().string());
    if (f == mounted.end()) {
      throw InputError(path, who + ": --config file not in the input: pdcheck reads it from a ConfigMap the pod "
                                   "mounts there (volumes and volumeMounts), given in the same manifests");
    }
    return sglang_config_words(f->second.text, f->second.file, f->second.first_line, f->second.indent);
  };
}

} // namespace pdcheck::io
