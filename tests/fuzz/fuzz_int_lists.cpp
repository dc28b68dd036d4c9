// pack_int_lists / unpack_int_lists: strict decoding must accept exactly what
// pack_int_lists writes, and SGLang's reading must never outgrow the input.

#include "fuzz_common.hpp"
#include "wire/int_lists.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck::wire;
  const ByteView frame(data, size);
  for (IntFormat f : {IntFormat::u64, IntFormat::u32}) {
    const Decoded<U64Lists> d = unpack_int_lists(frame, f);
    if (d.ok() != is_sane_int_lists(frame, format_width(f))) {
      pdcheck::fuzz::invariant_broken("strict verdict and is_sane_int_lists disagree");
    }
    if (d.ok()) {
      if (pack_int_lists(d.value, f) != Bytes(data, data + size)) {
        pdcheck::fuzz::invariant_broken("a strictly accepted frame does not re-pack to itself");
      }
      if (!d.sglang_value || *d.sglang_value != d.value || d.sglang.raises) {
        pdcheck::fuzz::invariant_broken("SGLang reads a well-formed frame differently");
      }
    }
    if (d.sglang_value) {
      std::size_t elements = 0;
      for (const auto& list : *d.sglang_value) {
        elements += list.size();
      }
      if (elements * format_width(f) > size) {
        pdcheck::fuzz::invariant_broken("SGLang's reading holds more bytes than the frame");
      }
    }
  }
  const Decoded<I32Lists> i = unpack_int_lists_i32(frame);
  if (i.ok() && pack_int_lists(i.value) != Bytes(data, data + size)) {
    pdcheck::fuzz::invariant_broken("a strictly accepted 'i' frame does not re-pack to itself");
  }
  return 0;
}
