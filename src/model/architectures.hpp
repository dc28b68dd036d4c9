#pragma once

// Every architecture pdcheck knows, as data: the HF `architectures[0]` string
// SGLang registers (a model file's EntryClass), which config keys lay out its
// recurrent state, where in config.json the language model sits, the SGLang
// sources the row was decided from, and how sure that is. An architecture
// whose SGLang support cannot be confirmed has a row too, with the reason it
// is refused, so `pdcheck models` and the error say why instead of guessing.

#include <string_view>
#include <vector>

namespace pdcheck::model {

/// The key reader that turns one config into a ModelSpec; one per config
/// class family (docs/state-layouts.md has the keys and formulas of each).
enum class ConfigReader {
  gdn,            ///< Qwen3NextConfig and its subclasses (full_attention_interval)
  jet,            ///< JetNemotronConfig (efficient_attention_config.jet, layer_types "jet")
  nemotron_h,     ///< NemotronHConfig (hybrid_override_pattern / layers_block_type)
  falcon_h1,      ///< FalconH1Config
  granite_hybrid, ///< GraniteMoeHybridConfig
  mamba2,         ///< transformers' Mamba2Config (pure Mamba2, every layer)
  kimi_linear,    ///< KimiLinearConfig (1-based linear_attn_config.kda_layers)
  glm5_next,      ///< Glm5NextTextConfig (0-based kda_layers or linear_* keys)
  lfm2,           ///< Lfm2Config / Lfm2MoeConfig (short conv)
  lightning,      ///< BailingHybridConfig (lightning attention, layer_group_size)
  simple_gla,     ///< MiniCPM-SALA's config (SimpleGLA, mixer_types)
  zaya,           ///< ZayaConfig (CCA layers: zaya_layers, or every even layer)
  rwkv7,          ///< Rwkv7Config (every layer: two token shifts and a WKV state)
  refused,        ///< no reader: the row's `refusal` says why
};

struct Architecture
{
  std::string_view architecture; ///< HF architectures[0] (SGLang's EntryClass)
  std::string_view model_type;   ///< the outer config's model_type
  ConfigReader reader;
  /// Where the language model's keys are: "" (the root), "text_config" or
  /// "llm_config". `wrapper_optional`: the root is read when the key is absent
  /// (Qwen3.5 configs come both ways).
  std::string_view language_model;
  bool wrapper_optional;
  /// The SGLang files the row follows, as path@commit under python/sglang/srt/.
  std::string_view sglang_source;
  /// "high": read in SGLang's config and model code at the commits cited;
  /// "medium": the layout is read there, but the route to the Mamba pool (or
  /// the final merged text) was seen only in part; the note says which.
  std::string_view confidence;
  std::string_view note;    ///< what is not confirmed (medium rows), else empty
  std::string_view refusal; ///< non-empty for ConfigReader::refused: why pdcheck will not lay it out
};

/// The first SGLang release that serves an architecture: the PR that added
/// it, and how the release follows from the PR.
struct FirstRelease
{
  std::string_view architecture;
  std::string_view release;    ///< "0.5.14": no earlier release can load the model
  std::string_view source;     ///< the PR, its merge date, where the release comes from
  std::string_view confidence; ///< "high": a release note or packager names it; "medium": merge and release dates; "low": the dates leave a release either way
};

/// The row for `architecture`, or nullptr where the PR or its release is not known.
const FirstRelease* find_first_release(std::string_view architecture);

/// "gdn", "nemotron_h", ..., "refused": the reader's name in listings.
std::string_view config_reader_name(ConfigReader r);

/// Every row, supported ones first, in the order messages list them.
const std::vector<Architecture>& architectures();

/// The row of an architectures[0] string, or nullptr.
const Architecture* find_architecture(std::string_view architecture);

/// The row of a model_type (for configs without an `architectures` list), or nullptr.
const Architecture* find_architecture_by_model_type(std::string_view model_type);

} // namespace pdcheck::model
