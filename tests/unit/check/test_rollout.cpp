// `pdcheck rollout` and `pdcheck matrix`: changes as written, sides launched
// otherwise, the order a rolling change may take (hand-worked tables), and
// matrix cells against `pdcheck check` on the same pair.

#include "check/matrix.hpp"
#include "check/rollout.hpp"
#include "check/suggest.hpp"
#include "io/model_loader.hpp"
#include "io/side_file.hpp"
#include "report/matrix_render.hpp"
#include "util/error.hpp"

#include "../../support/error_of.hpp"
#include "../../support/run_pdcheck.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <regex>

using namespace pdcheck;
using namespace pdcheck::check;

namespace {

sglang::Side side(const std::string& rel)
{
  return io::load_side_file(std::string(PDCHECK_SOURCE_DIR) + "/examples/" + rel);
}

std::string change_error(const std::string& text)
{
  Relaunch p;
  Relaunch d;
  return test::error_of([&] { add_change(text, p, d); });
}

} // namespace

TEST_CASE("rollout changes: launch words, removals, environment and releases, per side", "[check][rollout]")
{
  Relaunch p;
  Relaunch d;
  add_change("decode:--tp-size 4", p, d);
  add_change("both:!--enable-unified-memory", p, d);
  add_change("prefill:SGLANG_MAMBA_SSM_DTYPE=bfloat16", p, d);
  add_change("decode:sglang=0.5.21", p, d);
  CHECK(d.add_words == std::vector<std::string>{"--tp-size", "4"});
  CHECK(p.add_words.empty());
  CHECK(p.drop_flags == std::vector<std::string>{"--enable-unified-memory"});
  CHECK(d.drop_flags == p.drop_flags);
  CHECK(p.env == std::map<std::string, std::string>{{"SGLANG_MAMBA_SSM_DTYPE", "bfloat16"}});
  CHECK(d.sglang == "0.5.21");
  CHECK_FALSE(p.sglang);
  CHECK(d.texts == std::vector<std::string>{"--tp-size 4", "!--enable-unified-memory", "sglang=0.5.21"});

  CHECK(change_error("tp=4") ==
        "--change: 'tp=4': expected SIDE:CHANGE with SIDE prefill, decode or both (decode:--tp-size=4)");
  CHECK(change_error("decode:") ==
        "--change: 'decode:': nothing after SIDE:; expected launch words, !--FLAG, NAME=VALUE or sglang=RELEASE");
  CHECK(change_error("decode:!tp") == "--change: 'decode:!tp': expected !--FLAG, the flag to remove");
  CHECK(change_error("decode:tp_size=4") ==
        "--change: 'decode:tp_size=4': 'tp_size' is neither sglang nor an environment variable (upper case)");
  CHECK(change_error("decode:4") ==
        "--change: 'decode:4': expected launch words (--tp-size 4), !--FLAG, NAME=VALUE or sglang=RELEASE");
}

TEST_CASE("relaunched: the side's own words re-read with the change", "[check][rollout]")
{
  const sglang::Side d = side("pairs/unified-both-sides-works/decode.yaml");
  REQUIRE(d.args.enable_unified_memory);
  Relaunch r;
  r.add_words = {"--tp-size", "8"};
  r.drop_flags = {"--enable-unified-memory"};
  r.sglang = "0.5.12";
  r.texts = {"--tp-size 8", "!--enable-unified-memory", "sglang=0.5.12"};
  const sglang::Side n = relaunched(d, r);
  CHECK(n.args.tp_size == 8);
  CHECK_FALSE(n.args.enable_unified_memory);
  CHECK(n.profile.name == "0.5.12");
  CHECK(n.role == d.role);
  CHECK(n.model.name == d.model.name);
  CHECK(n.origin == d.origin + " (--tp-size 8, !--enable-unified-memory, sglang=0.5.12)");
  CHECK(n.args.given.at("tp_size").origin == "--change");

  Relaunch unknown;
  unknown.sglang = "9.9";
  CHECK(test::error_of([&] { relaunched(d, unknown); }).rfind("--change: sglang=9.9: ", 0) == 0);
}

TEST_CASE("safe_order: which rolling order keeps every state working", "[check][rollout]")
{
  auto named = [](std::vector<std::string> names, std::string pair = "") {
    std::vector<RolloutState> out;
    for (std::string& n : names) {
      out.push_back(RolloutState{std::move(n), pair, false, false, {}});
    }
    return out;
  };
  const auto four = named({"now", "decode first", "prefill first", "target"});
  const auto two = named({"now", "target"});
  // now, decode first, prefill first, target
  CHECK(safe_order(four, {true, true, true, true}) == RolloutOrder::either);
  CHECK(safe_order(four, {true, true, false, true}) == RolloutOrder::decode_first);
  CHECK(safe_order(four, {true, false, true, true}) == RolloutOrder::prefill_first);
  CHECK(safe_order(four, {true, false, false, true}) == RolloutOrder::all_at_once);
  CHECK(safe_order(four, {true, true, true, false}) == RolloutOrder::unreachable);
  // A fleet broken now can still be fixed by the rollout.
  CHECK(safe_order(four, {false, true, false, true}) == RolloutOrder::decode_first);
  CHECK(safe_order(two, {true, true}) == RolloutOrder::one_side);
  CHECK(safe_order(two, {true, false}) == RolloutOrder::unreachable);
  // Two pools: decodes first must work for both prefills.
  auto pools = named({"now", "decode first", "prefill first", "target"}, "P1");
  for (RolloutState& s : named({"now", "decode first", "prefill first", "target"}, "P2")) {
    pools.push_back(std::move(s));
  }
  CHECK(safe_order(pools, {true, true, false, true, true, true, false, true}) == RolloutOrder::decode_first);
  CHECK(safe_order(pools, {true, true, true, true, true, false, true, true}) == RolloutOrder::prefill_first);
  CHECK(safe_order(pools, {true, true, false, true, true, false, true, true}) == RolloutOrder::all_at_once);
}

TEST_CASE("rollout_states: now, the mixed states when both sides change, the target", "[check][rollout]")
{
  CheckInput now;
  now.prefill = side("rollout/lfm2-0.5.12/prefill.yaml");
  now.decode = side("rollout/lfm2-0.5.12/decode.yaml");
  Relaunch p;
  Relaunch d;
  CHECK(test::error_of([&] { rollout_states(now, p, d); }) ==
        "rollout: nothing changes: give --to, --prefill-to, --decode-to or --change");
  add_change("decode:--tp-size 1", p, d);
  auto states = rollout_states(now, p, d);
  REQUIRE(states.size() == 2);
  CHECK(states[1].input.decode.args.tp_size == 1);
  CHECK(states[1].input.prefill.args.tp_size == 2);

  add_change("both:sglang=0.5.20", p, d);
  states = rollout_states(now, p, d);
  REQUIRE(states.size() == 4);
  CHECK(states[1].name == "decode first");
  CHECK(states[1].input.prefill.profile.name == "0.5.12");
  CHECK(states[1].input.decode.profile.name == "0.5.20");
  CHECK(states[2].name == "prefill first");
  CHECK(states[2].input.prefill.profile.name == "0.5.20");
  CHECK(states[2].input.decode.profile.name == "0.5.12");
  // LFM2 0.5.12 -> 0.5.20: a 0.5.20 decode cannot pair a 0.5.12 prefill's
  // entries (layer-pairing), the other mixed state works.
  std::vector<bool> passes;
  for (const RolloutState& s : states) {
    passes.push_back(run_check(s.input).passes(Severity::error));
  }
  CHECK(passes == std::vector<bool>{true, false, true, true});
  CHECK(safe_order(states, passes) == RolloutOrder::prefill_first);
}

TEST_CASE("outcome_of: the worst shown cause that counts", "[check][rollout]")
{
  auto finding = [](const char* rule, FindingKind kind, Severity severity) {
    Finding f;
    f.rule = rule;
    f.kind = kind;
    f.severity = severity;
    f.message = std::string(rule) + " happened";
    return f;
  };
  FindingPolicy show_advice;
  show_advice.show_advice = true; // advice shown still never makes a cell fail
  const Triage t = triage({finding("a", FindingKind::transfer, Severity::error),
                           finding("b", FindingKind::silent_corruption, Severity::error),
                           finding("c", FindingKind::startup, Severity::warning),
                           finding("d", FindingKind::advice, Severity::error)},
                          show_advice);
  CHECK(outcome_of(t, Severity::error).outcome == Outcome::silent_corruption);
  CHECK(outcome_of(t, Severity::error).rule == "b");
  // With warnings counting, the side that cannot start is worst.
  CHECK(outcome_of(t, Severity::warning).outcome == Outcome::cannot_start);
  CHECK(outcome_of(Triage{}, Severity::error).outcome == Outcome::compatible);
}

TEST_CASE("matrix: each cell is what `pdcheck check` says of that pair", "[check][matrix]")
{
  MatrixRequest r;
  r.model = io::load_model("qwen3-next-80b-a3b");
  for (const char* v : {"0.5.11", "0.5.12"}) {
    r.releases.push_back(find_profile(v));
  }
  r.tp_sizes = {2};
  const Matrix m = build_matrix(r);
  REQUIRE(m.labels == std::vector<std::string>{"0.5.11", "0.5.12"});
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t d = 0; d < 2; ++d) {
      // The CLI builds its sides its own way (--prefill-args); the verdict and the first cause agree.
      const auto run = test::run_pdcheck(fmt::format(
        "check --isolated --format json --model qwen3-next-80b-a3b --prefill-sglang {} --decode-sglang {} "
        "--prefill-args '--tp 2 --disaggregation-mode prefill' --decode-args '--tp 2 --disaggregation-mode decode'",
        m.labels[p], m.labels[d]));
      const auto j = nlohmann::json::parse(run.out);
      const PairOutcome& o = m.at(p, d).outcome;
      INFO(m.labels[p] << " x " << m.labels[d]);
      CHECK((run.code == 0) == (o.outcome == Outcome::compatible));
      if (o.outcome != Outcome::compatible) {
        CHECK(j["findings"][0]["rule"] == o.rule);
      }
    }
  }
  CHECK(m.at(0, 1).outcome.rule == "layer-pairing");
  CHECK(m.at(1, 0).outcome.rule == "registration-generation");

  // The heat map holds one cell per pair, each with the outcome of the grid.
  const std::string svg = report::matrix_to_svg(m);
  const std::regex cell("<rect class=\"cell\"[^>]*data-prefill=\"([^\"]*)\" data-decode=\"([^\"]*)\" "
                        "data-outcome=\"([^\"]*)\" data-rule=\"([^\"]*)\"");
  std::size_t cells = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator(); ++it) {
    const auto& match = *it;
    const std::size_t p = match[1] == "0.5.11" ? 0 : 1;
    const std::size_t d = match[2] == "0.5.11" ? 0 : 1;
    CHECK(match[3] == std::string(outcome_key(m.at(p, d).outcome.outcome)));
    CHECK(match[4] == m.at(p, d).outcome.rule);
    ++cells;
  }
  CHECK(cells == 4);
  CHECK(report::matrix_to_html(m).find(svg) != std::string::npos);
}

TEST_CASE("suggestions: the single-side changes that make a pair work", "[check][rollout]")
{
  const std::vector<std::string> all = {"a", "b", "c", "d", "e"};
  CHECK(release_ranges({"c", "d", "e"}, all) == "c or later");
  CHECK(release_ranges({"b", "c"}, all) == "b to c");
  CHECK(release_ranges({"a", "c", "e"}, all) == "a, c and e");
  CHECK(release_ranges({"a", "b", "d", "e"}, all) == "a to b and d or later");
  CHECK(release_ranges({"e"}, all) == "e");
  CHECK(release_ranges({}, all).empty());

  // Nemotron-H at prefill TP 4 -> decode TP 1 corrupts the conv state in every
  // release; only equal attention TP works: the decode at 4 or the prefill at 1.
  CheckInput in;
  in.prefill = side("pairs/nemotron-hetero-tp-conv-corruption/prefill.yaml");
  in.decode = side("pairs/nemotron-hetero-tp-conv-corruption/decode.yaml");
  const auto s = suggestions(in, FindingPolicy{}, Severity::error);
  REQUIRE_FALSE(s.empty());
  for (const Suggestion& x : s) {
    for (const std::string& v : x.values) {
      // Each suggestion, applied, passes; the side as it is does not.
      CheckInput tried = in;
      Relaunch r;
      if (x.change == "tp_size") {
        r.add_words = {"--tp-size", v};
      } else {
        r.sglang = v;
      }
      sglang::Side& changed = x.side == "prefill" ? tried.prefill : tried.decode;
      changed = relaunched(changed, r);
      INFO(x.text << ": " << v);
      CHECK(run_check(tried).passes(Severity::error));
    }
  }
  REQUIRE(s.size() == 2);
  CHECK(s[0].text == "decode at TP 4 works");
  CHECK(s[1].text == "prefill at TP 1 works");
}

TEST_CASE("suggestions: candidates are judged under the operator's policy", "[check][rollout]")
{
  CheckInput in;
  in.prefill = side("pairs/nemotron-hetero-tp-conv-corruption/prefill.yaml");
  in.decode = side("pairs/nemotron-hetero-tp-conv-corruption/decode.yaml");
  // Without a policy only equal attention TP works (the test above). With the
  // corruption rule ignored, every decode TP that SGLang starts at counts too:
  // each candidate is judged as the pair is, not by its untriaged findings.
  FindingPolicy policy;
  policy.ignore = {"silent-wrong-bytes"};
  const auto s = suggestions(in, policy, Severity::error);
  REQUIRE_FALSE(s.empty());
  CHECK(s[0].side == "decode");
  CHECK(s[0].change == "tp_size");
  CHECK(s[0].values.size() > 1);
  for (const std::string& v : s[0].values) {
    CheckInput tried = in;
    tried.decode = relaunched(tried.decode, Relaunch{{}, {"--tp-size", v}, {}, {}, {}});
    INFO("decode at TP " << v);
    CHECK(triage(run_check(tried).findings, policy).passes(Severity::error));
    if (v != "4") {
      CHECK_FALSE(run_check(tried).passes(Severity::error));
    }
  }
}
