// A model's config.json (the Hugging Face file an operator points --model at,
// multimodal wrappers included): any text becomes a model spec or one
// InputError naming the file; nothing else escapes, and an accepted model can
// be laid out at TP 1 or is refused with an InputError.

#include "io/model_loader.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  // load_model reads a path ending in config.json as the file itself.
  const std::string path = fuzz::input_file(data, size, "-config.json");
  try {
    const model::ModelSpec spec = io::load_model(path);
    if (spec.num_hidden_layers < 0) {
      fuzz::invariant_broken("a model with a negative layer count was accepted");
    }
  } catch (const InputError&) {
  }
  return 0;
}
