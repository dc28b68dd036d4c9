#pragma once

#include "sglang/server_args.hpp"

#include <string>
#include <vector>

namespace pdcheck::io {

/// Reads an SGLang `--config` YAML file into launch-argument words, the way
/// SGLang's ConfigArgumentMerger does: each top-level `key: value` becomes
/// `--key value` (underscores in keys read as dashes), `true` becomes the bare
/// switch `--key`, `false`, null and empty lists are dropped, and a list becomes
/// `--key item1 item2 ...`. Each word carries "<path>:<line>:<col>" of its key or
/// value. A relative `path` is taken from `base_dir`. Throws InputError naming the
/// file (with line and column for YAML syntax errors). Matches
/// sglang::ConfigFileReader.
std::vector<sglang::ConfigWord> read_sglang_config(const std::string& path, const std::string& base_dir);

} // namespace pdcheck::io
