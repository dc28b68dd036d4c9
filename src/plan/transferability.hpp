#pragma once

// Whether SGLang can transfer each kind of recurrent state at all, per backend
// (issue 15 item 4): the first release whose backend sends the Mamba component
// (older ones move the KV cache only and leave the decode's state unwritten),
// and for every other state component a side may declare, what the newest
// modelled release does at equal attention TP, at unequal attention TP and
// with a two-stage prefill. Computed from the release table and from
// extra_state_error, the function the checker runs for every pair, so the
// listing cannot say something the check does not.

#include "core/transfer_backend.hpp"
#include "sglang/state_type.hpp"

#include <optional>
#include <string>
#include <vector>

namespace pdcheck::plan {

struct MambaTransferStart
{
  TransferBackend backend = TransferBackend::mooncake;
  std::string first_release; ///< "" when no modelled release sends it
  std::string pull_request;  ///< the SGLang PR that added the state send
  std::string confidence;    ///< the release row's confidence
};

/// One condition of one component on one backend: sends, or the exception.
struct ComponentOutcome
{
  std::optional<std::string> raised; ///< SGLang's "Class: text"; nullopt when it sends
  std::string function;              ///< the SGLang function that raises ("" when it sends)
};

struct ComponentTransfer
{
  sglang::ExtraStateType type = sglang::ExtraStateType::swa;
  TransferBackend backend = TransferBackend::mooncake;
  ComponentOutcome equal_tp;   ///< prefill and decode attention TP 2
  ComponentOutcome unequal_tp; ///< prefill attention TP 4, decode 2
  ComponentOutcome prefill_pp; ///< a two-stage prefill, attention TP 2 on both sides
};

struct Transferability
{
  std::vector<MambaTransferStart> mamba;
  std::string components_release; ///< the release whose code the component rows follow
  std::vector<ComponentTransfer> components;
};

/// The backends pdcheck models frames for: Mooncake, NIXL, Mori.
Transferability transferability();

} // namespace pdcheck::plan
