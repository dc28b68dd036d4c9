#pragma once

// `pdcheck check`: SGLang's startup, bootstrap and state-transfer validations for
// one prefill/decode pair, in SGLang's order and with its exact messages, plus
// the Simulation of every pair's copy Plan.

#include "check/bootstrap.hpp"
#include "check/simulate.hpp"
#include "core/finding.hpp"
#include "model/layout.hpp"
#include "plan/plan.hpp"
#include "sglang/side.hpp"
#include "wire/bytes.hpp"
#include "wire/generation.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::check {

/// What a captured TransferInfo says about one request.
struct ObservedTransferInfo
{
  std::string origin;                 ///< capture file
  std::vector<int> state_index_counts; ///< dst_state_indices length per component
  bool dummy = false;
};

/// A decode rank's registration as captured on the wire (`pdcheck capture`,
/// `pdcheck encode`), standing in for the registration derived from the decode
/// side's configuration.
struct ObservedRegistration
{
  std::string origin;
  TransferBackend backend = TransferBackend::mooncake;
  wire::Frames frames;
};

struct CheckInput
{
  sglang::Side prefill;
  sglang::Side decode;
  /// When non-empty, only these decode ranks are checked, from their captured
  /// frames; the decode side then describes what is known of the decode server.
  std::vector<ObservedRegistration> decode_registrations;
  std::vector<ObservedTransferInfo> transfer_infos;
  /// The running prefill's bootstrap server, when pdcheck read it.
  std::optional<ObservedBootstrap> prefill_bootstrap;
  std::int64_t src_slot = 3;
  std::int64_t dst_slot = 5;
  /// Keep every pair's copy list in the result (`check --plan` prints one).
  /// Off, a list is dropped once its decode rank is simulated: on a 16k-rank
  /// fleet the lists would be most of the check's memory, and no report reads
  /// them. pair_plans always keeps them.
  bool keep_pair_copies = false;
};

/// One (prefill rank, decode rank) pair that talks, with its plan (whose copy
/// list is empty after run_check unless CheckInput::keep_pair_copies).
struct PairResult
{
  int prefill_rank = 0;
  int prefill_pp_rank = 0;
  int decode_rank = 0;
  int decode_pp_rank = 0;
  plan::PairPlan plan;
};

struct CheckResult
{
  model::Layout prefill_layout;
  model::Layout decode_layout;
  std::vector<PairResult> pairs;
  std::vector<Finding> findings;
  int simulated_decode_ranks = 0;
  std::int64_t simulated_bytes = 0;

  /// True when no finding reaches `threshold`.
  bool passes(Severity threshold) const;
};

CheckResult run_check(const CheckInput& input);

/// The copy plan of every (prefill rank, decode rank) pair that talks, as
/// run_check builds them but without the simulation and the advice: what the
/// probe executes for one request (`input.src_slot`, `dst_slot`, the
/// TransferInfo's index count). Empty when a side cannot start or the decode
/// refuses at bootstrap.
std::vector<PairResult> pair_plans(const CheckInput& input);

} // namespace pdcheck::check
