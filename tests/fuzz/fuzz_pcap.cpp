// pcap and pcapng files through libpcap and the capture analyzer (IP, TCP
// reassembly, ZMTP, message classification), as `pdcheck capture` reads them:
// any bytes give a report or one InputError naming the file; nothing else
// escapes.

#include "io/pcap_file.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  const std::string path = fuzz::input_file(data, size, ".pcap");
  capture::AnalyzerOptions options;
  std::size_t seen = 0;
  options.on_message = [&seen](const capture::FoundMessage&, const capture::FlowReport&, const wire::Frames& frames) {
    seen += frames.size();
  };
  try {
    (void)io::analyze_pcap(path, options);
  } catch (const InputError&) {
  }
  return 0;
}
