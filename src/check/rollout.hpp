#pragma once

// `pdcheck rollout` and `pdcheck matrix`, the pure half: sides launched
// otherwise (another SGLang release, other launch words, other environment),
// the mixed states a rolling upgrade passes through, the order that keeps
// every state working, and the one-word outcome of a checked pair.

#include "check/checker.hpp"
#include "check/triage.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pdcheck::check {

/// How a side is launched after a change. Words are appended to the side's own
/// launch words, so a flag given again wins as it does in argparse; a dropped
/// flag loses every occurrence and the values after it.
struct Relaunch
{
  std::optional<std::string> sglang;       ///< release or profile; nullopt: unchanged
  std::vector<std::string> add_words;      ///< "--tp-size", "4"
  std::vector<std::string> drop_flags;     ///< "--enable-unified-memory"
  std::map<std::string, std::string> env;  ///< SGLANG_MAMBA_SSM_DTYPE=float32
  std::vector<std::string> texts;          ///< the changes as written, for reports

  bool empty() const { return !sglang && add_words.empty() && drop_flags.empty() && env.empty(); }
};

/// Reads one `--change SIDE:SPEC`: SIDE is prefill, decode or both; SPEC is
/// launch words ("--tp-size 4", "--enable-unified-memory"), `!--FLAG` (drop the
/// flag), `NAME=VALUE` for an environment variable (upper case), or
/// `sglang=RELEASE`. Adds it to `prefill` and/or `decode`. Throws
/// InputError("--change", ...) naming what was expected.
void add_change(std::string_view text, Relaunch& prefill, Relaunch& decode);

/// `side` relaunched: its words re-read with the new release's launch parser.
/// Throws InputError("--change" or "--to", ...) for a release pdcheck does not
/// know or a value SGLang's parser would refuse.
sglang::Side relaunched(const sglang::Side& side, const Relaunch& change);

/// A checked pair in one word, worst first: a side cannot start, bytes land
/// silently wrong, SGLang raises at run time, or nothing that counts.
enum class Outcome { cannot_start, silent_corruption, runtime_error, compatible };
std::string_view outcome_name(Outcome o); ///< "cannot start", "silent corruption", ...
std::string_view outcome_key(Outcome o);  ///< "cannot_start", ... (JSON)

struct PairOutcome
{
  Outcome outcome = Outcome::compatible;
  std::string rule;    ///< the cause behind it; "" when compatible
  std::string message; ///< its message
};

/// The outcome of a triaged check: the worst kind among the shown causes that
/// reach `fail_on`.
PairOutcome outcome_of(const Triage& triage, Severity fail_on);

/// One state a rollout passes through.
struct RolloutState
{
  std::string name;     ///< "now", "decode first", "prefill first", "target"
  std::string pair;     ///< which prefill × decode pair, when a rollout has several; "" when one
  bool prefill_new = false;
  bool decode_new = false;
  CheckInput input;
};

/// The states from `now` to the change: now and target, and when both sides
/// change the two mixed states in between (old prefill × new decode while the
/// decodes go first, new prefill × old decode the other way round).
std::vector<RolloutState> rollout_states(const CheckInput& now, const Relaunch& prefill, const Relaunch& decode);

/// Which rolling order keeps every state working.
enum class RolloutOrder {
  either,        ///< every mixed state works
  decode_first,  ///< upgrade the decodes, then the prefills
  prefill_first, ///< upgrade the prefills, then the decodes
  one_side,      ///< only one side changes and the target works
  all_at_once,   ///< both mixed states fail: blue-green only
  unreachable,   ///< the target itself fails
};
std::string_view order_key(RolloutOrder o);
/// One line for the operator: "upgrade the decodes first, then the prefills".
std::string order_text(RolloutOrder o);

/// The order, from whether each state passes. With several pairs (pools) a
/// state works only when it works for every pair: a rolling update of the
/// decodes mixes every old prefill with every new decode.
RolloutOrder safe_order(const std::vector<RolloutState>& states, const std::vector<bool>& passes);

} // namespace pdcheck::check
