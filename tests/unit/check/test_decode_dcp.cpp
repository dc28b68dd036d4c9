// Decode context parallelism between PD peers, as SGLang PR #32837 left it
// (disaggregation/common/conn.py @ 1024c1dbcc1211bd0d6f0fa19f008547db9fd7a3):
// the decode's two checks in try_ensure_parallel_info, the prefill's
// requires_dcp_relayout, and the Mamba state that DCP leaves alone. SGLang's
// texts are rendered from the catalog with hand-computed values.
#include "model/layout.hpp"
#include "sglang/side_layout.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using test::with_rule;

namespace {

check::CheckResult check_pair(const std::string& prefill_args, const std::string& decode_args, const std::string& model,
                              const std::string& release = "0.5.20")
{
  return test::check_pair(test::side(sglang::Role::prefill, prefill_args, release, model),
                          test::side(sglang::Role::decode, decode_args, release, model));
}

const std::string k_qwen = "qwen3-next-80b-a3b"; // GDN + gated full attention: an MHA/GQA pool
const std::string k_kimi = "kimi-linear-48b-a3b"; // KDA + MLA: a hybrid-MLA pool

} // namespace

TEST_CASE("decode DCP on a non-MLA hybrid: the decode refuses on its first request for the prefill",
          "[check][dcp]")
{
  const auto r = check_pair("--tp 2", "--tp 2 --dcp-size 2", k_qwen);
  const auto found = with_rule(r, "bootstrap-dcp-kv-pool");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->severity == Severity::error);
  CHECK(found[0]->side == "decode");
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::dcp_kv_pool, {}));
  CHECK(found[0]->where == "decode: CommonKVManager.try_ensure_parallel_info (disaggregation/common/conn.py)");
  CHECK(found[0]->message == "decode --dcp-size 2 on Qwen3NextForCausalLM, whose full-attention KV pool is not MLA");
  // The decode raised before it registered: the prefill never sees a DCP size,
  // and no transfer is planned.
  CHECK(with_rule(r, "dcp-topology").empty());
  CHECK(r.pairs.empty());
}

TEST_CASE("decode DCP on Kimi-Linear (hybrid MLA) from a prefill without DCP is supported", "[check][dcp]")
{
  const auto r = check_pair("--tp 4", "--tp 4 --dcp-size 4", k_kimi);
  CHECK(with_rule(r, "bootstrap-dcp-kv-pool").empty());
  CHECK(with_rule(r, "bootstrap-dcp-prefill-cp").empty());
  CHECK(with_rule(r, "dcp-topology").empty());
  // Equal attention TP 4: each decode rank is written by one prefill rank.
  CHECK(r.pairs.size() == 4);
  CHECK(r.simulated_decode_ranks == 4);
}

TEST_CASE("decode DCP with a prefill running attention CP: the decode refuses with the prefill's CP size",
          "[check][dcp]")
{
  const auto r = check_pair("--tp 4 --attn-cp-size 2", "--tp 2 --dcp-size 2", k_kimi);
  const auto found = with_rule(r, "bootstrap-dcp-prefill-cp");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "decode");
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::dcp_prefill_cp, {{"prefill_attn_cp_size", 2}}));
  CHECK(found[0]->message == "decode --dcp-size 2 with prefill attention CP size 2");
  // On a non-MLA model the pool check comes first, and only it is reported.
  const auto qwen = check_pair("--tp 4 --attn-cp-size 2", "--tp 2 --dcp-size 2", k_qwen);
  CHECK(with_rule(qwen, "bootstrap-dcp-kv-pool").size() == 1);
  CHECK(with_rule(qwen, "bootstrap-dcp-prefill-cp").empty());
}

TEST_CASE("DCP topology: the prefill raises in requires_dcp_relayout for sizes it cannot relay", "[check][dcp]")
{
  // Prefill DCP 2 -> decode DCP 4 on Kimi-Linear: neither equal nor 1 -> N.
  const auto r = check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 4", k_kimi);
  const auto found = with_rule(r, "dcp-topology");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "prefill");
  CHECK(*found[0]->runtime_error ==
        render_delivered(MessageId::dcp_topology_unsupported, {{"prefill_dcp_size", 2}, {"decode_dcp_size", 4}}));
  CHECK(found[0]->where == "prefill: CommonKVManager.requires_dcp_relayout, from the bootstrap thread (which it ends)");
  // NIXL calls it when it adds the decode as a remote peer.
  const auto nixl_result = check_pair("--tp 4 --dcp-size 2 --disaggregation-transfer-backend nixl",
                                      "--tp 4 --dcp-size 1 --disaggregation-transfer-backend nixl", k_kimi);
  const auto nixl = with_rule(nixl_result, "dcp-topology");
  REQUIRE(nixl.size() == 1);
  CHECK(*nixl[0]->runtime_error ==
        render_delivered(MessageId::dcp_topology_unsupported, {{"prefill_dcp_size", 2}, {"decode_dcp_size", 1}}));
  CHECK(nixl[0]->where == "prefill: CommonKVManager.requires_dcp_relayout, from NixlKVManager._add_remote_peer");
  // Equal sizes need no relayout.
  CHECK(with_rule(check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi), "dcp-topology").empty());
  // The prefill's RuntimeError ends its bootstrap thread: no registration is
  // taken, so no transfer is planned.
  CHECK(r.pairs.empty());
  // A decode that refused first never registers: no prefill text for it.
  const auto refused = check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 4", k_qwen);
  CHECK(with_rule(refused, "bootstrap-dcp-kv-pool").size() == 1);
  CHECK(with_rule(refused, "dcp-topology").empty());
}

TEST_CASE("DCP topology with a decode from before PR #32837: the prefill reads DCP size 1", "[check][dcp]")
{
  // A 0.5.16 decode registers no DCP frames; the 0.5.20 prefill with DCP 2
  // compares 2 with the default 1.
  check::CheckInput in;
  in.prefill = test::side(sglang::Role::prefill, "--tp 4 --dcp-size 2", "0.5.20", k_kimi);
  in.decode = test::side(sglang::Role::decode, "--tp 4 --dcp-size 2", "0.5.16", k_kimi);
  const auto r = check::run_check(in);
  const auto found = with_rule(r, "dcp-topology");
  REQUIRE(found.size() == 1);
  CHECK(*found[0]->runtime_error ==
        render_delivered(MessageId::dcp_topology_unsupported, {{"prefill_dcp_size", 2}, {"decode_dcp_size", 1}}));
  CHECK(found[0]->message == "prefill --dcp-size 2 cannot be relaid out to decode --dcp-size 2 (decode SGLang 0.5.16 "
                             "sends no DCP size: the prefill reads 1)");
}

TEST_CASE("DCP with Mori from PR #32837 on: the prefill is only warned, the decode's refusal is unconfirmed",
          "[check][dcp]")
{
  const auto r = check_pair("--tp 2 --dcp-size 2 --disaggregation-transfer-backend mori",
                            "--tp 2 --dcp-size 2 --disaggregation-transfer-backend mori", k_kimi);
  const auto found = with_rule(r, "startup-dcp-transfer");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "decode");
  CHECK(found[0]->evidence.at("confidence") == "unconfirmed");
}

TEST_CASE("DCP before PR #32837: no decode check at bootstrap, and the old topology finding has no SGLang text",
          "[check][dcp]")
{
  // 0.5.16 (2026-07-25) predates the PR (opened 2026-07-30).
  const auto r = check_pair("--tp 2", "--tp 2 --dcp-size 2", k_qwen, "0.5.16");
  CHECK(with_rule(r, "bootstrap-dcp-kv-pool").empty());
  const auto old_result = check_pair("--tp 2 --dcp-size 2", "--tp 2", k_qwen, "0.5.16");
  const auto old = with_rule(old_result, "dcp-topology");
  REQUIRE(old.size() == 1);
  CHECK(old[0]->side == "decode");
  CHECK_FALSE(old[0]->runtime_error.has_value());
  // 0.5.17 (2026-08-08) is the first release row after it.
  CHECK(with_rule(check_pair("--tp 2", "--tp 2 --dcp-size 2", k_qwen, "0.5.17"), "bootstrap-dcp-kv-pool").size() == 1);
}

TEST_CASE("DCP leaves the Mamba state alone: item lengths and dims follow attention TP only", "[check][dcp][layout]")
{
  // Kimi-Linear at TP 4: DCP relays full-attention KV tokens to rank-owned slots;
  // the KDA state registered per rank is the same with and without it.
  const auto decode = [](const std::string& args) {
    return model::compute_layout(sglang::layout_input(test::side(sglang::Role::decode, args, "0.5.20", k_kimi)));
  };
  const auto plain = decode("--tp 4");
  const auto dcp = decode("--tp 4 --dcp-size 4");
  REQUIRE(plain.ranks.size() == 4);
  REQUIRE(dcp.ranks.size() == 4);
  CHECK(dcp.attn_tp_size == 4);
  for (std::size_t i = 0; i < plain.ranks.size(); ++i) {
    CHECK(dcp.ranks[i].state_item_lens.get() == plain.ranks[i].state_item_lens.get());
    CHECK(dcp.ranks[i].state_dim_per_tensor.get() == plain.ranks[i].state_dim_per_tensor.get());
  }
}
