// The side a probe end sends in its hello: the peer rebuilds the same model,
// so both ends lay the state out alike.
#include "probe/side_wire.hpp"

#include "io/side_file.hpp"
#include "model/layout.hpp"
#include "sglang/side_layout.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace pdcheck;

TEST_CASE("probe::side_wire: an RWKV-7 side round-trips with its fixed float32 state", "[probe]")
{
  // examples/models/rwkv7-defaults: 12 layers, hidden 768, 12 heads of 64.
  // The flag asks for a bfloat16 SSM; Rwkv7Config fixes float32 regardless.
  const std::string model = std::string(PDCHECK_SOURCE_DIR) + "/examples/models/rwkv7-defaults";
  const sglang::Side sent = io::side_from_args(
    sglang::Role::decode, "--tp 2 --mamba-ssm-dtype bfloat16 --disaggregation-mode decode", model, "0.5.20", {}, "test");
  const sglang::Side got = probe::side_from_json(probe::side_to_json(sent), sglang::Role::decode);
  CHECK(got.model.fixed_state_dtype == Dtype::float32);
  CHECK(got.model.replicated_conv_channels == 768);
  const model::Layout a = model::compute_layout(sglang::layout_input(sent));
  const model::Layout b = model::compute_layout(sglang::layout_input(got));
  CHECK(probe::layout_digest(a) == probe::layout_digest(b));
  // (768, 1) fp32 = 3072 bytes per shift; temporal (12/2, 64, 64) fp32 = 98304.
  REQUIRE(b.ranks.size() == 2);
  CHECK(b.ranks[0].tensors.at(0).item_len == 3072);
  CHECK(b.ranks[0].tensors.at(1).item_len == 3072);
  CHECK(b.ranks[0].tensors.at(2).item_len == 98304);
}
