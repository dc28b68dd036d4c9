// Launch arguments judged with the flag list of the side's own release
// (src/sglang/data/launch_flags/): a release with its own table gets a
// verdict from it; one between two tables gets a verdict only when both agree,
// else an information finding quoting both. Expected candidates and presence
// of each flag were read from the .tsv files by hand (0.5.4: --pp-size,
// --pp-max-micro-batch-size; 0.5.9 adds --pp-async-batch-depth and has
// --disaggregation-decode-tp, which main dropped; --mamba-s is unique in 0.5.4,
// shared with --mamba-scheduler-strategy from 0.5.9 on).
#include "../../support/catalog_text.hpp"
#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using namespace pdcheck::test;

namespace {

std::string ambiguous(const std::string& option, const std::string& candidates)
{
  return render_delivered(MessageId::argparse_ambiguous, {{"option", option}, {"candidates", candidates}});
}

std::string unrecognized(const std::string& words)
{
  return render_delivered(MessageId::argparse_unrecognized, {{"words", words}});
}

} // namespace

TEST_CASE("a release with its own flag list: argparse's verdict from that list", "[check][args]")
{
  SECTION("0.5.4: --pp abbreviates two flags")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp 2", "0.5.4"),
                              side(sglang::Role::decode, "--tp 2", "0.5.4"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error == ambiguous("--pp", "--pp-size, --pp-max-micro-batch-size"));
    CHECK(found[0]->where == "prefill launch: argparse in prepare_server_args (exit status 2); flag list of SGLang "
                             "0.5.4 (server_args.py @ 913de6de, confidence low)");
    CHECK(found[0]->evidence["flag_table"] == "0.5.4");
    CHECK(with_rule(r, "startup-argparse-unconfirmed").empty());
  }
  SECTION("0.5.9: three candidates, in that release's order")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp 2", "0.5.9"),
                              side(sglang::Role::decode, "--tp 2", "0.5.9"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error ==
          ambiguous("--pp", "--pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"));
  }
  SECTION("0.5.4 has no --pp-async-batch-depth")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp-async-batch-depth 2", "0.5.4"),
                              side(sglang::Role::decode, "--tp 2", "0.5.4"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error == unrecognized("--pp-async-batch-depth 2"));
  }
  SECTION("an abbreviation is read as its release's argparse reads it")
  {
    // Unique in 0.5.4: SGLang 0.5.4 runs with bfloat16 SSM state.
    const sglang::Side old_side = side(sglang::Role::decode, "--tp 2 --mamba-s bfloat16", "0.5.4");
    CHECK(old_side.args.mamba_ssm_dtype == Dtype::bfloat16);
    CHECK(old_side.args.flag_table == "0.5.4");
    // Ambiguous in the newest list: a generation name is judged with it.
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2", "components"),
                              side(sglang::Role::decode, "--tp 2 --mamba-s bfloat16", "components"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error == ambiguous("--mamba-s", "--mamba-ssm-dtype, --mamba-scheduler-strategy"));
  }
}

TEST_CASE("a release between two flag lists: a verdict when they agree, information when not", "[check][args]")
{
  SECTION("both lists know every flag: no finding")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --page-size 16", "0.5.6"),
                              side(sglang::Role::decode, "--tp 2 --page-size 16", "0.5.6"));
    CHECK(with_rule(r, "startup-argparse").empty());
    CHECK(with_rule(r, "startup-argparse-unconfirmed").empty());
  }
  SECTION("both lists reject the flag: the error stands, naming both lists")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --mamba-ssm-dtpe bfloat16", "0.5.6"),
                              side(sglang::Role::decode, "--tp 2", "0.5.6"));
    const auto found = with_rule(r, "startup-argparse");
    REQUIRE(found.size() == 1);
    CHECK(*found[0]->runtime_error == unrecognized("--mamba-ssm-dtpe bfloat16"));
    CHECK(found[0]->where == "prefill launch: argparse in prepare_server_args (exit status 2); flag lists of SGLang "
                             "0.5.4 (server_args.py @ 913de6de, confidence low) and SGLang 0.5.9 (server_args.py @ "
                             "e3070d2a, confidence medium)");
  }
  SECTION("a flag added between the two lists")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp-async-batch-depth 2", "0.5.6"),
                              side(sglang::Role::decode, "--tp 2", "0.5.6"));
    CHECK(with_rule(r, "startup-argparse").empty());
    const auto found = with_rule(r, "startup-argparse-unconfirmed");
    REQUIRE(found.size() == 1);
    CHECK(found[0]->severity == Severity::info);
    CHECK(found[0]->message == "SGLang 0.5.6 may exit at launch: with 0.5.4's flag list argparse says \"" +
                                 unrecognized("--pp-async-batch-depth 2") +
                                 "\"; with 0.5.9's, it accepts the arguments");
    CHECK(found[0]->evidence["before"] == unrecognized("--pp-async-batch-depth 2"));
    CHECK(found[0]->evidence["after"] == "");
  }
  SECTION("a flag removed between the two lists")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --disaggregation-decode-tp 2", "0.5.15"),
                              side(sglang::Role::decode, "--tp 2", "0.5.15"));
    CHECK(with_rule(r, "startup-argparse").empty());
    const auto found = with_rule(r, "startup-argparse-unconfirmed");
    REQUIRE(found.size() == 1);
    CHECK(found[0]->message == "SGLang 0.5.15 may exit at launch: with 0.5.9's flag list argparse accepts the "
                               "arguments; with main's, it says \"" +
                                 unrecognized("--disaggregation-decode-tp 2") + "\"");
  }
  SECTION("two different ambiguities are a disagreement too")
  {
    const auto r = check_pair(side(sglang::Role::prefill, "--tp 2 --pp 2", "0.5.6"),
                              side(sglang::Role::decode, "--tp 2", "0.5.6"));
    const auto found = with_rule(r, "startup-argparse-unconfirmed");
    REQUIRE(found.size() == 1);
    CHECK(found[0]->evidence["before"] == ambiguous("--pp", "--pp-size, --pp-max-micro-batch-size"));
    CHECK(found[0]->evidence["after"] ==
          ambiguous("--pp", "--pp-size, --pp-max-micro-batch-size, --pp-async-batch-depth"));
  }
  SECTION("what the release profiles know settles --enable-unified-memory either way")
  {
    // 0.5.19: 0.5.9's list lacks the flag, but it arrived in 0.5.18 (#33362).
    auto r = check_pair(side(sglang::Role::prefill, "--tp 1 --enable-unified-memory", "0.5.19"),
                        side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.19"));
    CHECK(with_rule(r, "startup-argparse").empty());
    CHECK(with_rule(r, "startup-argparse-unconfirmed").empty());
    // 0.5.17: main's list has it, but 0.5.17 predates it.
    r = check_pair(side(sglang::Role::prefill, "--tp 1", "0.5.17"),
                   side(sglang::Role::decode, "--tp 1 --enable-unified-memory", "0.5.17"));
    CHECK(with_rule(r, "startup-argparse").size() == 1);
    CHECK(with_rule(r, "startup-argparse-unconfirmed").empty());
  }
}
