// plan::transferability: which state each backend moves, from the release
// table and from extra_state_error. Expected values worked out by hand from
// core/profile.cpp's rows and SGLang's texts (rendered from the catalog).
#include "plan/transferability.hpp"

#include "core/sglang_messages.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace pdcheck;
using sglang::ExtraStateType;

namespace {

const plan::ComponentTransfer& row(const plan::Transferability& t, ExtraStateType type, TransferBackend backend)
{
  const auto it = std::find_if(t.components.begin(), t.components.end(), [&](const plan::ComponentTransfer& c) {
    return c.type == type && c.backend == backend;
  });
  REQUIRE(it != t.components.end());
  return *it;
}

} // namespace

TEST_CASE("transferability: the first release whose backend sends the Mamba state", "[plan][transferability]")
{
  const plan::Transferability t = plan::transferability();
  REQUIRE(t.mamba.size() == 3);
  // Mooncake: PR #10912, first in 0.5.3.post3 (0.5.1 .. 0.5.3.post2 move KV only).
  CHECK(t.mamba[0].backend == TransferBackend::mooncake);
  CHECK(t.mamba[0].first_release == "0.5.3.post3");
  CHECK(t.mamba[0].pull_request == "#10912");
  // NIXL: PR #16229; the pre-dims rows up to 0.5.8.post1 have no NIXL state, 0.5.9 (flat) has.
  CHECK(t.mamba[1].first_release == "0.5.9");
  CHECK(t.mamba[1].confidence == "medium");
  // Mori: PR #22665, the 0.5.11 row (medium: merged two days after the tag).
  CHECK(t.mamba[2].first_release == "0.5.11");
  CHECK(t.mamba[2].confidence == "medium");
}

TEST_CASE("transferability: every state component on every backend, as the newest release handles it",
          "[plan][transferability]")
{
  const plan::Transferability t = plan::transferability();
  CHECK(t.components.size() == 3 * sglang::extra_state_type_names().size());
  CHECK(t.components_release == "0.5.23");
  // SWA on Mooncake: sent at equal TP and with a PP prefill; across unequal TP
  // a non-MLA model raises in maybe_send_extra with st.upper().
  const auto& swa = row(t, ExtraStateType::swa, TransferBackend::mooncake);
  CHECK_FALSE(swa.equal_tp.raised);
  CHECK_FALSE(swa.prefill_pp.raised);
  REQUIRE(swa.unequal_tp.raised);
  CHECK(*swa.unequal_tp.raised == render_delivered(MessageId::extra_state_unequal_tp, {{"state_type", "SWA"}}));
  CHECK(swa.unequal_tp.function == "maybe_send_extra");
  // Mori's SWA text names both TP sizes: 4 and 2.
  CHECK(*row(t, ExtraStateType::swa, TransferBackend::mori).unequal_tp.raised ==
        render_delivered(MessageId::mori_swa_unequal_tp, {{"prefill_attn_tp_size", 4}, {"decode_attn_tp_size", 2}}));
  // MiniMax index K: PP first. Mooncake after v0.5.20 says "state", Mori "sparse index".
  CHECK(*row(t, ExtraStateType::minimax_index_k, TransferBackend::mooncake).prefill_pp.raised ==
        render_delivered(MessageId::minimax_pp, {{"what", "state"}}));
  CHECK(*row(t, ExtraStateType::minimax_index_k, TransferBackend::mori).prefill_pp.raised ==
        render_delivered(MessageId::minimax_pp, {{"what", "sparse index"}}));
  // MiniMax dense KV: NIXL has no branch for it at all, even at equal TP.
  CHECK(*row(t, ExtraStateType::minimax_dense_kv, TransferBackend::nixl).equal_tp.raised ==
        render_delivered(MessageId::nixl_state_type_unsupported, {{"state_type", "minimax_dense_kv"}}));
}
