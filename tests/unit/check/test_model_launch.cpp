// What a side's SGLang does with its model before any transfer: the release
// that first serves each architecture (model/architectures.cpp's table), and
// MiniCPM's launch overrides (arg_groups/model_overrides/minicpm.py @
// c7a2775643e31d752d3c1947c91c59608d31ffcc). SGLang's texts are rendered from
// the catalog.
#include "core/version.hpp"
#include "model/architectures.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using test::with_rule;

namespace {

check::CheckResult check_pair(const std::string& prefill_args, const std::string& decode_args, const std::string& model,
                              const std::string& prefill_release = "0.5.20",
                              const std::string& decode_release = "0.5.20")
{
  return test::check_pair(test::side(sglang::Role::prefill, prefill_args, prefill_release, model),
                          test::side(sglang::Role::decode, decode_args, decode_release, model));
}

const std::string k_minicpm = "minicpm-sala"; // sparse_config and minicpm4 layers: sparse attention
const std::string k_kimi = "kimi-linear-48b-a3b";

} // namespace

TEST_CASE("model-release: a release older than the architecture's first one cannot load it", "[check][model]")
{
  // MiniCPM-SALA is served from 0.5.19 (PR #30360, in 0.5.19's new-model table):
  // a 0.5.18 decode refuses it, a 0.5.19 prefill does not.
  const auto r = check_pair("--tp 1 --attention-backend fa3", "--tp 1 --attention-backend fa3", k_minicpm, "0.5.19",
                            "0.5.18");
  const auto found = with_rule(r, "model-release");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "decode");
  CHECK(found[0]->severity == Severity::error);
  CHECK(found[0]->message == "SGLang 0.5.18 cannot load MiniCPMSALAForCausalLM: the architecture is served from 0.5.19 on");
  CHECK(found[0]->evidence.at("first_release") == "0.5.19");
  CHECK(found[0]->evidence.at("confidence") == "high");
  CHECK(found[0]->where == "decode startup: the model registry; PR #30360; in 0.5.19's new-model table");
}

TEST_CASE("model-release: where the first release is uncertain, a warning for the earlier candidate only",
          "[check][model]")
{
  // Kimi-Linear's PR #12469 merged 2025-10-31; 0.5.5 is the first release it
  // surely reached, and a 0.5.4.post release may carry it: confidence low, so
  // a 0.5.4 side gets a warning, not an error.
  const auto r = check_pair("--tp 4", "--tp 4", k_kimi, "0.5.4", "0.5.5");
  const auto found = with_rule(r, "model-release");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->severity == Severity::warning);
  CHECK(found[0]->evidence.at("confidence") == "low");
  // A profile name says nothing about the release order.
  CHECK(with_rule(check_pair("--tp 4", "--tp 4", k_kimi, "components", "components"), "model-release").empty());
}

TEST_CASE("model-release: every first release names a laid-out architecture and a release pdcheck can order",
          "[check][model]")
{
  for (const model::Architecture& row : model::architectures()) {
    const model::FirstRelease* first = model::find_first_release(row.architecture);
    if (first == nullptr) {
      continue;
    }
    INFO(row.architecture);
    CHECK(row.reader != model::ConfigReader::refused);
    CHECK(parse_version(first->release).has_value());
    CHECK((first->confidence == "high" || first->confidence == "medium" || first->confidence == "low"));
  }
}

TEST_CASE("startup-minicpm-overrides: sparse MiniCPM-SALA under PD with the default backend is refused at launch",
          "[check][model]")
{
  const auto r = check_pair("--tp 1", "--tp 1", k_minicpm);
  const auto found = with_rule(r, "startup-minicpm-overrides");
  REQUIRE(found.size() == 2); // both sides refuse
  for (const Finding* f : found) {
    CHECK(f->severity == Severity::error);
    CHECK(*f->runtime_error == render_delivered(MessageId::minicpm_sparse_pd, {}));
    CHECK(*f->runtime_error == "ValueError: MiniCPM sparse attention does not support PD disaggregation");
    CHECK(f->message == "MiniCPM-SALA with sparse attention (sparse_config, minicpm4 layers) is launched for PD with "
                        "no attention backend set");
    CHECK(f->evidence.at("confidence") == "unconfirmed");
  }
  CHECK(found[0]->where == "prefill startup: arg_groups/model_overrides/minicpm.py _minicpm_sala_overrides "
                           "(@ c7a27756; not confirmed for 0.5.20)");
  // A sparse backend named for one phase refuses too.
  const auto phase = check_pair("--tp 1 --decode-attention-backend minicpm_flashattn", "--tp 1 --attention-backend fa3",
                                k_minicpm);
  const auto one = with_rule(phase, "startup-minicpm-overrides");
  REQUIRE(one.size() == 1);
  CHECK(one[0]->side == "prefill");
  CHECK(one[0]->message == "MiniCPM-SALA with sparse attention (sparse_config, minicpm4 layers) is launched for PD "
                           "with a sparse attention backend");
}

TEST_CASE("startup-minicpm-overrides: a dense backend or SGLANG_MINICPM_FORCE_DENSE passes", "[check][model]")
{
  CHECK(with_rule(check_pair("--tp 1 --attention-backend fa3", "--tp 1 --attention-backend flashinfer", k_minicpm),
                  "startup-minicpm-overrides")
          .empty());
  const sglang::Side dense_prefill = test::side(sglang::Role::prefill, "--tp 1", "0.5.20", k_minicpm,
                                                {{"SGLANG_MINICPM_FORCE_DENSE", "1"}});
  const sglang::Side dense_decode = test::side(sglang::Role::decode, "--tp 1", "0.5.20", k_minicpm,
                                               {{"SGLANG_MINICPM_FORCE_DENSE", "1"}});
  CHECK(with_rule(test::check_pair(dense_prefill, dense_decode), "startup-minicpm-overrides").empty());
  // EnvBool reads "False" as false and "Yes" as true.
  const sglang::Side yes = test::side(sglang::Role::prefill, "--tp 1", "0.5.20", k_minicpm,
                                      {{"SGLANG_MINICPM_FORCE_DENSE", "Yes"}});
  const sglang::Side no = test::side(sglang::Role::decode, "--tp 1", "0.5.20", k_minicpm,
                                     {{"SGLANG_MINICPM_FORCE_DENSE", "False"}});
  const auto mixed_result = test::check_pair(yes, no);
  const auto mixed = with_rule(mixed_result, "startup-minicpm-overrides");
  REQUIRE(mixed.size() == 1);
  CHECK(mixed[0]->side == "decode");
  // "False" is read, as false: nothing to say about the variable.
  CHECK(mixed[0]->message.find("SGLANG_MINICPM_FORCE_DENSE") == std::string::npos);
}

TEST_CASE("startup-minicpm-overrides: a SGLANG_MINICPM_FORCE_DENSE SGLang cannot read is named in the refusal",
          "[check][model]")
{
  // "on" is not an EnvBool word: SGLang warns and keeps the default, False, so the
  // sparse model is still refused, and the message says why the variable did not take.
  const sglang::Side on = test::side(sglang::Role::prefill, "--tp 1", "0.5.20", k_minicpm,
                                     {{"SGLANG_MINICPM_FORCE_DENSE", "on"}});
  const sglang::Side decode = test::side(sglang::Role::decode, "--tp 1 --attention-backend fa3", "0.5.20", k_minicpm);
  const auto r = test::check_pair(on, decode);
  const auto found = with_rule(r, "startup-minicpm-overrides");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->message == "MiniCPM-SALA with sparse attention (sparse_config, minicpm4 layers) is launched for PD "
                             "with no attention backend set; SGLang does not read SGLANG_MINICPM_FORCE_DENSE=\"on\" as "
                             "a boolean, so it warns and keeps False");
  // The legacy spelling is SGLang's too (environ.py copies SGL_* over SGLANG_*),
  // and a value that would break the line is quoted with escapes.
  const sglang::Side legacy = test::side(sglang::Role::prefill, "--tp 1", "0.5.20", k_minicpm,
                                         {{"SGL_MINICPM_FORCE_DENSE", "on\n"}, {"SGLANG_MINICPM_FORCE_DENSE", "1"}});
  const auto r2 = test::check_pair(legacy, decode);
  const auto found2 = with_rule(r2, "startup-minicpm-overrides");
  REQUIRE(found2.size() == 1);
  CHECK(found2[0]->message == "MiniCPM-SALA with sparse attention (sparse_config, minicpm4 layers) is launched for PD "
                              "with no attention backend set; SGLang does not read SGL_MINICPM_FORCE_DENSE=\"on\\n\" as "
                              "a boolean, so it warns and keeps False");
}

TEST_CASE("startup-minicpm-overrides: DP attention and hierarchical cache are refused first", "[check][model]")
{
  const auto dp = check_pair("--tp 2 --dp 2 --enable-dp-attention --attention-backend fa3",
                             "--tp 2 --attention-backend fa3", k_minicpm);
  const auto found = with_rule(dp, "startup-minicpm-overrides");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->message == "MiniCPM is launched with --enable-dp-attention");
  CHECK(*found[0]->runtime_error == "ValueError: MiniCPM does not support DP attention");
  const auto hc = check_pair("--tp 1 --enable-hierarchical-cache", "--tp 1 --attention-backend fa3", k_minicpm);
  const auto cached = with_rule(hc, "startup-minicpm-overrides");
  REQUIRE(cached.size() == 1);
  CHECK(cached[0]->message == "MiniCPM-SALA is launched with --enable-hierarchical-cache");
  CHECK(*cached[0]->runtime_error == render_delivered(MessageId::minicpm_hierarchical_cache, {}));
}
