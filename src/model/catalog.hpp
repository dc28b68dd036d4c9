#pragma once

#include <optional>
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
  /// The attention TP sizes (powers of two) SGLang starts this model at, as
  /// "1,2,4,8": every one lays out, and twice the largest does not
  /// (tests/unit/model/test_catalog.cpp holds the catalog to it).
  std::string_view attention_tp_sizes;
};

const std::vector<CatalogEntry>& catalog();

/// Finds an entry by name or HF repo id, case-insensitively; nullptr if none.
const CatalogEntry* find_catalog_entry(std::string_view name);

/// A checkpoint that differs from a catalog entry only by its weights'
/// quantization (an "-FP8" or "-AWQ" upload, often by another organisation).
/// Quantization is in `quantization_config`; the keys that shape the recurrent
/// state are the same, so the entry's layout holds.
struct CatalogVariant
{
  const CatalogEntry* entry = nullptr;
  std::string_view suffix; ///< the quantization suffix as written in the reference
};

/// Finds the entry `ref` is a quantized variant of: its last path component,
/// with one known quantization suffix removed, equals an entry's name or the
/// last component of its HF repo (case-insensitively). nullopt if none.
std::optional<CatalogVariant> find_catalog_variant(std::string_view ref);

/// The quantization suffixes find_catalog_variant knows, longest first.
const std::vector<std::string_view>& quantization_suffixes();

/// Revision of the built-in catalog, shown by `pdcheck --version`.
std::string_view catalog_revision();

} // namespace pdcheck::model
