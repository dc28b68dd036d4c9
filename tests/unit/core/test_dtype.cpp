// Element types of recurrent state: the spellings SGLang's --mamba-ssm-dtype,
// SGLANG_MAMBA_SSM_DTYPE / SGLANG_MAMBA_CONV_DTYPE and config.json's
// mamba_ssm_dtype use (configs/mamba_utils.py mamba2_state_dtype at 02e208de),
// plus the torch aliases; sizes are torch's element sizes.
#include "core/dtype.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

TEST_CASE("parse_dtype: SGLang's names and the torch aliases", "[core][dtype]")
{
  for (const char* s : {"float32", "fp32", "float", "torch.float32"}) {
    INFO(s);
    CHECK(parse_dtype(s) == Dtype::float32);
  }
  for (const char* s : {"bfloat16", "bf16", "torch.bfloat16"}) {
    INFO(s);
    CHECK(parse_dtype(s) == Dtype::bfloat16);
  }
  for (const char* s : {"float16", "fp16", "half", "torch.float16"}) {
    INFO(s);
    CHECK(parse_dtype(s) == Dtype::float16);
  }
}

TEST_CASE("parse_dtype: anything else is refused, case included", "[core][dtype]")
{
  for (const char* s : {"", "float64", "fp8_e4m3", "BF16", "Float32", " float32", "torch.half", "auto"}) {
    INFO(s);
    CHECK_FALSE(parse_dtype(s));
  }
}

TEST_CASE("dtype_size and dtype_name", "[core][dtype]")
{
  CHECK(dtype_size(Dtype::float32) == 4);
  CHECK(dtype_size(Dtype::bfloat16) == 2);
  CHECK(dtype_size(Dtype::float16) == 2);
  CHECK(dtype_name(Dtype::float32) == "float32");
  CHECK(dtype_name(Dtype::bfloat16) == "bfloat16");
  CHECK(dtype_name(Dtype::float16) == "float16");
  for (Dtype d : {Dtype::float32, Dtype::bfloat16, Dtype::float16}) {
    CHECK(parse_dtype(dtype_name(d)) == d);
  }
}
