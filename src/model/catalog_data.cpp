// The built-in catalog's config.json texts. Each one holds keys as published
// for the named Hugging Face repository; where pdcheck could not obtain the
// whole file, the entry says so in its `source` and carries only the keys
// that a cited quotation confirms, or that its `source` names as unconfirmed
// (no value here is made up). The numbers
// that decide the state layout are checked by tests/unit/model/test_catalog.cpp
// against per-slot sizes worked out with SGLang's shape formulas
// (configs/mamba_utils.py@02e208de; see docs/state-layouts.md).

#include "model/catalog.hpp"

namespace pdcheck::model {

namespace {

constexpr std::string_view k_qwen3_next_80b_a3b = R"json({
  "architectures": [
    "Qwen3NextForCausalLM"
  ],
  "attention_dropout": 0.0,
  "decoder_sparse_step": 1,
  "full_attention_interval": 4,
  "head_dim": 256,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "intermediate_size": 5120,
  "linear_conv_kernel_dim": 4,
  "linear_key_head_dim": 128,
  "linear_num_key_heads": 16,
  "linear_num_value_heads": 32,
  "linear_value_head_dim": 128,
  "max_position_embeddings": 262144,
  "mlp_only_layers": [],
  "model_type": "qwen3_next",
  "moe_intermediate_size": 512,
  "norm_topk_prob": true,
  "num_attention_heads": 16,
  "num_experts": 512,
  "num_experts_per_tok": 10,
  "num_hidden_layers": 48,
  "num_key_value_heads": 2,
  "output_router_logits": false,
  "partial_rotary_factor": 0.25,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "router_aux_loss_coef": 0.001,
  "shared_expert_intermediate_size": 512,
  "tie_word_embeddings": false,
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 151936
}
)json";

constexpr std::string_view k_qwen3_5_35b_a3b = R"json({
  "architectures": [
    "Qwen3_5MoeForConditionalGeneration"
  ],
  "model_type": "qwen3_5_moe",
  "text_config": {
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_size": 2048,
    "layer_types": [
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention"
    ],
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "mamba_ssm_dtype": "float32",
    "model_type": "qwen3_5_moe_text",
    "moe_intermediate_size": 512,
    "num_attention_heads": 16,
    "num_experts": 256,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 40,
    "num_key_value_heads": 2,
    "shared_expert_intermediate_size": 512
  }
}
)json";

constexpr std::string_view k_qwen3_5_27b = R"json({
  "architectures": [
    "Qwen3_5ForConditionalGeneration"
  ],
  "model_type": "qwen3_5",
  "text_config": {
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_size": 5120,
    "intermediate_size": 17408,
    "layer_types": [
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention"
    ],
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 48,
    "linear_value_head_dim": 128,
    "mamba_ssm_dtype": "float32",
    "model_type": "qwen3_5_text",
    "num_attention_heads": 24,
    "num_hidden_layers": 64,
    "num_key_value_heads": 4
  }
}
)json";

constexpr std::string_view k_nemotron_h_8b = R"json({
  "architectures": [
    "NemotronHForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "attention_head_dim": 128,
  "auto_map": {
    "AutoConfig": "configuration_nemotron_h.NemotronHConfig",
    "AutoModelForCausalLM": "modeling_nemotron_h.NemotronHForCausalLM"
  },
  "bos_token_id": 1,
  "chunk_size": 128,
  "conv_kernel": 4,
  "eos_token_id": 2,
  "expand": 2,
  "hidden_dropout": 0.0,
  "hidden_size": 4096,
  "hybrid_override_pattern": "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-",
  "initializer_range": 0.02,
  "intermediate_size": 21504,
  "layer_norm_epsilon": 1e-05,
  "mamba_head_dim": 64,
  "mamba_hidden_act": "silu",
  "mamba_num_heads": 128,
  "mamba_proj_bias": false,
  "max_position_embeddings": 8192,
  "mlp_bias": false,
  "mlp_hidden_act": "relu2",
  "model_type": "nemotron_h",
  "n_groups": 8,
  "num_attention_heads": 32,
  "num_hidden_layers": 52,
  "num_key_value_heads": 8,
  "num_logits_to_keep": 1,
  "pad_token_id": 0,
  "rescale_prenorm_residual": true,
  "residual_in_fp32": false,
  "rms_norm_eps": 1e-05,
  "ssm_state_size": 128,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.48.0.dev0",
  "use_bias": false,
  "use_cache": true,
  "use_conv_bias": true,
  "use_mamba_kernels": true,
  "vocab_size": 131072
}
)json";

constexpr std::string_view k_nemotron_nano_9b_v2 = R"json({
  "architectures": [
    "NemotronHForCausalLM"
  ],
  "conv_kernel": 4,
  "head_dim": 128,
  "hidden_size": 4480,
  "hybrid_override_pattern": "M-M-M-MM-M-M-M*-M-M-M*-M-M-M-M*-M-M-M-M*-M-MM-M-M-M-M-M-",
  "intermediate_size": 15680,
  "mamba_head_dim": 80,
  "mamba_num_heads": 128,
  "model_type": "nemotron_h",
  "n_groups": 8,
  "num_attention_heads": 40,
  "num_hidden_layers": 56,
  "num_key_value_heads": 8,
  "ssm_state_size": 128,
  "vocab_size": 131072
}
)json";

constexpr std::string_view k_nemotron_3_nano_30b_a3b = R"json({
  "architectures": [
    "NemotronHForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "auto_map": {
    "AutoConfig": "configuration_nemotron_h.NemotronHConfig",
    "AutoModel": "modeling_nemotron_h.NemotronHForCausalLM",
    "AutoModelForCausalLM": "modeling_nemotron_h.NemotronHForCausalLM"
  },
  "bos_token_id": 1,
  "chunk_size": 128,
  "conv_kernel": 4,
  "eos_token_id": 2,
  "expand": 2,
  "head_dim": 128,
  "hidden_dropout": 0.0,
  "hidden_size": 2688,
  "hybrid_override_pattern": "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
  "initializer_range": 0.02,
  "intermediate_size": 1856,
  "layer_norm_epsilon": 1e-05,
  "mamba_head_dim": 64,
  "mamba_hidden_act": "silu",
  "mamba_num_heads": 64,
  "mamba_proj_bias": false,
  "mamba_ssm_cache_dtype": "float32",
  "max_position_embeddings": 262144,
  "mlp_bias": false,
  "mlp_hidden_act": "relu2",
  "model_type": "nemotron_h",
  "moe_intermediate_size": 1856,
  "moe_shared_expert_intermediate_size": 3712,
  "n_group": 1,
  "n_groups": 8,
  "n_routed_experts": 128,
  "n_shared_experts": 1,
  "norm_eps": 1e-05,
  "norm_topk_prob": true,
  "num_attention_heads": 32,
  "num_experts_per_tok": 6,
  "num_hidden_layers": 52,
  "num_key_value_heads": 2,
  "num_logits_to_keep": 1,
  "pad_token_id": 0,
  "partial_rotary_factor": 1.0,
  "rescale_prenorm_residual": true,
  "ssm_state_size": 128
}
)json";

constexpr std::string_view k_falcon_h1_7b = R"json({
  "architectures": [
    "FalconH1ForCausalLM"
  ],
  "attn_layer_indices": null,
  "head_dim": 128,
  "hidden_size": 3072,
  "intermediate_size": 12288,
  "mamba_chunk_size": 128,
  "mamba_d_conv": 4,
  "mamba_d_head": 128,
  "mamba_d_ssm": 3072,
  "mamba_d_state": 256,
  "mamba_expand": 2,
  "mamba_n_groups": 1,
  "mamba_n_heads": 24,
  "max_position_embeddings": 262144,
  "model_type": "falcon_h1",
  "num_attention_heads": 12,
  "num_hidden_layers": 44,
  "num_key_value_heads": 2,
  "tie_word_embeddings": false,
  "vocab_size": 130048
}
)json";

constexpr std::string_view k_falcon_h1_1_5b = R"json({
  "architectures": [
    "FalconH1ForCausalLM"
  ],
  "head_dim": 128,
  "hidden_size": 2048,
  "intermediate_size": 4608,
  "mamba_d_conv": 4,
  "mamba_d_head": 64,
  "mamba_d_ssm": 3072,
  "mamba_d_state": 256,
  "mamba_n_groups": 1,
  "mamba_n_heads": 48,
  "model_type": "falcon_h1",
  "num_attention_heads": 8,
  "num_hidden_layers": 24,
  "num_key_value_heads": 2,
  "vocab_size": 65537
}
)json";

constexpr std::string_view k_kimi_linear_48b_a3b = R"json({
  "architectures": [
    "KimiLinearForCausalLM"
  ],
  "first_k_dense_replace": 1,
  "hidden_act": "silu",
  "hidden_size": 2304,
  "intermediate_size": 9216,
  "kv_lora_rank": 512,
  "linear_attn_config": {
    "full_attn_layers": [4, 8, 12, 16, 20, 24, 27],
    "head_dim": 128,
    "kda_layers": [1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19, 21, 22, 23, 25, 26],
    "num_heads": 32,
    "short_conv_kernel_size": 4
  },
  "mla_use_nope": true,
  "model_type": "kimi_linear",
  "moe_intermediate_size": 1024,
  "moe_layer_freq": 1,
  "moe_renormalize": true,
  "moe_router_activation_func": "sigmoid",
  "num_attention_heads": 32,
  "num_expert_group": 1,
  "num_experts": 256,
  "num_experts_per_token": 8,
  "num_hidden_layers": 27,
  "num_key_value_heads": 32,
  "num_nextn_predict_layers": 0,
  "num_shared_experts": 1,
  "q_lora_rank": null,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0,
  "routed_scaling_factor": 2.446,
  "topk_group": 1,
  "use_grouped_topk": true,
  "v_head_dim": 128,
  "vocab_size": 163840
}
)json";

constexpr std::string_view k_lfm2_2_6b = R"json({
  "architectures": [
    "Lfm2ForCausalLM"
  ],
  "conv_L_cache": 3,
  "conv_dim": 2048,
  "hidden_size": 2048,
  "intermediate_size": 10752,
  "layer_types": [
    "conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
    "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv",
    "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv",
    "full_attention", "conv", "conv", "full_attention", "conv", "conv"
  ],
  "max_position_embeddings": 128000,
  "model_type": "lfm2",
  "num_attention_heads": 32,
  "num_hidden_layers": 30,
  "num_key_value_heads": 8,
  "tie_embedding": true,
  "vocab_size": 65536
}
)json";

constexpr std::string_view k_granite_4_0_h_tiny = R"json({
  "hidden_size": 1536,
  "intermediate_size": 512,
  "layer_types": [
    "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "attention",
    "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba",
    "mamba", "attention", "mamba", "mamba", "mamba", "mamba", "mamba", "mamba",
    "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba"
  ],
  "mamba_chunk_size": 256,
  "mamba_d_conv": 4,
  "mamba_d_head": 64,
  "mamba_d_state": 128,
  "mamba_expand": 2,
  "mamba_n_groups": 1,
  "mamba_n_heads": 48,
  "max_position_embeddings": 131072,
  "model_type": "granitemoehybrid",
  "num_attention_heads": 12,
  "num_experts_per_tok": 6,
  "num_hidden_layers": 40,
  "num_key_value_heads": 4,
  "num_local_experts": 64,
  "shared_intermediate_size": 1024,
  "tie_word_embeddings": true,
  "vocab_size": 100352
}
)json";

constexpr std::string_view k_minicpm_sala = R"json({
  "architectures": [
    "MiniCPMSALAForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "attn_use_output_gate": true,
  "attn_use_rope": false,
  "bos_token_id": 1,
  "dim_model_base": 256,
  "dtype": "bfloat16",
  "eos_token_id": [
    2,
    73440
  ],
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.1,
  "intermediate_size": 16384,
  "lightning_head_dim": 128,
  "lightning_nh": 32,
  "lightning_nkv": 32,
  "lightning_scale": "1/sqrt(d)",
  "lightning_use_rope": true,
  "max_position_embeddings": 524288,
  "mixer_types": [
    "minicpm4", "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn",
    "lightning-attn", "lightning-attn", "lightning-attn", "minicpm4", "lightning-attn", "lightning-attn",
    "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn", "minicpm4", "minicpm4",
    "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn", "minicpm4", "lightning-attn",
    "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn", "lightning-attn", "minicpm4",
    "minicpm4", "minicpm4"
  ],
  "model_type": "minicpm_sala",
  "mup_denominator": 32,
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 2,
  "pad_token_id": 2,
  "pretraining_tp": 1,
  "qk_norm": true,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 10000.0,
  "scale_depth": 1.4,
  "scale_emb": 12,
  "shift_labels": true,
  "sparse_config": {
    "block_size": 64,
    "dense_len": 8192,
    "init_blocks": 1,
    "kernel_size": 32,
    "kernel_stride": 16,
    "topk": 64,
    "use_nope": false,
    "window_size": 2048
  },
  "tie_word_embeddings": false,
  "transformers_version": "4.57.1",
  "use_cache": true,
  "use_output_gate": true,
  "use_output_norm": true,
  "vocab_size": 73448
}
)json";

constexpr std::string_view k_jet_nemotron_2b = R"json({
  "architectures": [
    "JetNemotronForCausalLM"
  ],
  "attention_dropout": 0.0,
  "auto_map": {
    "AutoConfig": "configuration_jet_nemotron.JetNemotronConfig",
    "AutoModelForCausalLM": "modeling_jet_nemotron.JetNemotronForCausalLM"
  },
  "bos_token_id": 151643,
  "efficient_attention_config": {
    "jet": {
      "conv_size": 4,
      "dconv_generator_reduction": 8,
      "dconv_implementation": "triton",
      "expand_v": 2.6666666667,
      "head_dim": 96,
      "mode": "chunk",
      "norm_eps": "1e-5",
      "num_heads": 12
    },
    "swa": {
      "window_size": 1152
    }
  },
  "eos_token_id": 151643,
  "hidden_act": "silu",
  "hidden_size": 1536,
  "initializer_range": 0.02,
  "intermediate_size": 8960,
  "layer_types": [
    "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet", "jet",
    "attn", "jet", "jet", "jet", "jet", "attn", "swa", "swa",
    "jet", "jet", "jet", "jet", "jet", "jet"
  ],
  "max_position_embeddings": 131072,
  "max_window_layers": 28,
  "model_type": "jet_nemotron",
  "num_attention_heads": 12,
  "num_hidden_layers": 28,
  "num_key_value_heads": 2,
  "rms_norm_eps": 1e-06,
  "rope_scaling": null,
  "rope_theta": 1000000.0,
  "tie_word_embeddings": true,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.51.3",
  "use_cache": true,
  "use_mrope": false,
  "vocab_size": 151936
}
)json";

constexpr std::string_view k_mamba_codestral_7b = R"json({
  "architectures": [
    "Mamba2ForCausalLM"
  ],
  "bos_token_id": 0,
  "chunk_size": 256,
  "conv_kernel": 4,
  "eos_token_id": 0,
  "expand": 2,
  "head_dim": 64,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.1,
  "intermediate_size": 8192,
  "layer_norm_epsilon": 1e-05,
  "model_type": "mamba2",
  "n_groups": 8,
  "norm_before_gate": true,
  "num_heads": 128,
  "num_hidden_layers": 64,
  "pad_token_id": 0,
  "rescale_prenorm_residual": false,
  "residual_in_fp32": true,
  "rms_norm": true,
  "state_size": 128,
  "tie_word_embeddings": false,
  "time_step_floor": 0.0001,
  "time_step_init_scheme": "random",
  "time_step_max": 0.1,
  "time_step_min": 0.001,
  "time_step_rank": 256,
  "time_step_scale": 1.0,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.44.0.dev0",
  "use_bias": false,
  "use_cache": true,
  "use_conv_bias": true,
  "vocab_size": 32768
}
)json";

constexpr std::string_view k_zaya1_8b = R"json({
  "architectures": [
    "ZayaForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 2,
  "cca_time0": 2,
  "cca_time1": 2,
  "dtype": "bfloat16",
  "eos_token_id": 106,
  "head_dim": 128,
  "hidden_act": "silu",
  "hidden_size": 2048,
  "initializer_range": 0.02,
  "layer_types": [
    "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid",
    "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid",
    "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid",
    "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid", "hybrid"
  ],
  "lm_head_bias": false,
  "max_position_embeddings": 131072,
  "model_type": "zaya",
  "moe_intermediate_size": 2048,
  "num_attention_heads": 8,
  "num_experts": 16,
  "num_experts_per_tok": 1,
  "num_hidden_layers": 40,
  "num_key_value_heads": 2,
  "output_router_logits": false,
  "pad_token_id": 0,
  "partial_rotary_factor": 0.5,
  "rms_norm_eps": 1e-05,
  "rope_parameters": {
    "hybrid": {"partial_rotary_factor": 0.5, "rope_theta": 5000000, "rope_type": "default"},
    "hybrid_sliding": {"partial_rotary_factor": 0.5, "rope_theta": 10000.0, "rope_type": "default"},
    "rope_type": "default"
  },
  "router_hidden_size": 256,
  "sliding_window": null,
  "tie_word_embeddings": true,
  "use_cache": true,
  "vocab_size": 262272
}
)json";

constexpr std::string_view k_lfm2_8b_a1b = R"json({
  "model_type": "lfm2_moe",
  "vocab_size": 65536,
  "hidden_size": 2048,
  "intermediate_size": 7168,
  "moe_intermediate_size": 1792,
  "num_hidden_layers": 24,
  "num_attention_heads": 32,
  "num_key_value_heads": 8,
  "max_position_embeddings": 128000,
  "norm_eps": 1e-05,
  "conv_bias": false,
  "conv_L_cache": 3,
  "rope_theta": 1000000.0,
  "num_dense_layers": 2,
  "num_experts": 32,
  "num_experts_per_tok": 4,
  "norm_topk_prob": true,
  "use_expert_bias": true,
  "routed_scaling_factor": 1.0,
  "eos_token_id": 7,
  "layer_types": [
    "conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv", "conv",
    "full_attention", "conv", "conv", "conv", "full_attention", "conv", "conv", "conv", "full_attention", "conv",
    "conv", "full_attention", "conv", "conv"
  ]
}
)json";

constexpr std::string_view k_kimi_k3 = R"json({
  "architectures": [
    "KimiK3ForConditionalGeneration"
  ],
  "bos_token_id": 163584,
  "dtype": "bfloat16",
  "eos_token_id": 163586,
  "model_type": "kimi_k3",
  "pad_token_id": 163839,
  "text_config": {
    "architectures": [
      "KimiLinearForCausalLM"
    ],
    "bos_token_id": 163584,
    "dtype": "bfloat16",
    "eos_token_id": 163586,
    "first_k_dense_replace": 1,
    "hidden_act": "situ",
    "hidden_size": 7168,
    "intermediate_size": 33792,
    "kv_lora_rank": 512,
    "linear_attn_config": {
      "full_attn_layers": [
        4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48,
        52, 56, 60, 64, 68, 72, 76, 80, 84, 88, 92, 93
      ],
      "gate_lower_bound": -5.0,
      "head_dim": 128,
      "kda_layers": [
        1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15,
        17, 18, 19, 21, 22, 23, 25, 26, 27, 29, 30, 31,
        33, 34, 35, 37, 38, 39, 41, 42, 43, 45, 46, 47,
        49, 50, 51, 53, 54, 55, 57, 58, 59, 61, 62, 63,
        65, 66, 67, 69, 70, 71, 73, 74, 75, 77, 78, 79,
        81, 82, 83, 85, 86, 87, 89, 90, 91
      ],
      "num_heads": 96,
      "short_conv_kernel_size": 4,
      "use_full_rank_gate": true
    },
    "max_position_embeddings": 1048576,
    "mla_use_nope": true,
    "mla_use_output_gate": true,
    "model_type": "kimi_linear",
    "moe_intermediate_size": 3072,
    "num_attention_heads": 96,
    "num_experts": 896,
    "num_experts_per_token": 16,
    "num_hidden_layers": 93,
    "num_key_value_heads": 96,
    "num_nextn_predict_layers": 0,
    "num_shared_experts": 2,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "rms_norm_eps": 1e-05,
    "routed_expert_hidden_size": 3584,
    "tie_word_embeddings": false,
    "transformers_version": "4.56.2",
    "v_head_dim": 128,
    "vocab_size": 163840
  },
  "tie_word_embeddings": false
}
)json";

constexpr std::string_view k_qwen3_6_27b = R"json({
  "architectures": [
    "Qwen3_5ForConditionalGeneration"
  ],
  "image_token_id": 248056,
  "language_model_only": false,
  "model_type": "qwen3_5",
  "text_config": {
    "attention_bias": false,
    "attention_dropout": 0.0,
    "attn_output_gate": true,
    "bos_token_id": 248044,
    "dtype": "bfloat16",
    "eos_token_id": 248044,
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_act": "silu",
    "hidden_size": 5120,
    "initializer_range": 0.02,
    "intermediate_size": 17408,
    "layer_types": [
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention"
    ],
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 48,
    "linear_value_head_dim": 128,
    "mamba_ssm_dtype": "float32",
    "max_position_embeddings": 262144,
    "model_type": "qwen3_5_text",
    "mtp_num_hidden_layers": 1,
    "mtp_use_dedicated_embeddings": false,
    "num_attention_heads": 24,
    "num_hidden_layers": 64,
    "num_key_value_heads": 4,
    "output_gate_type": "swish",
    "pad_token_id": null,
    "partial_rotary_factor": 0.25,
    "rms_norm_eps": 1e-06,
    "rope_parameters": {
      "mrope_interleaved": true,
      "mrope_section": [
        11, 11, 10
      ],
      "partial_rotary_factor": 0.25,
      "rope_theta": 10000000,
      "rope_type": "default"
    },
    "tie_word_embeddings": false,
    "use_cache": true,
    "vocab_size": 248320
  },
  "tie_word_embeddings": false,
  "transformers_version": "4.57.1",
  "video_token_id": 248057,
  "vision_config": {
    "deepstack_visual_indexes": [],
    "depth": 27,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_size": 1152,
    "in_channels": 3,
    "initializer_range": 0.02,
    "intermediate_size": 4304,
    "model_type": "qwen3_5",
    "num_heads": 16,
    "num_position_embeddings": 2304,
    "out_hidden_size": 5120,
    "patch_size": 16,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2
  },
  "vision_end_token_id": 248054,
  "vision_start_token_id": 248053
}
)json";

constexpr std::string_view k_zaya1_8b_legacy = R"json({
  "activation_func": "swiglu",
  "activation_func_fp8_input_store": false,
  "add_bias_linear": false,
  "architectures": [
    "ZayaForCausalLM"
  ],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bias_activation_fusion": true,
  "bos_token_id": 2,
  "cca": true,
  "dtype": "bfloat16",
  "eos_token_id": 106,
  "ffn_hidden_size": 4096,
  "gated_linear_unit": true,
  "hidden_size": 2048,
  "head_dim": 128,
  "kv_channels": 128,
  "lm_head_bias": false,
  "mamba_cache_dtype": "float32",
  "max_position_embeddings": 131072,
  "model_type": "zaya",
  "moe_router_topk": 1,
  "norm_epsilon": 1e-05,
  "normalization": "RMSNorm",
  "num_attention_heads": 8,
  "num_experts": 16,
  "num_hidden_layers": 80,
  "num_key_value_heads": 2,
  "num_query_groups": 2,
  "pad_token_id": 0,
  "partial_rotary_factor": 0.5,
  "residual_in_fp32": true,
  "rope_scaling": false,
  "rope_theta": 5000000,
  "scale_residual_merge": true,
  "sliding_window": null,
  "use_cache": true,
  "vocab_size": 262272,
  "zaya_mlp_expansion": 256,
  "zaya_use_eda": true,
  "zaya_use_mod": true
}
)json";

constexpr std::string_view k_qwen3_6_35b_a3b = R"json({
  "architectures": [
    "Qwen3_5MoeForConditionalGeneration"
  ],
  "image_token_id": 248056,
  "model_type": "qwen3_5_moe",
  "text_config": {
    "attention_bias": false,
    "attention_dropout": 0.0,
    "attn_output_gate": true,
    "bos_token_id": 248044,
    "dtype": "bfloat16",
    "eos_token_id": 248044,
    "full_attention_interval": 4,
    "head_dim": 256,
    "hidden_act": "silu",
    "hidden_size": 2048,
    "initializer_range": 0.02,
    "layer_types": [
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention",
      "linear_attention", "linear_attention", "linear_attention", "full_attention"
    ],
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "mamba_ssm_dtype": "float32",
    "max_position_embeddings": 262144,
    "model_type": "qwen3_5_moe_text",
    "moe_intermediate_size": 512,
    "mtp_num_hidden_layers": 1,
    "mtp_use_dedicated_embeddings": false,
    "num_attention_heads": 16,
    "num_experts": 256,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 40,
    "num_key_value_heads": 2,
    "output_router_logits": false,
    "pad_token_id": null,
    "partial_rotary_factor": 0.25,
    "rms_norm_eps": 1e-06,
    "rope_parameters": {
      "mrope_interleaved": true,
      "mrope_section": [
        11, 11, 10
      ],
      "partial_rotary_factor": 0.25,
      "rope_theta": 10000000,
      "rope_type": "default"
    },
    "router_aux_loss_coef": 0.001,
    "shared_expert_intermediate_size": 512,
    "tie_word_embeddings": false,
    "use_cache": true,
    "vocab_size": 248320
  },
  "tie_word_embeddings": false,
  "transformers_version": "4.57.1",
  "video_token_id": 248057,
  "vision_config": {
    "deepstack_visual_indexes": [],
    "depth": 27,
    "hidden_act": "gelu_pytorch_tanh",
    "hidden_size": 1152,
    "in_channels": 3,
    "initializer_range": 0.02,
    "intermediate_size": 4304,
    "model_type": "qwen3_5_moe",
    "num_heads": 16,
    "num_position_embeddings": 2304,
    "out_hidden_size": 2048,
    "patch_size": 16,
    "spatial_merge_size": 2,
    "temporal_patch_size": 2
  },
  "vision_end_token_id": 248054,
  "vision_start_token_id": 248053
}
)json";

} // namespace

const std::vector<CatalogEntry>& catalog()
{
  // Sources: where each text came from. "Partial" entries hold every key a
  // quotation confirms; they are enough for the state layout, not for serving.
  static const std::vector<CatalogEntry> k_entries = {
    {"qwen3-next-80b-a3b", "Qwen/Qwen3-Next-80B-A3B-Instruct",
     "https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json (revision 9c7f2fbe, "
     "unconfirmed); partial: keys as quoted in a third-party dump of this repo's config and in MaxText's "
     "qwen3-next-80b-a3b parameters; token ids, rope_theta, torch_dtype, transformers_version left out as unverified",
     k_qwen3_next_80b_a3b, "1,2,4,8,16"},
    {"qwen3.5-35b-a3b", "Qwen/Qwen3.5-35B-A3B",
     "https://huggingface.co/Qwen/Qwen3.5-35B-A3B/blob/main/config.json (revision not recorded); partial: text_config "
     "keys as quoted in aiconfigurator's Qwen3.5-35B-A3B test config and a transcription of the Qwen3.6-35B-A3B "
     "text_config; mamba_ssm_dtype float32 as vLLM PR #34489 describes Qwen3.5 configs, not confirmed in SGLang's "
     "source",
     k_qwen3_5_35b_a3b, "1,2,4,8,16"},
    {"qwen3.5-27b", "Qwen/Qwen3.5-27B",
     "https://huggingface.co/Qwen/Qwen3.5-27B/blob/main/config.json (revision not recorded); partial: text_config keys "
     "as quoted in aiconfigurator's Qwen3.5-27B test config; mamba_ssm_dtype float32 as vLLM PR #34489 describes "
     "Qwen3.5 configs, not confirmed in SGLang's source",
     k_qwen3_5_27b, "1,2,4,8"},
    {"nemotron-h-8b", "nvidia/Nemotron-H-8B-Base-8K",
     "https://huggingface.co/nvidia/Nemotron-H-8B-Base-8K/blob/main/config.json (revision not recorded); keys as "
     "quoted in Megatron-Bridge's NemotronH bridge test (its two test-only additions, hidden_act and "
     "n_routed_experts, removed); may omit keys that quotation dropped",
     k_nemotron_h_8b, "1,2,4,8"},
    {"nemotron-nano-9b-v2", "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
     "https://huggingface.co/nvidia/NVIDIA-Nemotron-Nano-9B-v2/blob/main/config.json (revision 6533e8de, "
     "unconfirmed); partial: keys as quoted in a third-party sizing test; n_groups 8 not confirmed by a quotation",
     k_nemotron_nano_9b_v2, "1,2,4,8"},
    {"nemotron-3-nano-30b-a3b", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
     "https://huggingface.co/nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16/blob/main/config.json (revision not "
     "recorded); partial: keys as published in configs of checkpoints fine-tuned from it "
     "(OpenResearcher/OpenResearcher-30B-A3B, HebArabNlpProject/Hebatron), ssm_state_size 128 "
     "not confirmed by a quotation but also the default of SGLang's NemotronHConfig "
     "(configs/nemotron_h.py@01144484); keys after rescale_prenorm_residual not seen",
     k_nemotron_3_nano_30b_a3b, "1,2,4,8"},
    {"falcon-h1-7b", "tiiuae/Falcon-H1-7B-Instruct",
     "https://huggingface.co/tiiuae/Falcon-H1-7B-Instruct/blob/main/config.json (revision not recorded); partial: "
     "keys as quoted in third-party sizing tests (Falcon-H1-7B and its mlx-community 4-bit copy); architecture as "
     "SGLang's models/falcon_h1.py@e01a0731 registers it",
     k_falcon_h1_7b, "1,2,4"},
    {"falcon-h1-1.5b", "tiiuae/Falcon-H1-1.5B-Instruct",
     "https://huggingface.co/tiiuae/Falcon-H1-1.5B-Instruct/blob/main/config.json (revision not recorded); partial: "
     "keys as quoted in a third-party sizing test, matching the transformers FalconH1 doc table",
     k_falcon_h1_1_5b, "1,2,4,8"},
    {"kimi-linear-48b-a3b", "moonshotai/Kimi-Linear-48B-A3B-Instruct",
     "https://huggingface.co/moonshotai/Kimi-Linear-48B-A3B-Instruct/blob/main/config.json at revision "
     "e1df551a447157d4658b573f9a695d57658590e9; partial: the fields a third-party package copied verbatim from "
     "that revision",
     k_kimi_linear_48b_a3b, "1,2,4,8,16,32"},
    {"lfm2-2.6b", "LiquidAI/LFM2-2.6B",
     "https://huggingface.co/LiquidAI/LFM2-2.6B/blob/main/config.json (revision not recorded); partial: keys as "
     "quoted in a third-party importer test; architecture as SGLang's models/lfm2.py@493eb5b6 registers it",
     k_lfm2_2_6b, "1,2,4,8,16,32"},
    {"granite-4.0-h-tiny", "ibm-granite/granite-4.0-h-tiny",
     "https://huggingface.co/ibm-granite/granite-4.0-h-tiny/blob/main/config.json (revision not recorded); partial: "
     "keys as quoted in a third-party importer test; 'architectures' left out (GraniteMoeHybridForCausalLM "
     "unverified), so the model_type identifies it",
     k_granite_4_0_h_tiny, "1,2,4"},
    {"minicpm-sala", "openbmb/MiniCPM-SALA",
     "https://huggingface.co/openbmb/MiniCPM-SALA/blob/main/config.json (revision not recorded); partial: the "
     "config.json GPTQModel 5.7.0 printed while saving a 4-bit quantization of the model, with its "
     "quantization_config and auto_map left out; the repository name is not confirmed by that quotation",
     k_minicpm_sala, "1,2,4,8,16,32"},
    {"jet-nemotron-2b", "jet-ai/Jet-Nemotron-2B",
     "https://huggingface.co/jet-ai/Jet-Nemotron-2B/blob/main/config.json (revision not recorded); the config of "
     "this model as NVlabs/Jet-Nemotron keeps it in jetai/modeling/configs/jetlm_2B.json@2e05cf92d4ee3fb3cce3d2357e"
     "755dc51fc52db8, whole (list layout reflowed); that it equals the Hub file byte for byte is not confirmed",
     k_jet_nemotron_2b, "1,2,4"},
    {"mamba-codestral-7b", "mistralai/Mamba-Codestral-7B-v0.1",
     "https://huggingface.co/mistralai/Mamba-Codestral-7B-v0.1/blob/main/config.json (revision not recorded; the "
     "transformers-format config); partial: "
     "the dict subho406/mlstm_kernels quotes as codestral_mamba_config (mlstm_kernels/utils/benchmark/benchmarks/"
     "huggingface_model_benchmark.py@90263b80921130dfc3da19a2814f7501e43341bb), less its _name_or_path and its "
     "time_step_limit (0.0, inf), which JSON cannot hold",
     k_mamba_codestral_7b, "1,2,4,8"},
    {"zaya1-8b", "Zyphra/ZAYA1-8B",
     "https://huggingface.co/Zyphra/ZAYA1-8B/blob/main/config.json at revision "
     "67d34da515b30409ee8daa67c3605c4402d03f6f (the transformers-native schema); the field set SGLang's "
     "test/registered/unit/configs/test_zaya_config.py"
     "@a43c7793f95609db15cd1c4060de4e3424af171d copies verbatim from it, its layer list written out; no "
     "transformers_version in that copy",
     k_zaya1_8b, "1,2"},
    {"lfm2-8b-a1b", "LiquidAI/LFM2-8B-A1B",
     "https://huggingface.co/LiquidAI/LFM2-8B-A1B/blob/main/config.json (revision not recorded); partial: the "
     "trimmed config lablup/mlxcel quotes in src/models/lfm2_tests.rs@0c21aed20beb615c375ad75ab81042fa64bb326b "
     "from the mlx-community 4-bit conversion, with its quantization block left out; 'architectures' is not in it "
     "(Lfm2MoeForCausalLM unverified), so the model_type identifies it",
     k_lfm2_8b_a1b, "1,2,4,8,16,32"},
    {"kimi-k3", "moonshotai/Kimi-K3",
     "https://huggingface.co/moonshotai/Kimi-K3/blob/main/config.json (revision not recorded); partial: the keys "
     "that shape the model, as gogongxt/python's inspector report prints a local copy of this repository's raw "
     "config.json (scripts/models/kimi_k3.md@a0d3871ab6f58cbda18c00a8b8c79f84fcc043eb); left out, among others: "
     "auto_map, vision_config, the image placeholder keys, the text config's generation defaults, its MoE routing "
     "keys and its quantization_config (compressed-tensors MXFP4)",
     k_kimi_k3, "1,2,4,8,16,32"},
    {"qwen3.6-27b", "Qwen/Qwen3.6-27B",
     "https://huggingface.co/Qwen/Qwen3.6-27B/blob/main/config.json (revision not recorded); whole, as "
     "gogongxt/python's inspector report prints a local copy's raw config.json "
     "(scripts/models/qwen3.6_27b.md@ec9962697819add8f24ce1b180cf98ca6a53c40f); that the copy is the Hub file "
     "unchanged is not confirmed",
     k_qwen3_6_27b, "1,2,4,8"},
    {"qwen3.6-35b-a3b", "Qwen/Qwen3.6-35B-A3B",
     "https://huggingface.co/Qwen/Qwen3.6-35B-A3B/blob/main/config.json (revision not recorded); whole, as "
     "gogongxt/python's inspector report prints a local copy's raw config.json "
     "(scripts/models/qwen3.6_35b_a3b.md@ec9962697819add8f24ce1b180cf98ca6a53c40f); that the copy is the Hub file "
     "unchanged is not confirmed",
     k_qwen3_6_35b_a3b, "1,2,4,8,16"},
    {"zaya1-8b-legacy", "Zyphra/ZAYA1-8B-legacy",
     "https://huggingface.co/Zyphra/ZAYA1-8B-legacy/blob/main/config.json at revision "
     "1bef1fb587fc4bcb78f318f49ff2ef2b2510f073 (the Megatron-style schema); the field set SGLang's "
     "test/registered/unit/configs/test_zaya_config.py@a43c7793f95609db15cd1c4060de4e3424af171d "
     "copies verbatim from it",
     k_zaya1_8b_legacy, "1,2"},
  };
  return k_entries;
}

} // namespace pdcheck::model
