#include "sglang/state_type.hpp"

#include <array>

namespace pdcheck::sglang {

namespace {

struct TypeName
{
  ExtraStateType type;
  std::string_view name;
};

constexpr std::array<TypeName, 6> k_type_names = {{
  {ExtraStateType::swa, "swa"},
  {ExtraStateType::dsa, "dsa"},
  {ExtraStateType::swa_ring, "swa_ring"},
  {ExtraStateType::c128_state, "c128_state"},
  {ExtraStateType::minimax_index_k, "minimax_index_k"},
  {ExtraStateType::minimax_dense_kv, "minimax_dense_kv"},
}};

} // namespace

std::string_view extra_state_type_name(ExtraStateType t)
{
  for (const TypeName& tn : k_type_names) {
    if (tn.type == t) {
      return tn.name;
    }
  }
  return "?";
}

std::optional<ExtraStateType> parse_extra_state_type(std::string_view text)
{
  for (const TypeName& tn : k_type_names) {
    if (tn.name == text) {
      return tn.type;
    }
  }
  return std::nullopt;
}

std::vector<std::string> extra_state_type_names()
{
  std::vector<std::string> out;
  for (const TypeName& tn : k_type_names) {
    out.emplace_back(tn.name);
  }
  return out;
}

} // namespace pdcheck::sglang
