#include "sglang/side_layout.hpp"

#include "util/error.hpp"

#include <charconv>

namespace pdcheck::sglang {

namespace {

std::vector<int> parse_partition(const std::string& text, const std::string& origin)
{
  std::vector<int> sizes;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    int value = 0;
    const char* first = text.data() + pos;
    const char* last = text.data() + comma;
    auto [ptr, ec] = std::from_chars(first, last, value);
    if (ec != std::errc() || ptr != last || value <= 0) {
      throw InputError(origin, "SGLANG_PP_LAYER_PARTITION: expected comma-separated positive layer counts, got '" + text + "'");
    }
    sizes.push_back(value);
    pos = comma + 1;
  }
  return sizes;
}

std::optional<Dtype> env_dtype(const ServerArgs& args, const char* name)
{
  auto it = args.env.find(name);
  return it == args.env.end() ? std::nullopt : parse_dtype(it->second);
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
  if (auto it = a.env.find("SGLANG_PP_LAYER_PARTITION"); it != a.env.end() && !it->second.empty()) {
    in.pp_layer_partition = parse_partition(it->second, side.origin);
  }
  in.conv_dtype = env_dtype(a, "SGLANG_MAMBA_CONV_DTYPE").value_or(Dtype::bfloat16);
  in.ssm_dtype = a.mamba_ssm_dtype.value_or(
    env_dtype(a, "SGLANG_MAMBA_SSM_DTYPE").value_or(side.model.config_ssm_dtype.value_or(Dtype::float32)));
  in.enable_unified_memory = a.enable_unified_memory;
  if (a.speculative_algorithm && a.speculative_num_draft_tokens) {
    in.speculative_num_draft_tokens = *a.speculative_num_draft_tokens;
  }
  return in;
}

} // namespace pdcheck::sglang
