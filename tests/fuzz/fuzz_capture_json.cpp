// Capture files: any text either parses or raises InputError (never anything
// else); what parses is decoded, and writing it back reads the same frames.

#include "io/capture_file.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  io::Capture capture;
  try {
    capture = io::parse_capture(text, "fuzz.json");
  } catch (const InputError&) {
    return 0;
  }
  const io::Capture again = io::parse_capture(io::capture_to_json(capture), "again.json");
  if (again.frames != capture.frames || again.backend != capture.backend || again.kind != capture.kind) {
    fuzz::invariant_broken("capture_to_json does not read back the same capture");
  }
  try {
    if (capture.kind == io::CaptureKind::registration) {
      io::registration_from_capture(capture);
    } else {
      io::transfer_info_from_capture(capture);
    }
  } catch (const InputError&) {
  }
  return 0;
}
