// The checker end to end on sides built in memory: SGLang's exact runtime texts
// for the seed failures, and the Simulation's verdict on plans that are known to
// be right or wrong.
#include "check/checker.hpp"
#include "io/side_file.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace pdcheck;

using test::check_pair;
using test::side;
using test::with_rule;

TEST_CASE("check::run_check: unified memory on the decode only reproduces the Mooncake seed message", "[check]")
{
  const auto r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.19"),
                            side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.19"));
  const auto found = with_rule(r, "mooncake-layout-no-dims");
  REQUIRE(found.size() == 1);
  std::string src = "[";
  for (int i = 0; i < 36; ++i) {
    src += "49152, ";
  }
  for (int i = 0; i < 36; ++i) {
    src += i == 35 ? "2097152]" : "2097152, ";
  }
  CHECK(*found[0]->runtime_error ==
        "RuntimeError: Mamba state layouts differ between prefill and decode (src item_lens=" + src +
          ", dst item_lens=[77266944]) and no per-tensor dim metadata is available to reslice. With "
          "--enable-unified-memory, prefill and decode must both enable it and use equal attention TP sizes.");
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
        "mori with non-single state indices: batched (2 indices): RuntimeError: PD state transfer failed: mamba "
        "requires single state index, got src=1, dst=2; empty (0 indices): component skipped silently, the state "
        "never arrives");
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
  CHECK(*found[0]->runtime_error ==
        "RuntimeError: PD state transfer failed: mamba requires single state index, got src=1, dst=2");
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
  CHECK(*size[0]->runtime_error == "RuntimeError: Prefill/Decode Mamba slot size mismatch (src=2621440, dst=1310720). "
                                   "Configure matching persistent state layouts on both peers.");

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
        "RuntimeError: Page size mismatch: prefill server has page_size=64, but decode server has page_size=16. Both "
        "servers must use the same --page-size value.");
  CHECK(*with_rule(r, "bootstrap-kv-cache-dtype")[0]->runtime_error ==
        "RuntimeError: KV cache dtype mismatch: prefill server has kv_cache_dtype=fp8_e4m3, but decode server has "
        "kv_cache_dtype=auto. Both servers must use the same --kv-cache-dtype value.");
  CHECK(*with_rule(r, "bootstrap-pp-size")[0]->runtime_error ==
        "AssertionError: ('Decode pp size (2) should be equal to prefill pp size (4) or 1',)");
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
