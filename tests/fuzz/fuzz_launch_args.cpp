// Launch-argument strings as --prefill-args and side files give them: any text
// splits into words or raises InputError, and any words parse with every
// release's flag table (argparse's prefixes, nargs, --config left unread) or
// raise InputError; nothing else escapes.

#include "core/profile.hpp"
#include "sglang/launch_flags.hpp"
#include "sglang/server_args.hpp"
#include "util/error.hpp"
#include "fuzz_common.hpp"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
  using namespace pdcheck;
  if (size == 0) {
    return 0;
  }
  // The first byte picks the release whose parser reads the words.
  const auto releases = release_profiles();
  const Profile& release = *releases[data[0] % releases.size()];
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::vector<std::string> words;
  try {
    words = sglang::split_command_line(text, "fuzz");
  } catch (const InputError&) {
    return 0;
  }
  try {
    const sglang::ServerArgs args = sglang::parse_launch_args(
      words, "fuzz", {{"SGLANG_MAMBA_SSM_DTYPE", "float32"}}, nullptr, ".", sglang::flag_tables_for(release.name).table);
    if (args.tp_size < 1 || args.pp_size < 1 || args.dp_size < 1) {
      fuzz::invariant_broken("a parallel size below 1 was accepted");
    }
  } catch (const InputError&) {
  }
  return 0;
}
