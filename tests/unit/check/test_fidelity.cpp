// Fidelity, round 2: cases hand-computed from SGLang's source, release by
// release (pre-dims Mooncake, flat-era pairing, Mori's single-state_type checks,
// bootstrap refusals that end a pair, releases pdcheck has no row for). SGLang's
// texts are rendered from the catalog with the hand-computed values.
#include "check/checker.hpp"
#include "io/side_file.hpp"
#include "plan/plan.hpp"
#include "core/profile.hpp"
#include "sglang/side_layout.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace pdcheck;

using test::check_pair;
using test::side;
using test::with_rule;

namespace {

std::size_t errors(const check::CheckResult& r)
{
  return static_cast<std::size_t>(std::count_if(r.findings.begin(), r.findings.end(),
                                                [](const Finding& f) { return f.severity == Severity::error; }));
}

plan::PairInput pair_input(const char* profile, TransferBackend backend, int n_src, int n_dst)
{
  plan::PairInput in;
  in.backend = backend;
  in.prefill_profile = *find_profile(profile);
  for (int i = 0; i < n_src; ++i) {
    in.src.item_lens.push_back(1000);
  }
  in.src.num_entries = n_src;
  in.dst.num_entries = n_dst;
  return in;
}

} // namespace

TEST_CASE("pre-dims Mooncake: equal TP moves every entry whole (no IndexError from the missing item lens)",
          "[check][fidelity]")
{
  const auto r =
    check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.4"), side(sglang::Role::decode, "--tp 2", "0.5.4"), true);
  CHECK(errors(r) == 0);
  REQUIRE(r.pairs.size() == 2);
  // Qwen3-Next: 36 linear-attention layers, conv + temporal: 72 pointers per rank.
  CHECK(r.pairs[0].plan.copies.size() == 72);
  CHECK(r.simulated_decode_ranks == 2);
}

TEST_CASE("pre-dims Mooncake: unequal attention TP on a non-MLA model kills the transfer thread", "[check][fidelity]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --disaggregation-bootstrap-port 9100", "0.5.6"),
                            side(sglang::Role::decode, "--tp 1", "0.5.6"));
  const auto found = with_rule(r, "mooncake-unequal-tp-hybrid");
  REQUIRE(found.size() == 2);
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::mooncake_unequal_tp_hybrid, {}));
  CHECK(found[0]->evidence["surfaced_as"] ==
        render_delivered(MessageId::transfer_thread_failed,
                         {{"error", render_message(MessageId::mooncake_unequal_tp_hybrid, {})}, {"bootstrap_port", 9100}}));
  CHECK(found[0]->where == "prefill: mooncake backend, transfer_worker");
  CHECK(with_rule(r, "silent-wrong-bytes").empty()); // nothing was sent to simulate
}

TEST_CASE("pre-dims Mooncake: Kimi-Linear (MLA full attention) at unequal TP dies the same way", "[check][fidelity]")
{
  // transfer_worker tests `not self.is_mla_backend`, and is_mla_backend is an
  // isinstance test for MLATokenToKVPool: Kimi-Linear's pool is a
  // HybridLinearKVPool around one, so the "non-MLA" text is raised for it too.
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.6", "kimi-linear-48b-a3b"),
                            side(sglang::Role::decode, "--tp 1", "0.5.6", "kimi-linear-48b-a3b"));
  const auto found = with_rule(r, "mooncake-unequal-tp-hybrid");
  REQUIRE(found.size() == 2); // both prefill ranks send to the one decode rank
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::mooncake_unequal_tp_hybrid, {}));
}

TEST_CASE("pre-dims and flat Mooncake walk the decode's pointers", "[plan][fidelity]")
{
  SECTION("more decode entries than the prefill has: IndexError")
  {
    const plan::PairPlan p = plan::build_pair_plan(pair_input("0.5.4", TransferBackend::mooncake, 36, 72));
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::list_index, {}));
    CHECK(p.error->function == "_send_mamba_state");
  }
  SECTION("fewer decode entries: a partial copy, silently")
  {
    const plan::PairPlan p = plan::build_pair_plan(pair_input("0.5.10", TransferBackend::mooncake, 72, 36));
    CHECK_FALSE(p.error);
    CHECK(p.copies.size() == 36);
  }
  SECTION("components era: the prefill's entries drive the loop")
  {
    const plan::PairPlan p = plan::build_pair_plan(pair_input("0.5.15", TransferBackend::mooncake, 72, 36));
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::list_index, {}));
  }
  SECTION("whole items land at dst_ptr + source item length * dst slot")
  {
    plan::PairInput in = pair_input("0.5.10", TransferBackend::mooncake, 2, 2);
    in.dst.item_lens = {500, 500};
    in.dst_slot = 5;
    const plan::PairPlan p = plan::build_pair_plan(in);
    REQUIRE(p.copies.size() == 2);
    CHECK(p.copies[0].dst_offset == 5000);
    CHECK(p.copies[0].length == 1000);
  }
}

TEST_CASE("flat Mooncake with a PP prefill and a pp-1 decode: IndexError in the transfer thread", "[check][fidelity]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 1 --pp-size 2", "0.5.10"),
                            side(sglang::Role::decode, "--tp 1", "0.5.10"));
  const auto found = with_rule(r, "layer-pairing");
  REQUIRE_FALSE(found.empty());
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::list_index, {}));
}

TEST_CASE("Mori with one state_type (v0.5.11): descriptor checks before the send", "[plan][fidelity]")
{
  SECTION("descriptor counts differ")
  {
    const plan::PairPlan p = plan::build_pair_plan(pair_input("0.5.11", TransferBackend::mori, 36, 72));
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::mori_descriptor_count,
                                                  {{"local", 36}, {"remote", 72}, {"state_type", "mamba"}}));
    CHECK(p.error->rule == RuleId::mori_descriptor_count);
  }
  SECTION("the decode registered no state")
  {
    plan::PairInput in = pair_input("0.5.11", TransferBackend::mori, 36, 0);
    in.prefill_attn_tp_size = 2;
    in.decode_attn_tp_size = 1;
    const plan::PairPlan p = plan::build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->rendered() ==
          render_delivered(MessageId::mori_no_state_descriptors,
                           {{"state_type", "mamba"}, {"prefill_tp_size", 2}, {"decode_tp_size", 1}}));
  }
  SECTION("from the per-component refactor, the component count is checked instead")
  {
    plan::PairInput in = pair_input("0.5.13", TransferBackend::mori, 36, 0);
    in.dst.num_components = 0;
    const plan::PairPlan p = plan::build_pair_plan(in);
    REQUIRE(p.error);
    CHECK(p.error->rendered() == render_delivered(MessageId::mori_component_count, {{"local", 1}, {"remote", 0}}));
  }
}

TEST_CASE("a decode refusal at bootstrap ends the pair: no transfer findings after it", "[check][fidelity]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --page-size 64", "0.5.20"),
                            side(sglang::Role::decode, "--tp 1 --page-size 16", "0.5.20"));
  CHECK(with_rule(r, "bootstrap-page-size").size() == 1);
  CHECK(r.pairs.empty());
  CHECK(r.simulated_decode_ranks == 0);
  for (const Finding& f : r.findings) {
    CHECK(f.kind != FindingKind::transfer);
    CHECK(f.kind != FindingKind::silent_corruption);
  }
}

TEST_CASE("the unequal-TP performance warning is logged, not raised", "[check][fidelity]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.20"), side(sglang::Role::decode, "--tp 1", "0.5.20"));
  const auto found = with_rule(r, "bootstrap-tp-performance");
  REQUIRE(found.size() == 1);
  CHECK_FALSE(found[0]->runtime_error);
  CHECK(*found[0]->logged_warning == render_delivered(MessageId::tp_performance, {}));
}

TEST_CASE("resolve_profile: releases pdcheck has no row for", "[sglang][fidelity]")
{
  SECTION("a newer release: the newest known, assumed")
  {
    const auto m = resolve_profile("0.5.24");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.23");
    CHECK(m.assumption ==
          "SGLang 0.5.24 is newer than every release pdcheck knows; checked as 0.5.23, the nearest earlier release "
          "(v0.5.20 profile)");
    CHECK(mapping_confidence(m) == "low");
  }
  SECTION("a release candidate: the release it precedes")
  {
    const auto m = resolve_profile("0.5.19rc1");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.19");
    CHECK(m.assumption == "SGLang 0.5.19rc1 is a pre-release pdcheck has no row for; checked as 0.5.19 (components "
                          "profile)");
  }
  SECTION("a nightly")
  {
    const auto m = resolve_profile("0.5.22.dev20261009");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.22");
    CHECK_FALSE(m.assumption.empty());
  }
  SECTION("an image tag of a known release: read as that release, nothing assumed")
  {
    const auto m = resolve_profile("lmsysorg/sglang:v0.5.21-cu129");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.21");
    CHECK(m.assumption.empty());
    CHECK(m.read_as == "0.5.21");
    CHECK(mapping_confidence(m) == "low"); // the row's own confidence
  }
  SECTION("an unknown post release between known rows: the nearest earlier")
  {
    const auto m = resolve_profile("0.5.9.post2");
    REQUIRE(m.profile != nullptr);
    CHECK(m.profile->name == "0.5.9");
    CHECK(m.assumption == "SGLang 0.5.9.post2 is not a release pdcheck knows; checked as 0.5.9, the nearest earlier "
                          "release (flat profile)");
  }
  SECTION("older than the table, or not a version: refused")
  {
    CHECK(resolve_profile("0.4.0").profile == nullptr);
    CHECK(resolve_profile("latest").profile == nullptr);
  }
}

TEST_CASE("an assumed release is a warning finding on that side", "[check][fidelity]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.24"), side(sglang::Role::decode, "--tp 2", "0.5.20"));
  const auto found = with_rule(r, "profile-assumed");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->severity == Severity::warning);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->evidence["confidence"] == "low");
}

TEST_CASE("launch arguments SGLang's argparse rejects stop the side at launch", "[check][fidelity]")
{
  SECTION("an ambiguous abbreviation")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp 2", "0.5.20"),
                              side(sglang::Role::decode, "--tp 2", "0.5.20"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    // argparse lists the flags --pp abbreviates, in the parser's order.
    CHECK(*found[0]->runtime_error ==
          render_delivered(MessageId::argparse_ambiguous,
                           {{"option", "--pp"},
                            {"candidates", "--pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"}}));
    CHECK(found[0]->side == "prefill");
    CHECK(r.pairs.empty());
  }
  SECTION("an unknown flag, with a did-you-mean")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.20"),
                              side(sglang::Role::decode, "--tp 2 --mamba-ssm-dtpe bfloat16", "0.5.20"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error ==
          render_delivered(MessageId::argparse_unrecognized, {{"words", "--mamba-ssm-dtpe bfloat16"}}));
    CHECK(found[0]->message.find("did you mean --mamba-ssm-dtype?") != std::string::npos);
  }
  SECTION("the seed failure spelt with an abbreviation is still found")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.19"),
                              side(sglang::Role::decode, "--tp 1 --enable-unified-mem", "0.5.19"));
    CHECK(with_rule(r, "mooncake-layout-no-dims").size() == 1);
  }
  SECTION("a flag the side's release does not have yet")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.17"),
                              side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.17"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error ==
          render_delivered(MessageId::argparse_unrecognized, {{"words", "--enable-unified-memory"}}));
  }
}

TEST_CASE("an SGLANG_* variable SGLang does not read is a warning with a did-you-mean", "[check][fidelity]")
{
  sglang::Side d = side(sglang::Role::decode, "--tp 2", "0.5.20");
  d.args.env["SGLANG_MAMBA_SSM_DTPYE"] = "bfloat16";
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.20"), d);
  const auto found = with_rule(r, "unknown-env");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->message == "SGLang reads no environment variable SGLANG_MAMBA_SSM_DTPYE; did you mean "
                             "SGLANG_MAMBA_SSM_DTYPE?");
  CHECK(found[0]->severity == Severity::warning);
}

TEST_CASE("state dtypes per release: the environment counts only from PR #18532", "[sglang][fidelity]")
{
  sglang::Side old_side = side(sglang::Role::decode, "--tp 2", "0.5.6");
  old_side.args.env["SGLANG_MAMBA_SSM_DTYPE"] = "bfloat16";
  old_side.args.env["SGLANG_MAMBA_CONV_DTYPE"] = "float32";
  const model::LayoutInput old_in = sglang::layout_input(old_side);
  CHECK(old_in.ssm_dtype == Dtype::float32); // overwritten from --mamba-ssm-dtype's default
  CHECK(old_in.conv_dtype == Dtype::bfloat16);

  sglang::Side new_side = old_side;
  new_side.profile = *find_profile("0.5.20");
  const model::LayoutInput new_in = sglang::layout_input(new_side);
  CHECK(new_in.ssm_dtype == Dtype::bfloat16);
  CHECK(new_in.conv_dtype == Dtype::float32);

  sglang::Side flag_side = side(sglang::Role::decode, "--tp 2 --mamba-ssm-dtype bfloat16", "0.5.6");
  CHECK(sglang::layout_input(flag_side).ssm_dtype == Dtype::bfloat16);

  // environ.py copies the legacy SGL_* spelling over SGLANG_* at import, so it wins.
  sglang::Side legacy_side = new_side;
  legacy_side.args.env["SGL_MAMBA_SSM_DTYPE"] = "float16";
  legacy_side.args.env["SGL_MAMBA_CONV_DTYPE"] = "bfloat16";
  const model::LayoutInput legacy_in = sglang::layout_input(legacy_side);
  CHECK(legacy_in.ssm_dtype == Dtype::float16);
  CHECK(legacy_in.conv_dtype == Dtype::bfloat16);
}

TEST_CASE("a decode whose release moves no state: SGLang starts both, and the prefill meets an empty registration",
          "[check][fidelity]")
{
  SECTION("Mori v0.5.11 prefill, v0.5.9 decode (no Mori state yet)")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --disaggregation-transfer-backend mori", "0.5.11"),
                              side(sglang::Role::decode, "--tp 2 --disaggregation-transfer-backend mori", "0.5.9"));
    const auto loss = with_rule(r, "startup-backend-state");
    REQUIRE(loss.size() == 1);
    CHECK(loss[0]->kind == FindingKind::silent_corruption);
    const auto found = with_rule(r, "mori-descriptor-count");
    REQUIRE(found.size() == 2);
    CHECK(*found[0]->runtime_error ==
          render_delivered(MessageId::mori_no_state_descriptors,
                           {{"state_type", "mamba"}, {"prefill_tp_size", 2}, {"decode_tp_size", 2}}));
  }
  SECTION("Mooncake pre-dims prefill, a decode before any state transfer: nothing is written")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.4"), side(sglang::Role::decode, "--tp 2", "0.5.2"));
    CHECK_FALSE(with_rule(r, "silent-unwritten").empty());
  }
}
