#pragma once

#include "model/layout.hpp"
#include "sglang/side.hpp"

namespace pdcheck::sglang {

/// Resolves a side's launch arguments, environment and model into the inputs of
/// the layout engine: attention-TP inputs, PP partition, and the state dtypes by
/// SGLang's precedence (--mamba-ssm-dtype > SGLANG_MAMBA_SSM_DTYPE > the config's
/// mamba_ssm_dtype where the architecture reads it > float32; conv from
/// SGLANG_MAMBA_CONV_DTYPE, else bfloat16). Throws InputError for an unparsable
/// SGLANG_PP_LAYER_PARTITION.
model::LayoutInput layout_input(const Side& side);

} // namespace pdcheck::sglang
