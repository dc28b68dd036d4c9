#include "sglang/side_layout.hpp"

#include "sglang/environ.hpp"

namespace pdcheck::sglang {

namespace {

std::optional<Dtype> env_dtype(const ServerArgs& args, const char* name)
{
  const std::optional<EnvSetting> set = find_env(args.env, name);
  return set ? parse_dtype(set->value) : std::nullopt;
}

} // namespace

model::LayoutInput layout_input(const Side& side)
{
  const ServerArgs& a = side.args;
  model::LayoutInput in;
  in.model = side.model;
  in.profile = side.profile;
  in.tp_size = a.tp_size;
  in.dp_size = a.dp_size;
  in.enable_dp_attention = a.enable_dp_attention;
  in.attn_cp_size = a.attn_cp_size;
  in.pp_size = a.pp_size;
  if (const std::optional<EnvSetting> set = find_env(a.env, "SGLANG_PP_LAYER_PARTITION")) {
    in.pp_layer_partition = set->value; // judged by get_pp_indices, as SGLang does at startup
  }
  if (side.profile.mamba_dtype_env) {
    in.conv_dtype = env_dtype(a, "SGLANG_MAMBA_CONV_DTYPE").value_or(Dtype::bfloat16);
    in.ssm_dtype = a.mamba_ssm_dtype.value_or(
      env_dtype(a, "SGLANG_MAMBA_SSM_DTYPE").value_or(side.model.config_ssm_dtype.value_or(Dtype::float32)));
  } else {
    // Before PR #18532 the environment was overwritten from the flag's value.
    in.conv_dtype = Dtype::bfloat16;
    in.ssm_dtype = a.mamba_ssm_dtype.value_or(Dtype::float32);
  }
  if (side.model.fixed_state_dtype) {
    in.conv_dtype = in.ssm_dtype = *side.model.fixed_state_dtype;
  }
  in.enable_unified_memory = a.enable_unified_memory;
  if (a.speculative_algorithm && a.speculative_num_draft_tokens) {
    in.speculative_num_draft_tokens = *a.speculative_num_draft_tokens;
  }
  return in;
}

} // namespace pdcheck::sglang
