#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::model {

/// A real published config.json built into pdcheck, usable by name wherever a
/// model is expected.
struct CatalogEntry
{
  std::string_view name;        ///< short lower-case name, e.g. "qwen3-next-80b-a3b"
  std::string_view hf_repo;     ///< e.g. "Qwen/Qwen3-Next-80B-A3B-Instruct"
  std::string_view source;      ///< where the config was taken from (URL and revision)
  std::string_view config_json; ///< the config.json text
};

const std::vector<CatalogEntry>& catalog();

/// Finds an entry by name or HF repo id, case-insensitively; nullptr if none.
const CatalogEntry* find_catalog_entry(std::string_view name);

/// Revision of the built-in catalog, shown by `pdcheck --version`.
std::string_view catalog_revision();

} // namespace pdcheck::model
