// Side files, YAML or JSON: any text becomes a side or one InputError naming
// the file (yaml-cpp's own exceptions, aliases, deep nesting and the --config
// and model paths they name included); nothing else escapes.

#include "io/side_file.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  const std::string path = fuzz::input_file(data, size, "-side.yaml");
  try {
    const sglang::Side side = io::load_side_file(path);
    if (side.args.tp_size < 1) {
      fuzz::invariant_broken("a side with TP size below 1 was accepted");
    }
  } catch (const InputError&) {
  }
  return 0;
}
