#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pdcheck {

/// Element types SGLang uses for recurrent state.
enum class Dtype { float32, bfloat16, float16 };

inline int dtype_size(Dtype d)
{
  return d == Dtype::float32 ? 4 : 2;
}

inline std::string_view dtype_name(Dtype d)
{
  switch (d) {
  case Dtype::float32: return "float32";
  case Dtype::bfloat16: return "bfloat16";
  case Dtype::float16: return "float16";
  }
  return "?";
}

/// Accepts SGLang's spellings (float32, bfloat16, float16) and the torch aliases
/// fp32, bf16, fp16, half, float.
std::optional<Dtype> parse_dtype(std::string_view text);

} // namespace pdcheck
