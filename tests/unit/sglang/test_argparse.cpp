// argparse over one release's flag table, on made-up tables so every case is
// hand-checkable: abbreviations, ambiguity, missing values, the name argparse
// gives an option in its messages, and the choice of tables for a release.
#include "core/version.hpp"
#include "sglang/argparse.hpp"
#include "sglang/launch_flags.hpp"

#include <catch2/catch.hpp>

using namespace pdcheck;
using namespace pdcheck::sglang;

namespace {

// In registration order: two option strings of one add_argument, a switch, a
// list, and a deprecated alias of --model-path registered on its own further down.
constexpr const char* k_table =
  "# source: example/sglang python/sglang/srt/server_args.py @ 0123456789abcdef0123456789abcdef01234567 (made up)\n"
  "# confidence: medium (a test table)\n"
  "# columns: option<TAB>dest<TAB>nargs\n"
  "--model-path\tmodel_path\t1\n"
  "--model\tmodel_path\t1\n"
  "--pp-size\tpp_size\t1\n"
  "--pp-max-micro-batch-size\tpp_max_micro_batch_size\t1\n"
  "--trust-remote-code\ttrust_remote_code\t0\n"
  "--cuda-graph-bs\tcuda_graph_bs\t+\n"
  "--model-name-deprecated\tmodel_path\t1\n";

std::vector<ArgWord> words(std::initializer_list<const char*> list)
{
  std::vector<ArgWord> out;
  for (const char* w : list) {
    out.push_back(ArgWord{w, "argv[" + std::to_string(out.size()) + "]", false});
  }
  return out;
}

} // namespace

TEST_CASE("FlagTable: header, rows and argparse's lookup", "[sglang][args]")
{
  const FlagTable t("0.5.4", k_table);
  CHECK(t.name() == "0.5.4");
  CHECK(t.commit() == "0123456789abcdef0123456789abcdef01234567");
  CHECK(t.confidence() == "medium");
  CHECK(t.flags().size() == 7);
  CHECK(t.match("--model").kind == OptionMatch::Kind::exact); // exact beats being a prefix of --model-path
  const OptionMatch trust = t.match("--trust");
  CHECK(trust.kind == OptionMatch::Kind::abbreviation);
  CHECK(trust.flag->option == "--trust-remote-code");
  const OptionMatch pp = t.match("--pp");
  REQUIRE(pp.kind == OptionMatch::Kind::ambiguous);
  CHECK(pp.matches.size() == 2);
  CHECK(t.match("-t").kind == OptionMatch::Kind::unknown); // short options never abbreviate
  CHECK(t.match("--nope").kind == OptionMatch::Kind::unknown);
}

TEST_CASE("FlagTable::argparse_name joins one registration's strings, not a later alias", "[sglang][args]")
{
  const FlagTable t("0.5.4", k_table);
  const LaunchFlag& model = *t.match("--model").flag;
  CHECK(t.argparse_name(model) == "--model-path/--model");
  CHECK(t.argparse_name(*t.match("--model-name-deprecated").flag) == "--model-name-deprecated");
  CHECK(t.argparse_name(*t.match("--pp-size").flag) == "--pp-size");
}

TEST_CASE("argparse_outcome: the stop argparse reaches first, or the words it rejects", "[sglang][args]")
{
  const FlagTable t("0.5.4", k_table);
  SECTION("accepted")
  {
    const ArgparseOutcome o = argparse_outcome(t, words({"--model", "m", "--trust", "--cuda-graph-bs", "1", "2"}));
    CHECK_FALSE(o.stop);
    CHECK(o.unrecognized.empty());
  }
  SECTION("an ambiguous prefix stops before a missing value earlier on")
  {
    const ArgparseOutcome o = argparse_outcome(t, words({"--model-path", "--pp", "2"}));
    REQUIRE(o.stop);
    CHECK(o.stop->flag == "--pp");
    CHECK(o.stop->origin == "argv[1]");
    CHECK(o.message_id == MessageId::argparse_ambiguous);
    CHECK(o.message == render_message(MessageId::argparse_ambiguous,
                                      {{"option", "--pp"}, {"candidates", "--pp-size, --pp-max-micro-batch-size"}}));
  }
  SECTION("an ambiguous word is said as typed, spaces of a quoted value included")
  {
    // Found by fuzz_launch_args: `--pp='a b'` used to throw from the renderer.
    // argparse looks for an abbreviation before it treats a word with a space
    // as positional, so SGLang prints the whole word.
    const ArgparseOutcome o = argparse_outcome(t, words({"--pp=a b"}));
    REQUIRE(o.stop);
    CHECK(o.message == render_message(MessageId::argparse_ambiguous,
                                      {{"option", "--pp=a b"}, {"candidates", "--pp-size, --pp-max-micro-batch-size"}}));
  }
  SECTION("a missing value is named with every option string of its registration")
  {
    const ArgparseOutcome o = argparse_outcome(t, words({"--model", "--trust-remote-code"}));
    REQUIRE(o.stop);
    CHECK(o.message_id == MessageId::argparse_expected_one);
    CHECK(o.message == render_message(MessageId::argparse_expected_one, {{"flag", "--model-path/--model"}}));
  }
  SECTION("nargs + without a value, and a value given to a switch")
  {
    ArgparseOutcome o = argparse_outcome(t, words({"--cuda-graph-bs"}));
    CHECK(o.message_id == MessageId::argparse_expected_some);
    o = argparse_outcome(t, words({"--trust-remote-code=yes"}));
    CHECK(o.message_id == MessageId::argparse_ignored_value);
    CHECK(o.message == render_message(MessageId::argparse_ignored_value,
                                      {{"flag", "--trust-remote-code"}, {"value", "yes"}}));
  }
  SECTION("unknown flags with their values, stray words and everything after --")
  {
    const ArgparseOutcome o = argparse_outcome(t, words({"--mamba-ssm-dtpe", "bf16", "--trust", "stray", "--", "-x"}));
    CHECK_FALSE(o.stop);
    REQUIRE(o.unrecognized.size() == 4);
    CHECK(o.unrecognized[0].flag == "--mamba-ssm-dtpe");
    CHECK(o.unrecognized[1].flag == "bf16");
    CHECK(o.unrecognized[2].flag == "stray");
    CHECK(o.unrecognized[3].flag == "-x");
    CHECK(o.unrecognized[3].origin == "argv[5]");
  }
}

TEST_CASE("flag tables: releases in version order, main last, each with its provenance", "[sglang][args]")
{
  const std::vector<FlagTable>& tables = flag_tables();
  REQUIRE_FALSE(tables.empty());
  CHECK(tables.back().name() == "main");
  CHECK(&newest_flag_table() == &tables.back());
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const FlagTable& t = tables[i];
    INFO(t.name());
    CHECK(t.commit().size() == 40);
    CHECK((t.confidence() == "high" || t.confidence() == "medium" || t.confidence() == "low"));
    CHECK(t.flags().size() > 100);
    CHECK(t.match("--tp-size").kind == OptionMatch::Kind::exact);
    CHECK(t.match("--disaggregation-mode").kind == OptionMatch::Kind::exact);
    for (const LaunchFlag& f : t.flags()) {
      const bool known_nargs = f.nargs == "0" || f.nargs == "1" || f.nargs == "?" || f.nargs == "*" || f.nargs == "+";
      CHECK(known_nargs);
    }
    if (i + 1 < tables.size() - 1) {
      CHECK(release_before(*parse_version(t.name()), *parse_version(tables[i + 1].name())));
    }
    if (t.name() != "main") {
      REQUIRE(parse_version(t.name()));
    }
  }
}

TEST_CASE("flag_tables_for: the release's own table, else the nearest after with the nearest before", "[sglang][args]")
{
  const std::vector<FlagTable>& tables = flag_tables();
  for (std::size_t i = 0; i + 1 < tables.size(); ++i) {
    const FlagTableChoice own = flag_tables_for(tables[i].name());
    CHECK(own.exact);
    CHECK(own.table == &tables[i]);
    CHECK(own.before == nullptr);
    CHECK(flag_tables_for("v" + tables[i].name()).table == &tables[i]);
    // A post release of a table's release has no table of its own.
    const FlagTableChoice post = flag_tables_for(tables[i].name() + ".post9");
    CHECK_FALSE(post.exact);
    CHECK(post.before == &tables[i]);
    CHECK(post.table == &tables[i + 1]);
  }
  const FlagTableChoice generation = flag_tables_for("components");
  CHECK(generation.table == &newest_flag_table());
  CHECK(generation.before == nullptr);
  const FlagTableChoice ancient = flag_tables_for("0.1.0");
  CHECK(ancient.before == nullptr);
  CHECK(ancient.table == &tables.front());
}
