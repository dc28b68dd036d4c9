#include "model/architectures.hpp"

namespace pdcheck::model {

namespace {

constexpr std::string_view k_rwkv7_note =
  "the pool's registration of the two token-shift tensors (their full hidden width as the sliced dim) is read in a "
  "memory_pool.py copy without a commit id; PR #30115 was seen open, so no release is known to serve RWKV-7";

// Paths are under sgl-project/sglang python/sglang/srt/; commits are the
// stored copies that were read (docs/state-layouts.md has the full ids).
// configs/hybrid_arch.py decides which config classes get a Mamba pool.
const std::vector<Architecture> k_rows = {
  // GDN (hybrid_gdn_config, on get_text_config()).
  {"Qwen3NextForCausalLM", "qwen3_next", ConfigReader::gdn, "", false,
   "configs/qwen3_next.py@041bacd3, models/qwen3_next.py@502a21a8, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"Qwen3_5ForConditionalGeneration", "qwen3_5", ConfigReader::gdn, "text_config", true,
   "configs/qwen3_5.py@0f6f0002, models/qwen3_5.py@cf4465f3, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"Qwen3_5MoeForConditionalGeneration", "qwen3_5_moe", ConfigReader::gdn, "text_config", true,
   "configs/qwen3_5.py@0f6f0002, models/qwen3_5.py@cf4465f3, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"InternS2PreviewForConditionalGeneration", "intern_s2_preview", ConfigReader::gdn, "text_config", false,
   "configs/interns2preview.py@625cf223, models/interns2preview.py@622284e3, configs/hybrid_arch.py@02e208de", "high",
   "", ""},
  {"InternS2MobiusForConditionalGeneration", "interns2_mobius", ConfigReader::gdn, "text_config", false,
   "configs/interns2_mobius.py@252129ae, models/interns2_mobius.py@01b5f572", "medium",
   "the pool takes its layers from full_attention_interval while the model builds them from text_config.layer_types; "
   "they agree only for a periodic layer_types, and no published config was read",
   ""},
  {"JetNemotronForCausalLM", "jet_nemotron", ConfigReader::jet, "", false,
   "configs/jet_nemotron.py@0fc1a4fb, models/jet_nemotron.py@008b79d2, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"JetVLMForConditionalGeneration", "jet_vlm", ConfigReader::jet, "text_config", false,
   "configs/jet_vlm.py@38736e55, models/jet_vlm.py@5d2c83e6, configs/hybrid_arch.py@02e208de", "high", "", ""},
  // Mamba2 (mamba2_config).
  {"NemotronHForCausalLM", "nemotron_h", ConfigReader::nemotron_h, "", false,
   "configs/nemotron_h.py@01144484, models/nemotron_h.py@06c48ca8, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"Nemotron3ForCausalLM", "nemotron_3", ConfigReader::nemotron_h, "", false,
   "models/nemotron_3.py@355d4368, configs/nemotron_h.py@01144484", "medium",
   "SGLang registered this name only in models/nemotron_3.py@355d4368; published Nemotron-3 checkpoints name "
   "NemotronHForCausalLM, whose layout is the same",
   ""},
  {"NemotronH_Nano_VL_V2", "NemotronH_Nano_VL_V2", ConfigReader::nemotron_h, "llm_config", false,
   "configs/nano_nemotron_vl.py@008b79d2, models/nano_nemotron_vl.py@02ceb3b3, configs/hybrid_arch.py@02e208de", "high",
   "", ""},
  {"FalconH1ForCausalLM", "falcon_h1", ConfigReader::falcon_h1, "", false,
   "configs/falcon_h1.py (index id 69711965591), models/falcon_h1.py@e01a0731, configs/hybrid_arch.py@02e208de", "high",
   "", ""},
  {"GraniteMoeHybridForCausalLM", "granitemoehybrid", ConfigReader::granite_hybrid, "", false,
   "configs/granitemoehybrid.py@7f1ce9b5, models/granitemoehybrid.py@b64954e9, configs/hybrid_arch.py@02e208de", "high",
   "", ""},
  {"Mamba2ForCausalLM", "mamba2", ConfigReader::mamba2, "", false,
   "models/mamba2.py@62daa562, configs/mamba_utils.py@02e208de (PR #34556)", "medium",
   "PR #34556 is merged, but its final configs/mamba2.py and hybrid_arch.py are stored only without a commit id; "
   "the state is sharded by the whole TP size, not the attention TP size",
   ""},
  // KDA (kimi_linear_config).
  {"KimiLinearForCausalLM", "kimi_linear", ConfigReader::kimi_linear, "", false,
   "configs/kimi_linear.py@008b79d2, models/kimi_linear.py@31a8180f, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"KimiK3ForConditionalGeneration", "kimi_k3", ConfigReader::kimi_linear, "text_config", false,
   "configs/kimi_k3.py@0d7ff714, configs/kimi_linear.py@008b79d2, models/kimi_k3.py@e44a41c1", "medium",
   "the text_config route of kimi_linear_config is in a stored configs/hybrid_arch.py without a commit id, not in "
   "@02e208de",
   ""},
  {"Glm5NextForConditionalGeneration", "glm5_next", ConfigReader::glm5_next, "text_config", true,
   "configs/glm5_next.py@16e1767c, models/glm5_next.py@0096f824, runtime_context.py@16e1767c", "medium",
   "the glm5_next route to the Mamba pool is in a stored configs/hybrid_arch.py without a commit id; heads are "
   "sharded by the attention TP size (get_linear_attn_tp_size without CP-TP group sharing, which "
   "--disaggregation-mode refuses)",
   ""},
  // ShortConv (mamba2_config).
  {"Lfm2ForCausalLM", "lfm2", ConfigReader::lfm2, "", false,
   "configs/lfm2.py@05319dc0, models/lfm2.py@493eb5b6, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"Lfm2MoeForCausalLM", "lfm2_moe", ConfigReader::lfm2, "", false,
   "configs/lfm2_moe.py@187e471f, models/lfm2_moe.py@fc75f8dd, configs/hybrid_arch.py@02e208de", "high", "", ""},
  {"Lfm2VlForConditionalGeneration", "lfm2_vl", ConfigReader::lfm2, "text_config", false,
   "configs/lfm2_vl.py@17b67163, models/lfm2_vl.py@01897f3f, configs/hybrid_arch.py@02e208de", "high", "", ""},
  // Lightning and SimpleGLA (hybrid_lightning_config, the linear-attention registry).
  {"BailingMoeV2_5ForCausalLM", "bailing_hybrid", ConfigReader::lightning, "", false,
   "configs/bailing_hybrid.py@d97eb111, models/bailing_moe_linear.py@df216e6f, configs/hybrid_arch.py@02e208de", "high",
   "", ""},
  {"MiniCPMSALAForCausalLM", "minicpm_sala", ConfigReader::simple_gla, "", false,
   "configs/minicpm.py@b844e97b, layers/attention/minicpm/simple_gla.py@b844e97b, "
   "configs/linear_attn_model_registry.py@046c63f8",
   "high", "", ""},
  // Mamba2 pool, laid out by hand in the config (mamba2_config).
  {"ZayaForCausalLM", "zaya", ConfigReader::zaya, "", false,
   "configs/zaya.py@09a71bec, models/zaya.py@0564b521, configs/hybrid_arch.py@02e208de", "medium",
   "the layer count of configs in the transformers-native schema (twice the layer_types entries) was read in one "
   "config version only; the second conv tensor is replicated on every rank but nothing marks it so, which pdcheck "
   "follows",
   ""},
  // RWKV-7 (rwkv7_config): all-linear, every layer carries state.
  {"Rwkv7ForCausalLM", "rwkv7", ConfigReader::rwkv7, "", false,
   "configs/rwkv7.py@5e00420b, models/rwkv7.py@f7b28c35, configs/mamba_utils.py@02e208de, "
   "configs/hybrid_arch.py@02e208de",
   "medium", k_rwkv7_note, ""},
  {"RWKV7ForCausalLM", "rwkv7", ConfigReader::rwkv7, "", false,
   "configs/rwkv7.py@5e00420b, models/rwkv7.py@f7b28c35, configs/mamba_utils.py@02e208de, "
   "configs/hybrid_arch.py@02e208de",
   "medium", k_rwkv7_note, ""},

  // Known to SGLang in some form, but not laid out by pdcheck.
  {"JambaForCausalLM", "jamba", ConfigReader::refused, "", false,
   "configs/jamba.py@091dfb11, models/jamba.py@359d6a9b", "", "",
   "SGLang's Jamba port (PR #20141) is closed; no stored configs/hybrid_arch.py routes JambaConfig to a Mamba pool, "
   "and the Mamba1StateShape it imports is defined in no stored configs/mamba_utils.py"},
  {"BambaForCausalLM", "bamba", ConfigReader::refused, "", false, "configs/bamba.py@18e87cf3, models/bamba.py@aa7f7d67",
   "", "",
   "configs/bamba.py@18e87cf3 builds a Mamba2 state, but no stored configs/hybrid_arch.py (@b240008b, @02e208de) "
   "routes BambaConfig to a Mamba pool, so SGLang's handling of its state cannot be confirmed"},
  {"MambaForCausalLM", "mamba", ConfigReader::refused, "", false, "configs/mamba.py@583dfd9e", "", "",
   "pure Mamba-1 state comes from Mamba2StateShape.create_full_rank (PR #34556), whose definition is in no stored "
   "configs/mamba_utils.py"},
  {"FalconMambaForCausalLM", "falcon_mamba", ConfigReader::refused, "", false, "configs/mamba.py@583dfd9e", "", "",
   "pure Mamba-1 state comes from Mamba2StateShape.create_full_rank (PR #34556), whose definition is in no stored "
   "configs/mamba_utils.py"},
  {"MiniMaxText01ForCausalLM", "minimax_text_01", ConfigReader::refused, "", false,
   "configs/minimax_text_01.py@75330956, models/minimax_text_01.py@75e4992e", "", "",
   "configs/minimax_text_01.py@75330956 has a lightning state shape, but neither configs/hybrid_arch.py nor the "
   "linear-attention registry routes it to a Mamba pool, and the model port registers no EntryClass"},
  {"MiniMaxM1ForCausalLM", "minimax_m1", ConfigReader::refused, "", false,
   "configs/minimax_text_01.py@75330956, models/minimax_text_01.py@75e4992e", "", "",
   "configs/minimax_text_01.py@75330956 has a lightning state shape, but neither configs/hybrid_arch.py nor the "
   "linear-attention registry routes it to a Mamba pool, and the model port registers no EntryClass"},
  {"MiniMaxM3SparseForCausalLM", "minimax_m3_vl", ConfigReader::refused, "", false,
   "configs/minimax_vl.py@554e98d0, models/minimax_m3.py@73353bf6", "", "",
   "SGLang gives it no Mamba pool: its sparse-index keys are a MINIMAX_INDEX_K component of the KV pool, which "
   "pdcheck checks as a side's extra_state_types"},
  {"BailingMoeV3ForCausalLM", "bailing_moe_v3", ConfigReader::refused, "", false, "models/bailing_moe_v3.py@4f8bb364",
   "", "",
   "the Kimi-delta-attention Bailing (short_conv_kernel_size): no stored BailingHybridConfig builds a KDA state "
   "shape for it, so its layout cannot be confirmed"},
  // Its GDN state is Qwen3-Next's (Qwen4ExpTextConfig subclasses Qwen3NextConfig),
  // but the PLE side states ride in the same "mamba" component, and how they
  // are registered is read only outside SGLang (docs/sglang-decisions.md §13).
  {"Qwen4ExpForConditionalGeneration", "qwen4_exp", ConfigReader::refused, "", false,
   "configs/qwen4_exp.py@19ece249, mem_cache/ple_state_pool.py@0a8037da, disaggregation/mooncake/conn.py@0005973a",
   "", "",
   "its PLE short-conv and n-gram slot states join the Mamba component's registration, but no stored SGLang "
   "commit shows how: mem_cache/ple_state_pool.py@0a8037da has no transfer hook, and the entry order, the "
   "replicated (dim 0) marking and the n-gram entry's layer id were seen only in forks"},
};

} // namespace

std::string_view config_reader_name(ConfigReader r)
{
  switch (r) {
  case ConfigReader::gdn: return "gdn";
  case ConfigReader::jet: return "jet";
  case ConfigReader::nemotron_h: return "nemotron_h";
  case ConfigReader::falcon_h1: return "falcon_h1";
  case ConfigReader::granite_hybrid: return "granite_hybrid";
  case ConfigReader::mamba2: return "mamba2";
  case ConfigReader::kimi_linear: return "kimi_linear";
  case ConfigReader::glm5_next: return "glm5_next";
  case ConfigReader::lfm2: return "lfm2";
  case ConfigReader::lightning: return "lightning";
  case ConfigReader::simple_gla: return "simple_gla";
  case ConfigReader::zaya: return "zaya";
  case ConfigReader::rwkv7: return "rwkv7";
  case ConfigReader::refused: return "refused";
  }
  return "?";
}

const std::vector<Architecture>& architectures()
{
  return k_rows;
}

const Architecture* find_architecture(std::string_view architecture)
{
  for (const Architecture& row : k_rows) {
    if (row.architecture == architecture) {
      return &row;
    }
  }
  return nullptr;
}

const Architecture* find_architecture_by_model_type(std::string_view model_type)
{
  for (const Architecture& row : k_rows) {
    if (row.model_type == model_type) {
      return &row;
    }
  }
  return nullptr;
}

} // namespace pdcheck::model
