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

/// SGLang's first check of a --config path: the extension is .yaml or .yml
/// (any case). Throws InputError(file, ...) otherwise.
void require_yaml_extension(const std::string& file);

/// The same from a config file's text held elsewhere (a ConfigMap's data in a
/// manifest): positions are "<file>:<line>:<col>" with `first_line` lines and
/// `indent` columns added, so they point into the file that holds the text.
std::vector<sglang::ConfigWord> sglang_config_words(const std::string& text, const std::string& file, int first_line,
                                                    int indent);

} // namespace pdcheck::io
