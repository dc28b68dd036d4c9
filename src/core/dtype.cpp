#include "core/dtype.hpp"

namespace pdcheck {

std::optional<Dtype> parse_dtype(std::string_view text)
{
  if (text == "float32" || text == "fp32" || text == "float" || text == "torch.float32") {
    return Dtype::float32;
  }
  if (text == "bfloat16" || text == "bf16" || text == "torch.bfloat16") {
    return Dtype::bfloat16;
  }
  if (text == "float16" || text == "fp16" || text == "half" || text == "torch.float16") {
    return Dtype::float16;
  }
  return std::nullopt;
}

} // namespace pdcheck
