// Prefill context parallelism: how SGLang resolves --enable-prefill-cp and its
// deprecated spellings into a strategy (ServerArgs._handle_legacy_cp_arguments,
// server_args.py @ 001067ff), the launch refusal without one
// (_handle_context_parallelism), and the hook refusal under PD that pdcheck
// cannot place in a release (rule prefill-cp-pd-unconfirmed).
#include "check/checker.hpp"
#include "core/sglang_messages.hpp"
#include "sglang/server_args.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;

namespace {

sglang::PrefillCp resolved(const std::string& line)
{
  return sglang::resolve_prefill_cp(
    sglang::parse_launch_args(sglang::split_command_line(line, "test"), "test"));
}

check::CheckResult check_prefill(const std::string& prefill_args, const std::string& release = "0.5.20")
{
  return test::check_pair(test::side(sglang::Role::prefill, prefill_args, release),
                          test::side(sglang::Role::decode, "--tp 2", release));
}

} // namespace

TEST_CASE("sglang::resolve_prefill_cp: the deprecated flags turn CP on and give their mode's strategy", "[sglang][cp]")
{
  CHECK_FALSE(resolved("--tp 4").enabled);
  // The new spelling alone: on, and no strategy (SGLang then refuses to start).
  CHECK(resolved("--enable-prefill-cp").enabled);
  CHECK_FALSE(resolved("--enable-prefill-cp").strategy);
  CHECK(resolved("--enable-prefill-cp --cp-strategy interleave").strategy == "interleave");
  // --prefill-cp-mode defaults to in-seq-split, which maps to zigzag.
  CHECK(resolved("--enable-prefill-context-parallel").enabled);
  CHECK(resolved("--enable-prefill-context-parallel").strategy == "zigzag");
  // --dsa-prefill-cp-mode defaults to round-robin-split: interleave; the NSA
  // spellings are aliases of the DSA ones.
  CHECK(resolved("--enable-nsa-prefill-context-parallel").strategy == "interleave");
  CHECK(resolved("--enable-dsa-prefill-context-parallel --nsa-prefill-cp-mode in-seq-split").strategy == "zigzag");
  // Both deprecated flags: --enable-prefill-context-parallel's mode is read first.
  CHECK(resolved("--enable-prefill-context-parallel --enable-dsa-prefill-context-parallel").strategy == "zigzag");
  // An explicit --cp-strategy always wins.
  CHECK(resolved("--enable-prefill-context-parallel --cp-strategy interleave").strategy == "interleave");
  // A mode alone turns nothing on.
  CHECK_FALSE(resolved("--dsa-prefill-cp-mode in-seq-split").enabled);
}

TEST_CASE("check: --enable-prefill-cp without --cp-strategy stops the launch with SGLang's text", "[check][cp]")
{
  const check::CheckResult r = check_prefill("--tp 2 --enable-prefill-cp");
  const auto found = test::with_rule(r, "startup-cp-strategy");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->side == "prefill");
  CHECK(found[0]->severity == Severity::error);
  CHECK(*found[0]->runtime_error == render_delivered(MessageId::cp_strategy_missing, {}));
  CHECK(found[0]->where.find("ServerArgs._handle_context_parallelism (server_args.py @ "
                            "001067fffe33427bee0ed2f007fb7551a1d76b44") != std::string::npos);

  CHECK(test::with_rule(check_prefill("--tp 2 --enable-prefill-cp --cp-strategy zigzag"), "startup-cp-strategy").empty());
  CHECK(test::with_rule(check_prefill("--tp 2 --enable-prefill-context-parallel"), "startup-cp-strategy").empty());
  // A release whose flag list has no --enable-prefill-cp: argparse's finding, not this one.
  const auto old = check_prefill("--tp 2 --enable-prefill-cp", "0.5.4");
  CHECK(test::with_rule(old, "startup-cp-strategy").empty());
  CHECK_FALSE(test::with_rule(old, "startup-argparse").empty());
}

TEST_CASE("check: prefill CP under PD says which SGLang builds refuse it, with confidence unconfirmed", "[check][cp]")
{
  // tp 4 = attention TP 2 x attention CP 2: each prefill rank holds half the
  // heads, the same slice as the decode's TP 2 ranks.
  const auto r = check_prefill("--tp 4 --attn-cp-size 2 --enable-prefill-cp --cp-strategy zigzag");
  const auto found = test::with_rule(r, "prefill-cp-pd-unconfirmed");
  REQUIRE(found.size() == 1);
  CHECK(found[0]->severity == Severity::info);
  CHECK(found[0]->evidence["confidence"] == "unconfirmed");
  CHECK(found[0]->evidence["attn_cp_size"] == 2);
  CHECK(found[0]->message.find(render_message(MessageId::linear_attn_cp_pd, {})) != std::string::npos);
  CHECK(found[0]->message.find("shards the state over attention TP 2") != std::string::npos);
  CHECK(r.prefill_layout.attn_tp_size == 2);
  CHECK(r.passes(Severity::error));

  // No attention CP group, no CP: nothing to say.
  CHECK(test::with_rule(check_prefill("--tp 2 --enable-prefill-cp --cp-strategy zigzag"), "prefill-cp-pd-unconfirmed")
          .empty());
}
