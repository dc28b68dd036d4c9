// The probe's out-of-band messages as a peer sends them: a JSON text, gated by
// the depth and size limits recv_message applies, then read by the code both
// ends use: a hello's side description (as the prefill or the decode end
// rebuilds the peer's Side and lays it out) or a TransferInfo's per-rank
// entries (pp_rank, tp_rank, state_indices). A peer's message may only end in
// ProbeError (a handshake or transfer-info failure, exit 3) or a JSON type
// error, which both ends turn into a "malformed peer message" failure.

#include "fuzz_common.hpp"
#include "model/layout.hpp"
#include "probe/peer_fields.hpp"
#include "probe/probe_error.hpp"
#include "probe/side_wire.hpp"
#include "sglang/side_layout.hpp"
#include "util/json_limits.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  using namespace pdcheck::probe;
  if (size == 0) {
    return 0;
  }
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  // recv_message refuses these before parsing (tests/unit/probe/test_hostile_peer.cpp).
  const JsonShape shape = json_shape(text);
  if (shape.too_deep_at || shape.values > k_max_json_values) {
    return 0;
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return 0;
  }
  try {
    switch (data[0] % 3) {
    case 0:
    case 1: {
      const sglang::Role role = data[0] % 3 == 0 ? sglang::Role::prefill : sglang::Role::decode;
      const sglang::Side side = side_from_json(j, role);
      // What an end does next with the peer's side: lay it out and digest it.
      const model::Layout layout = model::compute_layout(sglang::layout_input(side));
      (void)layout_digest(layout);
      break;
    }
    default: {
      const nlohmann::json& per_rank = j.at("per_rank");
      if (!per_rank.is_array()) {
        break;
      }
      for (std::size_t i = 0; i < per_rank.size(); ++i) {
        const PeerObject rank(per_rank[i], fmt::format("the peer's transfer_info per_rank[{}]", i),
                              Phase::transfer_info);
        (void)rank.integer<int>("pp_rank");
        (void)rank.integer<int>("tp_rank");
        (void)rank.integers<std::int32_t>("state_indices");
      }
      break;
    }
    }
  } catch (const ProbeError&) {
    // a handshake or transfer-info failure naming the field
  } catch (const nlohmann::json::exception&) {
    // a malformed peer message
  }
  return 0;
}
