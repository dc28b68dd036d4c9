#include "check/model_launch_checks.hpp"

#include "check/side_checks.hpp"
#include "core/rules.hpp"
#include "core/sglang_messages.hpp"
#include "core/version.hpp"
#include "model/architectures.hpp"
#include "sglang/environ.hpp"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>

namespace pdcheck::check {

using sglang::Side;

void model_release_findings(const Side& side, std::vector<Finding>& out)
{
  const model::FirstRelease* first = model::find_first_release(side.model.architecture);
  if (first == nullptr) {
    return;
  }
  // "main", a commit or a profile name says nothing about the release order.
  const std::optional<Version> runs = parse_version(normalise_version(side.sglang));
  const std::optional<Version> needs = parse_version(first->release);
  if (!runs || !needs || !release_before(*runs, *needs)) {
    return;
  }
  Finding f = side_finding(side, RuleId::model_release,
                           fmt::format("SGLang {} cannot load {}: the architecture is served from {} on", side.sglang,
                                       side.model.architecture, first->release));
  if (first->confidence == "low") {
    f.severity = Severity::warning;
  }
  f.where = fmt::format("{} startup: the model registry; {}", sglang::role_name(side.role), first->source);
  f.evidence["sglang"] = side.sglang;
  f.evidence["architecture"] = side.model.architecture;
  f.evidence["first_release"] = std::string(first->release);
  f.evidence["confidence"] = std::string(first->confidence);
  out.push_back(std::move(f));
}

namespace {

Finding minicpm_finding(const Side& side, std::string message, MessageId text)
{
  Finding f = side_finding(side, RuleId::startup_minicpm_overrides, std::move(message));
  f.runtime_error = render_delivered(text, {});
  f.where = fmt::format("{} startup: arg_groups/model_overrides/minicpm.py _minicpm_sala_overrides (@ c7a27756; not "
                        "confirmed for {})",
                        sglang::role_name(side.role), side.sglang);
  f.evidence["architecture"] = side.model.architecture;
  f.evidence["confidence"] = "unconfirmed";
  return f;
}

} // namespace

void minicpm_override_findings(const Side& side, std::vector<Finding>& out)
{
  // _register_for("MiniCPMForCausalLM", "MiniCPMSALAForCausalLM"); pdcheck
  // lays out only the SALA name, whose config is the hybrid one the checks read.
  if (side.model.architecture != "MiniCPMSALAForCausalLM") {
    return;
  }
  const sglang::ServerArgs& a = side.args;
  if (a.enable_dp_attention) {
    out.push_back(minicpm_finding(side, "MiniCPM is launched with --enable-dp-attention",
                                  MessageId::minicpm_dp_attention));
    return; // the first ValueError ends the launch
  }
  // Every MiniCPM-SALA pdcheck lays out has lightning layers, so it is hybrid.
  if (a.enable_hierarchical_cache) {
    out.push_back(minicpm_finding(side, "MiniCPM-SALA is launched with --enable-hierarchical-cache",
                                  MessageId::minicpm_hierarchical_cache));
    return;
  }
  const sglang::EnvBoolReading force_dense = sglang::read_env_bool(a.env, "SGLANG_MINICPM_FORCE_DENSE", false);
  if (force_dense.value || !side.model.minicpm_sparse_attention ||
      a.disaggregation_mode == sglang::DisaggregationMode::null) {
    return;
  }
  // uses_sparse_backend: no backend set (is_attention_backend_not_set), or a
  // sparse one named for any phase.
  bool any_set = false;
  bool sparse = false;
  for (const std::optional<std::string>* backend :
       {&a.attention_backend, &a.prefill_attention_backend, &a.decode_attention_backend}) {
    if (*backend) {
      any_set = true;
      sparse = sparse || **backend == "minicpm_flashattn" || **backend == "minicpm_flashinfer";
    }
  }
  if (any_set && !sparse) {
    return;
  }
  Finding f = minicpm_finding(side,
                              fmt::format("MiniCPM-SALA with sparse attention (sparse_config, minicpm4 layers) is "
                                          "launched for PD with {}{}",
                                          any_set ? "a sparse attention backend" : "no attention backend set",
                                          // An operator who meant to force dense needs to know why it did not take.
                                          force_dense.unparsed
                                              ? fmt::format("; SGLang does not read {}={:?} as a boolean, so it "
                                                            "warns and keeps False",
                                                            force_dense.unparsed->name, force_dense.unparsed->value)
                                              : std::string()),
                              MessageId::minicpm_sparse_pd);
  out.push_back(std::move(f));
}

} // namespace pdcheck::check
