// Deployments read where they live: the servers found in each kind, the words
// and places of their launch, and the one-line errors for manifests pdcheck
// cannot check (hand-written manifests; line numbers are in the texts).
#include "io/manifest.hpp"

#include "util/error.hpp"

#include "../../support/error_of.hpp"
#include "../../support/temp_dir.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <iterator>

using namespace pdcheck;

namespace {

const std::string k_lws = R"(apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: qwen-decode
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      spec:
        containers:
          - name: sglang
            image: lmsysorg/sglang:v0.5.8.post1-cu130
            env:
              - {name: TP, value: "4"}
              - {name: TOKEN, valueFrom: {secretKeyRef: {name: s, key: k}}}
            command:
              - sh
              - -c
              - >-
                ulimit -n 65536 && exec python3 -m sglang.launch_server
                --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp $(TP)
                --disaggregation-mode decode --nnodes ${LWS_GROUP_SIZE}
                --dist-init-addr $(LWS_LEADER_ADDRESS):20102 --api-key $TOKEN
)";

} // namespace

TEST_CASE("read_manifests: a LeaderWorkerSet's sh -c script, with Kubernetes and shell variables", "[io][manifest]")
{
  test::TempDir dir;
  const std::string path = dir.write("lws.yaml", k_lws);
  const auto servers = io::read_manifests({path}, {});
  REQUIRE(servers.size() == 1);
  const io::ManifestServer& s = servers[0];
  CHECK(s.object == "LeaderWorkerSet/qwen-decode");
  CHECK(s.container == "sglang");
  CHECK(s.launch.sglang == "0.5.8.post1");
  // `exec` and the ulimit command are not the server's words; $(TP) came from
  // the env, ${LWS_GROUP_SIZE} from spec.leaderWorkerTemplate.size.
  REQUIRE(s.launch.words.size() > 10);
  const std::vector<std::string> words(s.launch.words.begin(), s.launch.words.begin() + 9);
  CHECK(words == std::vector<std::string>{"python3", "-m", "sglang.launch_server", "--model-path",
                                          "Qwen/Qwen3-Next-80B-A3B-Instruct", "--tp", "4", "--disaggregation-mode",
                                          "decode"});
  CHECK(s.launch.words[10] == "2");
  // Each word's place is its line inside the folded scalar: --tp is on line 21, column 63.
  CHECK(s.launch.places[5] == path + ":21:63");
  CHECK(s.launch.places[7] == path + ":22:17");
  // Unknown at check time: the leader's address (LWS sets it) and a Secret.
  REQUIRE(s.unresolved.size() == 2);
  CHECK(s.unresolved[0].reference == "$(LWS_LEADER_ADDRESS)");
  CHECK(s.unresolved_why.at("LWS_LEADER_ADDRESS") == "set by the LeaderWorkerSet controller when the pod starts");
  CHECK(s.unresolved_why.at("TOKEN") ==
        "set from valueFrom (a Secret, ConfigMap key or field reference) this input does not hold");

  // Neither is in a flag pdcheck reads, so the side builds; --tp points at its line.
  const sglang::Side side = io::manifest_side(s, {});
  CHECK(side.role == sglang::Role::decode);
  CHECK(side.args.tp_size == 4);
  CHECK(side.args.given.at("tp_size").origin == path + ":21:63");
  // ... and the values left open are said, with the flag they are in.
  CHECK(side.notes == std::vector<std::string>{
                        "$(LWS_LEADER_ADDRESS) in '--dist-init-addr $(LWS_LEADER_ADDRESS):20102' is set by the "
                        "LeaderWorkerSet controller when the pod starts; pdcheck does not read that value",
                        "$TOKEN in '--api-key $TOKEN' is set from valueFrom (a Secret, ConfigMap key or field "
                        "reference) this input does not hold; pdcheck does not read that value"});
}

TEST_CASE("manifest_side: a variable without a value in a flag pdcheck reads is a one-line error", "[io][manifest]")
{
  test::TempDir dir;
  std::string text = k_lws;
  text.replace(text.find("--tp $(TP)"), 10, "--tp $(TP_SIZE)");
  const std::string path = dir.write("lws.yaml", text);
  const auto servers = io::read_manifests({path}, {});
  REQUIRE(servers.size() == 1);
  CHECK(test::error_of([&] { io::manifest_side(servers[0], {}); }) ==
        path + ":21:68: LeaderWorkerSet/qwen-decode container sglang: a launch argument $(TP_SIZE) cannot be "
               "expanded: TP_SIZE is not set in the container's env; give its value with --manifest-env TP_SIZE=VALUE");
  // Given with --manifest-env, it expands.
  io::ManifestOptions o;
  o.variables["TP_SIZE"] = "2";
  CHECK(io::manifest_side(io::read_manifests({path}, o)[0], o).args.tp_size == 2);
  // A valueFrom entry of the env takes its value from --manifest-env too; without it the server has no such variable.
  CHECK(io::read_manifests({path}, o)[0].launch.env.count("TOKEN") == 0);
  o.variables["TOKEN"] = "t";
  CHECK(io::read_manifests({path}, o)[0].launch.env.at("TOKEN") == "t");
}

TEST_CASE("read_manifests: inputs with no SGLang server are refused by name", "[io][manifest]")
{
  test::TempDir dir;
  const std::string none = dir.write("none.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
                                                  "spec:\n  template:\n    spec:\n      containers:\n"
                                                  "        - {name: nginx, image: nginx, args: [nginx]}\n");
  CHECK(test::error_of([&] { io::read_manifests({none}, {}); }) ==
        none + ": no SGLang server found among its 1 YAML object: expected a container whose command runs "
               "sglang.launch_server, sglang serve or dynamo.sglang (in a Pod, Deployment, StatefulSet, Job, "
               "LeaderWorkerSet, RoleBasedGroup, DisaggregatedSet, DynamoGraphDeployment or OME runtime), SGLang's "
               "LWS PD chart values, or an srt-slurm recipe");
  const std::string broken = dir.write("broken.yaml", "kind: Pod\nspec: [\n");
  CHECK(test::error_of([&] { io::read_manifests({broken}, {}); }).rfind(broken + ":3:1: YAML syntax error: ", 0) == 0);
  const std::string bad_args = dir.write("args.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n"
                                                      "    - name: s\n      args: --tp 4\n");
  CHECK(test::error_of([&] { io::read_manifests({bad_args}, {}); }) ==
        bad_args + ":6:13: Pod/p container s: spec.containers[0].args: expected a list of strings");
}

TEST_CASE("read_manifests: YAML aliases nesting 10^10 values (billion laughs) are not expanded", "[io][manifest]")
{
  // yaml-cpp shares an alias's node instead of copying it, and the readers
  // look only where servers can be: a walk that expanded the aliases would
  // visit 10^10 values and never finish within the test's timeout.
  std::string text = "apiVersion: v1\nkind: Pod\nmetadata: {name: laughs}\nspec:\n  l0: &l0 [lol";
  for (int i = 1; i < 10; ++i) {
    text += ", lol";
  }
  text += "]\n";
  for (int level = 1; level <= 9; ++level) {
    text += fmt::format("  l{}: &l{} [*l{}", level, level, level - 1);
    for (int i = 1; i < 10; ++i) {
      text += fmt::format(", *l{}", level - 1);
    }
    text += "]\n";
  }
  text += "  containers:\n    - name: s\n      args: *l9\n";
  test::TempDir dir;
  const std::string laughs = dir.write("laughs.yaml", text);
  // The position is the anchored list's (l9, line 13), where yaml-cpp puts an alias's node.
  CHECK(test::error_of([&] { io::read_manifests({laughs}, {}); }) ==
        laughs + ":13:7: Pod/laughs container s: spec.containers[0].args: expected a list of strings");
}

TEST_CASE("read_manifests: an srt-slurm recipe's keys become flags as srtctl writes them", "[io][manifest]")
{
  test::TempDir dir;
  const std::string path = dir.write("recipe.yaml", "name: r\nmodel: {path: 'hf:Qwen/Qwen3-Next-80B-A3B-Instruct', "
                                                    "container: 'lmsysorg/sglang:v0.5.20'}\nbackend:\n"
                                                    "  sglang_config:\n    prefill:\n      tp_size: 2\n"
                                                    "      trust-remote-code: true\n      disable-radix-cache: false\n"
                                                    "      ib: [a, b]\n");
  const auto servers = io::read_manifests({path}, {});
  REQUIRE(servers.size() == 1);
  CHECK(servers[0].launch.words ==
        std::vector<std::string>{"python3", "-m", "sglang.launch_server", "--model-path",
                                 "Qwen/Qwen3-Next-80B-A3B-Instruct", "--disaggregation-mode", "prefill", "--ib", "a",
                                 "b", "--tp-size", "2", "--trust-remote-code"});
  CHECK(servers[0].launch.sglang == "0.5.20");
  CHECK(servers[0].launch.role == sglang::Role::prefill);
}

TEST_CASE("manifest_side: a --config file mounted from a ConfigMap is read from the input", "[io][manifest]")
{
  const std::string path = std::string(PDCHECK_SOURCE_DIR) + "/examples/manifests/configmap-config.yaml";
  const auto servers = io::read_manifests({path}, {});
  REQUIRE(servers.size() == 2);
  const sglang::Side prefill = io::manifest_side(servers[0], {});
  CHECK(prefill.role == sglang::Role::prefill);
  CHECK(prefill.args.tp_size == 4);
  // The flag's place is its line inside the ConfigMap's block scalar: tp-size on line 12, column 5.
  CHECK(prefill.args.given.at("tp_size").origin == path + ":12:5");
  // The decode mounts one key under another name with subPath.
  const sglang::Side decode = io::manifest_side(servers[1], {});
  CHECK(decode.args.enable_unified_memory);
  CHECK(decode.args.given.at("enable_unified_memory").origin == path + ":20:5");

  // Without the ConfigMap in the input, the file is named with the container that needs it.
  test::TempDir dir;
  std::string text = k_lws;
  text.replace(text.find("--tp $(TP)"), 10, "--config /etc/x.yaml");
  const std::string no_map = dir.write("lws.yaml", text);
  CHECK(test::error_of([&] { io::manifest_side(io::read_manifests({no_map}, {})[0], {}); }) ==
        "/etc/x.yaml: LeaderWorkerSet/qwen-decode container sglang: --config file not in the input: pdcheck reads it "
        "from a ConfigMap the pod mounts there (volumes and volumeMounts), given in the same manifests");
}

TEST_CASE("read_manifests: an OME worker.size that is not a whole number is the manifest's error", "[io][manifest]")
{
  // The multi-node ServingRuntime of the example (its second document), found
  // by the fuzzer with a size that std::stoi threw on, uncaught.
  std::ifstream in(std::string(PDCHECK_SOURCE_DIR) + "/examples/manifests/ome-servingruntime.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text = text.substr(text.find("\n---\n") + 5);
  test::TempDir dir;
  SECTION("a word")
  {
    text.replace(text.find("size: 1"), 7, "size: two");
    const std::string path = dir.write("ome.yaml", text);
    CHECK(test::error_of([&] { io::read_manifests({path}, {}); }) ==
          path + ":29:13: ServingRuntime/srt-qwen3-next-pd-multinode engineConfig: spec.engineConfig.worker.size: "
                 "expected a whole number of worker pods (0 to 65536), got 'two'");
  }
  SECTION("a map")
  {
    text.replace(text.rfind("size: 1"), 7, "size: {n: 1}");
    const std::string path = dir.write("ome.yaml", text);
    CHECK(test::error_of([&] { io::read_manifests({path}, {}); }) ==
          path + ":47:13: ServingRuntime/srt-qwen3-next-pd-multinode decoderConfig: "
                 "spec.decoderConfig.worker.size: "
                 "expected a whole number of worker pods (0 to 65536), got a list or map");
  }
  SECTION("null: no workers, so one pod of 2 GPUs (PARALLELISM_SIZE 2), against 2 x (1 + 1) with one")
  {
    io::ManifestOptions o;
    o.variables["MODEL_PATH"] = "qwen3-next-80b-a3b"; // a catalog name: no directory needed
    const std::string with_worker = dir.write("one-worker.yaml", text);
    CHECK(io::manifest_side(io::read_manifests({with_worker}, o)[0], o).args.tp_size == 4);
    text.replace(text.find("size: 1"), 7, "size: ~");
    const std::string path = dir.write("ome.yaml", text);
    CHECK(io::manifest_side(io::read_manifests({path}, o)[0], o).args.tp_size == 2);
  }
}

TEST_CASE("read_manifests: a list field that is a mapping is read as an empty list, not thrown on", "[io][manifest]")
{
  // Found by the fuzzer: a List whose items is a mapping. yaml-cpp yields
  // invalid nodes when a mapping is iterated as a list, and threw
  // YAML::InvalidNode out of pdcheck on the first question to one.
  test::TempDir dir;
  const std::string list = dir.write("list.yaml", "apiVersion: v1\nkind: List\nitems:\n  containers: {name: sglang}\n");
  CHECK(test::error_of([&] { io::read_manifests({list}, {}); })
          .rfind(list + ": no SGLang server found among its 1 YAML object: ", 0) == 0);
  // The same for a pod's volumes and a container's volumeMounts: the server is still read.
  const std::string deployment =
    dir.write("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
                                 "spec: {template: {spec: {volumes: {a: b}, containers: [{name: c, image: x, "
                                 "volumeMounts: {a: b}, command: [python3, -m, sglang.launch_server]}]}}}\n");
  CHECK(io::read_manifests({deployment}, {}).size() == 1);
}
