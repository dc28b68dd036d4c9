#pragma once

#include "model/model_spec.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace pdcheck::io {

/// Resolves a model reference, first match wins:
///  1. a path (relative ones from `base_dir`): a config.json, a model directory
///     holding one, or a Hugging Face cache entry (models--Org--Name) whose
///     snapshot is chosen by refs/main, or is the only one;
///  2. an HF repo id ("Org/Name") downloaded into the Hugging Face cache
///     (hub_cache_dir());
///  3. a catalog name or HF repo id, case-insensitively;
///  4. a quantized variant of a catalog entry ("...-FP8", "...-AWQ").
/// Throws InputError naming the file, with line and column for JSON syntax
/// errors, or listing the catalog when nothing matches.
model::ModelSpec load_model(const std::string& ref, const std::string& base_dir = ".");

/// The Hugging Face hub cache as huggingface_hub finds it: $HF_HUB_CACHE,
/// $HUGGINGFACE_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub or
/// ~/.cache/huggingface/hub; nullopt when none of them is set.
std::optional<std::filesystem::path> hub_cache_dir();

/// The cache folder of a repo id: CACHE/models--Org--Name.
std::filesystem::path hub_cache_entry(const std::filesystem::path& cache, const std::string& repo_id);

/// The config.json of a cache entry: the snapshot refs/main names, else the
/// only snapshot that has one. Throws InputError when there are none or
/// several without a ref.
std::filesystem::path snapshot_config(const std::filesystem::path& repo_dir);

} // namespace pdcheck::io
