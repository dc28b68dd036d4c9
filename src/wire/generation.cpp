#include "wire/generation.hpp"

#include "core/profile.hpp"
#include "wire/registration_table.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace pdcheck::wire {

bool wire_speaking(TransferBackend b)
{
  switch (b) {
  case TransferBackend::mooncake:
  case TransferBackend::mori:
  case TransferBackend::nixl: return true;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: return false;
  }
  return false;
}

std::optional<TransferBackend> frames_backend(TransferBackend b)
{
  switch (b) {
  case TransferBackend::mooncake:
  case TransferBackend::mooncake_tcp: return TransferBackend::mooncake;
  case TransferBackend::mori: return TransferBackend::mori;
  case TransferBackend::nixl: return TransferBackend::nixl;
  case TransferBackend::ascend:
  case TransferBackend::fake: return std::nullopt;
  }
  return std::nullopt;
}

void throw_not_wire_speaking(TransferBackend b)
{
  throw std::logic_error(
    fmt::format("the wire codecs speak mooncake, mori and nixl, not {}", transfer_backend_name(b)));
}

std::optional<TransferBackend> parse_wire_backend(std::string_view name)
{
  for (TransferBackend b : k_wire_backends) {
    if (transfer_backend_name(b) == name) {
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

bool generation_supported(TransferBackend backend, Generation g)
{
  switch (backend) {
  case TransferBackend::mooncake: return true;
  case TransferBackend::mori: return g == Generation::flat || g == Generation::components;
  case TransferBackend::nixl: return g != Generation::components_layouts;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: break;
  }
  throw_not_wire_speaking(backend);
}

std::vector<Generation> backend_generations(TransferBackend backend)
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

std::size_t registration_frame_count(TransferBackend backend, Generation g)
{
  const RegistrationTable* table = find_registration_table(backend, g);
  return table == nullptr ? 0 : table->wire_frames();
}

Generation generation_for_profile(TransferBackend backend, const Profile& profile)
{
  switch (backend) {
  case TransferBackend::mooncake:
    switch (profile.mooncake_format) {
    case RegistrationFormat::no_state_lens: return Generation::pre_dims;
    case RegistrationFormat::flat: return Generation::flat;
    case RegistrationFormat::components:
      // Frames 19-20 came with unequal-TP unified state (6d8ea7e3).
      return profile.unified_unequal_tp ? Generation::components_layouts : Generation::components;
    }
    return Generation::components;
  case TransferBackend::mori:
    // Mori's per-component schema arrived with the fix for the half-migrated
    // v0.5.12 (#26539); the broken releases still pack flat lists.
    if (profile.mooncake_format == RegistrationFormat::components && !profile.mori_broken_pack) {
      return Generation::components;
    }
    return Generation::flat;
  case TransferBackend::nixl:
    if (profile.mooncake_format == RegistrationFormat::components) {
      return Generation::components;
    }
    return profile.nixl_dims ? Generation::flat : Generation::pre_dims;
  case TransferBackend::ascend:
  case TransferBackend::fake:
  case TransferBackend::mooncake_tcp: break;
  }
  throw_not_wire_speaking(backend);
}

Generation transfer_info_shape(Generation g)
{
  return (g == Generation::pre_dims || g == Generation::flat) ? Generation::flat : Generation::components;
}

} // namespace pdcheck::wire
