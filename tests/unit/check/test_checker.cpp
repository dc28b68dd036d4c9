// The checker end to end on sides built in memory: SGLang's exact runtime texts
// for the seed failures (rendered from the catalog with hand-computed values),
// and the Simulation's verdict on plans that are known to be right or wrong.
#include "check/checker.hpp"
#include "io/side_file.hpp"

#include "../../support/catalog_text.hpp"
#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace pdcheck;

using test::check_pair;
using test::repeated;
using test::side;
using test::with_rule;

TEST_CASE("check::run_check: unified memory on the decode only reproduces the Mooncake seed message", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.19"),
                            side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.19"));
  const auto found = with_rule(r, "mooncake-layout-no-dims");
  REQUIRE(found.size() == 1);
  // Qwen3-Next at TP 1: 36 conv entries of 49152 bytes, then 36 temporal entries
  // of 2097152; the unified decode registers one envelope of 36 x (49152 + 2097152).
  CHECK(*found[0]->runtime_error ==
        render_delivered(MessageId::mooncake_layout_no_dims,
                         {{"src_item_lens", repeated(49152, 36, 2097152, 36)},
                          {"dst_item_lens", std::vector<std::uint64_t>{36 * (49152 + 2097152)}}}));
  CHECK(found[0]->kind == FindingKind::transfer);
  CHECK(*found[0]->prefill_rank == 0);
  CHECK(*found[0]->decode_rank == 0);
  CHECK_FALSE(r.passes(Severity::error));
}

TEST_CASE("check::run_check: Mori advice reproduces the single-state-index seed message", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --disaggregation-transfer-backend mori", "0.5.20"),
                            side(sglang::Role::decode, "--tp 2 --disaggregation-transfer-backend mori", "0.5.20"));
  const auto advice = with_rule(r, "scheduler-state-indices");
  REQUIRE(advice.size() == 1);
  CHECK(advice[0]->message ==
        "mori with non-single state indices: batched (2 indices): " +
          render_delivered(MessageId::mori_single_state_index, {{"src", 1}, {"dst", 2}}) +
          "; empty (0 indices): component skipped silently, the state never arrives");
  // The same outcomes as evidence, by state-index count.
  CHECK(advice[0]->evidence["state_indices"] == nlohmann::ordered_json({{"2", "refused"}, {"0", "skipped"}}));
  CHECK(r.passes(Severity::error));
}

TEST_CASE("check::run_check: observed TransferInfo with two indices fails Mori verbatim", "[check]")
{
  check::CheckInput in;
  in.prefill = side(sglang::Role::prefill, "--tp 2 --disaggregation-transfer-backend mori", "0.5.20");
  in.decode = side(sglang::Role::decode, "--tp 2 --disaggregation-transfer-backend mori", "0.5.20");
  in.transfer_infos.push_back({"capture.json", {2}, false});
  const auto r = check::run_check(in);
  const auto found = with_rule(r, "mori-single-state-index");
  REQUIRE(found.size() == 2);
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::mori_single_state_index, {{"src", 1}, {"dst", 2}}));
  in.transfer_infos = {{"capture.json", {0}, false}};
  CHECK(with_rule(check::run_check(in), "mori-empty-index-skipped").size() == 2);
}

TEST_CASE("check::run_check: heterogeneous TP on v0.5.20 simulates clean", "[check]")
{
  for (auto [p, d] : {std::pair{1, 2}, {2, 4}, {4, 2}, {8, 1}, {2, 8}}) {
    DYNAMIC_SECTION("prefill tp " << p << " decode tp " << d)
    {
      const auto r = check_pair(side(sglang::Role::prefill, "--tp " + std::to_string(p), "0.5.20"),
                                side(sglang::Role::decode, "--tp " + std::to_string(d), "0.5.20"));
      CHECK(r.passes(Severity::error));
      CHECK(r.simulated_decode_ranks == d);
      CHECK(r.simulated_bytes == 77266944);
    }
  }
}

TEST_CASE("check::run_check: old single-block GDN conv slicing is silent corruption", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.15"), side(sglang::Role::decode, "--tp 2", "0.5.15"));
  const auto wrong = with_rule(r, "silent-wrong-bytes");
  REQUIRE(wrong.size() == 2);
  // Each decode rank gets 3072 conv channels (x 6 bytes x 36 layers) in the wrong place: the key
  // block lands where query channels belong and so on.
  CHECK(wrong[0]->evidence["bytes"] == 36 * 4096 * 6 - 36 * 1024 * 6);
  CHECK(with_rule(r, "silent-unwritten").empty());
}

TEST_CASE("check::run_check: SSM dtype mismatch: slot-size error from v0.5.19, silent overflow before", "[check]")
{
  const auto strict = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.19", "nemotron-nano-9b-v2"),
                                 side(sglang::Role::decode, "--tp 2 --mamba-ssm-dtype bfloat16", "0.5.19",
                                      "nemotron-nano-9b-v2"));
  const auto size = with_rule(strict, "mooncake-slot-size");
  REQUIRE(size.size() == 2);
  // NemotronH Nano 9B v2 temporal at TP 2: 2621440 bytes in float32, half in bfloat16.
  CHECK(*size[0]->runtime_error ==
        render_delivered(MessageId::mooncake_slot_size, {{"src", 2621440}, {"dst", 1310720}}));

  const auto silent = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.15", "nemotron-nano-9b-v2"),
                                 side(sglang::Role::decode, "--tp 2", "0.5.15", "nemotron-nano-9b-v2",
                                      {{"SGLANG_MAMBA_SSM_DTYPE", "bfloat16"}}));
  // The whole-item copy addresses the decode slot with the prefill's (fp32,
  // twice as long) item length: it lands entirely in other slots.
  CHECK_FALSE(with_rule(silent, "silent-outside-slot").empty());
  CHECK_FALSE(with_rule(silent, "silent-unwritten").empty());
  CHECK(with_rule(silent, "silent-wrong-bytes").empty());
}

TEST_CASE("check::run_check: bootstrap messages are SGLang's", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --page-size 64 --pp-size 4 --kv-cache-dtype fp8_e4m3", "0.5.20"),
                            side(sglang::Role::decode, "--tp 2 --page-size 16 --pp-size 2", "0.5.20"));
  REQUIRE(with_rule(r, "bootstrap-page-size").size() == 1);
  CHECK(*with_rule(r, "bootstrap-page-size")[0]->runtime_error ==
        render_delivered(MessageId::page_size_mismatch, {{"prefill_page_size", 64}, {"decode_page_size", 16}}));
  REQUIRE(with_rule(r, "bootstrap-kv-cache-dtype").size() == 1);
  CHECK(*with_rule(r, "bootstrap-kv-cache-dtype")[0]->runtime_error ==
        render_delivered(MessageId::kv_cache_dtype_mismatch,
                         {{"prefill_kv_cache_dtype", "fp8_e4m3"}, {"decode_kv_cache_dtype", "auto"}}));
  REQUIRE(with_rule(r, "bootstrap-pp-size").size() == 1);
  CHECK(*with_rule(r, "bootstrap-pp-size")[0]->runtime_error ==
        render_delivered(MessageId::decode_pp_size, {{"decode_pp_size", 2}, {"prefill_pp_size", 4}}));
}

TEST_CASE("check::run_check: different models and backends are findings", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "0.5.20"),
                            side(sglang::Role::decode, "--tp 2 --disaggregation-transfer-backend nixl", "0.5.20",
                                 "qwen3.5-35b-a3b"));
  CHECK(with_rule(r, "model-mismatch").size() == 1);
  CHECK(with_rule(r, "backend-mismatch")[0]->message == "prefill uses mooncake but decode uses nixl");
}

TEST_CASE("check::run_check: PP prefill into a pp 1 decode pairs entries by layer id", "[check]")
{
  const auto ok = check_pair(side(sglang::Role::prefill, "--tp 2 --pp-size 2", "0.5.20"),
                             side(sglang::Role::decode, "--tp 2", "0.5.20"));
  CHECK(ok.passes(Severity::error));
  CHECK(ok.pairs.size() == 4);
  // Without layer ids (v0.5.16) each stage's entries pair by position with the
  // decode's first entries: stage 1 overwrites stage 0's layers, nothing raises.
  const auto old = check_pair(side(sglang::Role::prefill, "--tp 2 --pp-size 2", "0.5.16"),
                              side(sglang::Role::decode, "--tp 2", "0.5.16"));
  CHECK(with_rule(old, "layer-pairing").empty());
  CHECK_FALSE(with_rule(old, "silent-wrong-bytes").empty());
  CHECK_FALSE(with_rule(old, "silent-unwritten").empty());
}
