#include "report/catalog_render.hpp"

#include <fmt/format.h>

namespace pdcheck::report {

nlohmann::ordered_json rule_to_json(const Rule& r)
{
  return nlohmann::ordered_json{{"id", r.id},
                                {"kind", finding_kind_name(r.kind)},
                                {"severity", severity_name(r.severity)},
                                {"title", r.title},
                                {"explanation", r.explanation},
                                {"fix", r.fix}};
}

std::string rule_to_text(const Rule& r)
{
  return fmt::format("{} ({}, {})\n{}\n\n{}\n\nfix: {}\n", r.id, finding_kind_name(r.kind), severity_name(r.severity),
                     r.title, r.explanation, r.fix);
}

nlohmann::ordered_json rules_to_json(std::span<const Rule> rules)
{
  auto list = nlohmann::ordered_json::array();
  for (const Rule& r : rules) {
    list.push_back(rule_to_json(r));
  }
  return nlohmann::ordered_json{{"rules", list}};
}

std::string rules_to_text(std::span<const Rule> rules)
{
  std::string out;
  for (const Rule& r : rules) {
    out += fmt::format("{:<26} {:<18} {:<8} {}\n", r.id, finding_kind_name(r.kind), severity_name(r.severity), r.title);
  }
  return out;
}

nlohmann::ordered_json profile_to_json(const Profile& p)
{
  nlohmann::ordered_json j;
  j["name"] = p.name;
  j["base"] = p.base;
  j["released"] = p.released.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.released);
  j["confidence"] = p.confidence;
  j["evidence"] = p.evidence;
  j["state_transfer"] = p.state_transfer;
  j["registration_format"] = p.mooncake_format == RegistrationFormat::no_state_lens ? "no_state_lens"
                             : p.mooncake_format == RegistrationFormat::flat       ? "flat"
                                                                                   : "components";
  j["dim_rule"] = p.dim_rule == DimRule::first_axis ? "first_axis" : "slice_axis";
  j["drop_zero_size_entries"] = p.drop_zero_size_entries;
  j["kda_single_conv"] = p.kda_single_conv;
  j["dims_include_spec_intermediates"] = p.dims_include_spec_intermediates;
  j["conv_subgroup_slicing"] = p.conv_subgroup_slicing;
  j["aggregation_writer_fix"] = p.aggregation_writer_fix;
  j["state_layer_ids"] = p.state_layer_ids;
  j["unified_memory_pd"] = p.unified_memory_pd;
  j["unified_unequal_tp"] = p.unified_unequal_tp;
  j["nixl_state"] = p.nixl_state;
  j["nixl_dims"] = p.nixl_dims;
  j["mori_state"] = p.mori_state;
  j["mori_broken_pack"] = p.mori_broken_pack;
  j["mooncake_slot_size_check"] = p.mooncake_slot_size_check;
  j["pp_split"] = p.pp_split == PpSplit::last_takes_remainder ? "last_takes_remainder" : "last_stages_one_extra";
  j["mamba_dtype_env"] = p.mamba_dtype_env;
  j["unified_memory"] = p.unified_memory;
  j["pd_decode_dcp"] = p.pd_decode_dcp;
  j["dsa_named_nsa"] = p.dsa_named_nsa;
  j["mori_minimax_index_k"] = p.mori_minimax_index_k;
  j["minimax_state_wording"] = p.minimax_state_wording;
  j["mooncake_hybrid_mla_extra_state"] = p.mooncake_hybrid_mla_extra_state;
  return j;
}

nlohmann::ordered_json profiles_to_json(std::span<const Profile> profiles)
{
  auto list = nlohmann::ordered_json::array();
  for (const Profile& p : profiles) {
    list.push_back(profile_to_json(p));
  }
  return nlohmann::ordered_json{{"profiles", list}};
}

std::string profiles_to_text(std::span<const Profile> profiles)
{
  std::string out = fmt::format("{:<14} {:<11} {:<11} {:<10} {}\n", "profile", "behaves as", "released", "confidence",
                                "evidence");
  for (const Profile& p : profiles) {
    out += fmt::format("{:<14} {:<11} {:<11} {:<10} {}\n", p.name, p.base, p.released.empty() ? "-" : p.released,
                       p.confidence, p.evidence);
  }
  return out;
}

} // namespace pdcheck::report
