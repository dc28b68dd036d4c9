#pragma once

#include "sglang/side.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::io {

/// Loads a side file (YAML or JSON; see schemas/side.schema.json):
///
///   role: prefill                 # prefill | decode (optional when args say --disaggregation-mode)
///   sglang: components            # profile name or SGLang version (optional: newest profile)
///   model: qwen3-next-80b-a3b     # catalog name, model dir or config.json, relative to the file
///   args: "--tp 4 --disaggregation-mode prefill"   # string, or list of single words
///   env: {SGLANG_MAMBA_SSM_DTYPE: float32}
///
/// Every error is an InputError whose `where` is "<path>:<line>:<col>" (1-based)
/// of the offending key or value when known, else the path.
sglang::Side load_side_file(const std::string& path);

/// Builds a side from command-line inputs such as `--prefill-args`: `args_text`
/// is split like a shell line; `model_ref` (may be empty: then --model-path from
/// the arguments) is resolved from the current directory; `sglang_version` may be
/// empty (newest profile). `origin` names the input in errors and in Side::origin.
sglang::Side side_from_args(sglang::Role role,
                            const std::string& args_text,
                            const std::string& model_ref,
                            const std::string& sglang_version,
                            const std::map<std::string, std::string>& env,
                            const std::string& origin);

/// A server's launch as read from a deployment (io/manifest): words with where
/// each was written, its environment, and what the deployment says of it.
struct LaunchedServer
{
  std::vector<std::string> words;
  std::vector<std::string> places; ///< "file:line:col" per word ("" unknown)
  std::map<std::string, std::string> env;
  std::optional<sglang::Role> role; ///< from the deployment's structure, when it says
  std::string sglang;               ///< release from the image tag; "" when unknown (newest profile)
  std::string sglang_assumption;    ///< why the release is assumed, when sglang is ""
  std::string image;                ///< the container image, as written
  std::string model_ref;            ///< --model given to pdcheck ("" then --model-path)
  std::string origin;               ///< "m.yaml:12 (LeaderWorkerSet/qwen-prefill, container sglang)"
  std::string where;                ///< "m.yaml:12:9": errors about the server point here
  std::map<std::string, sglang::SourceLocation> locations; ///< "args", "sglang" (the image line)
  /// Reads --config files: from the deployment's ConfigMaps; empty: from disk.
  sglang::ConfigFileReader config_reader;
};

/// Builds a side from a deployment's server, as load_side_file does from a side file.
sglang::Side side_from_launch(const LaunchedServer& server);

} // namespace pdcheck::io
