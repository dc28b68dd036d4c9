// The ZMTP parser of `pdcheck capture`: any byte stream either parses, is
// refused as not ZMTP, or fails with an error inside the bytes seen — and the
// outcome never depends on how the stream was cut into TCP segments (the first
// input byte picks a segment size, the stream is fed whole, in pieces and a
// byte at a time: one byte never holds a whole frame, so that feeding takes
// the byte-wise path alone, the reference for the whole-frame path).

#include "capture/zmtp.hpp"
#include "fuzz_common.hpp"

#include <algorithm>
#include <span>

namespace {

struct Outcome
{
  std::vector<pdcheck::capture::ZmtpMessage> messages;
  pdcheck::capture::ZmtpParser::State state;
  std::optional<pdcheck::capture::ZmtpError> error;
};

Outcome parse(std::span<const std::uint8_t> stream, std::size_t piece)
{
  pdcheck::capture::ZmtpParser p;
  Outcome o;
  const pdcheck::capture::ZmtpParser::Sink keep = [&o](const pdcheck::capture::ZmtpMessage& m) {
    o.messages.push_back(m);
  };
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    p.feed(stream.subspan(at, std::min(piece, stream.size() - at)), at / piece + 1, keep);
  }
  o.state = p.state();
  o.error = p.error();
  return o;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  if (size < 1) {
    return 0;
  }
  const std::size_t piece = 1 + data[0] % 97;
  const std::span<const std::uint8_t> stream(data + 1, size - 1);
  const Outcome whole = parse(stream, stream.size() + 1);
  for (const std::size_t size : {piece, std::size_t{1}}) {
    const Outcome cut = parse(stream, size);
    if (whole.state != cut.state || whole.messages.size() != cut.messages.size()) {
      fuzz::invariant_broken("the outcome depends on the segmentation");
    }
    for (std::size_t i = 0; i < whole.messages.size(); ++i) {
      if (whole.messages[i].frames != cut.messages[i].frames || whole.messages[i].offset != cut.messages[i].offset) {
        fuzz::invariant_broken("a message differs between whole and segmented feeding");
      }
    }
    if (whole.error.has_value() != cut.error.has_value() ||
        (whole.error && (cut.error->offset != whole.error->offset || cut.error->what != whole.error->what))) {
      fuzz::invariant_broken("the error depends on the segmentation");
    }
  }
  for (const auto& m : whole.messages) {
    if (m.frames.empty() || m.offset >= stream.size()) {
      fuzz::invariant_broken("an empty message, or one that starts outside the stream");
    }
  }
  if (whole.error && whole.error->offset >= stream.size()) {
    fuzz::invariant_broken("the error lies outside the stream");
  }
  return 0;
}
