// `pdcheck explain` on any log text: it never fails, and reading the text in
// two chunks split at a line boundary (as io/log_reader streams big files)
// finds exactly what reading it whole finds.

#include "check/log_explain.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  if (size < 2) {
    return 0;
  }
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const check::LogExplanation whole = check::explain_log_text(text, "fuzz.log");

  // Split after the first newline at or past a point the first byte picks.
  std::size_t split = text.find('\n', text.size() * data[0] / 256);
  split = split == std::string_view::npos ? text.size() : split + 1;
  check::LogScanner scanner("fuzz.log");
  scanner.feed(text.substr(0, split));
  scanner.feed(text.substr(split));
  check::LogExplanation chunked;
  scanner.finish(chunked);

  if (whole.matches.size() != chunked.matches.size() || whole.unrecognised.size() != chunked.unrecognised.size()) {
    fuzz::invariant_broken("chunked scan finds other entries than the whole scan");
  }
  for (std::size_t i = 0; i < whole.matches.size(); ++i) {
    if (whole.matches[i].lines != chunked.matches[i].lines) {
      fuzz::invariant_broken("chunked scan puts an entry on other lines");
    }
  }
  return 0;
}
