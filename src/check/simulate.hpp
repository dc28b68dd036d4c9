#pragma once

// Simulation: executes the copy Plans of every prefill rank that writes into one
// decode rank against the logical meaning of each byte, and accounts for every
// destination byte of the request's slot: written exactly once, by the right
// source byte, inside the slot. This is how silent corruption is found.

#include "plan/meaning.hpp"
#include "plan/plan.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace pdcheck::check {

/// The plan one prefill rank executes towards the decode rank under test.
struct Writer
{
  int prefill_rank = 0;
  int prefill_pp_rank = 0;
  const plan::RankMeaning* source = nullptr;
  const plan::PairPlan* plan = nullptr;
  std::int64_t src_slot = 0;
};

/// The first byte found in a given state, for the explanation.
struct ByteExample
{
  int dst_entry = 0;
  std::int64_t offset = 0; ///< within the decode slot of that entry
  int prefill_rank = -1;
  plan::LogicalByte expected;
  plan::LogicalByte got;
};

struct SimulationResult
{
  std::int64_t slot_bytes = 0;     ///< bytes of one decode slot, all entries
  std::int64_t correct = 0;        ///< written once with the right logical byte
  std::int64_t wrong = 0;          ///< written from the wrong logical element
  std::int64_t unwritten = 0;      ///< never written
  std::int64_t written_twice = 0;  ///< written more than once
  std::int64_t outside_slot = 0;   ///< written outside the request's decode slot
  std::int64_t wrong_source_slot = 0; ///< read from a prefill slot other than the request's
  std::optional<ByteExample> first_wrong;
  std::optional<ByteExample> first_unwritten;
  std::optional<ByteExample> first_outside;

  bool clean() const { return wrong == 0 && unwritten == 0 && written_twice == 0 && outside_slot == 0; }
};

SimulationResult simulate_decode_rank(const plan::RankMeaning& destination, std::int64_t dst_slot,
                                      const std::vector<Writer>& writers);

} // namespace pdcheck::check
