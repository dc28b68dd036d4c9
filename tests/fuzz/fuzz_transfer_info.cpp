// TransferInfo decoders of the three backends: the first byte picks the
// backend, the rest are frames. Whatever strict decoding accepts must survive
// encode and decode again, and the verdict-only reading `pdcheck capture`
// classifies by must say exactly what the strict decode says.

#include "fuzz_common.hpp"
#include "wire/transfer_info.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck::wire;
  if (size == 0) {
    return 0;
  }
  const pdcheck::TransferBackend backend = k_wire_backends[data[0] % k_wire_backends.size()]; // mooncake, mori, nixl
  const Frames frames = pdcheck::fuzz::split_frames(data + 1, size - 1);
  const TransferInfoDecode strict = decode_transfer_info(backend, frames);
  const std::optional<Generation> verdict = transfer_info_verdict(backend, frames);
  if (verdict.has_value() != strict.transfer_info.has_value() ||
      (verdict && *verdict != strict.transfer_info->generation)) {
    pdcheck::fuzz::invariant_broken("the verdict-only reading disagrees with the strict decode");
  }
  for (std::optional<Generation> g :
       {std::optional<Generation>{}, std::optional<Generation>{Generation::flat},
        std::optional<Generation>{Generation::components}}) {
    for (DecodeMode mode : {DecodeMode::strict, DecodeMode::sglang}) {
      const TransferInfoDecode d = decode_transfer_info(backend, frames, g, mode);
      if (d.transfer_info.has_value() == d.problem.has_value()) {
        pdcheck::fuzz::invariant_broken("a decode must give a TransferInfo or a problem");
      }
      if (mode != DecodeMode::strict || !d.transfer_info) {
        continue;
      }
      const TransferInfo& t = *d.transfer_info;
      if (t.generation == Generation::flat && t.dst_state_indices.size() > 1) {
        pdcheck::fuzz::invariant_broken("a flat TransferInfo decoded into several components");
      }
      const TransferInfoDecode back = decode_transfer_info(backend, encode_transfer_info(t), t.generation);
      if (!back.transfer_info || back.transfer_info->is_dummy != t.is_dummy) {
        pdcheck::fuzz::invariant_broken("re-encoding a strictly decoded TransferInfo changed its dummy verdict");
      }
    }
  }
  return 0;
}
