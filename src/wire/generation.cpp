#include "wire/generation.hpp"

#include "core/profile.hpp"
#include "wire/registration_table.hpp"

namespace pdcheck::wire {

std::string_view backend_name(Backend b)
{
  switch (b) {
  case Backend::mooncake: return "mooncake";
  case Backend::mori: return "mori";
  case Backend::nixl: return "nixl";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view name)
{
  for (Backend b : {Backend::mooncake, Backend::mori, Backend::nixl}) {
    if (backend_name(b) == name) {
      return b;
    }
  }
  return std::nullopt;
}

std::string_view generation_name(Generation g)
{
  switch (g) {
  case Generation::pre_dims: return "pre-dims";
  case Generation::flat: return "flat";
  case Generation::components: return "components";
  case Generation::components_layouts: return "components-layouts";
  }
  return "?";
}

std::string_view generation_number(Generation g)
{
  switch (g) {
  case Generation::pre_dims: return "gen-0";
  case Generation::flat: return "gen-1";
  case Generation::components: return "gen-2";
  case Generation::components_layouts: return "gen-3";
  }
  return "?";
}

std::optional<Generation> parse_generation(std::string_view text)
{
  for (Generation g :
       {Generation::pre_dims, Generation::flat, Generation::components, Generation::components_layouts}) {
    if (generation_name(g) == text || generation_number(g) == text) {
      return g;
    }
  }
  return std::nullopt;
}

std::vector<std::string> generation_names()
{
  return {"pre-dims", "flat", "components", "components-layouts", "gen-0", "gen-1", "gen-2", "gen-3"};
}

bool generation_supported(Backend backend, Generation g)
{
  switch (backend) {
  case Backend::mooncake: return true;
  case Backend::mori: return g == Generation::flat || g == Generation::components;
  case Backend::nixl: return g != Generation::components_layouts;
  }
  return false;
}

std::vector<Generation> backend_generations(Backend backend)
{
  std::vector<Generation> out;
  for (Generation g :
       {Generation::pre_dims, Generation::flat, Generation::components, Generation::components_layouts}) {
    if (generation_supported(backend, g)) {
      out.push_back(g);
    }
  }
  return out;
}

std::size_t registration_frame_count(Backend backend, Generation g)
{
  const RegistrationTable* table = find_registration_table(backend, g);
  return table == nullptr ? 0 : table->wire_frames();
}

Generation generation_for_profile(Backend backend, const Profile& profile)
{
  switch (backend) {
  case Backend::mooncake:
    switch (profile.mooncake_format) {
    case RegistrationFormat::no_state_lens: return Generation::pre_dims;
    case RegistrationFormat::flat: return Generation::flat;
    case RegistrationFormat::components:
      // Frames 19-20 came with unequal-TP unified state (6d8ea7e3).
      return profile.unified_unequal_tp ? Generation::components_layouts : Generation::components;
    }
    break;
  case Backend::mori:
    // Mori's per-component schema arrived with the fix for the half-migrated
    // v0.5.12 (#26539); the broken releases still pack flat lists.
    if (profile.mooncake_format == RegistrationFormat::components && !profile.mori_broken_pack) {
      return Generation::components;
    }
    return Generation::flat;
  case Backend::nixl:
    if (profile.mooncake_format == RegistrationFormat::components) {
      return Generation::components;
    }
    return profile.nixl_dims ? Generation::flat : Generation::pre_dims;
  }
  return Generation::components;
}

Generation transfer_info_shape(Generation g)
{
  return (g == Generation::pre_dims || g == Generation::flat) ? Generation::flat : Generation::components;
}

} // namespace pdcheck::wire
