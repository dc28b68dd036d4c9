#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/profile.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ostream>

namespace pdcheck::cli {

namespace {

nlohmann::ordered_json profile_json(const Profile& p)
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
  return j;
}

} // namespace

void install_profiles(CLI::App& app, CommandContext& ctx)
{
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand("profiles", "List SGLang profiles and which release maps to which");
  add_report_options(cmd, *options);
  cmd->callback([options, &ctx] {
    ctx.verdict = Verdict::ok;
    if (options->format == "json") {
      auto list = nlohmann::ordered_json::array();
      for (const auto& p : profiles()) {
        list.push_back(profile_json(p));
      }
      *ctx.out << nlohmann::ordered_json{{"profiles", list}}.dump(2) << "\n";
      return;
    }
    *ctx.out << fmt::format("{:<14} {:<11} {:<11} {:<10} {}\n", "profile", "behaves as", "released", "confidence",
                            "evidence");
    for (const auto& p : profiles()) {
      *ctx.out << fmt::format("{:<14} {:<11} {:<11} {:<10} {}\n", p.name, p.base,
                              p.released.empty() ? "-" : p.released, p.confidence, p.evidence);
    }
  });
}

} // namespace pdcheck::cli
