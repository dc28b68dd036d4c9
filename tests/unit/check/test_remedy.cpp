// The concrete change behind a pair finding: the settings that differ, where
// each side sets them, and the sentence an operator acts on; hand-checked
// against the example side files (their line numbers are in the files).
#include "check/remedy.hpp"

#include "io/side_file.hpp"

#include "../../support/checker_cases.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>

using namespace pdcheck;

namespace {

const std::string k_pairs = "examples/pairs/";

check::CheckInput example(const std::string& name)
{
  check::CheckInput in;
  in.prefill = io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/" + k_pairs + name + "/prefill.yaml");
  in.decode = io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/" + k_pairs + name + "/decode.yaml");
  return in;
}

std::string path(const std::string& pair, const std::string& side)
{
  return fmt::format("{}/{}{}/{}.yaml", PDCHECK_SOURCE_DIR, k_pairs, pair, side);
}

std::string file(const std::string& pair, const std::string& side, int line)
{
  return fmt::format("{}:{}", path(pair, side), line);
}

/// A flag's own position inside `args:` ("FILE:LINE:COL").
std::string flag_at(const std::string& pair, const std::string& side, int line, int column)
{
  return fmt::format("{}:{}:{}", path(pair, side), line, column);
}

} // namespace

TEST_CASE("remedy: unified memory on one side names both files and both ways out", "[check][remedy]")
{
  const check::CheckInput in = example("seed-mooncake-unified-one-side");
  const auto diffs = check::setting_diffs(in);
  REQUIRE(diffs.size() == 1); // same release, TP and dtypes: only the flag differs
  const std::string pair = "seed-mooncake-unified-one-side";
  // The decode's flag is on line 7 of its folded `args: >-` (the key is on
  // line 4); the prefill's args key is on line 7 (three comment lines first).
  const std::string flag = flag_at(pair, "decode", 7, 3);
  CHECK(diffs[0].change == flag + " sets --enable-unified-memory, the prefill does not: add it to " +
                             file(pair, "prefill", 7) + " or remove it from " + flag);
  const check::CheckResult r = check::run_check(in);
  REQUIRE(!r.findings.empty());
  const Finding& f = r.findings.front();
  CHECK(f.rule == "mooncake-layout-no-dims");
  CHECK(f.change == diffs[0].change);
  CHECK(f.evidence["settings"][0]["setting"] == "--enable-unified-memory");
  CHECK(f.evidence["settings"][0]["prefill"] == "off");
  CHECK(f.evidence["settings"][0]["decode"] == "on");
  // Annotations go to the line of the flag; the prefill does not set it, so only the decode has a place.
  REQUIRE(f.places.size() == 1);
  CHECK(f.places[0].side == "decode");
  CHECK(f.places[0].file == path(pair, "decode"));
  CHECK(f.places[0].line == 7);
  CHECK(f.places[0].column == 3);
}

TEST_CASE("remedy: values, defaults and dtypes", "[check][remedy]")
{
  const check::CheckInput page = example("page-size-mismatch");
  const auto diffs = check::setting_diffs(page);
  REQUIRE(diffs.size() == 1);
  const std::string pair = "page-size-mismatch";
  // 'args: "--tp 2 --page-size ...': the flag starts in column 15 of line 4 on both sides.
  CHECK(diffs[0].change == "the prefill runs --page-size 64 (" + flag_at(pair, "prefill", 4, 15) + "), the decode 16 (" +
                             flag_at(pair, "decode", 4, 15) + "): use one value on both sides");

  // The prefill leaves the SSM dtype at SGLang's default (float32); the decode passes --mamba-ssm-dtype bfloat16.
  const auto dtype = check::setting_diffs(example("ssm-dtype-mismatch-slot-size"));
  REQUIRE(dtype.size() == 1);
  CHECK(dtype[0].setting == "SSM state dtype");
  CHECK(dtype[0].prefill == "float32");
  CHECK(dtype[0].decode == "bfloat16");

  // Launch arguments on the command line: the places are the option strings; unset values are SGLang's defaults.
  check::CheckInput args;
  args.prefill = test::side(sglang::Role::prefill, "--tp 2", "0.5.20");
  args.decode = test::side(sglang::Role::decode, "--tp 4 --page-size 16", "0.5.19");
  const auto all = check::setting_diffs(args);
  REQUIRE(all.size() == 3);
  CHECK(all[0].change == "the prefill runs SGLang 0.5.20 (test), the decode 0.5.19 (test): run one release on both sides");
  CHECK(all[1].change == "the prefill's attention TP is 2 (--tp-size 2 at test), the decode's 4 (--tp-size 4 at test): "
                         "give both sides one attention TP size");
  CHECK(all[2].change == "the prefill runs --page-size 1 (SGLang's default) (test), the decode 16 (test): use one value "
                         "on both sides");
  // Only the settings a rule depends on are named with its findings.
  CHECK(check::diffs_for_rule("bootstrap-page-size", all).size() == 1);
  CHECK(check::diffs_for_rule("silent-wrong-bytes", all).size() == 2);
  CHECK(check::diffs_for_rule("startup-divisibility", all).empty());
}

TEST_CASE("remedy: a model sharded by the whole TP size names --tp-size, not the dtypes", "[check][remedy]")
{
  // Codestral-shaped pure Mamba2 (models/mamba2.py shards by get_parallel().tp_size):
  // prefill TP 4 with DP attention 2 (attention TP 2) against decode TP 2. The
  // attention TP sizes agree, but each prefill rank holds a quarter of the
  // heads and each decode rank a half.
  const std::string model = std::string(PDCHECK_SOURCE_DIR) + "/tests/data/models/mamba2-codestral";
  check::CheckInput in;
  in.prefill = test::side(sglang::Role::prefill, "--tp 4 --dp 2 --enable-dp-attention", "0.5.20", model);
  in.decode = test::side(sglang::Role::decode, "--tp 2", "0.5.20", model);
  const auto diffs = check::setting_diffs(in);
  REQUIRE(diffs.size() == 1);
  CHECK(diffs[0].setting == "attention TP");
  CHECK(diffs[0].change == "Mamba2ForCausalLM shards its state by the whole TP size, the prefill's 4 (--tp-size at "
                           "test), the decode's 2 (--tp-size at test): give both sides one --tp-size");
  const auto r = test::check_pair(in.prefill, in.decode);
  const auto slot = test::with_rule(r, "mooncake-slot-size");
  REQUIRE_FALSE(slot.empty());
  CHECK(slot[0]->change == diffs[0].change);
}

TEST_CASE("remedy: a side that cannot start names its flag and the TP sizes that start", "[check][remedy]")
{
  // Nemotron-H 8B has n_groups 8 and 128 Mamba heads (temporal (128, 64, 128) at
  // tp 1): attention TP must divide 8, and 1, 2, 4, 8 also divide 128; 16 cannot start.
  const std::string pair = "nemotron-tp16-cannot-start";
  const check::CheckResult r = check::run_check(example(pair));
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "startup-mamba-groups");
  CHECK(r.findings[0].change == flag_at(pair, "prefill", 4, 8) + " sets --tp 16; this model starts at attention TP 1, 2, 4, 8");
  REQUIRE(r.findings[0].places.size() == 1);
  CHECK(r.findings[0].places[0].side == "prefill");
  CHECK(r.findings[0].places[0].line == 4);
  CHECK(r.findings[0].places[0].column == 8);

  const check::CheckResult dcp = check::run_check(example("mori-dcp-startup"));
  const auto it = std::find_if(dcp.findings.begin(), dcp.findings.end(),
                               [](const Finding& f) { return f.rule == "startup-dcp-transfer"; });
  REQUIRE(it != dcp.findings.end());
  CHECK(it->change == flag_at("mori-dcp-startup", "decode", 6, 20) + " sets --dcp-size 2");
}
