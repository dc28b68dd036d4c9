// Decode context parallelism between PD peers, as SGLang PR #32837 left it
// (disaggregation/common/conn.py @ 1024c1dbcc1211bd0d6f0fa19f008547db9fd7a3):
// the decode's two checks in try_ensure_parallel_info, the prefill's
// requires_dcp_relayout, and the Mamba state that DCP leaves alone. SGLang's
// texts are rendered from the catalog with hand-computed values.
#include "model/layout.hpp"
#include "sglang/side_layout.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

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
  const auto warned = with_rule(r, "startup-dcp-prefill");
  REQUIRE(warned.size() == 1);
  CHECK(warned[0]->side == "prefill");
}

TEST_CASE("A prefill with DCP starts with pd_disaggregation_hook's warning, from PR #32837 on", "[check][dcp]")
{
  // Equal DCP 2 with equal attention TP 4: ranks line up, so the warning is
  // all that SGLang says about the prefill's DCP.
  const auto r = check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi);
  const auto found = with_rule(r, "startup-dcp-prefill");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->severity == Severity::info);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->message == "the prefill runs --dcp-size 2: SGLang starts it with a warning");
  CHECK(*found[0]->logged_warning == render_delivered(MessageId::dcp_prefill_overhead, {}));
  CHECK(found[0]->where == "prefill startup: arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation "
                           "(@ 00e1106f; not confirmed for 0.5.20)");
  CHECK(found[0]->evidence.at("confidence") == "unconfirmed");
  CHECK(with_rule(r, "dcp-topology").empty());
  CHECK(with_rule(r, "dcp-ranks").empty());
  // Only a prefill is warned, and only with DCP.
  CHECK(with_rule(check_pair("--tp 4", "--tp 4 --dcp-size 2", k_kimi), "startup-dcp-prefill").empty());
  // Before the PR a prefill's DCP meets _check_dcp_compat, not the hook.
  CHECK(with_rule(check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi, "0.5.16"), "startup-dcp-prefill")
          .empty());
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

TEST_CASE("DCP ranks: equal DCP sizes across unequal attention TP pair ranks of different DCP ranks",
          "[check][dcp]")
{
  // dcp_rank = tp_rank % dcp_size on both sides. Prefill TP 4 / DCP 2, decode
  // TP 2 / DCP 2 (Kimi-Linear, attention TP = TP): decode rank 0 registers with
  // prefill ranks 0 and 1, decode rank 1 with 2 and 3 (target_tp_ranks, prefill
  // TP / decode TP = 2 each). DCP ranks: prefill 0,1,0,1; decode 0,1. Pairs
  // (P1, D0) = 1 vs 0 and (P2, D1) = 0 vs 1 differ: 2 of 4 registrations. The
  // first the prefill meets: prefill DCP rank 1, decode DCP rank 0.
  const auto r = check_pair("--tp 4 --dcp-size 2", "--tp 2 --dcp-size 2", k_kimi);
  const auto found = with_rule(r, "dcp-ranks");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->severity == Severity::error);
  CHECK(*found[0]->runtime_error ==
        render_delivered(MessageId::dcp_rank_mismatch, {{"prefill_dcp_rank", 1}, {"decode_dcp_rank", 0}}));
  CHECK(found[0]->message == "both sides run --dcp-size 2, but 2 of 4 registrations pair different DCP ranks (first: "
                             "decode TP rank 0, DCP rank 0, registers with prefill TP rank 1, DCP rank 1; prefill "
                             "attention TP 4, decode attention TP 2)");
  CHECK(found[0]->where == "prefill: CommonKVManager.requires_dcp_relayout, from the bootstrap thread (which it ends)");
  CHECK(found[0]->evidence.at("mismatched") ==
        nlohmann::ordered_json::parse(R"([{"prefill_tp_rank":1,"decode_tp_rank":0},
                                          {"prefill_tp_rank":2,"decode_tp_rank":1}])"));
  CHECK(with_rule(r, "dcp-topology").empty());
  // The prefill ranks whose bootstrap thread ended take no registration, and
  // every request needs all the ranks it maps to: nothing is transferred.
  CHECK(r.pairs.empty());

  // The other way round: prefill TP 2, decode TP 4, DCP 2 each. Decode ranks
  // 0, 1 read prefill rank 0; 2, 3 read prefill rank 1. (P0, D1) = 0 vs 1 and
  // (P1, D2) = 1 vs 0; the first, in decode rank order, is decode rank 1.
  const auto wider = check_pair("--tp 2 --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi);
  const auto w = with_rule(wider, "dcp-ranks");
  REQUIRE(w.size() == 1);
  CHECK(*w[0]->runtime_error ==
        render_delivered(MessageId::dcp_rank_mismatch, {{"prefill_dcp_rank", 0}, {"decode_dcp_rank", 1}}));
  CHECK(w[0]->evidence.at("registrations") == 4);
  CHECK(w[0]->evidence.at("mismatched_registrations") == 2);

  // With DP attention every prefill DP group counts: prefill TP 8 in 4 DP
  // groups of attention TP 2 (DP ranks 0-3 hold TP ranks 0-1, 2-3, 4-5, 6-7),
  // decode TP 4 / attention TP 4, DCP 2 each. Decode rank r reads attention
  // rank r / 2 of any group: decode 1 (DCP 1) reads TP ranks 0, 2, 4, 6 (DCP
  // 0), decode 2 (DCP 0) reads 1, 3, 5, 7 (DCP 1): 8 of 16 registrations.
  const auto dp = check_pair("--tp 8 --dp 4 --enable-dp-attention --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi);
  const auto dpf = with_rule(dp, "dcp-ranks");
  REQUIRE(dpf.size() == 1);
  CHECK(dpf[0]->evidence.at("registrations") == 16);
  CHECK(dpf[0]->evidence.at("mismatched_registrations") == 8);

  // NIXL raises it where it adds the decode as a remote peer.
  const auto nixl_result = check_pair("--tp 4 --dcp-size 2 --disaggregation-transfer-backend nixl",
                                      "--tp 2 --dcp-size 2 --disaggregation-transfer-backend nixl", k_kimi);
  const auto nixl = with_rule(nixl_result, "dcp-ranks");
  REQUIRE(nixl.size() == 1);
  CHECK(nixl[0]->where == "prefill: CommonKVManager.requires_dcp_relayout, from NixlKVManager._add_remote_peer");
}

TEST_CASE("DCP ranks: equal attention TP lines the DCP ranks up, and prefill DCP 1 is a relayout", "[check][dcp]")
{
  // TP 4 / DCP 2 on both sides: decode rank r registers with prefill rank r,
  // whose DCP rank r % 2 is its own.
  const auto same = check_pair("--tp 4 --dcp-size 2", "--tp 4 --dcp-size 2", k_kimi);
  CHECK(with_rule(same, "dcp-ranks").empty());
  CHECK(same.pairs.size() == 4);
  // Prefill DCP 1 -> decode DCP 2 at unequal TP: sizes differ, so
  // requires_dcp_relayout compares no ranks (a hybrid-MLA pool relays).
  CHECK(with_rule(check_pair("--tp 4", "--tp 2 --dcp-size 2", k_kimi), "dcp-ranks").empty());
  // A decode that refused first (non-MLA pool) never registers.
  const auto qwen = check_pair("--tp 4 --dcp-size 2", "--tp 2 --dcp-size 2", k_qwen);
  CHECK(with_rule(qwen, "dcp-ranks").empty());
  CHECK(with_rule(qwen, "bootstrap-dcp-kv-pool").size() == 1);
  // Before PR #32837 (0.5.16) the prefill compares no DCP ranks.
  CHECK(with_rule(check_pair("--tp 4 --dcp-size 2", "--tp 2 --dcp-size 2", k_kimi, "0.5.16"), "dcp-ranks").empty());
}
