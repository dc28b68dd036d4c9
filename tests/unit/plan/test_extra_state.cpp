// Limits the prefill backends put on state components other than Mamba, and the
// DCP startup/topology rules, with SGLang's exact texts (rendered from the
// catalog with the expected values).
#include "check/checker.hpp"
#include "core/profile.hpp"
#include "io/side_file.hpp"
#include "plan/extra_state.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using sglang::ExtraStateType;

namespace {

std::string error_of(TransferBackend backend, ExtraStateType type, int p_tp, int d_tp, int pp = 1,
                     bool hybrid_mla = false)
{
  plan::ExtraStateInput in;
  in.backend = backend;
  in.type = type;
  in.prefill_attn_tp_size = p_tp;
  in.decode_attn_tp_size = d_tp;
  in.prefill_pp_size = pp;
  in.hybrid_mla = hybrid_mla;
  const auto e = plan::extra_state_error(in);
  return e ? e->rendered() + " [" + std::string(rule_id(e->rule)) + "]" : "";
}

/// What error_of gives for catalog row `id` with `args`, under `rule`.
std::string expected(MessageId id, MessageArgs args, RuleId rule)
{
  return render_delivered(id, args) + " [" + std::string(rule_id(rule)) + "]";
}

sglang::Side side(sglang::Role role, const std::string& args, std::vector<ExtraStateType> extra = {})
{
  const std::string mode = role == sglang::Role::prefill ? " --disaggregation-mode prefill" : " --disaggregation-mode decode";
  sglang::Side s = io::side_from_args(role, args + mode, "qwen3-next-80b-a3b", "0.5.20", {}, "test");
  s.extra_state_types = std::move(extra);
  return s;
}

std::vector<Finding> findings_with(const check::CheckResult& r, const std::string& rule)
{
  std::vector<Finding> out;
  for (const Finding& f : r.findings) {
    if (f.rule == rule) {
      out.push_back(f);
    }
  }
  return out;
}

} // namespace

TEST_CASE("extra state: state type names round-trip and unknown ones are refused", "[plan][extra-state]")
{
  for (const std::string& name : sglang::extra_state_type_names()) {
    const auto t = sglang::parse_extra_state_type(name);
    REQUIRE(t);
    CHECK(sglang::extra_state_type_name(*t) == name);
  }
  CHECK_FALSE(sglang::parse_extra_state_type("mamba"));
  CHECK_FALSE(sglang::parse_extra_state_type("SWA"));
}

TEST_CASE("extra state: Mooncake refuses page-indexed state across unequal TP unless MLA", "[plan][extra-state]")
{
  // SGLang names the state type by its StateType member name.
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::swa, 4, 2) ==
        expected(MessageId::extra_state_unequal_tp, {{"state_type", "SWA"}}, RuleId::extra_state_unequal_tp));
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::c128_state, 1, 2) ==
        expected(MessageId::extra_state_unequal_tp, {{"state_type", "C128_STATE"}}, RuleId::extra_state_unequal_tp));
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::dsa, 4, 2, 1, true).empty());
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::swa, 2, 2).empty());
}

TEST_CASE("extra state: only Mooncake from v0.5.20 lets a hybrid-MLA pool past the unequal-TP refusal",
          "[plan][extra-state]")
{
  // is_mla_backend is false for every hybrid pool (HybridLinearKVPool is not an
  // MLATokenToKVPool): NIXL's check and Mori's SWA check refuse Kimi-style
  // hybrid-MLA models too; Mooncake tests is_hybrid_mla_backend as well from
  // v0.5.20's code (0005973a), not at PR #32837's 1024c1db.
  CHECK(error_of(TransferBackend::nixl, ExtraStateType::dsa, 4, 2, 1, true) ==
        expected(MessageId::extra_state_unequal_tp, {{"state_type", "DSA"}}, RuleId::extra_state_unequal_tp));
  CHECK(error_of(TransferBackend::mori, ExtraStateType::swa, 4, 2, 1, true) ==
        expected(MessageId::mori_swa_unequal_tp, {{"prefill_attn_tp_size", 4}, {"decode_attn_tp_size", 2}},
                 RuleId::extra_state_unequal_tp));
  plan::ExtraStateInput in;
  in.type = ExtraStateType::swa;
  in.prefill_attn_tp_size = 4;
  in.decode_attn_tp_size = 2;
  in.hybrid_mla = true;
  plan::set_release_flags(in, *find_profile("0.5.19"));
  REQUIRE(plan::extra_state_error(in));
  CHECK(plan::extra_state_error(in)->rendered() ==
        render_delivered(MessageId::extra_state_unequal_tp, {{"state_type", "SWA"}}));
  plan::set_release_flags(in, *find_profile("0.5.20"));
  CHECK_FALSE(plan::extra_state_error(in));
  in.hybrid_mla = false; // an MHA/GQA pool is refused in every release
  CHECK(plan::extra_state_error(in));
}

TEST_CASE("extra state: MiniMax checks PP before TP", "[plan][extra-state]")
{
  // Mooncake words both MiniMax components "state"; Mori and NIXL say "sparse index".
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::minimax_dense_kv, 4, 2, 2) ==
        expected(MessageId::minimax_pp, {{"what", "state"}}, RuleId::extra_state_minimax));
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::minimax_index_k, 4, 2) ==
        expected(MessageId::minimax_tp, {{"what", "state"}}, RuleId::extra_state_minimax));
  CHECK(error_of(TransferBackend::mori, ExtraStateType::minimax_index_k, 2, 2, 2) ==
        expected(MessageId::minimax_pp, {{"what", "sparse index"}}, RuleId::extra_state_minimax));
  CHECK(error_of(TransferBackend::nixl, ExtraStateType::minimax_index_k, 2, 4) ==
        expected(MessageId::minimax_tp, {{"what", "sparse index"}}, RuleId::extra_state_minimax));
  CHECK(error_of(TransferBackend::mooncake, ExtraStateType::minimax_index_k, 2, 2).empty());
}

TEST_CASE("extra state: Mori checks TP for SWA only and does not know MiniMax dense KV", "[plan][extra-state]")
{
  CHECK(error_of(TransferBackend::mori, ExtraStateType::swa, 4, 2) ==
        expected(MessageId::mori_swa_unequal_tp, {{"prefill_attn_tp_size", 4}, {"decode_attn_tp_size", 2}},
                 RuleId::extra_state_unequal_tp));
  CHECK(error_of(TransferBackend::mori, ExtraStateType::dsa, 4, 2).empty());
  // Mori prints the state type's value (lower case), as the log PR #29756 quotes does.
  CHECK(error_of(TransferBackend::mori, ExtraStateType::minimax_dense_kv, 2, 2) ==
        expected(MessageId::unknown_state_type, {{"state_type", "minimax_dense_kv"}}, RuleId::extra_state_unsupported));
}

TEST_CASE("extra state: NIXL refuses a state type it has no path for", "[plan][extra-state]")
{
  // A bare {st} of the StateType member, rendered as Mori's is: the value.
  CHECK(error_of(TransferBackend::nixl, ExtraStateType::minimax_dense_kv, 2, 2) ==
        expected(MessageId::nixl_state_type_unsupported, {{"state_type", "minimax_dense_kv"}},
                 RuleId::extra_state_unsupported));
  CHECK(error_of(TransferBackend::nixl, ExtraStateType::swa_ring, 2, 1) ==
        expected(MessageId::extra_state_unequal_tp, {{"state_type", "SWA_RING"}}, RuleId::extra_state_unequal_tp));
}

TEST_CASE("extra state: what a release says and knows", "[plan][extra-state]")
{
  plan::ExtraStateInput in;
  in.prefill_attn_tp_size = 4;
  in.decode_attn_tp_size = 2;
  auto rendered = [&] {
    const auto e = plan::extra_state_error(in);
    return e ? e->rendered() : "";
  };
  // Before PR #25821 the DSA component was "nsa": st.upper() prints NSA.
  in.type = ExtraStateType::dsa;
  in.dsa_named_nsa = true;
  CHECK(rendered() == render_delivered(MessageId::extra_state_unequal_tp, {{"state_type", "NSA"}}));
  // Mori's allow-list was ("swa", "dsa", "swa_ring") until PR #29756.
  in.backend = TransferBackend::mori;
  in.type = ExtraStateType::minimax_index_k;
  in.decode_attn_tp_size = 4;
  in.mori_minimax_index_k = false;
  CHECK(rendered() == render_delivered(MessageId::unknown_state_type, {{"state_type", "minimax_index_k"}}));
  in.mori_minimax_index_k = true;
  CHECK(rendered().empty());
  // Mooncake says "sparse index" at 0005973a and "state" at 6d8ea7e3.
  in.backend = TransferBackend::mooncake;
  in.prefill_pp_size = 2;
  in.minimax_state_wording = false;
  CHECK(rendered() == render_delivered(MessageId::minimax_pp, {{"what", "sparse index"}}));
}

TEST_CASE("extra state: the release rows carry the state-type history", "[plan][extra-state][profiles]")
{
  // dsa_named_nsa: flat era and 0.5.12 (#25821 opened 2026-05-19); Mori's
  // minimax_index_k from 0.5.15 (#29756 merged 2026-07-02); Mooncake's "state"
  // wording after v0.5.20.
  CHECK(find_profile("0.5.11")->dsa_named_nsa);
  CHECK(find_profile("0.5.12.post1")->dsa_named_nsa);
  CHECK_FALSE(find_profile("0.5.13")->dsa_named_nsa);
  CHECK_FALSE(find_profile("0.5.14")->mori_minimax_index_k);
  CHECK(find_profile("0.5.15")->mori_minimax_index_k);
  CHECK_FALSE(find_profile("0.5.20")->minimax_state_wording);
  CHECK(find_profile("0.5.21")->minimax_state_wording);
  // Mori's state path (PR #22665) merged two days after 0.5.11's tag: the row
  // keeps it and says it is not confirmed.
  CHECK(find_profile("0.5.11")->confidence == "medium");
  CHECK(find_profile("0.5.11")->evidence.find("not confirmed") != std::string::npos);
}

TEST_CASE("check::run_check: an SWA component fails every pair at unequal TP after Mamba passes", "[check][extra-state]")
{
  check::CheckInput in;
  in.prefill = side(sglang::Role::prefill, "--tp 4", {ExtraStateType::swa});
  in.decode = side(sglang::Role::decode, "--tp 2", {ExtraStateType::swa});
  const auto r = check::run_check(in);
  const auto found = findings_with(r, "extra-state-unequal-tp");
  REQUIRE(found.size() == 4); // every prefill rank writes to one of the two decode ranks
  CHECK(*found[0].runtime_error == render_delivered(MessageId::extra_state_unequal_tp, {{"state_type", "SWA"}}));
  CHECK(found[0].where == "prefill: mooncake backend, maybe_send_extra");
  CHECK(r.simulated_decode_ranks == 0); // a failing transfer is not simulated

  in.prefill = side(sglang::Role::prefill, "--tp 4");
  in.decode = side(sglang::Role::decode, "--tp 2");
  const auto clean = check::run_check(in);
  CHECK(findings_with(clean, "extra-state-unequal-tp").empty());
  CHECK(clean.simulated_decode_ranks == 2);
}

TEST_CASE("check::run_check: a hybrid-MLA model's SWA state at unequal TP, release by release", "[check][extra-state]")
{
  // Kimi-Linear (KDA + MLA: is_hybrid_mla_backend) with an SWA component,
  // prefill TP 4 -> decode TP 2 over Mooncake: 0.5.19 refuses it on every
  // prefill rank, 0.5.20 (0005973a) lets it through.
  auto found = [](const std::string& release) {
    check::CheckInput in;
    in.prefill = io::side_from_args(sglang::Role::prefill, "--tp 4 --disaggregation-mode prefill",
                                    "kimi-linear-48b-a3b", release, {}, "test");
    in.decode = io::side_from_args(sglang::Role::decode, "--tp 2 --disaggregation-mode decode",
                                   "kimi-linear-48b-a3b", release, {}, "test");
    in.prefill.extra_state_types = {ExtraStateType::swa};
    in.decode.extra_state_types = {ExtraStateType::swa};
    return findings_with(check::run_check(in), "extra-state-unequal-tp");
  };
  const auto old_release = found("0.5.19");
  REQUIRE(old_release.size() == 4);
  CHECK(*old_release[0].runtime_error ==
        render_delivered(MessageId::extra_state_unequal_tp, {{"state_type", "SWA"}}));
  // Which release first has the exemption is not confirmed: releases after
  // PR #32837's branch say so; 0.5.16, before it, does not.
  CHECK(old_release[0].evidence.at("confidence") == "low");
  const auto before_dcp = found("0.5.16");
  REQUIRE(before_dcp.size() == 4);
  CHECK_FALSE(before_dcp[0].evidence.contains("confidence"));
  CHECK(found("0.5.20").empty());
}

TEST_CASE("check::run_check: a hybrid-MLA model's MiniMax state is refused at unequal TP with full confidence",
          "[check][extra-state]")
{
  // No release exempts MiniMax state from the unequal-TP check, MLA or not:
  // the low confidence of the SWA case above is not carried over.
  check::CheckInput in;
  in.prefill = io::side_from_args(sglang::Role::prefill, "--tp 4 --disaggregation-mode prefill", "kimi-linear-48b-a3b",
                                  "0.5.19", {}, "test");
  in.decode = io::side_from_args(sglang::Role::decode, "--tp 2 --disaggregation-mode decode", "kimi-linear-48b-a3b",
                                 "0.5.19", {}, "test");
  in.prefill.extra_state_types = {ExtraStateType::minimax_index_k};
  in.decode.extra_state_types = {ExtraStateType::minimax_index_k};
  const auto found = findings_with(check::run_check(in), "extra-state-minimax");
  REQUIRE(found.size() == 4);
  CHECK(*found[0].runtime_error == render_delivered(MessageId::minimax_tp, {{"what", "sparse index"}}));
  CHECK_FALSE(found[0].evidence.contains("confidence"));
}

TEST_CASE("check::run_check: --dcp-size with Mori is refused at startup with SGLang's text", "[check][dcp]")
{
  check::CheckInput in;
  in.prefill = side(sglang::Role::prefill, "--tp 2 --disaggregation-transfer-backend mori");
  in.decode = side(sglang::Role::decode, "--tp 2 --dcp-size 2 --disaggregation-transfer-backend mori");
  const auto found = findings_with(check::run_check(in), "startup-dcp-transfer");
  REQUIRE(found.size() == 1);
  CHECK(found[0].side == "decode");
  CHECK(*found[0].runtime_error ==
        render_delivered(MessageId::dcp_not_implemented, {{"manager", "MoriKVManager"}, {"dcp_size", 2}}));
  CHECK(found[0].where == "decode startup: CommonKVManager._check_dcp_compat (disaggregation/common/conn.py)");
}

TEST_CASE("check::run_check: DCP topologies without a relayout are findings", "[check][dcp]")
{
  auto topology = [](const std::string& p_dcp, const std::string& d_dcp) {
    check::CheckInput in;
    in.prefill = side(sglang::Role::prefill, "--tp 2 --dcp-size " + p_dcp);
    in.decode = side(sglang::Role::decode, "--tp 2 --dcp-size " + d_dcp);
    return findings_with(check::run_check(in), "dcp-topology");
  };
  CHECK(topology("1", "2").empty()); // DCP 1 -> N is supported
  CHECK(topology("2", "2").empty());
  const auto n_to_1 = topology("2", "1");
  REQUIRE(n_to_1.size() == 1);
  CHECK(n_to_1[0].message == "prefill --dcp-size 2 cannot be relaid out to decode --dcp-size 1");
  // Decode DCP 4 on this GQA model: the decode refuses first (bootstrap-dcp-kv-pool)
  // and never registers, so the prefill's relayout check is not reached.
  CHECK(topology("2", "4").empty());
  CHECK(findings_with(check::run_check([] {
                        check::CheckInput in;
                        in.prefill = side(sglang::Role::prefill, "--tp 2 --dcp-size 2");
                        in.decode = side(sglang::Role::decode, "--tp 2 --dcp-size 2");
                        return in;
                      }()),
                      "startup-dcp-transfer")
          .empty()); // Mooncake is DCP-aware
}

TEST_CASE("check::run_check: Mori pairs page-indexed state by position under a PP prefill", "[check][extra-state][pp]")
{
  // mori/conn.py @ 0094505d, _send_swa_dsa_state: source buffer i goes to the
  // decode's registered buffer i. Prefill PP 2 (Qwen3-Next's 48 layers: stages
  // of 24) against a PP 1 decode that registered all 48: stage 1 writes its
  // layers 24-47 into the decode's buffers 0-23. One finding per component.
  check::CheckInput in;
  in.prefill = side(sglang::Role::prefill, "--tp 2 --pp-size 2 --disaggregation-transfer-backend mori",
                    {ExtraStateType::swa, ExtraStateType::dsa});
  in.decode = side(sglang::Role::decode, "--tp 2 --disaggregation-transfer-backend mori",
                   {ExtraStateType::swa, ExtraStateType::dsa});
  const auto found = findings_with(check::run_check(in), "mori-state-pp-positional");
  REQUIRE(found.size() == 2);
  CHECK(found[0].message == "prefill PP 2 -> decode PP 1: Mori writes the swa state of prefill stages 1-1 into the "
                            "decode's first swa buffers, over stage 0's layers");
  CHECK(found[1].evidence.at("state_type") == "dsa");
  CHECK(found[0].evidence.at("misplaced_stages") == 1);
  CHECK(found[0].evidence.at("confidence") == "medium");
  CHECK(found[0].severity == Severity::error);
  CHECK(found[0].where == "prefill: mori backend, _send_swa_dsa_state");

  SECTION("a decode with the prefill's PP size pairs stage k with stage k")
  {
    in.decode = side(sglang::Role::decode, "--tp 2 --pp-size 2 --disaggregation-transfer-backend mori",
                     {ExtraStateType::swa});
    CHECK(findings_with(check::run_check(in), "mori-state-pp-positional").empty());
  }
  SECTION("Mooncake offsets by the stage's first layer")
  {
    in.prefill = side(sglang::Role::prefill, "--tp 2 --pp-size 2", {ExtraStateType::swa});
    in.decode = side(sglang::Role::decode, "--tp 2", {ExtraStateType::swa});
    CHECK(findings_with(check::run_check(in), "mori-state-pp-positional").empty());
  }
  SECTION("a component that raises first moves nothing: SWA at unequal TP, MiniMax with PP")
  {
    in.prefill = side(sglang::Role::prefill, "--tp 4 --pp-size 2 --disaggregation-transfer-backend mori",
                      {ExtraStateType::swa, ExtraStateType::dsa, ExtraStateType::minimax_index_k});
    const auto r = check::run_check(in);
    const auto left = findings_with(r, "mori-state-pp-positional");
    REQUIRE(left.size() == 1);
    CHECK(left[0].evidence.at("state_type") == "dsa"); // Mori checks TP for SWA alone
  }
}
