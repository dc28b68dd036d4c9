#pragma once

#include "core/dtype.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pdcheck::model {

/// How SGLang builds the per-slot state shapes for an architecture.
enum class StateFamily {
  mamba2,     ///< Mamba2StateShape.create: NemotronH, FalconH1, GraniteMoeHybrid, Mamba2
  gdn,        ///< Mamba2StateShape.create with GDN inputs: Qwen3-Next, Qwen3.5, Jet-Nemotron
  kda,        ///< KimiLinearStateShape.create: Kimi-Linear, Kimi-K3, GLM-5-Next
  short_conv, ///< Mamba2StateShape.create with ShortConv inputs: LFM2
  lightning,  ///< Mamba2StateShape.create with no conv (I = G = 0, K = 1): BailingHybrid
  simple_gla, ///< SimpleGLAStateShape.create, temporal only: MiniCPM-SALA
  cca,        ///< ZAYA1's CCA: a sharded conv, a replicated previous-hidden conv, no temporal bytes
  rwkv7,      ///< Rwkv7StateShape.create: two replicated token-shift convs, a sharded WKV state
};

std::string_view state_family_name(StateFamily f);

/// The architecture-independent inputs that decide SGLang's state layout, read
/// from a Hugging Face config.json. docs/state-layouts.md lists, per
/// architecture, the keys read and the shape formulas, each with the SGLang
/// file and commit it follows (configs/<arch>.py, configs/mamba_utils.py).
struct ModelSpec
{
  std::string name;         ///< catalog name, or the path as given
  std::string source;       ///< catalog source (URL + revision) or the file read
  std::string architecture; ///< HF `architectures[0]`, or model_type when absent
  /// How sure pdcheck is of this architecture's layout ("high", "medium") and,
  /// below high, what is not confirmed; the SGLang files the reader follows.
  std::string confidence = "high";
  std::string confidence_note;
  std::string sglang_source;
  std::string model_type;
  StateFamily family = StateFamily::mamba2;
  int num_hidden_layers = 0;
  std::vector<int> state_layer_ids; ///< global ids of layers that own state, ascending

  // Mamba2StateShape.create inputs (mamba2, gdn, short_conv). For GDN:
  // I = Hv*Dv, G = Hk, H = Hv, P = Dv, N = Dk. For ShortConv: I = hidden,
  // G = 1, H = tp (so temporal is (1, hidden, 0)), P = hidden, N = 0.
  std::int64_t intermediate_size = 0; ///< I
  std::int64_t n_groups = 0;          ///< G
  std::int64_t num_heads = 0;         ///< H (ShortConv: 0, meaning "tp")
  std::int64_t head_dim = 0;          ///< P
  std::int64_t state_size = 0;        ///< N
  std::int64_t conv_kernel = 0;       ///< K (per-slot conv window is K-1)
  /// GDN: the config passes conv_shard_groups ([key, key, value]) so newer
  /// transfers slice each block on its own; Jet-Nemotron's config does not.
  bool gdn_conv_shard_groups = true;
  /// The state is sharded by the whole TP size, not the attention TP size
  /// (pure Mamba2: models/mamba2.py builds it with get_parallel().tp_size).
  bool state_sharded_by_full_tp = false;
  /// ZAYA1 (cca): the width of its second conv tensor, the previous token's
  /// hidden state, which every rank holds whole (not sharded by TP); RWKV-7:
  /// the width of each of its two token-shift tensors.
  std::int64_t replicated_conv_channels = 0;
  /// Dtypes the config class fixes for both conv and temporal state, which no
  /// flag or environment variable changes (RWKV-7: float32).
  std::optional<Dtype> fixed_state_dtype;

  // KimiLinearStateShape.create inputs (kda).
  std::int64_t kda_num_heads = 0;    ///< H
  std::int64_t kda_head_dim = 0;     ///< D
  std::int64_t kda_num_k_heads = 0;  ///< defaults to H
  std::int64_t kda_head_k_dim = 0;   ///< defaults to D

  /// `mamba_ssm_dtype` from the config, only for architectures whose SGLang
  /// config class reads it (Qwen3-Next/Qwen3.5, NemotronH, FalconH1).
  std::optional<Dtype> config_ssm_dtype;

  // Attention layers, for SGLang's startup divisibility checks.
  int num_attention_heads = 0;
  int num_key_value_heads = 0;
  int num_attention_layers = 0;

  /// True when the model has a multi-head latent attention (MLA) part (Kimi-Linear),
  /// which changes SGLang's TP rules for hybrid MLA.
  bool hybrid_mla = false;

  /// MiniCPM-SALA with sparse attention: a `sparse_config` and "minicpm4"
  /// layers in mixer_types (configs/minicpm.py has_minicpm_sparse_attention),
  /// which SGLang's launch overrides refuse under PD.
  bool minicpm_sparse_attention = false;
};

/// Builds a ModelSpec from a parsed config.json. `origin` names the file (or the
/// catalog entry) for error messages. Throws InputError naming the origin and the
/// missing or invalid key; an unsupported or non-hybrid architecture gets an error
/// listing what is supported.
ModelSpec read_model_config(const nlohmann::json& config, const std::string& name, const std::string& origin);

/// HF `architectures[0]` strings this reader lays out, in the order error
/// messages list them (model/architectures.hpp has the refused ones too).
const std::vector<std::string>& supported_architectures();

/// `model_type` values accepted when a config has no `architectures` list.
const std::vector<std::string>& supported_model_types();

} // namespace pdcheck::model
