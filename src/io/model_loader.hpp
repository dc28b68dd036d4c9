#pragma once

#include "model/model_spec.hpp"

#include <string>

namespace pdcheck::io {

/// Resolves a model reference: a catalog name or HF repo id, a model directory
/// holding config.json, or a config.json path. Relative paths are taken from
/// `base_dir`. Throws InputError naming the file, with line and column for JSON
/// syntax errors.
model::ModelSpec load_model(const std::string& ref, const std::string& base_dir = ".");

} // namespace pdcheck::io
