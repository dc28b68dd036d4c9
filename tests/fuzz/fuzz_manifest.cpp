// Kubernetes manifests, Helm values and srt-slurm recipes: any text yields
// the SGLang servers it holds (each turned into a side) or one InputError;
// nothing else escapes.

#include "io/manifest.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  const std::string path = fuzz::input_file(data, size, "-manifest.yaml");
  io::ManifestOptions options;
  options.model_ref = "qwen3-next-80b-a3b"; // so servers with an unreadable --model-path still become sides
  try {
    for (const io::ManifestServer& server : io::read_manifests({path}, options)) {
      try {
        (void)io::manifest_side(server, options);
      } catch (const InputError&) {
      }
    }
  } catch (const InputError&) {
  }
  return 0;
}
