#include "cli/manifest_pairs.hpp"

#include "io/manifest.hpp"
#include "util/error.hpp"

#include <fmt/format.h>

namespace pdcheck::cli {

std::vector<check::CheckInput> manifest_pairs(const ManifestRequest& r)
{
  io::ManifestOptions options;
  options.model_ref = r.model;
  options.prefill_sglang = r.prefill_sglang;
  options.decode_sglang = r.decode_sglang;
  for (const std::string& kv : r.manifest_env) {
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw InputError("--manifest-env", "expected NAME=VALUE, got '" + kv + "'");
    }
    options.variables[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  std::vector<sglang::Side> prefills;
  std::vector<sglang::Side> decodes;
  std::vector<std::string> others;
  for (const io::ManifestServer& server : io::read_manifests(r.manifests, options)) {
    sglang::Side side = io::manifest_side(server, options);
    const bool pd = side.args.disaggregation_mode != sglang::DisaggregationMode::null || server.launch.role;
    if (!pd) {
      others.push_back(server.object + " container " + server.container);
      continue;
    }
    (side.role == sglang::Role::prefill ? prefills : decodes).push_back(std::move(side));
  }
  const std::string sources = fmt::format("{}", fmt::join(r.manifests, ", "));
  auto names = [](const std::vector<sglang::Side>& sides) {
    std::vector<std::string> out;
    for (const sglang::Side& s : sides) {
      out.push_back(s.origin);
    }
    return fmt::format("{}", fmt::join(out, "; "));
  };
  if (prefills.empty() || decodes.empty()) {
    const bool none = prefills.empty() && decodes.empty();
    throw InputError(sources, none ? fmt::format("no prefill or decode server: {} run{} without --disaggregation-mode",
                                                 fmt::join(others, ", "), others.size() == 1 ? "s" : "")
                              : prefills.empty()
                                ? fmt::format("found the decode side ({}) but no prefill server (--disaggregation-mode "
                                              "prefill); give the manifest that holds it too",
                                              names(decodes))
                                : fmt::format("found the prefill side ({}) but no decode server (--disaggregation-mode "
                                              "decode); give the manifest that holds it too",
                                              names(prefills)));
  }
  std::vector<check::CheckInput> pairs;
  for (const sglang::Side& p : prefills) {
    for (const sglang::Side& d : decodes) {
      check::CheckInput in;
      in.prefill = p;
      in.decode = d;
      pairs.push_back(std::move(in));
    }
  }
  return pairs;
}

} // namespace pdcheck::cli
