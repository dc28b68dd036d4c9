#include "io/manifest.hpp"
#include "io/yaml_load.hpp"

#include "deploy/image_tag.hpp"
#include "io/input_file.hpp"
#include "io/manifest_config.hpp"
#include "io/manifest_configmaps.hpp"
#include "util/error.hpp"
#include "util/plural.hpp"
#include "util/whole_number.hpp"
#include "util/word_positions.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <optional>

namespace pdcheck::io {

namespace {

/// The most worker pods one OME component may have: far beyond any deployment.
constexpr int k_max_worker_pods = 65536;

using sglang::Role;



std::string scalar_or(const YAML::Node& n, const std::string& fallback = "")
{
  return n && n.IsScalar() ? n.Scalar() : fallback;
}

/// A variable platforms set when the pod starts: its value when the manifest
/// determines it, and who sets it.
struct PlatformVariable
{
  std::optional<std::string> value;
  std::string set_by;
};

/// What is known around one pod template while its containers are read.
struct PodContext
{
  std::string file;
  std::string_view text;
  std::string object; ///< "LeaderWorkerSet/qwen-prefill"
  std::string field;  ///< YAML path of the pod spec, for messages
  std::optional<Role> role;
  std::map<std::string, PlatformVariable> platform;
  std::vector<std::pair<std::string, std::optional<std::string>>> extra_env; ///< Dynamo envs: before the container's
  YAML::Node spec;                 ///< the pod spec (its volumes)
  const ConfigMaps* config_maps;   ///< of the whole input
};

/// Reads the `sh -c SCRIPT` or argv of one container into launch words.
class ContainerReader
{
public:
  ContainerReader(const PodContext& pod, const ManifestOptions& options) : m_pod(pod), m_options(options) {}

  std::optional<ManifestServer> read(const YAML::Node& c, const std::string& field)
  {
    if (!c.IsMap()) {
      return std::nullopt;
    }
    ManifestServer s;
    s.object = m_pod.object;
    s.container = scalar_or(yaml_at(c, "name"), field.size() > 14 && field.substr(field.size() - 14) == ".mainContainer"
                                               ? "main"
                                               : "(unnamed)");
    const std::string where = yaml_place(m_pod.file, c.Mark());
    read_env(yaml_at(c, "env"));

    std::vector<std::string> items;
    std::vector<YAML::Node> nodes;
    for (const char* key : {"command", "args"}) {
      const YAML::Node list = yaml_at(c, key);
      if (!list) {
        continue;
      }
      if (!list.IsSequence()) {
        throw InputError(yaml_place(m_pod.file, list.Mark()),
                         fmt::format("{} container {}: {}.{}: expected a list of strings", m_pod.object, s.container,
                                     field, key));
      }
      for (const YAML::Node& item : list) {
        if (!item.IsScalar()) {
          throw InputError(yaml_place(m_pod.file, item.Mark()), fmt::format("{} container {}: {}.{}: expected a list of "
                                                                       "strings",
                                                                       m_pod.object, s.container, field, key));
        }
        items.push_back(deploy::expand_kubernetes_references(item.Scalar(), lookup(), s.unresolved));
        nodes.push_back(item);
      }
    }
    LaunchedServer& l = s.launch;
    if (const std::optional<std::size_t> script = shell_script_item(items)) {
      const YAML::Node& node = nodes[*script];
      const deploy::ShellScript parsed =
        deploy::parse_shell_script(items[*script], lookup(), yaml_place(m_pod.file, node.Mark()));
      const std::optional<std::size_t> cmd = deploy::sglang_command_index(parsed.commands);
      if (!cmd) {
        return std::nullopt;
      }
      for (const deploy::UnresolvedReference& u : parsed.unresolved) {
        // $(NAME) Kubernetes left as written reaches the shell as a command substitution: listed once.
        if (std::none_of(s.unresolved.begin(), s.unresolved.end(),
                         [&](const deploy::UnresolvedReference& k) { return k.reference == u.reference; })) {
          s.unresolved.push_back(u);
        }
      }
      std::size_t from = node.Mark().pos >= 0 ? static_cast<std::size_t>(node.Mark().pos) : m_pod.text.size();
      const std::size_t end = std::min(m_pod.text.size(), from + items[*script].size() * 2 + 256);
      bool skipping_exec = true;
      for (const deploy::ShellWord& w : parsed.commands[*cmd].words) {
        if (skipping_exec && w.text == "exec") {
          continue;
        }
        skipping_exec = false;
        l.words.push_back(w.text);
        const auto found = locate_words(m_pod.text, from, end, {w.raw});
        if (found[0]) {
          l.places.push_back(fmt::format("{}:{}:{}", m_pod.file, found[0]->line, found[0]->column));
        } else {
          l.places.push_back(yaml_place(m_pod.file, node.Mark()));
        }
      }
    } else {
      if (!deploy::launches_sglang(items)) {
        return std::nullopt;
      }
      for (std::size_t i = 0; i < items.size(); ++i) {
        l.words.push_back(items[i]);
        l.places.push_back(yaml_place(m_pod.file, nodes[i].Mark()));
      }
    }
    // The container's environment as the server sees it; a valueFrom entry
    // takes its value from --manifest-env when given.
    const deploy::VariableLookup value_of = lookup();
    for (const auto& [name, value] : m_env) {
      if (auto v = value_of(name)) {
        l.env[name] = *v;
      }
    }
    l.role = m_pod.role;
    l.image = scalar_or(yaml_at(c, "image"));
    const deploy::ImageRelease release = deploy::release_from_image(l.image);
    if (release.version) {
      l.sglang = *release.version;
    } else {
      l.sglang_assumption = fmt::format("image {}: {}", l.image.empty() ? "(none)" : l.image,
                                        l.image.empty() ? "the container names no image" : release.why_unknown);
    }
    l.model_ref = m_options.model_ref;
    l.config_reader = config_map_reader(m_pod.spec, c, *m_pod.config_maps, s.object + " container " + s.container);
    l.where = where;
    l.origin = fmt::format("{}:{} ({}, container {})", m_pod.file, c.Mark().line + 1, m_pod.object, s.container);
    sglang::SourceLocation args_loc{m_pod.file, nodes.empty() ? c.Mark().line + 1 : nodes.front().Mark().line + 1,
                                    nodes.empty() ? c.Mark().column + 1 : nodes.front().Mark().column + 1};
    l.locations["args"] = args_loc;
    if (yaml_at(c, "image")) {
      const YAML::Mark image = yaml_at(c, "image").Mark();
      l.locations["sglang"] = sglang::SourceLocation{m_pod.file, image.line + 1, image.column + 1};
    }
    for (const deploy::UnresolvedReference& u : s.unresolved) {
      s.unresolved_why[u.name] = why_unknown(u.name);
    }
    return s;
  }

private:
  /// `sh -c SCRIPT` (also bash, -ec, -lc, ...): the index of SCRIPT.
  static std::optional<std::size_t> shell_script_item(const std::vector<std::string>& items)
  {
    if (items.empty()) {
      return std::nullopt;
    }
    const std::string shell = items[0].substr(items[0].rfind('/') == std::string::npos ? 0 : items[0].rfind('/') + 1);
    if (shell != "sh" && shell != "bash" && shell != "dash" && shell != "ash" && shell != "zsh") {
      return std::nullopt;
    }
    for (std::size_t i = 1; i + 1 < items.size(); ++i) {
      const std::string& o = items[i];
      if (o.size() >= 2 && o[0] == '-' && o[1] != '-' && o.find('c') != std::string::npos) {
        return i + 1;
      }
    }
    return std::nullopt;
  }

  void read_env(const YAML::Node& env)
  {
    m_env = m_pod.extra_env;
    if (!env || !env.IsSequence()) {
      return;
    }
    for (const YAML::Node& e : env) {
      if (!e.IsMap() || !yaml_at(e, "name") || !yaml_at(e, "name").IsScalar()) {
        continue;
      }
      const std::string name = yaml_at(e, "name").Scalar();
      std::optional<std::string> value;
      if (yaml_at(e, "value") && yaml_at(e, "value").IsScalar()) {
        value = yaml_at(e, "value").Scalar();
      } else if (!yaml_at(e, "valueFrom")) {
        value = ""; // name without value: the empty string
      }
      m_env.erase(std::remove_if(m_env.begin(), m_env.end(), [&](const auto& p) { return p.first == name; }),
                  m_env.end());
      m_env.emplace_back(name, value);
    }
  }

  deploy::VariableLookup lookup() const
  {
    return [this](const std::string& name) -> std::optional<std::string> {
      if (auto it = m_options.variables.find(name); it != m_options.variables.end()) {
        return it->second;
      }
      // The platform's value wins over the container's own (LWS drops user entries of its names).
      if (auto it = m_pod.platform.find(name); it != m_pod.platform.end()) {
        return it->second.value;
      }
      for (const auto& [n, v] : m_env) {
        if (n == name) {
          return v;
        }
      }
      return std::nullopt;
    };
  }

  std::string why_unknown(const std::string& name) const
  {
    if (auto it = m_pod.platform.find(name); it != m_pod.platform.end()) {
      return "set by " + it->second.set_by + " when the pod starts";
    }
    for (const auto& [n, v] : m_env) {
      if (n == name) {
        return "set from valueFrom (a Secret, ConfigMap key or field reference) this input does not hold";
      }
    }
    if (name.find(' ') != std::string::npos || name.empty()) {
      return "the output of a command, known only when the pod runs";
    }
    return "not set in the container's env";
  }

  const PodContext& m_pod;
  const ManifestOptions& m_options;
  std::vector<std::pair<std::string, std::optional<std::string>>> m_env;
};

/// LeaderWorkerSet's variables (kubernetes-sigs/lws pkg/utils/pod/pod_utils.go AddLWSVariables).
std::map<std::string, PlatformVariable> lws_variables(const YAML::Node& lwt, const std::string& by)
{
  std::string size = "1";
  if (lwt && yaml_at(lwt, "size") && yaml_at(lwt, "size").IsScalar()) {
    size = yaml_at(lwt, "size").Scalar();
  }
  return {{"LWS_GROUP_SIZE", {size, by}},
          {"LWS_LEADER_ADDRESS", {std::nullopt, by}},
          {"LWS_WORKER_INDEX", {std::nullopt, by}}};
}

class ManifestReader
{
public:
  ManifestReader(std::string file, std::string_view text, const ManifestOptions& options, const ConfigMaps& maps)
    : m_file(std::move(file)), m_text(text), m_options(options), m_config_maps(&maps)
  {
  }

  void document(const YAML::Node& doc, std::vector<ManifestServer>& out)
  {
    if (!doc.IsMap()) {
      return;
    }
    const std::string kind = scalar_or(yaml_at(doc, "kind"));
    const std::string name = scalar_or(yaml_at(yaml_at(doc, "metadata"), "name"), "(unnamed)");
    const std::string object = kind + "/" + name;
    const YAML::Node spec = yaml_at(doc, "spec");
    ++m_objects;
    if (kind == "List") {
      for (const YAML::Node& item : yaml_list(yaml_at(doc, "items"))) {
        document(item, out);
      }
      return;
    }
    if (kind.empty()) {
      if (auto servers = config_servers(doc, m_file, m_options); !servers.empty()) {
        out.insert(out.end(), servers.begin(), servers.end());
      }
      return;
    }
    if (kind == "Pod") {
      pod(doc, object, "spec", {}, {}, out, true);
    } else if (kind == "Deployment" || kind == "StatefulSet" || kind == "ReplicaSet" || kind == "DaemonSet" ||
               kind == "Job") {
      pod(yaml_at(spec, "template"), object, "spec.template.spec", {}, {}, out, true);
    } else if (kind == "CronJob") {
      pod(yaml_at(yaml_at(yaml_at(spec, "jobTemplate"), "spec"), "template"), object, "spec.jobTemplate.spec.template.spec", {}, {}, out, true);
    } else if (kind == "LeaderWorkerSet") {
      leader_worker(yaml_at(spec, "leaderWorkerTemplate"), object, "spec.leaderWorkerTemplate", {},
                    lws_variables(yaml_at(spec, "leaderWorkerTemplate"), "the LeaderWorkerSet controller"), out);
    } else if (kind == "RoleBasedGroup") {
      role_based_group(doc, object, out);
    } else if (kind == "DisaggregatedSet") {
      const YAML::Node roles = yaml_at(spec, "roles");
      for (std::size_t i = 0; roles.IsSequence() && i < roles.size(); ++i) {
        const YAML::Node r = roles[i];
        const YAML::Node lwt = yaml_at(r, "spec") ? yaml_at(yaml_at(r, "spec"), "leaderWorkerTemplate") : yaml_at(r, "leaderWorkerTemplate");
        const std::string path = fmt::format("spec.roles[{}]{}.leaderWorkerTemplate", i, yaml_at(r, "spec") ? ".spec" : "");
        leader_worker(lwt, object + " role " + scalar_or(yaml_at(r, "name"), std::to_string(i)), path,
                      role_named(scalar_or(yaml_at(r, "name"))), lws_variables(lwt, "the LeaderWorkerSet controller"), out);
      }
    } else if (kind == "DynamoGraphDeployment") {
      dynamo(doc, object, out);
    } else if (kind == "ServingRuntime" || kind == "ClusterServingRuntime") {
      ome(spec, object, out);
    }
  }

  std::size_t objects() const { return m_objects; }

private:
  static std::optional<Role> role_named(const std::string& name)
  {
    if (name == "prefill") {
      return Role::prefill;
    }
    if (name == "decode") {
      return Role::decode;
    }
    return std::nullopt;
  }

  /// The containers (and init containers) of a pod spec; `templated`: the
  /// node is a PodTemplateSpec (its pod spec under `spec`).
  void pod(const YAML::Node& node, const std::string& object, const std::string& field, std::optional<Role> role,
           std::map<std::string, PlatformVariable> platform, std::vector<ManifestServer>& out, bool templated = false,
           std::vector<std::pair<std::string, std::optional<std::string>>> extra_env = {})
  {
    const YAML::Node spec = templated ? yaml_at(node, "spec") : node;
    if (!spec || !spec.IsMap()) {
      return;
    }
    PodContext ctx{m_file, m_text, object, field, role, std::move(platform), std::move(extra_env), spec, m_config_maps};
    for (const char* list : {"initContainers", "containers"}) {
      const YAML::Node cs = yaml_at(spec, list);
      for (std::size_t i = 0; cs.IsSequence() && i < cs.size(); ++i) {
        if (auto s = ContainerReader(ctx, m_options).read(cs[i], fmt::format("{}.{}[{}]", field, list, i))) {
          out.push_back(std::move(*s));
        }
      }
    }
  }

  void leader_worker(const YAML::Node& lwt, const std::string& object, const std::string& field,
                     std::optional<Role> role, const std::map<std::string, PlatformVariable>& platform,
                     std::vector<ManifestServer>& out)
  {
    if (!lwt || !lwt.IsMap()) {
      return;
    }
    // Leader and workers of one group are one SGLang server over several
    // nodes: the leader's launch stands for it (the workerTemplate when the
    // leaderTemplate is left out, as LWS then uses it for the leader too).
    if (yaml_at(lwt, "leaderTemplate")) {
      pod(yaml_at(lwt, "leaderTemplate"), object + " leader", field + ".leaderTemplate.spec", role, platform, out, true);
    } else {
      pod(yaml_at(lwt, "workerTemplate"), object, field + ".workerTemplate.spec", role, platform, out, true);
    }
  }

  void role_based_group(const YAML::Node& doc, const std::string& object, std::vector<ManifestServer>& out)
  {
    const YAML::Node spec = yaml_at(doc, "spec");
    std::map<std::string, YAML::Node> templates;
    for (const YAML::Node& t : yaml_list(yaml_at(spec, "roleTemplates"))) {
      templates[scalar_or(yaml_at(t, "name"))] = yaml_at(t, "template");
    }
    const YAML::Node roles = yaml_at(spec, "roles");
    for (std::size_t i = 0; roles.IsSequence() && i < roles.size(); ++i) {
      const YAML::Node r = roles[i];
      const std::string role_name = scalar_or(yaml_at(r, "name"), std::to_string(i));
      const std::string label = object + " role " + role_name;
      const std::string base = fmt::format("spec.roles[{}]", i);
      const std::optional<Role> hint = role_named(role_name);
      std::map<std::string, PlatformVariable> platform = {
        {"RBG_GROUP_NAME", {scalar_or(yaml_at(yaml_at(doc, "metadata"), "name")), "the RoleBasedGroup controller"}},
        {"RBG_ROLE_NAME", {role_name, "the RoleBasedGroup controller"}},
        {"RBG_ROLE_INDEX", {std::nullopt, "the RoleBasedGroup controller"}}};
      if (yaml_at(r, "template")) { // v1alpha1
        if (yaml_at(r, "leaderWorkerSet")) {
          const auto lws = lws_variables(yaml_at(r, "leaderWorkerSet"), "the LeaderWorkerSet the RoleBasedGroup creates");
          platform.insert(lws.begin(), lws.end());
        }
        pod(yaml_at(r, "template"), label, base + ".template.spec", hint, platform, out, true);
        continue;
      }
      auto from_pattern = [&](const YAML::Node& p, const std::string& path) {
        if (yaml_at(p, "template")) {
          pod(yaml_at(p, "template"), label, path + ".template.spec", hint, platform, out, true);
        } else if (yaml_at(p, "templateRef")) {
          const std::string ref = scalar_or(yaml_at(yaml_at(p, "templateRef"), "name"));
          if (auto it = templates.find(ref); it != templates.end()) {
            pod(it->second, label, "spec.roleTemplates[" + ref + "].template.spec", hint, platform, out, true);
          }
        }
      };
      if (yaml_at(r, "standalonePattern")) {
        from_pattern(yaml_at(r, "standalonePattern"), base + ".standalonePattern");
      } else if (yaml_at(r, "leaderWorkerPattern")) {
        const YAML::Node p = yaml_at(r, "leaderWorkerPattern");
        const std::string size = scalar_or(yaml_at(p, "size"), "1");
        for (const char* n : {"RBG_LWP_GROUP_SIZE", "RBG_SIZE"}) {
          platform[n] = {size, "the RoleBasedGroup controller"};
        }
        for (const char* n : {"RBG_LWP_LEADER_ADDRESS", "RBG_LWP_WORKER_INDEX", "RBG_LEADER_ADDRESS", "RBG_INDEX"}) {
          platform[n] = {std::nullopt, "the RoleBasedGroup controller"};
        }
        from_pattern(p, base + ".leaderWorkerPattern");
      }
    }
  }

  void dynamo(const YAML::Node& doc, const std::string& object, std::vector<ManifestServer>& out)
  {
    const YAML::Node spec = yaml_at(doc, "spec");
    std::vector<std::pair<std::string, std::optional<std::string>>> graph_env;
    for (const char* key : {"envs", "env"}) {
      for (const YAML::Node& e : yaml_list(yaml_at(spec, key))) {
        if (yaml_at(e, "name")) {
          graph_env.emplace_back(scalar_or(yaml_at(e, "name")), yaml_at(e, "value") ? std::optional<std::string>(scalar_or(yaml_at(e, "value")))
                                                                  : std::nullopt);
        }
      }
    }
    if (yaml_at(spec, "services") && yaml_at(spec, "services").IsMap()) { // v1alpha1
      for (auto it = yaml_at(spec, "services").begin(); it != yaml_at(spec, "services").end(); ++it) {
        const std::string service = scalar_or(it->first);
        const YAML::Node s = it->second;
        std::optional<Role> hint = role_named(scalar_or(yaml_at(s, "subComponentType")));
        if (!hint) {
          hint = role_named(scalar_or(yaml_at(s, "componentType")));
        }
        auto env = graph_env;
        for (const YAML::Node& e : yaml_list(yaml_at(s, "envs"))) {
          env.emplace_back(scalar_or(yaml_at(e, "name")),
                           yaml_at(e, "value") ? std::optional<std::string>(scalar_or(yaml_at(e, "value"))) : std::nullopt);
        }
        const YAML::Node main = yaml_at(yaml_at(s, "extraPodSpec"), "mainContainer");
        if (main) {
          PodContext ctx{m_file,    m_text, object + " service " + service, "spec.services." + service + ".extraPodSpec",
                         hint,      {},     env,                             yaml_at(s, "extraPodSpec"),
                         m_config_maps};
          if (auto found = ContainerReader(ctx, m_options).read(main, ctx.field + ".mainContainer")) {
            out.push_back(std::move(*found));
          }
        }
      }
    }
    const YAML::Node components = yaml_at(spec, "components"); // v1beta1
    for (std::size_t i = 0; components.IsSequence() && i < components.size(); ++i) {
      const YAML::Node c = components[i];
      pod(yaml_at(c, "podTemplate"), object + " component " + scalar_or(yaml_at(c, "name"), std::to_string(i)),
          fmt::format("spec.components[{}].podTemplate.spec", i), role_named(scalar_or(yaml_at(c, "type"))), {}, out, true,
          graph_env);
    }
  }

  /// OME: engineConfig runs the prefill and decoderConfig the decode in PD mode
  /// (sgl-project/ome pkg/apis/ome/v1beta1/servingruntime_types.go).
  void ome(const YAML::Node& spec, const std::string& object, std::vector<ManifestServer>& out)
  {
    const std::vector<std::pair<const char*, std::optional<Role>>> parts = {{"engineConfig", Role::prefill},
                                                                            {"decoderConfig", Role::decode}};
    for (const auto& [key, role] : parts) {
      const YAML::Node part = yaml_at(spec, key);
      if (!part || !part.IsMap()) {
        continue;
      }
      const bool pd = yaml_at(spec, "decoderConfig") && yaml_at(spec, "decoderConfig").IsMap();
      const std::optional<Role> hint = pd ? role : std::nullopt;
      const std::string label = object + " " + key;
      const int workers = worker_pods(part, label, std::string("spec.") + key);
      std::map<std::string, PlatformVariable> platform = {{"MODEL_PATH", {std::nullopt, "OME (the model's mount)"}},
                                                          {"PARALLELISM_SIZE", {parallelism(part, workers), "OME"}}};
      const bool multi_node = yaml_at(part, "worker") && yaml_at(part, "worker").IsMap();
      if (multi_node) {
        const YAML::Node lwt = YAML::Node();
        auto lws = lws_variables(lwt, "the LeaderWorkerSet OME creates");
        lws["LWS_GROUP_SIZE"].value = std::to_string(1 + workers);
        platform.insert(lws.begin(), lws.end());
      }
      auto runner = [&](const YAML::Node& r, const std::string& field) {
        if (!r || !r.IsMap()) {
          return;
        }
        PodContext ctx{m_file, m_text, label, field, hint, platform, {}, part, m_config_maps};
        if (auto found = ContainerReader(ctx, m_options).read(r, field)) {
          out.push_back(std::move(*found));
        }
      };
      // A leader and its workers are one server over several nodes: the leader's launch stands for it.
      if (yaml_at(part, "runner")) {
        runner(yaml_at(part, "runner"), std::string("spec.") + key + ".runner");
      } else {
        runner(yaml_at(yaml_at(part, "leader"), "runner"), std::string("spec.") + key + ".leader.runner");
      }
      pod(part, label, std::string("spec.") + key, hint, platform, out);
    }
  }

  /// An OME component's worker.size (pods besides its leader); 0 without
  /// one. Anything but a whole number in range is the manifest's error.
  int worker_pods(const YAML::Node& part, const std::string& label, const std::string& field) const
  {
    const YAML::Node size = yaml_at(yaml_at(part, "worker"), "size");
    if (!size || size.IsNull()) {
      return 0; // an optional field of OME's WorkerSpec
    }
    const std::optional<int> n = size.IsScalar() ? whole_number(size.Scalar()) : std::nullopt;
    if (!n || *n > k_max_worker_pods) {
      throw InputError(yaml_place(m_file, size.Mark()),
                       fmt::format("{}: {}.worker.size: expected a whole number of worker pods (0 to {}), got {}",
                                   label, field, k_max_worker_pods,
                                   size.IsScalar() ? "'" + size.Scalar() + "'" : std::string("a list or map")));
    }
    return *n;
  }

  /// OME's PARALLELISM_SIZE: GPUs per pod times the pods of one instance (its
  /// leader and `workers`); unknown when the GPU limit is not a whole number.
  static std::optional<std::string> parallelism(const YAML::Node& part, int workers)
  {
    YAML::Node runner = yaml_at(part, "runner") ? yaml_at(part, "runner") : yaml_at(yaml_at(part, "leader"), "runner");
    const YAML::Node gpus = yaml_at(yaml_at(yaml_at(runner, "resources"), "limits"), "nvidia.com/gpu");
    const std::optional<int> per_pod = gpus && gpus.IsScalar() ? whole_number(gpus.Scalar()) : std::nullopt;
    if (!per_pod) {
      return std::nullopt;
    }
    return std::to_string(static_cast<long long>(*per_pod) * (1 + workers)); // both bounded: no overflow
  }

  std::string m_file;
  std::string_view m_text;
  const ManifestOptions& m_options;
  const ConfigMaps* m_config_maps;
  std::size_t m_objects = 0;
};

} // namespace

std::vector<ManifestServer> read_manifests(const std::vector<std::string>& paths, const ManifestOptions& options)
{
  // Every file is read first: a ConfigMap may come in another file than the pod that mounts it.
  struct Input
  {
    std::string file;
    std::string text;
    std::vector<YAML::Node> docs;
  };
  std::vector<Input> inputs;
  ConfigMaps config_maps;
  for (const std::string& path : paths) {
    const bool from_stdin = path == "-";
    Input in{from_stdin ? "<stdin>" : path,
             from_stdin ? read_standard_input(k_manifest_file) : read_input_file(path, k_manifest_file), {}};
    try {
      in.docs = load_yaml_all(in.text);
    } catch (const YAML::Exception& e) {
      throw InputError(yaml_place(in.file, e.mark), "YAML syntax error: " + e.msg);
    }
    for (const YAML::Node& doc : in.docs) {
      collect_config_maps(doc, in.file, in.text, config_maps);
    }
    inputs.push_back(std::move(in));
  }
  std::vector<ManifestServer> out;
  for (const Input& in : inputs) {
    const std::string& file = in.file;
    const std::vector<YAML::Node>& docs = in.docs;
    ManifestReader reader(file, in.text, options, config_maps);
    const std::size_t before = out.size();
    for (const YAML::Node& doc : docs) {
      reader.document(doc, out);
    }
    if (out.size() == before) {
      throw InputError(file, fmt::format("no SGLang server found among its {}: expected a container whose command runs "
                                         "sglang.launch_server, sglang serve or dynamo.sglang (in a Pod, Deployment, "
                                         "StatefulSet, Job, LeaderWorkerSet, RoleBasedGroup, DisaggregatedSet, "
                                         "DynamoGraphDeployment or OME runtime), SGLang's LWS PD chart values, or an "
                                         "srt-slurm recipe",
                                         counted(static_cast<long long>(reader.objects()), "YAML object")));
    }
  }
  return out;
}

sglang::Side manifest_side(const ManifestServer& server, const ManifestOptions& options)
{
  auto unresolved_in = [&](const std::string& text) -> const deploy::UnresolvedReference* {
    for (const deploy::UnresolvedReference& u : server.unresolved) {
      if (text.find(u.reference) != std::string::npos) {
        return &u;
      }
    }
    return nullptr;
  };
  auto refuse = [&](const std::string& where, const std::string& flag, const deploy::UnresolvedReference& u) {
    const auto why = server.unresolved_why.find(u.name);
    throw InputError(where, fmt::format("{} container {}: {} {} cannot be expanded: {} is {}; give its value with "
                                        "--manifest-env {}=VALUE{}",
                                        server.object, server.container, flag, u.reference, u.name,
                                        why == server.unresolved_why.end() ? "unknown" : why->second, u.name,
                                        flag == "--model-path" ? " or the model with --model" : ""));
  };
  sglang::Side side;
  try {
    side = side_from_launch(server.launch);
  } catch (const InputError& e) {
    if (const deploy::UnresolvedReference* u = unresolved_in(e.what())) {
      // Point at the word that holds the reference when its place is known.
      std::string where = e.where();
      const LaunchedServer& l = server.launch;
      for (std::size_t i = 0; i < l.words.size() && i < l.places.size(); ++i) {
        if (l.words[i].find(u->reference) != std::string::npos && !l.places[i].empty()) {
          where = l.places[i];
          break;
        }
      }
      refuse(where, "a launch argument", *u);
    }
    if (server.launch.model_ref.empty() && std::string(e.what()).find("model") != std::string::npos) {
      throw InputError(e.where(), fmt::format("{} container {}: {}; name the model with --model (a catalog name or "
                                              "a config.json)",
                                              server.object, server.container, e.detail()));
    }
    throw;
  }
  // --prefill-sglang / --decode-sglang name the release where the image does not (or wrongly does).
  const std::string& release = side.role == Role::prefill ? options.prefill_sglang : options.decode_sglang;
  if (!release.empty()) {
    ManifestServer named = server;
    named.launch.sglang = release;
    named.launch.sglang_assumption.clear();
    named.launch.role = side.role;
    named.launch.locations.erase("sglang");
    return manifest_side(named, {});
  }
  if (!server.launch.model_ref.empty() && side.args.model_path && unresolved_in(*side.args.model_path)) {
    side.model_path_conflict.clear(); // --model names what the unexpanded --model-path holds
  }
  for (const auto& [dest, given] : side.args.given) {
    if (dest == "model_path" && !server.launch.model_ref.empty()) {
      continue;
    }
    if (const deploy::UnresolvedReference* u = unresolved_in(given.value)) {
      refuse(given.origin, given.flag, *u);
    }
  }
  // The rest are in words no check reads: said, not refused.
  const LaunchedServer& l = server.launch;
  for (const deploy::UnresolvedReference& u : server.unresolved) {
    for (std::size_t i = 0; i < l.words.size(); ++i) {
      if (l.words[i].find(u.reference) == std::string::npos) {
        continue;
      }
      const std::string flag = i > 0 && l.words[i - 1].rfind("--", 0) == 0 ? l.words[i - 1] + " " : "";
      const auto why = server.unresolved_why.find(u.name);
      side.notes.push_back(fmt::format("{} in '{}{}' is {}; pdcheck does not read that value", u.reference, flag,
                                       l.words[i], why == server.unresolved_why.end() ? "unknown" : why->second));
      break;
    }
  }
  return side;
}

} // namespace pdcheck::io
