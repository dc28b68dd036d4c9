#include "model/architectures.hpp"

namespace pdcheck::model {

namespace {

constexpr std::string_view k_inkling_refusal =
  "configs/hybrid_arch.py@02e208de gives it a Mamba pool only when its mamba2_cache_params is set, but every stored "
  "configs/inkling.py returns one unconditionally, so when it is unset cannot be confirmed; and its six short-conv "
  "tensors are (K-1, channels) with no conv_slice_axis, so which axis the pool registers as the sliced dim is not "
  "confirmed";

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
   "they agree only for a periodic layer_types (pdcheck refuses a config where they differ), and no published "
   "config was read",
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
   "configs/bailing_hybrid.py@d97eb111 and @0f6954e8, models/bailing_moe_linear.py@df216e6f, "
   "configs/hybrid_arch.py@02e208de",
   "high", "", ""},
  // The KDA Bailing (Ling-V3): the same config class with short_conv_kernel_size.
  {"BailingMoeV3ForCausalLM", "bailing_hybrid", ConfigReader::lightning, "", false,
   "configs/bailing_hybrid.py@0f6954e8, models/bailing_moe_v3.py@4f8bb364, configs/hybrid_arch.py@02e208de", "medium",
   "the KDA state (short_conv_kernel_size) and the per-layer layer_group_size list are read in one stored "
   "BailingHybridConfig (@0f6954e8), whose release is not known; whether its attention layers form an MLA pool (the "
   "class has kv_lora_rank) is not confirmed, and pdcheck takes them as not MLA",
   ""},
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
  // Ring-mini-linear-2.0 / Ring-flash-linear-2.0 as published.
  {"BailingMoeLinearV2ForCausalLM", "bailing_moe_linear", ConfigReader::refused, "", false,
   "configs/bailing_moe_linear.py@ab500ad6, models/bailing_moe_linear.py@00a66ebe and @df216e6f, "
   "configs/hybrid_arch.py@b240008b",
   "", "",
   "one stored models/bailing_moe_linear.py (@00a66ebe) registers it, another (@df216e6f) only "
   "BailingMoeV2_5ForCausalLM, and which one a release ships is not known (the Ring-linear PRs #10901 and #10917 "
   "show as closed); no stored config registry maps bailing_moe_linear to BailingMoeLinearConfig (@ab500ad6), "
   "through whose Qwen3NextConfig base its lightning state would reach the Mamba pool, so how SGLang registers "
   "that state is not confirmed"},
  {"InklingForConditionalGeneration", "inkling_mm_model", ConfigReader::refused, "", false,
   "configs/inkling.py@07f7e822, models/inkling.py@e5283137, configs/hybrid_arch.py@02e208de", "", "", k_inkling_refusal},
  {"InklingForCausalLM", "inkling_model", ConfigReader::refused, "", false,
   "configs/inkling.py@07f7e822, configs/hybrid_arch.py@02e208de", "", "", k_inkling_refusal},
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

// Merge dates from the PR threads and release notes; release dates from the
// release pages and packagers (docs/state-layouts.md, "First release"). Where
// the merge date falls between two releases of unknown date, the earlier one
// is named with confidence low, so no release that may serve the model is
// refused.
const std::vector<FirstRelease> k_first_releases = {
  {"Qwen3NextForCausalLM", "0.5.2", "PR #10233, merged 2025-09-11, between 0.5.2rc1 (09-02) and 0.5.3rc0 (09-15)",
   "low"},
  {"Qwen3_5ForConditionalGeneration", "0.5.9", "PR #18489, merged 2026-02-09; 0.5.9 released about 02-23", "medium"},
  {"Qwen3_5MoeForConditionalGeneration", "0.5.9", "PR #18489, merged 2026-02-09; 0.5.9 released about 02-23",
   "medium"},
  {"InternS2PreviewForConditionalGeneration", "0.5.12",
   "PR #24875, merged 2026-05-10; 0.5.12 (05-16) lists the model, 0.5.11 was released 05-05", "high"},
  {"InternS2MobiusForConditionalGeneration", "0.5.18", "PR #33691, merged 2026-08-08; in 0.5.18's new-model table",
   "high"},
  {"JetNemotronForCausalLM", "0.5.5", "PR #12448, merged 2025-11-09; 0.5.5's date was not found", "low"},
  {"NemotronHForCausalLM", "0.5.4", "PR #10909, merged 2025-10-08, after 0.5.3 (10-06)", "medium"},
  {"NemotronH_Nano_VL_V2", "0.5.6", "PR #12277, merged 2025-11-26; 0.5.6's date was not found", "low"},
  {"FalconH1ForCausalLM", "0.5.3", "PR #10988, merged before 0.5.3 (10-06); the 0.5.3 wheel has configs/falcon_h1.py",
   "medium"},
  {"GraniteMoeHybridForCausalLM", "0.5.9", "PR #18040, merged 2026-02-15; 0.5.9 released about 02-23", "medium"},
  {"KimiLinearForCausalLM", "0.5.5", "PR #12469, merged 2025-10-31; a 0.5.4.post release may carry it", "low"},
  {"KimiK3ForConditionalGeneration", "0.5.17", "PR #32541, merged 2026-08-04; 0.5.17's release notes", "high"},
  {"Glm5NextForConditionalGeneration", "0.5.20", "PR #36507 (GLM-5.3-Flash), shipped in 0.5.20", "high"},
  {"Lfm2ForCausalLM", "0.5.8", "PR #16890, merged 2026-01-22; 0.5.8 existed by 01-26, its cut date not found", "low"},
  {"Lfm2MoeForCausalLM", "0.5.9", "PR #17997, merged 2026-02-11; 0.5.9 released about 02-23", "medium"},
  {"Lfm2VlForConditionalGeneration", "0.5.10",
   "PR #21230 (opened 2026-03-23); Liquid's docs: every LFM type from 0.5.10", "medium"},
  {"BailingMoeV2_5ForCausalLM", "0.5.9", "PR #18598, merged 2026-02-13; 0.5.9 released about 02-23", "medium"},
  {"MiniCPMSALAForCausalLM", "0.5.19", "PR #30360; in 0.5.19's new-model table", "high"},
  {"ZayaForCausalLM", "0.5.14", "PR #26347; in 0.5.14's release notes", "high"},
};

} // namespace

const FirstRelease* find_first_release(std::string_view architecture)
{
  for (const FirstRelease& row : k_first_releases) {
    if (row.architecture == architecture) {
      return &row;
    }
  }
  return nullptr;
}

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
