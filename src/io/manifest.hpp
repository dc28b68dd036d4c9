#pragma once

// `pdcheck check --manifest`: the SGLang servers of a deployment as written
// for Kubernetes (Deployment, StatefulSet, Job, LeaderWorkerSet,
// RoleBasedGroup, DisaggregatedSet, DynamoGraphDeployment, OME serving
// runtimes), SGLang's LWS PD Helm chart values, or an srt-slurm recipe.
// Field paths and the variables platforms set are in docs/research/deployments-manifests.md.

#include "deploy/shell_script.hpp"
#include "io/side_file.hpp"

#include <map>
#include <string>
#include <vector>

namespace pdcheck::io {

/// One SGLang server found in a manifest.
struct ManifestServer
{
  LaunchedServer launch;
  std::string object;    ///< "LeaderWorkerSet/qwen-prefill"
  std::string container; ///< container name, or the config section ("prefill.config")
  /// References whose value the input does not hold (set at run time, from a Secret, ...).
  std::vector<deploy::UnresolvedReference> unresolved;
  /// Where each unresolved name's value would come from ("set by the LeaderWorkerSet controller at run time").
  std::map<std::string, std::string> unresolved_why;
};

struct ManifestOptions
{
  std::string model_ref;                         ///< --model: the model when the manifest names none pdcheck can read
  std::map<std::string, std::string> variables;  ///< --manifest-env NAME=VALUE: values the input does not hold
  std::string prefill_sglang; ///< --prefill-sglang: the prefill servers' release, over the image tag's
  std::string decode_sglang;
};

/// Every SGLang server of the manifests (`-` reads standard input), in file
/// and document order. Throws InputError (exit 2) for unreadable or malformed
/// YAML, and when no SGLang server is found.
std::vector<ManifestServer> read_manifests(const std::vector<std::string>& paths, const ManifestOptions& options);

/// The side of one server. A variable without a value in a flag pdcheck
/// reads is an InputError naming the object, field and variable.
sglang::Side manifest_side(const ManifestServer& server, const ManifestOptions& options);

} // namespace pdcheck::io
