#pragma once

// The prefill x decode pairs of deployments (check --manifest, rollout
// --manifest): every prefill server paired with every decode server.

#include "check/checker.hpp"

#include <string>
#include <vector>

namespace pdcheck::cli {

struct ManifestRequest
{
  std::vector<std::string> manifests;    ///< files, - for standard input
  std::string model;                     ///< --model ("" : each server's --model-path)
  std::string prefill_sglang;            ///< --prefill-sglang over the image tag
  std::string decode_sglang;
  std::vector<std::string> manifest_env; ///< NAME=VALUE
};

/// Throws InputError naming the inputs when they hold no prefill or no decode server.
std::vector<check::CheckInput> manifest_pairs(const ManifestRequest& request);

} // namespace pdcheck::cli
