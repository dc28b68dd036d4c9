#pragma once

// `pdcheck probe fleet`: which launcher ranks run a prefill end and which a
// decode end, which prefill x decode pairs are probed, and in which rounds.
// Pure: the plan file is read by io/fleet_plan_file, the pairs are run by
// probe/fleet_session.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace pdcheck::plan {

/// Ranks as a plan names them: "0-3,8", a YAML list of ranks, or "rest" (every
/// rank the other side does not name).
struct RankSpec
{
  bool rest = false;
  std::vector<std::pair<int, int>> ranges; ///< inclusive
  std::string where;                       ///< "plan.yaml:3:10", for errors
};

/// Parses "0-3,8" or "rest"; throws InputError at `where` on anything else.
RankSpec parse_rank_spec(const std::string& text, const std::string& where);

enum class PairChoice {
  all,    ///< every prefill rank with every decode rank
  sglang, ///< the attention-TP rank mapping SGLang's decode uses, for every instance pair
  listed, ///< the plan's own list
};

struct FleetPlan
{
  std::string origin;       ///< the plan file, for errors
  std::string prefill_side; ///< side file paths, resolved against the plan's folder
  std::string decode_side;
  RankSpec prefill_ranks;
  RankSpec decode_ranks;
  PairChoice pairs = PairChoice::all;
  std::vector<std::pair<int, int>> listed; ///< (prefill rank, decode rank) when pairs is listed
  std::string pairs_where;
  std::string coordinator; ///< "HOST:PORT", or empty: from the command line or the environment
};

/// The fleet ranks of each side, in rank order.
struct FleetRoles
{
  std::vector<int> prefill;
  std::vector<int> decode;
};

/// Resolves both rank specs for a fleet of `size` ranks. Throws InputError
/// naming the spec for a rank outside 0..size-1, a rank on both sides, two
/// "rest", or a side left with no rank.
FleetRoles resolve_roles(const FleetPlan& plan, int size);

struct FleetPair
{
  int prefill = 0; ///< fleet ranks
  int decode = 0;
};

/// The prefill attention-TP ranks a decode rank of attention-TP rank
/// `decode_tp_rank` reads from: SGLang's CommonKVReceiver.target_tp_ranks
/// (disaggregation/common/conn.py): one rank when the decode's attention TP is
/// the larger or equal, prefill_tp / decode_tp consecutive ranks otherwise.
std::vector<int> sglang_target_tp_ranks(int decode_tp_rank, int decode_attn_tp, int prefill_attn_tp);

/// A rank's decode-context-parallel rank: DCP groups are consecutive slices of a
/// TP group (distributed/parallel_state.py @ 0005973a), so tp_rank % dcp_size
/// (runtime_context.py @ 0099dee6); 0 without DCP.
constexpr int sglang_dcp_rank(int tp_rank, int dcp_size)
{
  return dcp_size > 1 ? tp_rank % dcp_size : 0;
}

/// The pairs to probe, in a stable order (prefill rank, then decode rank).
/// `sglang` treats every `attn_tp` consecutive ranks of a side as one instance
/// (attention-TP ranks 0..attn_tp-1) and pairs every prefill instance with
/// every decode instance the way SGLang maps their ranks. Throws InputError at
/// the plan's pairs for a side that is not whole instances or a listed pair whose
/// ranks are not on the sides they are named for.
std::vector<FleetPair> fleet_pairs(const FleetPlan& plan, const FleetRoles& roles, int prefill_attn_tp,
                                   int decode_attn_tp);

/// Rounds in which no rank takes part in two pairs, so each pair's bandwidth
/// is that of an idle pair of hosts: pair indices per round, greedily, each
/// pair in the first round where both its ranks are free.
std::vector<std::vector<std::size_t>> schedule_rounds(const std::vector<FleetPair>& pairs);

} // namespace pdcheck::plan
