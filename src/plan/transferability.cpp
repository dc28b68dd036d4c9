#include "plan/transferability.hpp"

#include "core/profile.hpp"
#include "plan/extra_state.hpp"

#include <array>

namespace pdcheck::plan {

namespace {

struct BackendRow
{
  TransferBackend backend;
  const char* pull_request; ///< the PR that added the backend's state send
};

constexpr std::array<BackendRow, 3> k_backends = {{
  {TransferBackend::mooncake, "#10912"},
  {TransferBackend::nixl, "#16229"},
  {TransferBackend::mori, "#22665"},
}};

ComponentOutcome outcome(ExtraStateInput in, int prefill_attn_tp, int decode_attn_tp, int prefill_pp)
{
  in.prefill_attn_tp_size = prefill_attn_tp;
  in.decode_attn_tp_size = decode_attn_tp;
  in.prefill_pp_size = prefill_pp;
  ComponentOutcome out;
  if (const std::optional<SglangError> e = extra_state_error(in)) {
    out.raised = e->rendered();
    out.function = e->function;
  }
  return out;
}

} // namespace

Transferability transferability()
{
  Transferability t;
  const std::vector<const Profile*> releases = release_profiles();
  for (const BackendRow& row : k_backends) {
    MambaTransferStart start;
    start.backend = row.backend;
    start.pull_request = row.pull_request;
    for (const Profile* p : releases) {
      if (moves_mamba_state(*p, row.backend)) {
        start.first_release = p->name;
        start.confidence = p->confidence;
        break;
      }
    }
    t.mamba.push_back(start);
  }
  if (releases.empty()) {
    return t;
  }
  const Profile& newest = *releases.back();
  t.components_release = newest.name;
  for (const std::string& name : sglang::extra_state_type_names()) {
    for (const BackendRow& row : k_backends) {
      ExtraStateInput in;
      in.backend = row.backend;
      in.type = *sglang::parse_extra_state_type(name);
      in.hybrid_mla = false; // a model whose full attention is not MLA
      set_release_flags(in, newest);
      t.components.push_back(ComponentTransfer{in.type, row.backend, outcome(in, 2, 2, 1), outcome(in, 4, 2, 1),
                                               outcome(in, 2, 2, 2)});
    }
  }
  return t;
}

} // namespace pdcheck::plan
