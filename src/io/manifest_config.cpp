#include "io/manifest_config.hpp"

#include "deploy/image_tag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

namespace pdcheck::io {

namespace {

using sglang::Role;



sglang::SourceLocation location(const std::string& file, const YAML::Mark& m)
{
  return sglang::SourceLocation{file, m.line + 1, m.column + 1};
}

/// Builds one server's words and places as flags are appended.
struct Builder
{
  const std::string& file;
  ManifestServer server;

  void word(const std::string& w, const YAML::Mark& m) { add(w, yaml_place(file, m)); }

  void add(const std::string& w, const std::string& where)
  {
    server.launch.words.push_back(w);
    server.launch.places.push_back(where);
  }

  /// `flag` with the value of `v` as the tools write it: true -> the bare flag,
  /// false or null -> nothing, a list -> its items, else the scalar.
  void flag(const std::string& flag, const YAML::Node& v, const YAML::Mark& key_mark)
  {
    if (!v || v.IsNull()) {
      return;
    }
    if (v.IsScalar() && (v.Scalar() == "true" || v.Scalar() == "True")) {
      word(flag, key_mark);
      return;
    }
    if (v.IsScalar() && (v.Scalar() == "false" || v.Scalar() == "False")) {
      return;
    }
    word(flag, key_mark);
    if (v.IsSequence()) {
      for (const YAML::Node& item : v) {
        if (item.IsScalar()) {
          word(item.Scalar(), item.Mark());
        }
      }
    } else if (v.IsScalar()) {
      word(v.Scalar(), v.Mark());
    }
  }
};

void set_image(ManifestServer& s, const std::string& image, const std::string& file, const YAML::Mark& mark)
{
  LaunchedServer& l = s.launch;
  l.image = image;
  const deploy::ImageRelease release = deploy::release_from_image(image);
  if (release.version) {
    l.sglang = *release.version;
  } else {
    l.sglang_assumption = fmt::format("image {}: {}", image.empty() ? "(none)" : image,
                                      image.empty() ? "the input names no image" : release.why_unknown);
  }
  if (mark.line >= 0) {
    l.locations["sglang"] = location(file, mark);
  }
}

void finish(ManifestServer& s, const std::string& file, const YAML::Mark& mark, Role role, const ManifestOptions& o)
{
  LaunchedServer& l = s.launch;
  l.role = role;
  l.model_ref = o.model_ref;
  l.where = yaml_place(file, mark);
  l.origin = fmt::format("{}:{} ({}, {})", file, mark.line + 1, s.object, s.container);
  l.locations["args"] = location(file, mark);
}

/// srt-slurm (NVIDIA/srt-slurm src/srtctl/backends/sglang.py @ 435bc89c): srtctl
/// writes the module, --model-path and --disaggregation-mode (from the role),
/// then every config key sorted, '_' read as '-'.
std::vector<ManifestServer> srt_slurm(const YAML::Node& doc, const std::string& file, const ManifestOptions& o)
{
  std::vector<ManifestServer> out;
  const bool v2 = yaml_at(doc, "schema") && yaml_at(doc, "schema").Scalar() == "2";
  const std::string frontend = yaml_at(yaml_at(doc, "frontend"), "type") ? yaml_at(yaml_at(doc, "frontend"), "type").Scalar() : "sglang";
  const std::string module = frontend == "dynamo" ? "dynamo.sglang" : "sglang.launch_server";
  const YAML::Node model = yaml_at(doc, "model");
  std::string model_path = yaml_at(model, "path") && yaml_at(model, "path").IsScalar() ? yaml_at(model, "path").Scalar() : "";
  if (model_path.rfind("hf:", 0) == 0) {
    model_path = model_path.substr(3);
  }
  for (const auto& [name, role] : {std::pair{"prefill", Role::prefill}, std::pair{"decode", Role::decode}}) {
    const YAML::Node config = v2 ? yaml_at(yaml_at(yaml_at(doc, "roles"), name), "args")
                                 : yaml_at(yaml_at(yaml_at(doc, "backend"), "sglang_config"), name);
    if (!config || !config.IsMap()) {
      continue;
    }
    Builder b{file, {}};
    b.server.object = yaml_at(doc, "name") && yaml_at(doc, "name").IsScalar() ? "recipe/" + yaml_at(doc, "name").Scalar() : "recipe";
    b.server.container = v2 ? fmt::format("roles.{}.args", name) : fmt::format("backend.sglang_config.{}", name);
    b.add("python3", "");
    b.add("-m", "");
    b.add(module, "");
    if (!model_path.empty()) {
      b.word("--model-path", yaml_at(model, "path").Mark());
      b.word(model_path, yaml_at(model, "path").Mark());
    }
    b.add("--disaggregation-mode", yaml_place(file, config.Mark()));
    b.add(name, yaml_place(file, config.Mark()));
    // Sorted through a map of keys: assigning a YAML::Node (as std::sort
    // would) writes into the document instead of rebinding the handle.
    std::map<std::string, std::pair<YAML::Node, YAML::Mark>> keys;
    for (auto it = config.begin(); it != config.end(); ++it) {
      std::string key = it->first.Scalar();
      std::replace(key.begin(), key.end(), '_', '-');
      if (key == "model-path" || key == "served-model-name") {
        continue; // srtctl pops these and writes its own
      }
      keys.emplace(key, std::pair{it->second, it->first.Mark()});
    }
    for (const auto& [key, value] : keys) {
      b.flag("--" + key, value.first, value.second);
    }
    const YAML::Node env = v2 ? yaml_at(yaml_at(yaml_at(doc, "roles"), name), "env")
                              : yaml_at(yaml_at(doc, "backend"), std::string(name) + "_environment");
    if (env && env.IsMap()) {
      for (auto it = env.begin(); it != env.end(); ++it) {
        if (it->second.IsScalar()) {
          b.server.launch.env[it->first.Scalar()] = it->second.Scalar();
        }
      }
    }
    set_image(b.server, yaml_at(model, "container") && yaml_at(model, "container").IsScalar() ? yaml_at(model, "container").Scalar() : "",
              file, yaml_at(model, "container") ? yaml_at(model, "container").Mark() : YAML::Mark::null_mark());
    finish(b.server, file, config.Mark(), role, o);
    out.push_back(std::move(b.server));
  }
  return out;
}

/// SGLang's LWS PD chart (docs/references/multi_node_deployment/lws_pd_helm,
/// templates/_helpers.tpl @ 505ee031) writes one fixed flag per key; keys it
/// does not list are ignored, as by the chart.
const std::map<std::string, std::string>& chart_flags(Role role)
{
  static const std::map<std::string, std::string> k_common = {
    {"port", "--port"}, {"host", "--host"}, {"chunkedPrefillSize", "--chunked-prefill-size"},
    {"pageSize", "--page-size"}, {"enableDpAttention", "--enable-dp-attention"},
    {"enableDpLmHead", "--enable-dp-lm-head"}, {"dpSize", "--dp-size"}, {"moeA2aBackend", "--moe-a2a-backend"},
    {"disaggregationMode", "--disaggregation-mode"}, {"memFractionStatic", "--mem-fraction-static"},
    {"epNumRedundantExperts", "--ep-num-redundant-experts"}, {"moeDenseTpSize", "--moe-dense-tp-size"},
    {"maxRunningRequests", "--max-running-requests"}};
  static const std::map<std::string, std::string> k_prefill = [] {
    auto m = k_common;
    m.insert({{"maxPrefillTokens", "--max-prefill-tokens"}, {"epDispatchAlgorithm", "--ep-dispatch-algorithm"},
              {"eplbAlgorithm", "--eplb-algorithm"}, {"disableRadixCache", "--disable-radix-cache"}, {"tp", "--tp"}});
    return m;
  }();
  static const std::map<std::string, std::string> k_decode = [] {
    auto m = k_common;
    m.insert({{"cudaGraphMaxBs", "--cuda-graph-max-bs"}, {"tpSize", "--tp-size"}});
    return m;
  }();
  return role == Role::prefill ? k_prefill : k_decode;
}

std::vector<ManifestServer> helm_values(const YAML::Node& doc, const std::string& file, const ManifestOptions& o)
{
  std::vector<ManifestServer> out;
  const YAML::Node global = yaml_at(doc, "global");
  const YAML::Node image = yaml_at(global, "image");
  std::string image_ref;
  if (yaml_at(image, "repository") && yaml_at(image, "repository").IsScalar()) {
    image_ref = yaml_at(image, "repository").Scalar();
    if (yaml_at(image, "tag") && yaml_at(image, "tag").IsScalar() && !yaml_at(image, "tag").Scalar().empty()) {
      image_ref += ":" + yaml_at(image, "tag").Scalar();
    }
  }
  const YAML::Node model = yaml_at(global, "model");
  for (const auto& [name, role] : {std::pair{"prefill", Role::prefill}, std::pair{"decode", Role::decode}}) {
    const YAML::Node section = yaml_at(doc, name);
    const YAML::Node config = yaml_at(section, "config");
    if (!config || !config.IsMap() || (yaml_at(section, "enabled") && yaml_at(section, "enabled").Scalar() == "false")) {
      continue;
    }
    Builder b{file, {}};
    b.server.object = "chart values";
    b.server.container = std::string(name) + ".config";
    b.add("python3", "");
    b.add("-m", "");
    b.add("sglang.launch_server", "");
    if (yaml_at(model, "path")) {
      b.flag("--model-path", yaml_at(model, "path"), yaml_at(model, "path").Mark());
    }
    if (yaml_at(model, "contextLength")) {
      b.flag("--context-length", yaml_at(model, "contextLength"), yaml_at(model, "contextLength").Mark());
    }
    if (yaml_at(model, "trustRemoteCode")) {
      b.flag("--trust-remote-code", yaml_at(model, "trustRemoteCode"), yaml_at(model, "trustRemoteCode").Mark());
    }
    const auto& flags = chart_flags(role);
    for (auto it = config.begin(); it != config.end(); ++it) {
      if (auto f = flags.find(it->first.Scalar()); f != flags.end()) {
        b.flag(f->second, it->second, it->first.Mark());
      }
    }
    const YAML::Node ib = yaml_at(yaml_at(global, "rdma"), "ibDevice");
    if (ib) {
      b.flag("--disaggregation-ib-device", ib, ib.Mark());
    }
    const YAML::Node env = yaml_at(yaml_at(section, "leader"), "env");
    if (env && env.IsMap()) {
      for (auto it = env.begin(); it != env.end(); ++it) {
        if (it->second.IsScalar()) {
          b.server.launch.env[it->first.Scalar()] = it->second.Scalar();
        }
      }
    }
    set_image(b.server, image_ref, file, yaml_at(image, "tag") ? yaml_at(image, "tag").Mark() : image.Mark());
    finish(b.server, file, config.Mark(), role, o);
    out.push_back(std::move(b.server));
  }
  return out;
}

} // namespace

YAML::Node yaml_at(const YAML::Node& n, const std::string& key)
{
  if (!n || !n.IsMap()) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
  const YAML::Node child = n[key];
  return child ? child : YAML::Node(YAML::NodeType::Undefined);
}

YAML::Node yaml_list(const YAML::Node& n)
{
  return n && n.IsSequence() ? n : YAML::Node(YAML::NodeType::Sequence);
}

std::string yaml_place(const std::string& file, const YAML::Mark& m)
{
  return m.line >= 0 ? fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1) : file;
}

std::vector<ManifestServer> config_servers(const YAML::Node& doc, const std::string& file,
                                           const ManifestOptions& options)
{
  if (yaml_at(yaml_at(doc, "backend"), "sglang_config") || (yaml_at(doc, "schema") && yaml_at(doc, "roles"))) {
    return srt_slurm(doc, file, options);
  }
  if (yaml_at(yaml_at(doc, "prefill"), "config") || yaml_at(yaml_at(doc, "decode"), "config")) {
    return helm_values(doc, file, options);
  }
  return {};
}

} // namespace pdcheck::io
